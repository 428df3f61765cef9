// v1: no divergent branch. Thread tid works on index = 2*s*tid, so the active
// threads are the first blockDim/(2s) and whole warps retire together; the
// strided indices now make threads of one warp hit the same shared-memory
// banks (2-way at s=1, 4-way at s=2, ...) (seed 003 v1, seed 004).
#include "reduce_device.cuh"

namespace torch_reduce::cuda {
namespace {

template <int kBlock, typename AccT, typename InT, typename OutT>
__global__ void sum_v1_kernel(const InT* input, int64_t numel, OutT* output) {
  __shared__ AccT smem[kBlock];
  const unsigned tid = threadIdx.x;
  smem[tid] = load_or_zero<AccT>(input, int64_t(blockIdx.x) * blockDim.x + tid, numel);
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    const unsigned index = 2 * s * tid;
    if (index < blockDim.x) smem[index] += smem[index + s];
    __syncthreads();
  }
  if (tid == 0) output[blockIdx.x] = static_cast<OutT>(smem[0]);
}

}  // namespace

template <typename InT>
void sum_v1(const SumArgs<InT>& args) {
  reduce_in_passes<tile_elements(1)>(
      args, [&](const auto* input, int64_t numel, auto* output, int64_t blocks) {
        sum_v1_kernel<kBlockSize, acc_t<InT>>
            <<<blocks, kBlockSize, 0, args.stream>>>(input, numel, output);
        C10_CUDA_KERNEL_LAUNCH_CHECK();
      });
}

TORCH_REDUCE_INSTANTIATE_LAUNCHER(sum_v1);

}  // namespace torch_reduce::cuda
