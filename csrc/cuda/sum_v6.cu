// v6: multiple adds per thread. Each block owns a contiguous run of
// elements_per_block elements and every thread accumulates a strided column of
// it (tid, tid + blockDim, ...) into its shared-memory slot before v5's
// unrolled tree (seed 000, "V7 multi add"). The grid is bounded at
// kV6MaxBlocks, so a second one-block launch sums the partials.
#include "reduce_device.cuh"

namespace torch_reduce::cuda {
namespace {

template <int kBlock, typename AccT, typename InT, typename OutT>
__global__ void sum_v6_kernel(const InT* input, int64_t numel, int64_t elements_per_block,
                              OutT* output) {
  __shared__ AccT smem[kBlock];
  const unsigned tid = threadIdx.x;
  const int64_t begin = int64_t(blockIdx.x) * elements_per_block;
  const int64_t end = begin + elements_per_block < numel ? begin + elements_per_block : numel;
  smem[tid] = AccT(0);
  for (int64_t index = begin + tid; index < end; index += kBlock) {
    smem[tid] += static_cast<AccT>(input[index]);
  }
  __syncthreads();
  block_reduce_unrolled<kBlock>(smem, tid);
  if (tid == 0) output[blockIdx.x] = static_cast<OutT>(smem[0]);
}

}  // namespace

template <typename InT>
void sum_v6(const SumArgs<InT>& args) {
  using AccT = acc_t<InT>;
  // As in the seed, a block's share is a multiple of the block size.
  const int64_t blocks_wanted = std::min(kV6MaxBlocks, ceil_div(args.numel, kBlockSize));
  const int64_t elements_per_block =
      ceil_div(ceil_div(args.numel, blocks_wanted), kBlockSize) * kBlockSize;
  const int64_t blocks = ceil_div(args.numel, elements_per_block);
  if (blocks == 1) {
    sum_v6_kernel<kBlockSize, AccT>
        <<<1, kBlockSize, 0, args.stream>>>(args.input, args.numel, args.numel, args.result);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return;
  }
  sum_v6_kernel<kBlockSize, AccT><<<blocks, kBlockSize, 0, args.stream>>>(
      args.input, args.numel, elements_per_block, args.workspace);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  sum_v6_kernel<kBlockSize, AccT><<<1, kBlockSize, 0, args.stream>>>(
      static_cast<const AccT*>(args.workspace), blocks, blocks, args.result);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

TORCH_REDUCE_INSTANTIATE_LAUNCHER(sum_v6);

}  // namespace torch_reduce::cuda
