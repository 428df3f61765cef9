// sum_v7 over outer dims: the innermost kept dim is contiguous, so the lanes
// of a warp take 32 neighbouring outputs (columns) and every load of the warp
// is one 128-byte line; the block's 8 warps take interleaved rows of the
// reduced dims, and blocks split the rows further when there are too few
// columns to fill the GPU. Covers sums over a batch, over H x W of a
// channels_last activation, over the middle dim of a 3-D tensor.
#include <c10/cuda/CUDAException.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include <climits>

#include "launch_policy.h"
#include "loads.cuh"
#include "problem.h"
#include "reduce.cuh"

namespace torch_reduce::cuda::v7 {
namespace {

constexpr int kBlock = 256;
// Strided offsets need more than 32 registers; 64 leaves half the threads
// resident, still far more loads in flight than the memory needs.
constexpr int kRegisters = 64;
constexpr int kRowLanes = kBlock / kWarpSize;
// A thread's rows per split are at least this many rounds of loads.
constexpr int64_t kMinRowsPerThread = 16;
// Each output's partials are summed by one thread: keep that short.
constexpr int64_t kMaxSplits = 64;

template <typename InT, typename OutT>
__global__ void __launch_bounds__(kBlock, min_blocks_per_sm<kBlock, kRegisters>())
    column_sum_kernel(ColumnProblem<InT, OutT> problem, int64_t column_blocks,
                      acc_t<InT>* partials, unsigned int* counter) {
  using AccT = acc_t<InT>;
  __shared__ AccT row_lane_sums[kRowLanes][kWarpSize + 1];
  const int column_lane = threadIdx.x % kWarpSize;
  const int row_lane = threadIdx.x / kWarpSize;
  const int64_t splits = gridDim.y;
  const int64_t rows = problem.reduced.numel();
  const int64_t outputs = problem.outer.numel() * problem.inner_outputs;
  for (int64_t unit = blockIdx.x; unit < problem.outer.numel() * column_blocks;
       unit += gridDim.x) {
    const int64_t outer = unit / column_blocks;
    const int64_t column = (unit % column_blocks) * kWarpSize + column_lane;
    AccT sum = AccT(0);
    if (column < problem.inner_outputs) {
      const InT* base = problem.input + problem.outer.offset(outer) + column;
      const int64_t last = rows * (blockIdx.y + 1) / splits;
#pragma unroll 4
      for (int64_t r = rows * blockIdx.y / splits + row_lane; r < last; r += kRowLanes) {
        sum += static_cast<AccT>(base[problem.reduced.offset(r)]);
      }
    }
    row_lane_sums[row_lane][column_lane] = sum;
    __syncthreads();
    if (row_lane == 0 && column < problem.inner_outputs) {
      for (int r = 1; r < kRowLanes; ++r) sum += row_lane_sums[r][column_lane];
      const int64_t output = outer * problem.inner_outputs + column;
      if (splits == 1) {
        problem.result[output] = static_cast<OutT>(sum);
      } else {
        partials[output * splits + blockIdx.y] = sum;
        __threadfence();  // published by thread 0's ticket below
      }
    }
    __syncthreads();
  }
  if (splits > 1) {
    finish_in_last_block<kBlock>(static_cast<const AccT*>(partials), outputs, splits,
                                 problem.result, counter);
  }
}

}  // namespace

template <typename InT, typename OutT>
void launch_column_sum(const ColumnProblem<InT, OutT>& problem, const Finish<acc_t<InT>>& finish,
                       const LaunchContext& context) {
  const auto kernel = column_sum_kernel<InT, OutT>;
  const int64_t column_blocks = ceil_div(problem.inner_outputs, kWarpSize);
  const int64_t column_units = problem.outer.numel() * column_blocks;
  const int64_t outputs = problem.outer.numel() * problem.inner_outputs;
  const int64_t wave = one_wave(kernel, kBlock, context.device, context.sm_count);
  const int64_t rows_per_thread = ceil_div(problem.reduced.numel(), kRowLanes);
  const int64_t splits = split_count(
      column_units, std::max<int64_t>(1, rows_per_thread / kMinRowsPerThread), wave,
      std::clamp<int64_t>(finish.partials_capacity / outputs, 1, kMaxSplits));
  const dim3 grid(std::min<int64_t>(column_units, INT_MAX), splits);
  kernel<<<grid, kBlock, 0, context.stream>>>(problem, column_blocks, finish.partials,
                                              finish.counter);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  finish_in_second_launch_if_needed<kBlock>(finish, outputs, splits, problem.result,
                                            context.stream);
}

#define INSTANTIATE(InT, OutT)                                                       \
  template void launch_column_sum<InT, OutT>(const ColumnProblem<InT, OutT>&,        \
                                             const Finish<acc_t<InT>>&, const LaunchContext&);
TORCH_REDUCE_V7_FOR_EACH_TYPE_PAIR(INSTANTIATE)
#undef INSTANTIATE

}  // namespace torch_reduce::cuda::v7
