// sum_v7 over contiguous memory (and any dense layout, whose storage span is
// contiguous): many elements per thread, warp-shuffle block sums (seed 003,
// "Reduce_v7_shuffle"), 16-byte loads with a scalar head and tail for
// misaligned pointers, and one launch. A few long rows (sums over the last
// dim of a small batch) are that many such sums side by side: blockIdx.y
// picks the row, and each row finishes on its own counter. Three launch
// shapes by size, from the graph-mode sweep in benchmarks/NOTES.md:
//  - one block, of as few warps as cover the input in one or two rounds of
//    loads, with 32-bit indices: no second stage at all;
//  - mid sizes: just enough 512-thread blocks that each thread has one
//    round of loads in flight, finished by the last block to arrive;
//  - large sizes: one wave of 1024-thread blocks striding over everything.
#include <c10/cuda/CUDAException.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include "launch_policy.h"
#include "loads.cuh"
#include "problem.h"
#include "reduce.cuh"

namespace torch_reduce::cuda::v7 {
namespace {

// This thread's share of input[0, numel): one of `num_threads` threads
// striding over whole vectors with kUnroll loads in flight, plus at most one
// head and one tail element.
template <typename AccT, int kUnroll, L2Fill kFill, typename InT>
__device__ __forceinline__ AccT thread_sum(const InT* input, int64_t numel, int64_t thread_index,
                                           int64_t num_threads) {
  constexpr int kVec = kElementsPerVector<InT>;
  const auto misalignment = reinterpret_cast<uintptr_t>(input) % kVectorBytes;
  const int64_t head =
      misalignment == 0 ? 0 : std::min<int64_t>(numel, (kVectorBytes - misalignment) / sizeof(InT));
  const int64_t num_vectors = (numel - head) / kVec;
  const int64_t tail_begin = head + num_vectors * kVec;

  AccT sum = AccT(0);
  if (thread_index < head) sum += static_cast<AccT>(input[thread_index]);
  if (thread_index < numel - tail_begin) sum += static_cast<AccT>(input[tail_begin + thread_index]);

  const Vector<InT>* next = reinterpret_cast<const Vector<InT>*>(input + head) + thread_index;
  // Fits 32 bits: a tensor has fewer than 2^31 * num_threads vectors. A
  // pointer walk and a count-down keep the 1024-thread shape in 32 registers.
  int remaining =
      thread_index < num_vectors ? int(ceil_div(num_vectors - thread_index, num_threads)) : 0;
  for (; remaining >= kUnroll; remaining -= kUnroll, next += kUnroll * num_threads) {
    Vector<InT> batch[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) batch[u] = load_streaming<kFill>(next + u * num_threads);
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) sum += vector_sum<AccT>(batch[u]);
  }
  // The last, partial round has its loads in flight together too: one load
  // at a time waits a memory latency per load.
  Vector<InT> batch[kUnroll];
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) {
    if (u < remaining) batch[u] = load_streaming<kFill>(next + u * num_threads);
  }
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) {
    if (u < remaining) sum += vector_sum<AccT>(batch[u]);
  }
  return sum;
}

// A launch shape: threads per block, loads in flight per thread, and how
// those loads fill L2.
template <int kThreads, int kLoadsInFlight, L2Fill kFill>
struct LaunchShape {
  static constexpr int kBlock = kThreads;
  static constexpr int kUnroll = kLoadsInFlight;
  static constexpr L2Fill kL2Fill = kFill;
};
// The mid sizes' blocks: 512 threads, 4 loads in flight each, 256-byte L2
// lines.
using SmallShape = LaunchShape<512, 4, L2Fill::k256ByteLines>;
// Large sizes: 1024 threads, 2 loads each (within 32 registers, no spills);
// every multiprocessor streams, so L2's default fill (see L2Fill).
using LargeShape = LaunchShape<1024, 2, L2Fill::kDefault>;

// The one-block shape: up to kOneBlockThreads threads with kLoadsPerRound
// loads in flight each, for one or two rounds. The general kernel's 64-bit
// index arithmetic, count-down loop and finish made it run 2.5x the
// instructions of Inductor's one-block kernel, and 0.6 us longer
// (benchmarks/NOTES.md); one block never sees 2^31 elements.
constexpr int kOneBlockThreads = 512;
constexpr int kLoadsPerRound = 4;
constexpr int kOneBlockRounds = 2;
constexpr int64_t kOneBlockMaxVectors =
    int64_t(kOneBlockThreads) * kLoadsPerRound * kOneBlockRounds;

// One round: the sum of vectors[thread + u * stride] for u < kLoadsPerRound,
// those below `count` (at least 1). Every thread loads all of its vectors,
// those past `count` from the last one, so that the loads are one straight
// run: predicated loads let nvcc 13 start summing the first before issuing the
// last (two memory latencies instead of one, at fp32).
template <typename AccT, typename InT>
__device__ __forceinline__ AccT round_sum(const Vector<InT>* vectors, int count, int thread,
                                          int stride) {
  Vector<InT> batch[kLoadsPerRound];
#pragma unroll
  for (int u = 0; u < kLoadsPerRound; ++u) {
    batch[u] = load_streaming<L2Fill::kDefault>(vectors + min(thread + u * stride, count - 1));
  }
  AccT sum = AccT(0);
#pragma unroll
  for (int u = 0; u < kLoadsPerRound; ++u) {
    if (thread + u * stride < count) sum += vector_sum<AccT>(batch[u]);
  }
  return sum;
}

// Block r sums row r.
template <typename InT, typename OutT>
__global__ void __launch_bounds__(kOneBlockThreads)
    one_block_sum_kernel(const InT* rows, int numel, int64_t row_stride, OutT* results) {
  using AccT = acc_t<InT>;
  const InT* input = rows + blockIdx.x * row_stride;
  constexpr int kVec = kElementsPerVector<InT>;
  const int misalignment = int(reinterpret_cast<uintptr_t>(input) % kVectorBytes / sizeof(InT));
  const int head = misalignment == 0 ? 0 : min(numel, kVec - misalignment);
  const int num_vectors = (numel - head) / kVec;
  const int tail_begin = head + num_vectors * kVec;
  const int thread = threadIdx.x;
  const int threads = blockDim.x;

  // Read before the vectors, added after them: an add that waits for a
  // scalar load would hold back the vector loads behind it.
  const InT head_element = thread < head ? input[thread] : InT(0);
  const InT tail_element = thread < numel - tail_begin ? input[tail_begin + thread] : InT(0);
  const auto* vectors = reinterpret_cast<const Vector<InT>*>(input + head);
  AccT sum = num_vectors > 0 ? round_sum<AccT>(vectors, num_vectors, thread, threads) : AccT(0);
  const int second_round = kLoadsPerRound * threads;
  if (num_vectors > second_round) {
    sum += round_sum<AccT>(vectors + second_round, num_vectors - second_round, thread, threads);
  }
  sum += static_cast<AccT>(head_element) + static_cast<AccT>(tail_element);
  sum = sum_over_warps<kOneBlockThreads / kWarpSize>(sum, threads / kWarpSize);
  if (thread == 0) results[blockIdx.x] = static_cast<OutT>(sum);
}

// Whole warps, as few as give each thread one round of loads, up to kOneBlockThreads.
int one_block_threads(int64_t vectors) {
  const int64_t warps = ceil_div(ceil_div(vectors, int64_t(kLoadsPerRound)), int64_t(kWarpSize));
  return int(std::clamp<int64_t>(warps * kWarpSize, kWarpSize, kOneBlockThreads));
}

template <typename Shape, typename InT, typename OutT>
__global__ void __launch_bounds__(Shape::kBlock, min_blocks_per_sm<Shape::kBlock>())
    contiguous_sum_kernel(ContiguousProblem<InT, OutT> problem, acc_t<InT>* partials,
                          uint64_t* mailboxes, unsigned int* counter) {
  using AccT = acc_t<InT>;
  constexpr int kBlock = Shape::kBlock;
  const int64_t row = blockIdx.y;
  OutT* result = problem.result + row;
  const AccT block_total = block_sum<kBlock>(thread_sum<AccT, Shape::kUnroll, Shape::kL2Fill>(
      problem.input + row * problem.row_stride, problem.numel,
      int64_t(blockIdx.x) * kBlock + threadIdx.x, int64_t(gridDim.x) * kBlock));
  if (gridDim.x == 1) {  // one block a row (a one-multiprocessor GPU): no partials
    if (threadIdx.x == 0) *result = static_cast<OutT>(block_total);
    return;
  }
  if constexpr (kFitsMailbox<AccT>) {
    if (mailboxes != nullptr) {
      return finish_through_mailboxes<kBlock>(block_total, mailboxes + row * gridDim.x, result,
                                              counter + row);
    }
  }
  // Thread 0 writes the partial and takes the ticket: its acq_rel ticket
  // publishes the partial.
  AccT* row_partials = partials + row * gridDim.x;
  if (threadIdx.x == 0) row_partials[blockIdx.x] = block_total;
  finish_in_last_block<kBlock>(static_cast<const AccT*>(row_partials), 1, gridDim.x, result,
                               counter == nullptr ? nullptr : counter + row, gridDim.x);
}

// Blocks of `Shape` resident at once on the whole device.
template <typename Shape, typename InT, typename OutT>
int64_t wave_of(const LaunchContext& context) {
  return one_wave<contiguous_sum_kernel<Shape, InT, OutT>>(Shape::kBlock, context.device,
                                                           context.sm_count);
}

// `blocks` blocks a row; the launchers keep blocks * rows within the held
// partials, so the second launch finds them where the first left them.
template <typename Shape, typename InT, typename OutT>
void launch_shape(const ContiguousProblem<InT, OutT>& problem, Finish<acc_t<InT>> finish,
                  const LaunchContext& context, int64_t blocks) {
  // A counter a row: more rows than counters finish in a second launch.
  if (problem.rows > finish.counter_count) finish.counter = nullptr;
  const dim3 grid(blocks, problem.rows);
  contiguous_sum_kernel<Shape><<<grid, Shape::kBlock, 0, context.stream>>>(
      problem, finish.partials, finish.mailboxes_for(blocks * problem.rows), finish.counter);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  finish_in_second_launch_if_needed<Shape::kBlock>(finish, 1, blocks, problem.result,
                                                   context.stream, problem.rows);
}

}  // namespace

template <typename InT, typename OutT>
void launch_contiguous_sum(const ContiguousProblem<InT, OutT>& problem,
                           const Finish<acc_t<InT>>& finish, const LaunchContext& context) {
  const int64_t vectors = ceil_div(problem.numel, kElementsPerVector<InT>);
  if (vectors <= kOneBlockMaxVectors) {
    one_block_sum_kernel<<<problem.rows, one_block_threads(vectors), 0, context.stream>>>(
        problem.input, int(problem.numel), problem.row_stride, problem.result);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return;
  }
  const int64_t small_rounds = ceil_div(vectors, int64_t(SmallShape::kBlock) * SmallShape::kUnroll);
  if (small_rounds * problem.rows < wave_of<SmallShape, InT, OutT>(context)) {
    return launch_shape<SmallShape>(problem, finish, context, small_rounds);
  }
  const int64_t large_wave =
      std::min(wave_of<LargeShape, InT, OutT>(context), finish.partials_capacity);
  launch_shape<LargeShape>(problem, finish, context,
                           std::max<int64_t>(1, large_wave / problem.rows));
}

#define INSTANTIATE(InT, OutT)                                                        \
  template void launch_contiguous_sum<InT, OutT>(const ContiguousProblem<InT, OutT>&, \
                                                 const Finish<acc_t<InT>>&, const LaunchContext&);
TORCH_REDUCE_V7_FOR_EACH_TYPE_PAIR(INSTANTIATE)
#undef INSTANTIATE

}  // namespace torch_reduce::cuda::v7
