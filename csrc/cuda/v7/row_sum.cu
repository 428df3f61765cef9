// sum_v7 over rows: every output sums rows whose elements are `inner_stride`
// apart (contiguous rows in the common case), rows placed anywhere. This is
// the full sum of a strided view (one output: slices, narrowed rows, expanded
// tensors, any strides) and the sum over the innermost dims. Dense rows (an
// output is one contiguous row, its start a multiple of one stride from the
// first's: the last dims of a contiguous tensor, or of a slice of one) have a
// lean kernel: a block a row for every row where a row fills a round of the
// block's loads (256 threads, or 512 for rows of 4 such rounds; 128 or 64
// threads for shorter rows), else a warp a row where there is a row for every
// resident warp (or, for rows shorter than a 64-thread round, a wave of
// 256-thread blocks of rows), else a block a row, as many blocks as rows,
// where they fill a wave of blocks or, at a round or more a row, there is a
// row an SM (twice the loads a thread for 1-3 rows an SM of 2 rounds or more;
// a 512-thread block a row from half a row an SM, at a round of its loads or
// more). A block a row reads a row of one round of whole 16-byte vectors in a
// leaner twin. The full sum of such rows (a row slice) reads them a warp or a
// block a row, in one wave, into one total. Other rows (dense ones fewer than
// those): with at least one output per resident warp, a warp owns each
// output; else a block of 4 warps owns one output (or a split of one, when
// there are too few outputs to fill the GPU) and its warps take chunks of the
// output's rows. A chunk is one round of 16-byte loads per lane, with scalar
// edges where a row is not 16-byte aligned.
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

constexpr int kBlock = 128;
// Strided offsets need more than 32 registers; 64 leaves half the threads
// resident, still far more loads in flight than the memory needs.
constexpr int kRegisters = 64;
constexpr int kWarps = kBlock / kWarpSize;
constexpr int kUnroll = 4;
// A dense row's 16-byte loads in flight a thread of a 128-thread block: 8
// (4 KB a warp) measured faster than 4 at 32 registers with twice the
// warps, and than 4 loads issued a round ahead (benchmarks/NOTES.md,
// session 10). The 256-, 128- and 64-thread blocks a row take half as
// many (the 256-thread block all of them at 1-3 rows an SM), as does the
// 512-thread block for fewer rows than SMs; the 512-thread block for rows of
// 4 rounds a quarter.
constexpr int kDenseLoads = 8;

template <typename InT>
constexpr int64_t kChunk = int64_t(kWarpSize) * kElementsPerVector<InT> * kUnroll;

// One lane's share of row[begin, end) (element indices along the row).
template <typename AccT, typename InT>
__device__ __forceinline__ AccT lane_chunk_sum(const InT* row, int64_t begin, int64_t end,
                                               int64_t inner_stride, int lane) {
  AccT sum = AccT(0);
  if (inner_stride != 1) {
#pragma unroll 4
    for (int64_t e = begin + lane; e < end; e += kWarpSize) {
      sum += static_cast<AccT>(row[e * inner_stride]);
    }
    return sum;
  }
  const InT* chunk = row + begin;
  const int numel = int(end - begin);  // at most kChunk
  const auto [head, num_vectors, tail_begin] = split_into_vectors(chunk, numel);
  if (lane < head) sum += static_cast<AccT>(chunk[lane]);
  if (lane < numel - tail_begin) sum += static_cast<AccT>(chunk[tail_begin + lane]);
  const auto* vectors = reinterpret_cast<const Vector<InT>*>(chunk + head);
  Vector<InT> batch[kUnroll];
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) {
    const int v = lane + u * kWarpSize;
    if (v < num_vectors) batch[u] = load_streaming(vectors + v);
  }
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) {
    if (lane + u * kWarpSize < num_vectors) sum += vector_sum<AccT>(batch[u]);
  }
  return sum;
}

// One lane's share of an output's items [first, end), every step-th: an item
// is one chunk of one row (item = row * chunks_per_row + chunk).
template <typename AccT, typename InT, typename OutT>
__device__ __forceinline__ AccT lane_items_sum(const RowProblem<InT, OutT>& problem,
                                               const InT* base, int64_t first, int64_t end,
                                               int64_t step, int64_t chunks_per_row, int lane) {
  AccT sum = AccT(0);
  // One row per output (sums over the innermost dims of a contiguous tensor):
  // the item is the chunk, with no 64-bit division per chunk to find its row.
  if (problem.rows.ndim == 0) {
    for (int64_t item = first; item < end; item += step) {
      const int64_t begin = item * kChunk<InT>;
      sum += lane_chunk_sum<AccT>(base, begin, std::min(problem.row_length, begin + kChunk<InT>),
                                  problem.inner_stride, lane);
    }
    return sum;
  }
  for (int64_t item = first; item < end; item += step) {
    const int64_t row = item / chunks_per_row;
    const int64_t begin = (item % chunks_per_row) * kChunk<InT>;
    sum += lane_chunk_sum<AccT>(base + problem.rows.offset(row), begin,
                                std::min(problem.row_length, begin + kChunk<InT>),
                                problem.inner_stride, lane);
  }
  return sum;
}

template <typename InT, typename OutT>
__global__ void __launch_bounds__(kBlock, min_blocks_per_sm<kBlock, kRegisters>())
    row_sum_kernel(RowProblem<InT, OutT> problem, IndexDivider splits /* per output */,
                   EvenSplits item_splits, int64_t chunks_per_row, acc_t<InT>* partials,
                   unsigned int* counter) {
  using AccT = acc_t<InT>;
  const int lane = threadIdx.x % kWarpSize;
  const int warp = threadIdx.x / kWarpSize;
  const int64_t outputs = problem.outputs.numel();
  const int64_t split_count = splits.divisor();
  for (int64_t unit = blockIdx.x; unit < outputs * split_count; unit += gridDim.x) {
    const int64_t output = splits.div(unit);
    const int64_t split = unit - output * split_count;
    const InT* base = problem.input + problem.outputs.offset(output);
    const auto [first_item, item_end] = item_splits.range(split);
    const AccT sum = block_sum<kBlock>(lane_items_sum<AccT>(
        problem, base, first_item + warp, item_end, kWarps, chunks_per_row, lane));
    if (threadIdx.x == 0) {
      if (split_count == 1) {
        problem.result[output] = static_cast<OutT>(sum);
      } else {
        partials[unit] = sum;
      }
    }
  }
  if (split_count > 1) {
    finish_in_last_block<kBlock>(static_cast<const AccT*>(partials), outputs, split_count,
                                 problem.result, counter, gridDim.x);
  }
}

// Many outputs: a warp owns each output, warps striding over the outputs
// from a grid of one wave. No block-wide sum and no block per output: with
// short rows those cost as much as the loads (a block per 8 KB row ran at
// 2.1 TB/s on an H100).
template <typename InT, typename OutT>
__global__ void __launch_bounds__(kBlock, min_blocks_per_sm<kBlock, kRegisters>())
    row_per_warp_kernel(RowProblem<InT, OutT> problem, int64_t chunks_per_row) {
  using AccT = acc_t<InT>;
  const int lane = threadIdx.x % kWarpSize;
  const int64_t first_warp = (int64_t(blockIdx.x) * kBlock + threadIdx.x) / kWarpSize;
  const int64_t warps = int64_t(gridDim.x) * kWarps;
  const int64_t outputs = problem.outputs.numel();
  const int64_t items = problem.rows.numel() * chunks_per_row;
  for (int64_t output = first_warp; output < outputs; output += warps) {
    const InT* base = problem.input + problem.outputs.offset(output);
    const AccT sum =
        warp_sum(lane_items_sum<AccT>(problem, base, 0, items, 1, chunks_per_row, lane));
    if (lane == 0) problem.result[output] = static_cast<OutT>(sum);
  }
}

// The dense-row kernels' shapes: blocks of kThreads, a group of kGroup of
// them (a warp, or the block) a row, kLoads vectors a thread a round, at
// most kRegisters registers a thread.
template <int kThreads, int kGroup, int kLoads, int kRegisters>
struct DenseShape {
  static constexpr int threads = kThreads;
  static constexpr int group = kGroup;
  static constexpr int loads = kLoads;
  static constexpr int min_blocks = min_blocks_per_sm<kThreads, kRegisters>();

  // This thread's lane in its group, its group's index in the grid, and the
  // grid's groups: a group takes rows first, first + groups, ...
  __device__ static int lane() { return threadIdx.x % kGroup; }
  __device__ static int64_t first_group() {
    return (int64_t(blockIdx.x) * kThreads + threadIdx.x) / kGroup;
  }
  __device__ static int64_t groups() { return int64_t(gridDim.x) * (kThreads / kGroup); }
};
using WarpARow = DenseShape<kBlock, kWarpSize, kDenseLoads, kRegisters>;
// A block a row: 16 KB a round, as 8 loads of a 128-thread block, in twice
// the threads of half the loads, 4 blocks (1,024 threads) an H100
// multiprocessor instead of 8 of 128. Against those 128-thread blocks (H100,
// benchmarks/NOTES.md, session 20): 4096x32000 fp32 dim=-1 168.7-169.3 us
// instead of 170.6-171.5, 8192x4096 44.1-44.5 instead of 44.4-44.6, and the
// full sum of x[::2] (8192x8192 fp32) 46.0-46.6 instead of 47.4-47.6, its
// 528 blocks now few enough to finish through mailboxes. At 48 registers (5
// blocks) 4096x32000 took 169.5.
using WideBlockARow = DenseShape<2 * kBlock, 2 * kBlock, kDenseLoads / 2, kRegisters>;
// A block a row for rows shorter than WideBlockARow's round but at least one
// of 128 threads of 4 loads (8 KB): 1-4% faster than a warp a row on an H100
// over rows of 512-1,023 vectors; bf16 16x2048x4096 dim=-1 86.5-87.3 us
// against 89.7-90.4 (benchmarks/NOTES.md, session 21).
using BlockARow = DenseShape<kBlock, kBlock, kDenseLoads / 2, kRegisters>;
// The same for rows of 4-8 KB: 64 threads of 4 loads a row. Against a warp
// a row (H100, benchmarks/NOTES.md, session 22): bf16 32768x2048 dim=-1
// 44.2-44.3 us instead of 45.4-45.6, fp32 16384x2000 43.6-43.8 instead of
// 44.5-44.8.
using HalfBlockARow = DenseShape<kBlock / 2, kBlock / 2, kDenseLoads / 2, kRegisters>;
// Rows of 4 rounds of WideBlockARow or more: the same 16 KB a round as 512
// threads of 2 loads (2 blocks an SM at float's 64 registers). 4096x32000
// fp32 dim=-1 took 167.3-167.4 us instead of 168.5-168.7 (H100,
// benchmarks/NOTES.md, session 22), as the read-pattern probe had read that
// shape (session 20). At one round a row (8192x4096) the probe read 2 such
// blocks an SM at 48.4 us against 43.6.
using LongBlockARow = DenseShape<4 * kBlock, 4 * kBlock, kDenseLoads / 4, kRegisters>;
constexpr int kLongRowRounds = 4;
// Rows of exactly one WideBlockARow round (16 KB: 8192x4096 fp32), whole
// vectors from a 16-byte boundary, read by the aligned twin: the same round
// as 512 threads of 2 loads, 4 blocks an SM at 32 registers (Inductor's
// shape). 8192x4096 fp32 dim=-1 took 0.02-0.18 us less (0.11 on average) in
// six paired rounds on three H100s (dims scenario; 43.73-44.01 us), and the
// read-pattern probe (row_read_patterns.cu) read such rows at 43.45 us
// against 43.58-43.63 in 256 threads of 4 loads, whatever the load's cache
// hints (benchmarks/NOTES.md, session 45).
using ShallowWideBlockARow = DenseShape<4 * kBlock, 4 * kBlock, kDenseLoads / 4, 32>;
// Rows an SM from which rows of a round or more go a 256-thread block a row
// short of a wave (launch_dense_rows). From 1 rather than 2 (H100,
// benchmarks/NOTES.md, session 23, with 4 loads a thread, before
// WideDeepBlockARow took 1-3 rows an SM of 2 rounds): bf16 256x128256 dim=-1
// 24.5 us instead of 26.1, fp32 160x65536 15.7 instead of 18.2; the shapes
// that both take within 0.1 us (fp32 300x8192 5.27-5.35 against 5.24-5.25).
constexpr int kMinRowsPerSmForPartialWave = 1;
// Fewer rows still, from half a row an SM: twice the 256-thread block's
// loads in flight a row, 512 threads of 4 loads (32 KB a round; 2 blocks an
// SM at 64 registers), so that half as many rows hold the bytes that a row an
// SM of 256-thread blocks holds. Against the split kernel (H200,
// benchmarks/NOTES.md, session 24): fp32 128x32768 dim=-1 6.1 us instead of
// 8.0-8.2 (Inductor 6.8-7.2).
using DeepBlockARow = DenseShape<4 * kBlock, 4 * kBlock, kDenseLoads / 2, kRegisters>;
constexpr int kMaxSmsPerDeepRow = 2;
// From a row an SM to kMaxRowsPerSmForWideDeepRow, rows of 2 rounds of
// WideBlockARow or more: 256 threads of 8 loads, twice the bytes a row in
// flight (32 KB a round; 4 blocks an SM at 64 registers, every row resident
// at once). Against the 256-thread block of 4 loads (benchmarks/NOTES.md,
// session 25): fp32 300x8192 dim=-1 5.08 us instead of 5.31 on an H100 and
// 4.27 instead of 4.53 on an H200, bf16 265x131072 24.9 instead of 25.6 and
// 18.4 instead of 19.2. At 3.9 rows an SM (bf16 512x151936) the H200 read
// 1% slower, and below a row an SM (fp32 128x32768, 66x4194304) it lost to
// DeepBlockARow's 512 threads (6.7 us against 6.3, 355 against 260).
using WideDeepBlockARow = DenseShape<2 * kBlock, 2 * kBlock, kDenseLoads, kRegisters>;
constexpr int kMaxRowsPerSmForWideDeepRow = 3;

// This thread's share of a dense row of `row_length` contiguous elements:
// lane `lane` of a group of kGroup threads (a warp, or the block) reads in
// rounds of kLoads vectors a thread, with 32-bit indices within the row.
template <int kGroup, int kLoads, typename AccT, typename InT>
__device__ __forceinline__ AccT dense_row_share(const InT* row, int row_length, int lane) {
  const auto [head, num_vectors, tail_begin] = split_into_vectors(row, row_length);
  // Read before the vectors, added after them (as in one_block_sum_kernel).
  const InT head_element = lane < head ? row[lane] : InT(0);
  const InT tail_element = lane < row_length - tail_begin ? row[tail_begin + lane] : InT(0);
  const auto* vectors = reinterpret_cast<const Vector<InT>*>(row + head);
  AccT sum = AccT(0);
  for (int first = 0; first < num_vectors; first += kGroup * kLoads) {
    sum += round_sum<AccT, kLoads>(vectors + first, num_vectors - first, lane, kGroup);
  }
  return sum + static_cast<AccT>(head_element) + static_cast<AccT>(tail_element);
}

// Dense rows: result[o] = the sum of row_length contiguous elements from
// input + o * row_stride. A group of kGroup threads (a warp, or the block)
// sums a row at a time (dense_row_share). The general kernels' chunks, 64-bit
// items and strided path cost registers and instructions; with this kernel
// (then a warp a row there) 8192x4096 fp32 dim=-1 took 45.6 us instead of
// 46.7, 32x256x56x56 bf16 dim=(2,3) 19.7 instead of 21.6 (H100).
template <typename Shape, typename InT, typename OutT>
__global__ void __launch_bounds__(Shape::threads, Shape::min_blocks)
    dense_row_kernel(const InT* input, int64_t row_count, int64_t row_stride, int row_length,
                     OutT* result) {
  using AccT = acc_t<InT>;
  const int lane = Shape::lane();
  const int64_t groups = Shape::groups();
  for (int64_t output = Shape::first_group(); output < row_count; output += groups) {
    AccT sum = dense_row_share<Shape::group, Shape::loads, AccT>(input + output * row_stride,
                                                                 row_length, lane);
    if constexpr (Shape::group == kWarpSize) {
      sum = warp_sum(sum);
    } else {
      sum = block_sum<Shape::group>(sum);
    }
    if (lane == 0) result[output] = static_cast<OutT>(sum);
  }
}

// Dense rows of at most one round of Shape's block, whole 16-byte vectors
// from a 16-byte boundary, a block a row, gridDim.x rows: dense_row_kernel
// without the scalar head and tail, the loops over rows and rounds, and
// block_sum's closing barrier (the block sums once).
template <typename Shape, typename InT, typename OutT>
__global__ void __launch_bounds__(Shape::threads, Shape::min_blocks)
    aligned_round_row_kernel(const Vector<InT>* input, int64_t row_stride_vectors, int row_vectors,
                             OutT* result) {
  static_assert(Shape::group == Shape::threads);
  using AccT = acc_t<InT>;
  constexpr int kWarpsPerBlock = Shape::threads / kWarpSize;
  const AccT sum = sum_over_warps<kWarpsPerBlock>(
      round_sum<AccT, Shape::loads>(input + blockIdx.x * row_stride_vectors, row_vectors,
                                    threadIdx.x, Shape::threads),
      kWarpsPerBlock);
  if (threadIdx.x == 0) result[blockIdx.x] = static_cast<OutT>(sum);
}

// The full sum of dense rows (one output; rows one stride apart: x[::2],
// x[:, 1:4001]): dense_row_kernel's reads, but each thread keeps adding its
// share of every row it visits, and the block's total goes to the last block
// (finish_row) instead of a sum per row. The row class's chunk kernel read
// such views at 0.90-0.93x Inductor (benchmarks/NOTES.md, session 12).
// One-word totals take their mailbox ticket as thread 0's group starts its
// last row (kTakesTicketEarly), as contiguous_sum_kernel's large blocks do
// before their last chunk: the atomic's round trip overlaps the row's loads
// instead of preceding the last block's reads of the mailboxes. (A block
// whose thread 0 has no row takes it in finish_row.) H200 graph, 8192x8192
// fp32, two rounds each: x[::2] 33.08-33.10 us -> 32.93-32.96 (Inductor
// 33.10-33.25), x[:, 1:4001] 32.74-32.80 -> 32.38-32.41 (benchmarks/NOTES.md,
// session 52).
template <typename Shape, typename InT, typename OutT>
__global__ void __launch_bounds__(Shape::threads, Shape::min_blocks)
    dense_rows_total_kernel(const InT* input, int64_t row_count, int64_t row_stride, int row_length,
                            acc_t<InT>* partials, uint64_t* mailboxes, unsigned int* counter,
                            OutT* result) {
  using AccT = acc_t<InT>;
  const int lane = Shape::lane();
  const int64_t groups = Shape::groups();
  std::optional<unsigned int> ticket;
  AccT sum = AccT(0);
  for (int64_t row = Shape::first_group(); row < row_count; row += groups) {
    if constexpr (kTakesTicketEarly<AccT, false>) {
      if (row + groups >= row_count) ticket = take_mailbox_ticket(mailboxes, counter, 0);
    }
    sum += dense_row_share<Shape::group, Shape::loads, AccT>(input + row * row_stride, row_length,
                                                             lane);
  }
  finish_row<Shape::threads>(block_sum<Shape::threads>(sum), partials, mailboxes, counter, result,
                             0, ticket);
}

// Whether `rows` fill a wave of dense_row_kernel's blocks of Shape.
template <typename Shape, typename InT, typename OutT>
bool rows_fill_a_wave_of(int64_t rows, const LaunchContext& context) {
  constexpr auto kernel = dense_row_kernel<Shape, InT, OutT>;
  return rows >= one_wave<kernel>(Shape::threads, context.device, context.sm_count);
}

// Whether rows of `problem` fill `rounds` rounds of Shape's block.
template <typename Shape, typename InT, typename OutT>
bool rows_fill_rounds_of(const RowProblem<InT, OutT>& problem, int rounds = 1) {
  return problem.row_length / kElementsPerVector<InT> >=
         int64_t(rounds) * Shape::threads * Shape::loads;
}

// Whether rows of `problem` fill `rounds` rounds of Shape's block and there
// is a wave of such blocks of them.
template <typename Shape, typename InT, typename OutT>
bool rows_fill_blocks_of(const RowProblem<InT, OutT>& problem, int64_t rows,
                         const LaunchContext& context, int rounds = 1) {
  return rows_fill_rounds_of<Shape>(problem, rounds) &&
         rows_fill_a_wave_of<Shape, InT, OutT>(rows, context);
}

// dense_row_kernel, a block of Shape a row, as many blocks as rows (never
// the aligned twin).
template <typename Shape, typename InT, typename OutT>
void launch_dense_row_blocks(const RowProblem<InT, OutT>& problem, int64_t rows, int64_t row_stride,
                             const LaunchContext& context) {
  dense_row_kernel<Shape, InT, OutT>
      <<<std::min<int64_t>(rows, INT_MAX), Shape::threads, 0, context.stream>>>(
          problem.input, rows, row_stride, int(problem.row_length), problem.result);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

// A block of Shape a row, as many blocks as rows, through the aligned twin
// where it can: rows of one round at most and of whole vectors from a
// 16-byte boundary (at least one vector: empty inputs never launch) take
// aligned_round_row_kernel, in blocks of RoundShape (Shape's round in
// another block shape) where a row fills that round exactly. Against
// dense_row_kernel (H100, benchmarks/NOTES.md, session 22): 2112x512 fp32
// dim=-1 (256-thread blocks of one load a thread) 4.3-4.4 us instead of
// 6.5-6.7, 8192x4096 44.1 instead of 44.2-44.3. Over rows of more rounds the
// twin with a loop read 0.4-1% slower (bf16 32768x4000 in 64-thread blocks,
// 4096x32000 in 512-thread ones), so those keep dense_row_kernel.
template <typename Shape, typename RoundShape = Shape, typename InT, typename OutT>
void launch_block_a_row(const RowProblem<InT, OutT>& problem, int64_t rows, int64_t row_stride,
                        const LaunchContext& context) {
  constexpr int kRound = Shape::threads * Shape::loads;
  static_assert(RoundShape::threads * RoundShape::loads == kRound);
  constexpr int kVec = kElementsPerVector<InT>;
  const bool one_round_of_whole_vectors =
      reinterpret_cast<uintptr_t>(problem.input) % kVectorBytes == 0 &&
      problem.row_length % kVec == 0 && row_stride % kVec == 0 &&
      problem.row_length / kVec <= kRound;
  if (!one_round_of_whole_vectors || rows > INT_MAX) {
    return launch_dense_row_blocks<Shape>(problem, rows, row_stride, context);
  }
  const int row_vectors = int(problem.row_length / kVec);
  const bool fills_round = row_vectors == kRound;
  const auto kernel = fills_round ? aligned_round_row_kernel<RoundShape, InT, OutT>
                                  : aligned_round_row_kernel<Shape, InT, OutT>;
  const int threads = fills_round ? RoundShape::threads : Shape::threads;
  kernel<<<rows, threads, 0, context.stream>>>(reinterpret_cast<const Vector<InT>*>(problem.input),
                                               row_stride / kVec, row_vectors, problem.result);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

// Launches a dense-row kernel where `problem` is dense rows and there are
// at least a wave of blocks of them (a warp or a block a row; a warp a row
// too for rows shorter than a 64-thread round), or, for rows of a 256-thread
// round or more, a row an SM (a block a row), or, for rows of a 512-thread
// round or more, half a row an SM (a 512-thread block a row); returns false
// otherwise (fewer rows are split between blocks by row_sum_kernel).
template <typename InT, typename OutT>
bool launch_dense_rows(const RowProblem<InT, OutT>& problem, const LaunchContext& context) {
  if (problem.rows.ndim != 0 || problem.inner_stride != 1 || problem.outputs.ndim > 1 ||
      problem.row_length > INT_MAX) {
    return false;
  }
  const int64_t rows = problem.outputs.numel();
  const int64_t row_stride = problem.outputs.ndim == 0 ? 0 : problem.outputs.strides[0];
  // Rows that give every thread of a block a whole round of loads, a wave of
  // such blocks of them: a block a row, as many blocks as rows, so that the
  // block scheduler hands the next row to whichever multiprocessor is free;
  // the 256-thread block, else the widest smaller one whose round the row
  // fills. Warps that each owned 2 rows of a one-wave grid finished
  // unevenly: 8192x4096 fp32 dim=-1 took 45.7 us that way and 44.6-45.3
  // with 128-thread blocks a row on an H100 (benchmarks/NOTES.md, session 13).
  if (rows_fill_blocks_of<WideBlockARow>(problem, rows, context)) {
    // Rows of 4 such rounds or more in 512-thread blocks, but only where
    // there are as many rows as the 256-thread blocks need (session 22 timed
    // 4,096 such rows). Fewer long rows take the 256-thread block short of
    // a wave (of 8 loads at 1-3 rows an SM), a 512-thread block of 4 loads
    // from half a row an SM (below), or the split kernel: 512-thread blocks
    // of 2 loads were not timed there. Rows of exactly one round (16 KB)
    // read in 512 threads of 2 loads (ShallowWideBlockARow). Rows of 4 MB or
    // more, up to a row an SM, never reach here (the contiguous class,
    // layout.cpp).
    if (rows_fill_blocks_of<LongBlockARow>(problem, rows, context, kLongRowRounds)) {
      launch_dense_row_blocks<LongBlockARow>(problem, rows, row_stride, context);
    } else {
      launch_block_a_row<WideBlockARow, ShallowWideBlockARow>(problem, rows, row_stride, context);
    }
    return true;
  }
  if (rows_fill_blocks_of<BlockARow>(problem, rows, context)) {
    launch_block_a_row<BlockARow>(problem, rows, row_stride, context);
    return true;
  }
  if (rows_fill_blocks_of<HalfBlockARow>(problem, rows, context)) {
    launch_block_a_row<HalfBlockARow>(problem, rows, row_stride, context);
    return true;
  }
  // Shorter rows, a row for every warp of a wave: a warp a row. Rows
  // shorter than a 64-thread round, a wave of 256-thread blocks of them or
  // more, take a warp a row too, in one partial wave: a 256-thread block a
  // row would leave half its threads or more without a load.
  constexpr auto per_warp = dense_row_kernel<WarpARow, InT, OutT>;
  const int64_t warp_wave =
      one_wave<per_warp>(WarpARow::threads, context.device, context.sm_count) * kWarps;
  const bool wide_block_wave = rows_fill_a_wave_of<WideBlockARow, InT, OutT>(rows, context);
  if (rows >= warp_wave || (!rows_fill_rounds_of<HalfBlockARow>(problem) && wide_block_wave)) {
    const int64_t rows_per_warp = ceil_div(rows, warp_wave);  // the same for every warp
    per_warp<<<ceil_div(rows, kWarps * rows_per_warp), WarpARow::threads, 0, context.stream>>>(
        problem.input, rows, row_stride, int(problem.row_length), problem.result);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return true;
  }
  // Fewer rows: a 256-thread block a row where they fill a wave of such
  // blocks, or, each a round of that block or more, where there is a row an
  // SM (every block resident at once with 16 KB a round in flight). Against
  // the split kernel for the latter (H100, benchmarks/NOTES.md, session 23,
  // with 4 loads a thread, before the branch below took 1-3 rows an SM):
  // bf16 512x151936 dim=-1 52.8 us instead of 56.4, 265x131072 25.4
  // instead of 27.6, fp32 300x8192 5.3 instead of 7.9. The split kernel's
  // imbalance was not its cost: one wave of equal shares with a finish ran
  // slower than it.
  if (wide_block_wave) {
    launch_block_a_row<WideBlockARow>(problem, rows, row_stride, context);
    return true;
  }
  if (rows >= kMinRowsPerSmForPartialWave * context.sm_count) {
    // Rows of 2 such rounds or more, 1-3 an SM: twice the loads a thread.
    if (rows < kMaxRowsPerSmForWideDeepRow * context.sm_count &&
        rows_fill_rounds_of<WideDeepBlockARow>(problem)) {
      launch_block_a_row<WideDeepBlockARow>(problem, rows, row_stride, context);
      return true;
    }
    if (rows_fill_rounds_of<WideBlockARow>(problem)) {
      launch_block_a_row<WideBlockARow>(problem, rows, row_stride, context);
      return true;
    }
  }
  // Half a row an SM or more, each a 512-thread round or more: a 512-thread
  // block of 4 loads a row.
  if (kMaxSmsPerDeepRow * rows >= context.sm_count && rows_fill_rounds_of<DeepBlockARow>(problem)) {
    launch_block_a_row<DeepBlockARow>(problem, rows, row_stride, context);
    return true;
  }
  return false;
}

// dense_rows_total_kernel of Shape in `blocks` blocks, and on a stream
// without counters its second launch, which adds the block totals as the
// kernel's last block would: at the same block size, for the same bits.
template <typename Shape, typename InT, typename OutT>
void launch_dense_rows_total_as(const RowProblem<InT, OutT>& problem,
                                const Finish<acc_t<InT>>& finish, const LaunchContext& context,
                                int64_t rows, int64_t blocks) {
  dense_rows_total_kernel<Shape, InT, OutT><<<blocks, Shape::threads, 0, context.stream>>>(
      problem.input, rows, problem.rows.strides[0], int(problem.row_length), finish.partials,
      finish.mailboxes_for(blocks), finish.counter, problem.result);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  finish_in_second_launch_if_needed<Shape::threads>(finish, 1, blocks, problem.result,
                                                    context.stream);
}

// Launches dense_rows_total_kernel where `problem` is the full sum of dense
// rows at one stride and they fill a wave of warps (a warp a row) or of
// blocks (a block a row), no group more than rows_per_group rows; returns false
// otherwise (fewer rows are split between blocks by row_sum_kernel).
template <typename InT, typename OutT>
bool launch_dense_rows_total(const RowProblem<InT, OutT>& problem, const Finish<acc_t<InT>>& finish,
                             const LaunchContext& context) {
  if (problem.outputs.ndim != 0 || problem.rows.ndim != 1 || problem.inner_stride != 1 ||
      problem.row_length > INT_MAX) {
    return false;
  }
  const int64_t rows = problem.rows.sizes[0];
  constexpr auto per_warp = dense_rows_total_kernel<WarpARow, InT, OutT>;
  constexpr auto per_block = dense_rows_total_kernel<WideBlockARow, InT, OutT>;
  const int64_t block_wave =
      std::min(one_wave<per_block>(WideBlockARow::threads, context.device, context.sm_count),
               finish.partials_capacity);
  const int64_t warp_wave =
      std::min(one_wave<per_warp>(WarpARow::threads, context.device, context.sm_count),
               finish.partials_capacity) *
      kWarps;
  const bool warp_a_row = rows >= warp_wave;
  if (!warp_a_row && rows < block_wave) return false;
  const int64_t groups = warp_a_row ? warp_wave : block_wave;
  const int64_t groups_per_block = warp_a_row ? kWarps : 1;
  const int64_t rows_per_group = ceil_div(rows, groups);  // at most, for every group
  const int64_t blocks = ceil_div(rows, groups_per_block * rows_per_group);
  if (warp_a_row) {
    launch_dense_rows_total_as<WarpARow>(problem, finish, context, rows, blocks);
  } else {
    launch_dense_rows_total_as<WideBlockARow>(problem, finish, context, rows, blocks);
  }
  return true;
}

}  // namespace

template <typename InT, typename OutT>
void launch_row_sum(const RowProblem<InT, OutT>& problem, const Finish<acc_t<InT>>& finish,
                    const LaunchContext& context) {
  if (launch_dense_rows(problem, context)) return;
  if (launch_dense_rows_total(problem, finish, context)) return;
  constexpr auto kernel = row_sum_kernel<InT, OutT>;
  const int64_t outputs = problem.outputs.numel();
  const int64_t chunks_per_row = ceil_div(problem.row_length, kChunk<InT>);
  const int64_t items = problem.rows.numel() * chunks_per_row;
  const int64_t wave = one_wave<kernel>(kBlock, context.device, context.sm_count);
  if (outputs >= wave * kWarps) {
    constexpr auto per_warp = row_per_warp_kernel<InT, OutT>;
    const int64_t warp_wave = one_wave<per_warp>(kBlock, context.device, context.sm_count);
    // Every warp the same number of rows: 8192 rows over 4,752 resident
    // warps (an H100) as 4,096 warps of 2 rows, not 3,440 of 2 and 1,312 of 1
    // (46.9 against 47.2 us on 8192x4096 fp32 dim=-1, measured before dense
    // rows took that shape; benchmarks/NOTES.md).
    const int64_t rows_per_warp = ceil_div(outputs, warp_wave * kWarps);
    per_warp<<<ceil_div(outputs, kWarps * rows_per_warp), kBlock, 0, context.stream>>>(
        problem, chunks_per_row);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return;
  }
  const int64_t splits =
      split_count(outputs, items, wave, std::max<int64_t>(1, finish.partials_capacity / outputs));
  const int64_t blocks = std::min<int64_t>(outputs * splits, INT_MAX);
  kernel<<<blocks, kBlock, 0, context.stream>>>(problem, IndexDivider(splits, outputs * splits),
                                                EvenSplits(items, splits), chunks_per_row,
                                                finish.partials, finish.counter);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  finish_in_second_launch_if_needed<kBlock>(finish, outputs, splits, problem.result,
                                            context.stream);
}

#define INSTANTIATE(InT, OutT)                                                                     \
  template void launch_row_sum<InT, OutT>(const RowProblem<InT, OutT>&, const Finish<acc_t<InT>>&, \
                                          const LaunchContext&);
TORCH_REDUCE_V7_FOR_EACH_TYPE_PAIR(INSTANTIATE)
#undef INSTANTIATE

}  // namespace torch_reduce::cuda::v7
