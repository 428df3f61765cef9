// v0, the baseline: interleaved addressing. Thread tid adds at step s only when
// tid % (2s) == 0, so the active threads are scattered over every warp and
// each warp diverges (seed 003, "Reduce_v0_baseline").
#include "reduce_device.cuh"

namespace torch_reduce::cuda {
namespace {

template <int kBlock, typename AccT, typename InT, typename OutT>
__global__ void sum_v0_kernel(const InT* input, int64_t numel, OutT* output) {
  __shared__ AccT smem[kBlock];
  const unsigned tid = threadIdx.x;
  smem[tid] = load_or_zero<AccT>(input, int64_t(blockIdx.x) * blockDim.x + tid, numel);
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0) smem[tid] += smem[tid + s];
    __syncthreads();
  }
  if (tid == 0) output[blockIdx.x] = static_cast<OutT>(smem[0]);
}

}  // namespace

template <typename InT>
void sum_v0(const SumArgs<InT>& args) {
  reduce_in_passes<tile_elements(0)>(
      args, [&](const auto* input, int64_t numel, auto* output, int64_t blocks) {
        sum_v0_kernel<kBlockSize, acc_t<InT>>
            <<<blocks, kBlockSize, 0, args.stream>>>(input, numel, output);
        C10_CUDA_KERNEL_LAUNCH_CHECK();
      });
}

TORCH_REDUCE_INSTANTIATE_LAUNCHER(sum_v0);

}  // namespace torch_reduce::cuda
