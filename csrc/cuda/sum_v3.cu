// v3: first add during the global load. In v2 half the threads idle from the
// first step; here every thread loads two elements a block apart and adds
// them, so a block covers 2*blockDim elements (seed 003 v3).
#include "reduce_device.cuh"

namespace torch_reduce::cuda {
namespace {

template <int kBlock, typename AccT, typename InT, typename OutT>
__global__ void sum_v3_kernel(const InT* input, int64_t numel, OutT* output) {
  __shared__ AccT smem[kBlock];
  const unsigned tid = threadIdx.x;
  const int64_t index = int64_t(blockIdx.x) * (2 * blockDim.x) + tid;
  smem[tid] = load_or_zero<AccT>(input, index, numel) +
              load_or_zero<AccT>(input, index + blockDim.x, numel);
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) smem[tid] += smem[tid + s];
    __syncthreads();
  }
  if (tid == 0) output[blockIdx.x] = static_cast<OutT>(smem[0]);
}

}  // namespace

template <typename InT>
void sum_v3(const SumArgs<InT>& args) {
  reduce_in_passes<tile_elements(3)>(
      args, [&](const auto* input, int64_t numel, auto* output, int64_t blocks) {
        sum_v3_kernel<kBlockSize, acc_t<InT>>
            <<<blocks, kBlockSize, 0, args.stream>>>(input, numel, output);
        C10_CUDA_KERNEL_LAUNCH_CHECK();
      });
}

TORCH_REDUCE_INSTANTIATE_LAUNCHER(sum_v3);

}  // namespace torch_reduce::cuda
