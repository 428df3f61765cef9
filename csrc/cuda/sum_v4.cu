// v4: unroll the last warp. Once 32 or fewer threads are active they all sit
// in warp 0, so the last six steps need no __syncthreads() and no loop; v3's
// load stays (seed 003 v4). The unroll carries the __syncwarp() fix described
// at warp_reduce_unrolled.
#include "reduce_device.cuh"

namespace torch_reduce::cuda {
namespace {

template <int kBlock, typename AccT, typename InT, typename OutT>
__global__ void sum_v4_kernel(const InT* input, int64_t numel, OutT* output) {
  static_assert(kBlock >= 64, "the unrolled last warp reads 64 partial sums");
  __shared__ AccT smem[kBlock];
  const unsigned tid = threadIdx.x;
  const int64_t index = int64_t(blockIdx.x) * (2 * blockDim.x) + tid;
  smem[tid] = load_or_zero<AccT>(input, index, numel) +
              load_or_zero<AccT>(input, index + blockDim.x, numel);
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > kWarpSize; s >>= 1) {
    if (tid < s) smem[tid] += smem[tid + s];
    __syncthreads();
  }
  if (tid < kWarpSize) warp_reduce_unrolled<64>(smem, tid);
  if (tid == 0) output[blockIdx.x] = static_cast<OutT>(smem[0]);
}

}  // namespace

template <typename InT>
void sum_v4(const SumArgs<InT>& args) {
  reduce_in_passes<tile_elements(4)>(
      args, [&](const auto* input, int64_t numel, auto* output, int64_t blocks) {
        sum_v4_kernel<kBlockSize, acc_t<InT>>
            <<<blocks, kBlockSize, 0, args.stream>>>(input, numel, output);
        C10_CUDA_KERNEL_LAUNCH_CHECK();
      });
}

TORCH_REDUCE_INSTANTIATE_LAUNCHER(sum_v4);

}  // namespace torch_reduce::cuda
