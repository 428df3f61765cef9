// v2: sequential addressing. The stride starts at blockDim/2 and halves, and
// thread tid adds smem[tid + s] into smem[tid]: consecutive threads touch
// consecutive words, so no two lanes of a warp share a bank (seed 003 v2,
// seed 002).
#include "reduce_device.cuh"

namespace torch_reduce::cuda {
namespace {

template <int kBlock, typename AccT, typename InT, typename OutT>
__global__ void sum_v2_kernel(const InT* input, int64_t numel, OutT* output) {
  __shared__ AccT smem[kBlock];
  const unsigned tid = threadIdx.x;
  smem[tid] = load_or_zero<AccT>(input, int64_t(blockIdx.x) * blockDim.x + tid, numel);
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) smem[tid] += smem[tid + s];
    __syncthreads();
  }
  if (tid == 0) output[blockIdx.x] = static_cast<OutT>(smem[0]);
}

}  // namespace

template <typename InT>
void sum_v2(const SumArgs<InT>& args) {
  reduce_in_passes<tile_elements(2)>(
      args, [&](const auto* input, int64_t numel, auto* output, int64_t blocks) {
        sum_v2_kernel<kBlockSize, acc_t<InT>>
            <<<blocks, kBlockSize, 0, args.stream>>>(input, numel, output);
        C10_CUDA_KERNEL_LAUNCH_CHECK();
      });
}

TORCH_REDUCE_INSTANTIATE_LAUNCHER(sum_v2);

}  // namespace torch_reduce::cuda
