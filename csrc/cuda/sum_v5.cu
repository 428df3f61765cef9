// v5: completely unrolled. With the block size a template parameter, every
// step of the tree, the shared-memory steps included, is fixed at compile
// time: no loop counter, no runtime blockDim (seed 003 v5, seed 001).
#include "reduce_device.cuh"

namespace torch_reduce::cuda {
namespace {

template <int kBlock, typename AccT, typename InT, typename OutT>
__global__ void sum_v5_kernel(const InT* input, int64_t numel, OutT* output) {
  __shared__ AccT smem[kBlock];
  const unsigned tid = threadIdx.x;
  const int64_t index = int64_t(blockIdx.x) * (2 * kBlock) + tid;
  smem[tid] =
      load_or_zero<AccT>(input, index, numel) + load_or_zero<AccT>(input, index + kBlock, numel);
  __syncthreads();
  block_reduce_unrolled<kBlock>(smem, tid);
  if (tid == 0) output[blockIdx.x] = static_cast<OutT>(smem[0]);
}

}  // namespace

template <typename InT>
void sum_v5(const SumArgs<InT>& args) {
  reduce_in_passes<tile_elements(5)>(
      args, [&](const auto* input, int64_t numel, auto* output, int64_t blocks) {
        sum_v5_kernel<kBlockSize, acc_t<InT>>
            <<<blocks, kBlockSize, 0, args.stream>>>(input, numel, output);
        C10_CUDA_KERNEL_LAUNCH_CHECK();
      });
}

TORCH_REDUCE_INSTANTIATE_LAUNCHER(sum_v5);

}  // namespace torch_reduce::cuda
