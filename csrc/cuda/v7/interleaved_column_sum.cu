// sum_v7 over the rows of a few interleaved columns: a column sum whose rows
// lie back to back (the reduced dim's stride is the row's length C, at most 32:
// interleaves_columns in problem.h; or long sums of up to 128 columns, 64 of
// 8-byte types: interleaves_wide_columns below), so that each outer index's
// rows are one contiguous span. Up to 32 columns, its rows do not all start on
// a vector boundary (C is not a multiple of a 16-byte vector's elements, or the
// span starts off one): the band kernels (column_sum.cu) read such rows a
// scalar a thread, and the row class, which took 2 and 3 columns, an element a
// load: 10^6 x 3 fp32 dim=0 read at 47-54% of the read roofline
// (benchmarks/NOTES.md, session 57); or they are 1- and 2-byte integers, on the
// boundary too. Past 32 columns, one span's rows of 1- to 4-byte types on the
// boundary too, where the run beat the band kernels' vectors. Here each span is
// read as one run of 16-byte vectors by a grid-stride sweep whose stride, in
// vectors, is a multiple of C's period (C / gcd(C, elements a vector)): element
// k of every vector a thread loads then lies in the same column, so the thread
// keeps one accumulator per element position. The block parks its positions in
// shared memory in span order, where position j lies in column (phase + j) mod
// C, and each warp adds up to 4 columns' positions side by side (past 32
// columns, a few threads a column). 1- and 2-byte integers sum their positions
// in int32 (interleaved_shape bounds the span for it), and their columns'
// positions too where a block's sums fit (shares_fit_position_type). From 4 to
// 32 columns, a column a thread's clusters take the sums they read in few
// rounds (launch_column_sum: clusters_take_interleaved_columns,
// aligned_narrow_integers_take_clusters).
#include <c10/cuda/CUDAException.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <type_traits>

#include "launch_policy.h"
#include "loads.cuh"
#include "problem.h"
#include "reduce.cuh"

namespace torch_reduce::cuda::v7 {
namespace {

constexpr int kThreads = int(kInterleavedBlock);
constexpr int kWarps = kThreads / kWarpSize;
// A thread's sums (one per element of a vector) beside its loads in flight:
// 8 fp32 sums and 4 vectors for 16-bit inputs, 16 int32 ones for 1-byte.
constexpr int kRegisters = 64;
constexpr int kLoads = 4;
// A thread's loads a round where blocks of kLoads would fill under a quarter
// of the SMs (run_shape).
constexpr int kFewBlocksLoads = 2;
// A thread's loads a round where blocks of kLoads would fill every SM, for
// 1- to 4-byte elements, and 8-byte ones in one round (up to 32 columns) or
// where kLoads would take more than 5 rounds (run_shape), in blocks of up to
// twice kRegisters.
constexpr int kLongRunLoads = 8;
// A thread's loads a round for 8-byte elements where blocks of kLoads fill
// every SM in 2-5 rounds, and rounds of these take fewer (run_shape).
constexpr int kMidRunLoads = 5;

// The registers a thread of interleaved_column_kernel's launch bounds: the
// loads in flight of kLongRunLoads take twice kLoads'.
constexpr int registers_for(int round_loads) {
  return round_loads == kLongRunLoads ? 2 * kRegisters : kRegisters;
}

// Threads that add a column's parked positions past 32 columns, all columns
// at once, where a warp a column would take up to 16 turns a warp: 4 up to
// kMostColumnsOfFourThreads columns, 2 past them.
constexpr int kWideColumnThreads = 4;
constexpr int kMostColumnsOfFourThreads = kThreads / kWideColumnThreads;
constexpr int kWiderColumnThreads = kThreads / kMaxWideInterleavedColumns;
// The stores' 32-bit offsets (column * splits) rest on it.
static_assert(kMaxWideInterleavedColumns < kThreads * 2, "columns * splits fits 32 bits");
static_assert(kWarpSize % kWideColumnThreads == 0 && kWideColumnThreads == 2 * kWiderColumnThreads,
              "a column's threads share a warp");
// Partials in flight a lane of a warp that adds an output's splits, up to a
// wave (528 on 132 SMs): one batch a lane; in the last block's finish and in
// the second launch (finishes_a_warp_a_column) alike.
constexpr int kFinishBatch = 16;
// A thread's sum of one element position of its vectors (problem.h's
// sums_positions_in_int32), and what the block parks in shared memory.
template <typename InT>
using PositionSum =
    std::conditional_t<sums_positions_in_int32(sizeof(InT), std::is_integral_v<InT>), int32_t,
                       acc_t<InT>>;

// Where the block parks position j (element k = j % kVec of thread j / kVec's
// vectors): at j itself (thread by thread), or element by element (element k of
// every thread, then k + 1). A column's reads by a warp's lanes lie C positions
// apart: thread by thread, gcd(C, 32) of them fall to one bank (all 32 for C a
// multiple of 32); element by element, C / kVec words apart. The launcher parks
// by element where C is a multiple of 8, up to 32 columns: past 32, a warp
// reads 8 (past 64, 16) columns side by side, neighbouring positions: a word
// apart thread by thread, 256 words (one bank) element by element (modelled,
// 33-64 columns: up to 8-way conflicts by element, against up to 4; by element
// lost 0.02-0.09 us there, fp32 20000x64 dim=0 5.06 -> 5.15, bf16 10001x40 3.86
// -> 3.94; session 79, call 1). Element by element for every C, C a multiple of
// 32 won (uint8 70001x32 one element in, dim=0, 10.17 -> 6.50 us; fp32 20001x32
// one element in 5.74 -> 5.31) and small C lost, their lanes' reads under a
// word apart (int8 1000000x3 6.10 -> 7.19; H200, benchmarks/NOTES.md, session
// 77, call 4). A choice at run time rather than compile time cost 0.2-2.7 us
// everywhere (session 78, call 1). Unsigned, the division and remainder by kVec
// (a power of two) are a shift and a mask, without a signed int's fix-ups after
// the barrier: uint8 70001x32 one element in 6.75 -> 6.06 us, fp32 20001x32 one
// element in 5.34 -> 5.21, no other sum moved (session 79, call 1).
template <int kVec, bool kByElement>
__device__ __forceinline__ int parked_index(int j) {
  if constexpr (kByElement) {
    return int(unsigned(j) % kVec * kThreads + unsigned(j) / kVec);
  } else {
    return j;
  }
}

// The most positions a lane reads of one sum, its positions `step` or more
// apart: strided_sums' kMostReads.
template <int kVec>
constexpr int most_reads(int step) {
  return (kThreads * kVec + step - 1) / step;
}

// For each i, values[parked_index(firsts[i])] + values[parked_index(firsts[i]
// + step)] + ... below kThreads * kVec, each as an AccT, added in that order
// from +0 into sums[i] (a first of kThreads * kVec or more adds only +0s:
// no read is made past the positions, and a +0 leaves a sum from +0 as it
// is, as it never is -0.0, and inf and NaN stay; a second bound check
// before each add cost 22 of the 4-column loop's 119 instructions, sm_90
// SASS). Up to four reads of each sum in flight, the sums' side by side, and
// no more than kMostReads, the most positions a lane adds to one sum: reads
// in flight past them are all masked, yet each costs its index, its check
// and its add (0.02-0.09 us on runs of 9-32 columns, H200, graph, dim=0:
// fp32 20001x31 4.15 -> 4.07; benchmarks/NOTES.md, session 86, call 3).
// An unrolled loop of a runtime step first divides for its trip count, a
// chain of ~20 instructions after the barrier (session 72). reduce.cuh's
// sum_every has the same order (and, one sum of four reads in flight, the
// same batches), but in 64-bit indices with its loop left to nvcc: called
// here, it put 235 more instructions after the barrier, a 64-bit division
// among them (sm_90 SASS, bf16); hence 32-bit indices and a rolled loop.
template <int kVec, bool kByElement, int kMostReads, typename AccT, typename T, int kCount>
__device__ __forceinline__ void strided_sums(const T* values, const int (&firsts)[kCount], int step,
                                             AccT (&sums)[kCount]) {
  // 16 words of reads in flight at most: 8-byte sums of 4 columns spilled
  // with 4 reads each (sm_90, 64 registers).
  constexpr int kInFlight =
      std::clamp(std::min(16 / (kCount * int(sizeof(AccT) / 4)), kMostReads), 1, 4);
  constexpr int kEnd = kThreads * kVec;
  int lowest = firsts[0];
#pragma unroll
  for (int i = 0; i < kCount; ++i) {
    lowest = min(lowest, firsts[i]);
    sums[i] = AccT(0);
  }
  // The loop runs from the lowest first, each sum a fixed distance past it,
  // so that one sum's loop is the single-sum loop as it was (the distance,
  // 0, folds away). A loop from a common origin (lane * C) lost 0.13-0.27 us
  // on 3 columns, a column a warp (fp32 1000000x3 dim=0 7.08 -> 7.21, int16
  // 5.71 -> 5.98; H200, benchmarks/NOTES.md, session 82, call 3); this one
  // is not timed yet.
#pragma unroll 1
  for (int j = lowest; j < kEnd; j += kInFlight * step) {
    AccT batch[kCount][kInFlight];
#pragma unroll
    for (int i = 0; i < kCount; ++i) {
#pragma unroll
      for (int u = 0; u < kInFlight; ++u) {
        const int index = j + (firsts[i] - lowest) + u * step;
        batch[i][u] = index < kEnd
                          ? static_cast<AccT>(values[parked_index<kVec, kByElement>(index)])
                          : AccT(0);
      }
    }
#pragma unroll
    for (int i = 0; i < kCount; ++i) {
#pragma unroll
      for (int u = 0; u < kInFlight; ++u) sums[i] += batch[i][u];
    }
  }
}

// The elements of one span: its rows (one reduced dim, interleaved_shape),
// the run's columns each.
template <typename InT, typename OutT>
int64_t span_elements(const ColumnProblem<InT, OutT>& problem) {
  return problem.reduced.sizes[0] * problem.inner_outputs;
}

// What interleaved_column_kernel reads of a ColumnProblem, the fields read
// before its first load ahead of the outer dims' sizes and strides. The
// problem's two 12-dim indices spread them over 424 bytes of parameters, a
// constant-cache miss each before that load, as the band kernels' were
// (FlatColumnProblem, problem.h). After the kernel's small arguments they
// lie in c[0x0][0x210..0x24f] (sm_90 SASS), two 64-byte lines where there
// were four, and a span's outer stride in a third where there are several
// spans. On an H200, graph, dim=0: fp32 10001x36 3.90 -> 3.80 us, 12001x48
// 4.08 -> 3.96, fp16 7001x64 4.01 -> 3.89, fp64 30001x63 8.86 -> 8.72, fp32
// 1000000x3 7.19 -> 7.13 (benchmarks/NOTES.md, session 76, call 3).
template <typename InT, typename OutT>
struct InterleavedSpans {
  const InT* input;
  OutT* result;
  int64_t columns;
  int64_t numel;       // of a span: its rows, `columns` elements each
  StridedIndex outer;  // the spans
};

template <typename InT, typename OutT>
InterleavedSpans<InT, OutT> interleaved_spans(const ColumnProblem<InT, OutT>& problem) {
  return {problem.input, problem.result, problem.inner_outputs, span_elements(problem),
          problem.outer};
}

// Block (split, group): split `blockIdx.x` of the span of outer index
// `blockIdx.y`. A thread whose first = blockIdx.x * kThreads + threadIdx.x is
// below `stride` adds vectors first, first + stride, ... of the span; block 0
// of each span also adds its scalar head and tail. The block's column sums go
// to the result when a span has one split, else to partials[(group * C + c) *
// splits + split], which the last block of the span adds
// (finish_in_last_block) or a second launch does: where there are no
// counters, and past 8 columns of a warp's splits or more
// (launch_interleaved_column_sum). kByElement: parked_index. kRoundLoads: a
// thread's loads a round (run_shape). shares_in_position_type: the warps add
// the parked positions in their own type (shares_fit_position_type).
// Where a wave's blocks hold one or two rounds, a warp's chain of
// instructions is the kernel's time (~6.65 cycles an instruction at 2 warps
// a scheduler; ncu, bf16 20001x31 dim=0), so every instruction a warp
// counts: strided_sums' unchecked adds, add_batch's bfloat16 pairs, the
// stores from the group's first output and the block's first partial, and
// one branch over the edges took that warp from 612 instructions to 550, and
// on an H200, graph, dim=0, bf16 20001x31 4.25 -> 3.92 us, fp32 30001x17
// 4.10 -> 3.83, int32 30001x31 4.98 -> 4.63, uint8 70001x31 5.33 -> 4.90,
// long runs within 0.05 (benchmarks/NOTES.md, session 86, call 1).
template <typename InT, typename OutT, bool kByElement, int kRoundLoads>
__global__ void __launch_bounds__(kThreads,
                                  min_blocks_per_sm<kThreads, registers_for(kRoundLoads)>())
    interleaved_column_kernel(int64_t stride, acc_t<InT>* partials, unsigned int* counters,
                              InterleavedSpans<InT, OutT> spans, bool shares_in_position_type) {
  // The second launch's warp_an_output_kernel, where there is one, may
  // start now: it waits for this kernel's end before it reads the partials.
  let_dependents_start();
  using AccT = acc_t<InT>;
  using SumT = PositionSum<InT>;
  constexpr int kVec = kElementsPerVector<InT>;
  __shared__ SumT positions[kThreads * kVec];
  __shared__ AccT edges[2][kVec];  // the span's scalar head and tail, by element
  const int columns = int(spans.columns);
  const int64_t group = blockIdx.y;
  const int64_t splits = gridDim.x;
  const InT* span = spans.input + spans.outer.offset(group);
  const int64_t numel = spans.numel;
  // The span's scalar head (up to its first 16-byte boundary), whole vectors
  // and tail, as split_into_vectors splits it but in unsigned arithmetic (a
  // shift and a mask, where a signed division by kVec takes its sign's
  // fix-ups) and without its bound for a span under a vector
  // (interleaved_shape keeps 256 vectors or more): the first load comes 5-14
  // instructions earlier (sm_90 SASS). On an H200, graph, dim=0, us: fp64
  // 30001x13 4.80 -> 4.67, 30001x63 8.73 -> 8.58, int16 50001x24 4.38 ->
  // 4.34, bf16 20001x31 3.91 -> 3.89, no run slower (benchmarks/NOTES.md,
  // session 87, call 1).
  const int head = int(unsigned(-reinterpret_cast<uintptr_t>(span)) % kVectorBytes / sizeof(InT));
  const uint64_t body = uint64_t(numel - head);
  const int64_t num_vectors = int64_t(body / kVec);
  const int tail_length = int(body % kVec);
  const int64_t tail_begin = numel - tail_length;
  const bool takes_edges = blockIdx.x == 0;
  const int thread = threadIdx.x;
  const int64_t first = int64_t(blockIdx.x) * kThreads + thread;
  const Vector<InT>* vectors = reinterpret_cast<const Vector<InT>*>(span + head);
  // A thread's round: vectors v, v + stride, ... A vector past the span loads
  // the round's first again (the span's last, where the round starts past it:
  // the span holds 255 vectors at least, interleaved_shape) and is not added:
  // every load is made, so that the round is one straight run, and the first
  // round needs no branch. With the span's last for every vector past it,
  // the long runs lost (fp32 300001x31 dim=0 14.28 -> 14.65 us, 1000000x3
  // 7.12 -> 7.41; H200, benchmarks/NOTES.md, session 81, call 2), perhaps
  // as a wave's surplus loads then fell on one address (worked out, not
  // measured); reloading the round's first, they gained instead (14.28 ->
  // 14.22, 7.14 -> 7.05; session 82, call 1).
  const auto load_batch = [&](int64_t v, Vector<InT>(&batch)[kRoundLoads]) {
    const int64_t past_the_span = min(v, num_vectors - 1);
#pragma unroll
    for (int u = 0; u < kRoundLoads; ++u) {
      batch[u] =
          load_streaming(vectors + (v + u * stride < num_vectors ? v + u * stride : past_the_span));
    }
  };
  SumT sums[kVec];
#pragma unroll
  for (int k = 0; k < kVec; ++k) sums[k] = SumT(0);
  const auto add_batch = [&](int64_t v, const Vector<InT>(&batch)[kRoundLoads]) {
#pragma unroll
    for (int u = 0; u < kRoundLoads; ++u) {
      if (v + u * stride < num_vectors) {
        if constexpr (std::is_same_v<InT, c10::BFloat16> && std::is_same_v<SumT, float>) {
          // Only bfloat16 takes this path: a helper that widened every
          // type into an array first cost the fp32 kernels 40 instructions
          // (sm_90 SASS).
          uint32_t words[kVec / 2];
          memcpy(words, &batch[u], sizeof(words));
#pragma unroll
          for (int w = 0; w < kVec / 2; ++w) {
            sums[2 * w] += first_of_bfloat16_pair(words[w]);
            sums[2 * w + 1] += second_of_bfloat16_pair(words[w]);
          }
        } else {
#pragma unroll
          for (int k = 0; k < kVec; ++k) sums[k] += static_cast<SumT>(batch[u].values[k]);
        }
      }
    }
  };
  // The first round's loads go out before anything else is worked out: the
  // run's blocks of one or two rounds (run_shape) wait on them from their
  // start. Its SASS put 120-160 instructions a warp before them, the phase's
  // division and the edges' loads among them (sm_90; Inductor's column
  // kernel, ~50), and its first kernel took 1.06 us longer than Inductor's
  // (benchmarks/NOTES.md, sessions 80-81).
  Vector<InT> first_round[kRoundLoads];
  load_batch(first, first_round);
  // Added after all the vectors, as the contiguous kernels do: an add that
  // waits for a scalar load would hold the vector loads back. ptxas issues
  // these predicated loads (block 0's) before or among the first round's.
  const InT head_element = takes_edges && thread < head ? span[thread] : InT(0);
  const InT tail_element = takes_edges && thread < tail_length ? span[tail_begin + thread] : InT(0);

  // Element k of thread t's vectors is span element head + kVec * (blockIdx.x
  // * kThreads + t) + k (mod C, as the stride is a multiple of the period):
  // position j = t * kVec + k lies in column (phase + j) mod C. Head element k
  // lies in column k mod C, tail element k in column (tail_phase + k) mod C.
  // The phase's division comes under the first round's latency, where after
  // the barrier it waited (benchmarks/NOTES.md, session 72); in 32 bits, as
  // the launcher keeps the grid to a wave. The span is whole rows of C, so
  // the tail, tail_length < kVec elements before its end, starts at
  // -tail_length mod C: a few adds, no division.
  const int phase =
      int((unsigned(head) + unsigned(kVec * kThreads) * blockIdx.x) % unsigned(columns));
  int tail_phase = -tail_length;
  while (tail_phase < 0) tail_phase += columns;

  if (first < stride) {
    if constexpr (sizeof(InT) == 8 && kRoundLoads == kLongRunLoads) {
      // Each round's loads go out before the round ahead of it is added.
      // Loaded, then added, ptxas issued 2 of the 8 loads, then the adds that
      // wait on them, then the other 6 (LDG R8, DADD R8, LDG R8: two memory
      // latencies a round; fp64 and int64, sm_90 SASS, CUDA 13.0), where every
      // other type's loop issues its round's loads first. This holds two
      // rounds in registers: 117 (fp64) and 109 (int64), 2 blocks an SM.
      int64_t v = first;
      for (int64_t next = first + kRoundLoads * stride; next < num_vectors;
           next += kRoundLoads * stride) {
        Vector<InT> batch[kRoundLoads];
        load_batch(next, batch);
        add_batch(v, first_round);
#pragma unroll
        for (int u = 0; u < kRoundLoads; ++u) first_round[u] = batch[u];
        v = next;
      }
      add_batch(v, first_round);
    } else {
      add_batch(first, first_round);
      for (int64_t v = first + kRoundLoads * stride; v < num_vectors; v += kRoundLoads * stride) {
        Vector<InT> batch[kRoundLoads];
        load_batch(v, batch);
        add_batch(v, batch);
      }
    }
  }
#pragma unroll
  for (int k = 0; k < kVec; ++k)
    positions[parked_index<kVec, kByElement>(thread * kVec + k)] = sums[k];
  if (takes_edges && thread < kVec) {
    edges[0][thread] = static_cast<AccT>(head_element);
    edges[1][thread] = static_cast<AccT>(tail_element);
  }
  __syncthreads();

  // The group's outputs, and this block's partial of its first column: a
  // column's is `column * splits` past it, in 32 bits (the launcher keeps a
  // span's threads, splits * kThreads, times kVec under 2^32, and columns <=
  // kMaxWideInterleavedColumns < kThreads * kVec).
  OutT* const group_results = spans.result + group * columns;
  const int64_t block_partial = group * columns * splits + blockIdx.x;
  const auto store = [&](int column, AccT sum) {
    if (splits == 1) {
      group_results[column] = static_cast<OutT>(sum);
    } else {
      partials[block_partial + unsigned(column) * unsigned(splits)] = sum;
    }
  };
  // The block's column sums, each added in ShareT by its warp (or, past 32
  // columns, its kWideColumnThreads or kWiderColumnThreads threads).
  const auto add_columns = [&](auto share_zero) {
    using ShareT = decltype(share_zero);
    // Where `column`'s parked positions start: (column - phase) mod C
    // (without a division: both lie in [0, C)).
    const auto column_start = [&](int column) {
      return column - phase + (column < phase ? columns : 0);
    };
    const auto add_wide_columns = [&](auto column_threads) {
      constexpr int kColumnThreads = decltype(column_threads)::value;
      // The fewest columns of kColumnThreads threads: 33 of 4, 65 of 2.
      constexpr int kFewestColumns = kThreads / (2 * kColumnThreads) + 1;
      const int column = thread / kColumnThreads;
      const int part = thread % kColumnThreads;
      ShareT sum = ShareT(0);
      if (column < columns) {
        const int share_first[1] = {column_start(column) + part * columns};
        ShareT share[1];
        // A thread's positions lie kColumnThreads * C apart: 4 in flight.
        strided_sums<kVec, kByElement, most_reads<kVec>(kColumnThreads * kFewestColumns)>(
            positions, share_first, kColumnThreads * columns, share);
        sum = share[0];
        if (takes_edges && part == 0) {
#pragma unroll
          for (int k = 0; k < kVec; ++k) {  // k < kVec < columns
            if (k == column) sum += static_cast<ShareT>(edges[0][k]);
            const int tail_column = tail_phase + k - (tail_phase + k < columns ? 0 : columns);
            if (tail_column == column) sum += static_cast<ShareT>(edges[1][k]);
          }
        }
      }
      sum = warp_sum<kColumnThreads>(sum);
      if (part == 0 && column < columns) store(column, static_cast<AccT>(sum));
    };
    if (columns > kMostColumnsOfFourThreads) {
      add_wide_columns(std::integral_constant<int, kWiderColumnThreads>{});
    } else if (columns > kWarpSize) {
      add_wide_columns(std::integral_constant<int, kWideColumnThreads>{});
    } else {
      const int warp = thread / kWarpSize;
      const int lane = thread % kWarpSize;
      // The warp's columns warp, warp + kWarps, ... (up to 4) at once: their
      // reads and their shuffles in flight together, where a column a turn
      // waited on each turn's chains in turn.
      const auto add_warp_columns = [&](auto columns_a_warp) {
        constexpr int kColumns = decltype(columns_a_warp)::value;
        int firsts[kColumns];
#pragma unroll
        for (int i = 0; i < kColumns; ++i) {
          const int column = warp + i * kWarps;
          firsts[i] = column < columns ? column_start(column) + lane * columns : kThreads * kVec;
        }
        ShareT sums[kColumns];
        // A warp has kColumns columns only from (kColumns - 1) * kWarps + 1
        // of them, so a lane's positions of one lie 32 times that apart.
        strided_sums<kVec, kByElement, most_reads<kVec>(kWarpSize * ((kColumns - 1) * kWarps + 1))>(
            positions, firsts, kWarpSize * columns, sums);
        // One branch over the columns' edges, which every block but the
        // first skips, where each column branched (a check and a branch a
        // column in every warp of every block).
        if (takes_edges && lane < kVec) {
          const int head_column = lane % columns;
          const int tail_column = (tail_phase + lane) % columns;
#pragma unroll
          for (int i = 0; i < kColumns; ++i) {
            const int column = warp + i * kWarps;
            if (head_column == column) sums[i] += static_cast<ShareT>(edges[0][lane]);
            if (tail_column == column) sums[i] += static_cast<ShareT>(edges[1][lane]);
          }
        }
        warp_sums(sums);
#pragma unroll
        for (int i = 0; i < kColumns; ++i) {
          const int column = warp + i * kWarps;
          if (lane == 0 && column < columns) store(column, static_cast<AccT>(sums[i]));
        }
      };
      static_assert(kWarpSize <= 4 * kWarps, "up to 32 columns: 4 a warp at most");
      const int warp_columns = warp < columns ? (columns - warp + kWarps - 1) / kWarps : 0;
      if (warp_columns == 1) {
        add_warp_columns(std::integral_constant<int, 1>{});
      } else if (warp_columns == 2) {
        add_warp_columns(std::integral_constant<int, 2>{});
      } else if (warp_columns == 3) {
        // Apart from 4, so as to carry no fourth sum of masked reads (~300
        // more instructions a kernel, sm_90 SASS).
        add_warp_columns(std::integral_constant<int, 3>{});
      } else if (warp_columns == 4) {
        add_warp_columns(std::integral_constant<int, 4>{});
      }
    }
  };
  // Narrow integers' shares in int32 where they fit (the launcher's
  // shares_fit_position_type): a column's strided sum and warp sum, a column
  // a turn as they were then, in int64 took ~85 instructions a warp (ncu,
  // int16 20001x16 dim=0; benchmarks/NOTES.md, session 81, call 1), each add
  // two and each shuffle two. In int32, H200, graph, dim=0, us (session 82,
  // call 2): int8 70001x31 6.36 -> 5.91, 200001x31 9.51 -> 8.84, uint8
  // 70001x32 5.90 -> 5.54, int16 70001x31 6.84 -> 6.40, int8 20001x8 3.97 ->
  // 3.87.
  if (!std::is_same_v<SumT, AccT> && shares_in_position_type) {
    add_columns(SumT(0));
  } else {
    add_columns(AccT(0));
  }
  if (splits > 1) {
    finish_in_last_block<kThreads, kFinishBatch>(
        static_cast<const AccT*>(partials) + group * columns * splits, columns, splits,
        spans.result + group * columns, counters == nullptr ? nullptr : counters + group,
        gridDim.x);
  }
}

// The whole vectors of one span.
template <typename InT, typename OutT>
int64_t span_vectors(const ColumnProblem<InT, OutT>& problem) {
  return span_elements(problem) / kElementsPerVector<InT>;
}

// Whether each block's column sums, and every sum on their way, fit its
// positions' type (int32 for 1- and 2-byte integers, PositionSum): the
// block's elements (its threads' vectors a `stride` of vectors apart, and
// block 0's head and tail) times an element's largest magnitude do.
template <typename InT, typename OutT>
bool shares_fit_position_type(const ColumnProblem<InT, OutT>& problem, int64_t stride) {
  if constexpr (std::is_same_v<PositionSum<InT>, acc_t<InT>>) {
    return false;
  } else {
    constexpr int kVec = kElementsPerVector<InT>;
    const int64_t elements = kThreads * kVec * ceil_div(span_vectors(problem), stride) + 2 * kVec;
    const int64_t magnitude = std::max(-int64_t(std::numeric_limits<InT>::min()),
                                       int64_t(std::numeric_limits<InT>::max()));
    return elements <= std::numeric_limits<PositionSum<InT>>::max() / magnitude;
  }
}

// The vectors between a thread's loads: the run's threads, a multiple of C's
// period (C / gcd(C, elements a vector)), so that element k of each vector a
// thread loads lies in one column; the threads past it load nothing.
template <typename InT, typename OutT>
int64_t run_stride(const ColumnProblem<InT, OutT>& problem, int64_t splits) {
  const int64_t columns = problem.inner_outputs;
  const int64_t period = columns / std::gcd(columns, int64_t(kElementsPerVector<InT>));
  const int64_t threads = splits * kThreads;
  return threads - threads % period;
}

// Whether `splits` splits of `loads` loads a thread a round read each span in
// one round.
template <typename InT, typename OutT>
bool reads_in_one_round(const ColumnProblem<InT, OutT>& problem, int64_t splits, int loads) {
  return run_stride(problem, splits) * loads >= span_vectors(problem);
}

// A wave of the run's blocks of kRoundLoads loads a round, whose registers
// set how many fit an SM: the smaller of the two parkings' kernels' waves
// (the same on sm_90), so that either kernel's grid stays in one.
template <typename InT, typename OutT, int kRoundLoads>
int64_t run_wave(const LaunchContext& context) {
  return std::min(one_wave<interleaved_column_kernel<InT, OutT, false, kRoundLoads>>(
                      kThreads, context.device, context.sm_count),
                  one_wave<interleaved_column_kernel<InT, OutT, true, kRoundLoads>>(
                      kThreads, context.device, context.sm_count));
}

// The run's loads a thread a round, and its splits a span: a block per round
// of the loads, up to a wave of its kernel's blocks over all spans and as
// many as the held partials hold.
struct RunShape {
  int loads;
  int64_t splits;
};

// kLoads a thread; kFewBlocksLoads (twice the blocks) where blocks of kLoads
// would fill under a quarter of the SMs; kLongRunLoads where they would fill
// every SM, below. Where they would fill under a quarter: there a block's one
// or two rounds and its adds after the barrier are the read's whole time, on a
// few SMs. H200, graph, dim=0, us, 4 -> 2 loads (blocks in all at 4 loads;
// benchmarks/NOTES.md, session 80, call 3): int8 20001x8 (10) 4.20 -> 4.05,
// 25001x16 (25) 4.56 -> 4.07, 30001x16 (30) 4.47 -> 4.09, bool 30001x16 (30)
// 4.56 -> 4.06, uint8 30001x8 (15) 4.36 -> 4.11, int16 20001x8 (20) 3.99 ->
// 3.91, fp16 20001x9 (22) 4.11 -> 3.83. From 49 blocks up, 2 loads lost or
// tied: int16 25001x16 (49) 4.13 -> 4.20, bf16 20001x31 (76) 4.79 -> 5.02,
// int32 30001x17 (125) 4.74 -> 5.22, int8 70001x31 (133) 6.75 -> 8.14, fp16
// 200001x9 (220) 5.05 -> 5.62. One load a round (four times the blocks) gained
// 0.01-0.08 more on 8 columns and lost on 16. A build of each rule (call 4)
// confirmed those gains and timed 3-5 columns and the edge: fp32 20001x3 (15)
// 3.49 -> 3.38, bf16 40001x3 (15) 3.83 -> 3.72, int16 30001x3 (11) 4.12 ->
// 3.88, bf16 40001x5 (25) 3.80 -> 3.77, int8 32001x16 (32) 4.27 -> 4.12; fp16
// 30001x9 (33) keeps 4 loads.
// Where blocks of kLoads fill every SM, 1- to 4-byte elements (and 8-byte
// ones, below) take kLongRunLoads: one round a thread where a wave of those
// blocks holds it (ptxas, CUDA 13.0, sm_90, gives them 72 registers for 16-
// and 32-bit floats, 76-80 for int32 and int16, 3 an SM; 87 for 1-byte
// integers and bool, 109-117 for 8-byte elements, 2 an SM); else, where the
// spans fit half a wave of kLoads' blocks, that many blocks of kLongRunLoads
// (two an SM on sm_90), which keeps a kLoads wave's loads in
// flight in half the blocks, whose adds after the barrier (issued in turn by
// the SM's schedulers: 535 instructions a warp of fp32 300001x31's, ncu) and
// finish are half as many.
// H200, graph, us, kLoads -> half a wave of kLongRunLoads (benchmarks/NOTES.md,
// session 84, call 2), dim=0: fp32 300001x31 13.95 -> 12.77, 837001x31 28.37 ->
// 27.21, 2000001x47 88.90 -> 87.70, 11540001x3 34.83 -> 34.29, bf16 2800001x3
// 8.42 -> 7.62, int8 4000000x3 10.00 -> 7.85, 200001x31 8.50 -> 7.13, fp16
// 4000001x5 14.05 -> 13.23, int32 100001x31 8.30 -> 8.03, fp32 64x20001x33
// dim=1 41.95 -> 41.80; in one round, int32 30001x31 (228 -> 114 blocks) 5.55
// -> 5.00, int16 70001x31 (265 -> 133) 6.15 -> 5.62, uint8 70001x31 (133 -> 67)
// 5.67 -> 5.34, fp16 200001x9 (220 -> 110) 4.68 -> 4.55. Past half a wave, one
// round beat half a wave's 1.2-1.5 (call 3): fp32 1000000x3 (367 blocks) 6.60
// -> 6.30-6.40, fp16 1000001x5 (306) 6.93 -> 6.45, bf16 8x262144x3 dim=1 (384)
// 7.05 -> 6.94-7.02; but not a wave of 3 an SM of 1.3-2.9 rounds: bf16
// 2800001x3 7.62 -> 8.60-8.67, fp32 300001x31 12.77 -> 12.96-13.09. 8-byte
// elements: of up to 32 columns, one round of kLongRunLoads won (session 87,
// call 2), fp64 30001x31 6.64 -> 6.27 us (272 blocks in 1.7 rounds, the held
// partials' cap, -> 228 in one), 30001x13 4.69 -> 4.34, 30001x17 5.23 ->
// 4.82, 25001x31 6.53 -> 5.89, int64 30001x31 6.56 -> 6.06; of 33-64 it lost,
// fp64 30001x33 (242 blocks) 4.98 -> 5.11 (session 88, call 3), so they take
// no one round. Past one round, 8-byte spans take half a wave of
// kLongRunLoads only where kLoads would take more than 5 rounds, with
// interleaved_column_kernel's pipelined 8-byte rounds (session 88, calls
// 3-4): fp64 100001x31 (5.6 rounds of kLoads) 9.84 -> 9.75, 300001x31 (16.7)
// 21.18 -> 21.01, int64 100001x31 (5.6) 9.92 -> 9.45, fp64 30001x63 (6.9)
// 7.97 -> 7.48, 50001x55 (8.8) 9.81 -> 9.05, 300001x33 (18.9) 22.19 ->
// 21.53; in fewer it lost, fp64 71873x31 (4.0) 8.06 -> 8.81, 50001x31 (2.8)
// 6.81 -> 7.28, 20001x47 (2.6) 5.38 -> 5.65 (4.0-5.6 rounds: not timed).
// From blocks of kLoads over half the SMs (66-131 blocks), kLongRunLoads won on
// 2 of 8 runs, lost on 5 (call 3). Spans past half a wave take one round of
// kLongRunLoads where a wave of those blocks holds them, as spans within it do,
// measured on a build whose 8-load blocks had 80-register bounds (floats took
// 77-78 there, 3 an SM as here; session 85, call 2): bf16 300x4001x3 dim=1
// (0.73 of a round) 5.04 -> 4.86, fp16 384x2001x5 dim=1 (0.61) 5.32 -> 4.90;
// not at 1.46 rounds, fp32 300x4001x3 dim=1 5.94 -> 6.17 (fp32 in one round
// past half a wave not timed). A round is run_stride's vectors times the
// loads: where C's period does not divide the threads, a span just under a
// block's kThreads * kLongRunLoads vectors would take a second round, and
// keeps kLoads. Spans past a wave of kLongRunLoads' blocks (a block each) keep
// kLoads, so that a grid of one split a span takes as few waves.
// 8-byte spans left to kLoads in 2-5 rounds take rounds of kMidRunLoads in
// the same splits where that takes fewer rounds: one memory latency fewer,
// in as many loads a thread or fewer (up to 5 rounds of 4). H200, graph, us,
// kLoads -> kMidRunLoads (benchmarks/NOTES.md, session 90, calls 3-4, two
// runs each): fp64 60001x31 (4 -> 3 rounds) 7.71 -> 7.49 (Inductor 7.30),
// int64 60001x31 7.70 -> 7.56, fp64 4x10001x31 dim=1 (3 -> 2) 6.37 -> 6.10
// (5.96), 40001x31 (3 -> 2) 6.39 -> 6.29, int64 80001x31 (5 -> 4) 8.84 ->
// 8.71-8.78, fp64 85001x31 (5 -> 4) 8.92-8.96 -> 8.90, and from half a wave
// of kLongRunLoads, 89841x31 (5 rounds of 4 in the threads, 5 and 15 vectors
// by the stride, which had counted them) 9.51 -> 9.06 (9.24; session 91,
// call 1); past 32 columns, fp64
// 50001x33 (4 -> 3) 6.65 -> 6.44 (6.88), 25001x41 (3 -> 2) 5.43 -> 5.06,
// 25001x47 (4 -> 3) 6.04 -> 5.73 (6.01), 20001x55 (4 -> 3) 5.90 -> 5.53
// (5.80), 25001x55 (5 -> 4) 6.63 -> 6.32 (6.27), 10001x63 (3 -> 2) 4.88 ->
// 4.50 (4.93), 20001x63 (5 -> 4) 6.41 -> 6.11 (6.06). Rounds of 6 lost on
// most (60001x31 8.00-8.04; 85001x31 9.23-9.26): 3 rounds of 6 make 18
// loads where 14 read the span, 3 of 5 make 15.
template <typename InT, typename OutT>
RunShape run_shape(const ColumnProblem<InT, OutT>& problem, int64_t partials_capacity,
                   const LaunchContext& context) {
  const int64_t spans = problem.outer.numel();
  const auto shape_of = [&](int loads, int64_t wave) {
    return RunShape{
        loads,
        split_count(spans, ceil_div(span_vectors(problem), int64_t(kThreads) * loads), wave,
                    std::max<int64_t>(1, partials_capacity / (spans * problem.inner_outputs)))};
  };
  // kFewBlocksLoads' blocks have kLoads' launch bounds, so the same wave.
  const int64_t wave = run_wave<InT, OutT, kLoads>(context);
  const RunShape shape = shape_of(kLoads, wave);
  if (4 * spans * shape.splits < context.sm_count) return shape_of(kFewBlocksLoads, wave);
  if (spans * shape.splits >= context.sm_count) {
    const bool eight_byte = sizeof(InT) == 8;
    const int64_t long_wave = run_wave<InT, OutT, kLongRunLoads>(context);
    const RunShape one_round = shape_of(kLongRunLoads, long_wave);
    if ((!eight_byte || problem.inner_outputs <= kWarpSize) && spans <= long_wave &&
        reads_in_one_round(problem, one_round.splits, kLongRunLoads)) {
      return one_round;
    }
    const int64_t half_wave = std::min(wave / 2, long_wave);
    // Rounds counted in the splits' threads, as measured: where the stride
    // (a multiple of the columns' period) falls short of them, a last round
    // of a few vectors does not count (fp64 71873x31: 4 rounds of 4 loads
    // and 15 vectors; 89841x31: 5 and 15).
    const auto rounds_of = [&](int loads) {
      return ceil_div(span_vectors(problem), shape.splits * kThreads * loads);
    };
    const bool many_rounds = rounds_of(kLoads) > 5;
    if ((!eight_byte || many_rounds) && spans <= half_wave) {
      return shape_of(kLongRunLoads, half_wave);
    }
    if (eight_byte && !many_rounds && rounds_of(kMidRunLoads) < rounds_of(kLoads)) {
      return RunShape{kMidRunLoads, shape.splits};
    }
  }
  return shape;
}

// The run's kernel of kRoundLoads loads a round; kByElement: parked_index.
template <typename InT, typename OutT, int kRoundLoads>
auto run_kernel(bool by_element) {
  return by_element ? interleaved_column_kernel<InT, OutT, true, kRoundLoads>
                    : interleaved_column_kernel<InT, OutT, false, kRoundLoads>;
}

// The kernel that launch_warp_an_output launches for the run's splits.
template <typename InT, typename OutT>
constexpr auto kWarpAColumn = warp_an_output_kernel<kThreads, kFinishBatch, acc_t<InT>, OutT>;

// Whether the run's splits finish in a second launch, a warp a column
// (launch_warp_an_output), rather than in the last block of each span, which
// took more columns than its 8 warps in turns: past 32 columns of a warp's
// splits or more, and past 8 where that launch starts before the read ends
// (starts_early_on; measured there only, benchmarks/NOTES.md, session 74).
template <typename InT, typename OutT>
bool finishes_a_warp_a_column(int64_t columns, int64_t splits, int device) {
  return splits >= kWarpSize &&
         (columns > kWarpSize ||
          (columns > kWarps && starts_early_on<kWarpAColumn<InT, OutT>>(device)));
}

}  // namespace

// Whether the run reads each span of `problem` in one round of kLongRunLoads.
template <typename InT, typename OutT>
bool run_reads_in_one_long_round(const ColumnProblem<InT, OutT>& problem, int64_t partials_capacity,
                                 const LaunchContext& context) {
  const auto [loads, splits] = run_shape(problem, partials_capacity, context);
  return loads == kLongRunLoads && reads_in_one_round(problem, splits, loads);
}

// 33-128 columns (33-64 of 8-byte types), where the wave's threads would have
// 2.4 elements or more each (where the splits finish in a second launch that
// starts early: 4- and 8-byte columns off the vector boundary, and rows on it)
// or 4.5 (the rest: 1- and 2-byte columns off the boundary, or no early
// launch), and the held partials allow 3/8 of a wave of blocks or more
// (capacity / columns splits in all: up to 42 columns of 8-byte sums, 85 of
// 4-byte ones) or, in one span, fewer blocks leave 40 rounds of loads a
// thread or fewer (fp64; the rest, 20) or are 9/8 of the SMs or more
// (below); rows on the vector boundary as well, of 1- to 4-byte types in one
// span. On an H200, dim=0, bands -> interleaved, us: with the
// finish a warp a column in a plain second launch (benchmarks/NOTES.md,
// session 73, calls 1-3), under 4.5 elements a
// thread, fp16 10001x33 (2.4) 3.86 -> 4.35, fp32 10001x47 (3.5) 4.28 -> 4.47,
// fp64 15001x33 (3.7) 5.53 -> 5.75; at it (4.9), fp16 20001x33 4.67 -> 4.64,
// fp32 20001x33 5.16 -> 4.70, fp64 20001x33 6.26 -> 6.45; past it, bf16
// 30001x33 5.42 -> 4.79, fp32 50001x33 7.41 -> 5.94, fp64 30001x33 8.14 ->
// 6.72, fp32 2000001x47 101.99 -> 89.39. With that launch started early
// (session 74, call 2), 4- and 8-byte columns won from 2.4: fp32 10001x33 4.01
// -> 3.84, 10001x47 4.25 -> 3.99, fp64 10001x33 4.78 -> 4.67, 15001x33 5.49 ->
// 5.28; but not at 1.2 (fp32 5001x33 3.11 -> 3.62), nor 16-bit ones under 4.5
// (fp16 15001x33 3.97 -> 4.02, bf16 10001x47 4.01 -> 4.01, fp16 5001x33 2.97 ->
// 4.19); rows on the boundary won from 2.7 (session 75, call 1: fp32 10001x36
// 4.27 -> 3.91, bf16 10001x40 (3.0) 4.17 -> 3.99, fp16 7001x64 (3.3) 4.30 ->
// 4.03, fp32 12001x48 (4.3) 4.82 -> 4.12) and lost at 2.37 (fp32 5001x64 3.75
// -> 3.95), below the bound of 2.4 they now share. Splits, all of kLoads (the
// wave: 528 blocks; 4-byte columns take kLongRunLoads since session 84): fp64
// 100001x41 (206) won in session 71 (14.68 -> 13.94, 300001x41 31.37 -> 30.20),
// fp32 200001x64 an element in (264) 17.77 -> 16.26; fp64 100001x47 (179) 15.50
// -> 15.11 but 300001x47 33.60 -> 34.93, 50001x63 (134) 11.94 -> 12.80 and
// 150001x64 an element in (132) 23.41 -> 28.84. Aligned rows
// (aligned-interleaved-switch.patch): fp16 30001x64 6.61 -> 5.51, 1000001x64
// 46.19 -> 35.32, bf16 1000001x40 40.73 -> 23.44, fp32 50001x36 6.66 -> 6.07,
// 300001x64 22.39 -> 22.31, but fp64 30001x34 6.72 -> 7.01 and bf16 16x3001x64
// dim=1 (16 spans) 4.93 -> 6.24. Left to the bands in session 70 (with the
// last block's finish of then, a thread a column): 65+ columns and integers.
// With today's finish (session 91, calls 2-3; bands or clusters -> run):
// fp32 20001x66 6.11 -> 4.41 (Inductor 4.72), 12001x67 4.79 -> 3.86, 9001x100
// 4.80 -> 4.13, 300001x66 26.28 -> 21.41, 64x3001x66 dim=1 19.08 -> 15.51,
// fp16 12001x127 5.27 -> 4.29 (4.39), 300001x127 (17.5 rounds of 8 in 133
// splits) 31.18 -> 25.74, 1000001x100 84.32 -> 52.02, bf16 1000001x66 62.41
// -> 33.07, 20001x127 9.25 -> 5.43 (5.26), rows on the boundary fp32 20001x68
// 5.43 -> 4.46, bf16 100001x72 9.15 -> 6.79, but fp32 300001x128 (35.5
// rounds in 132) 37.80 -> 39.64; integers, int32 1000001x33 48.23 -> 32.80,
// 20001x66 6.38 -> 5.10 (4.95), 12001x40 4.77 -> 3.51, int64 100001x41 14.53
// -> 11.03, 20001x33 6.06 -> 4.73, int16 30001x48 7.04 -> 4.12, 100001x40
// 9.43 -> 6.19, int8 200001x63 15.12 -> 8.35, 40001x40 7.21 -> 4.05, 70001x100
// (84 splits, 5.1 rounds of 4) 11.37 -> 7.59, bool 100001x127 (66, 12)
// 13.64 -> 11.94, but int32 100001x100 (84, 29) 14.48 -> 21.74, 300001x66
// (128, 38) 27.12 -> 28.75, uint8 300001x127 (66, 35) 28.81 -> 31.00.
template <typename InT, typename OutT>
bool interleaves_wide_columns(const ColumnProblem<InT, OutT>& problem, bool rows_aligned,
                              int64_t partials_capacity, const LaunchContext& context) {
  const int64_t spans = problem.outer.numel();
  const int64_t columns = problem.inner_outputs;
  // 8-byte columns past 64 lost (fp64 12001x127: 66 splits, the held
  // partials' cap; clusters -> run 8.34 -> 10.14 us; session 91, call 3).
  const int64_t most_columns =
      sizeof(InT) == 8 ? kMostColumnsOfFourThreads : kMaxWideInterleavedColumns;
  if (columns <= kWarpSize ||
      !interleaved_shape(sizeof(InT), std::is_integral_v<InT>, columns, problem.reduced, spans,
                         most_columns) ||
      (rows_aligned && (sizeof(InT) == 8 || spans > 1))) {
    return false;
  }
  // The bounds below were measured in kLoads' waves.
  const int64_t wave = run_wave<InT, OutT, kLoads>(context);
  const int64_t elements = spans * span_elements(problem);
  const auto [loads, splits] = run_shape(problem, partials_capacity, context);
  // 2.4 was measured with the finish a warp a column started early.
  const bool finishes_early =
      finishes_a_warp_a_column<InT, OutT>(columns, splits, context.device) &&
      starts_early_on<kWarpAColumn<InT, OutT>>(context.device);
  const int64_t tenths_a_thread = finishes_early && (sizeof(InT) >= 4 || rows_aligned) ? 24 : 45;
  // Under 3/8 of a wave of splits (8-byte columns past 42), in one span:
  // where those splits leave 40 rounds of the run's loads a thread or
  // fewer, or are 9/8 of the SMs or more (43-56 8-byte columns). First 10
  // rounds of kLoads: fp64, bands -> run, 20001x47 (2.6 rounds) 7.78 ->
  // 6.37 us, 50001x55 (8.8) 11.32 -> 10.66, 30001x63 (6.9) 13.19 -> 8.79;
  // but 50001x63 (11.5) 12.03 -> 12.26, 100001x63 (23.0) 17.94 -> 19.68,
  // 300001x47 (38.5) 33.66 -> 34.52 (H200, benchmarks/NOTES.md, session 74,
  // call 5; confirmed in session 75, call 1). Since 8-byte runs past 5
  // rounds of kLoads take kLongRunLoads, pipelined (session 88), bands ->
  // that run, fp64 50001x63 (5.7 rounds of 8) 11.67 -> 9.91 (Inductor
  // 9.93), 100001x47 (6.4) 15.09 -> 12.49 (15.41) (session 89, call 1);
  // 100001x63 (11.5) 17.54 -> 16.15 (17.47), 200001x47 (12.8) 24.69 ->
  // 21.16 (25.21), 150001x55 (13.2) 21.37 -> 19.77 (21.91), 150001x64 an
  // element in (17.8) 23.57 -> 22.22 (26.40), 300001x47 (19.2) 33.16 ->
  // 30.06 (35.34) (call 2). Past 20 rounds, in 153-179 splits, 400001x47
  // (25.6) 42.06 -> 37.86 (44.51), 1000001x47 (64) 96.39 -> 88.27
  // (104.26), 600001x55 (52.7) 66.69 -> 64.25 (71.38), 1000001x55 (88)
  // 106.11 -> 104.04 (116.26) (call 4); in 132-134, a split an SM, the run
  // lost, 1000001x63 (115) 119.21 -> 121.61 (call 4; 121.18 -> 124.15 in
  // call 3), 500001x64 an element in (59) 64.27 -> 64.61 (call 3), and
  // 300001x63 (34.4) tied, 39.85 -> 39.57 (call 4) and 40.09 -> 40.07
  // (call 3). The bound at 40 rounds (session 90, call 1) won from 20 to
  // 40 in 132-148 splits: 200001x63 (23.0) 28.94 -> 27.89 (29.92),
  // 250001x63 (28.7) 34.75 -> 33.85 (35.96), 300001x63 (34.4) 40.56 ->
  // 40.09, 340001x63 (39.0) 45.35 -> 44.60, 250001x64 an element in (29.6)
  // 34.89 -> 34.56, 400001x57 (37.6) 48.24 -> 46.89 (51.92); 41-58
  // rounds are not timed against the bands.
  // 40 rounds were measured on fp64 alone; past 64 columns, of fewer splits
  // than SMs or a split an SM, the run won up to 17.5 rounds and lost from 29
  // (session 91, call 3; below): 20 for every other type.
  const int64_t most_rounds = std::is_same_v<InT, double> ? 40 : 20;
  const bool one_span_run_wins =
      spans == 1 && (8 * splits >= 9 * int64_t(context.sm_count) ||
                     span_vectors(problem) <= most_rounds * splits * kThreads * loads);
  return (8 * (partials_capacity / columns) >= 3 * wave || one_span_run_wins) &&
         10 * elements >= tenths_a_thread * wave * kThreads;
}

template <typename InT, typename OutT>
void launch_interleaved_column_sum(const ColumnProblem<InT, OutT>& problem,
                                   Finish<acc_t<InT>> finish, const LaunchContext& context) {
  static_assert(kElementsPerVector<InT> * sizeof(PositionSum<InT>) <= 64,
                "a thread's sums take 16 of kRegisters at most");
  constexpr int kVec = kElementsPerVector<InT>;
  const int64_t columns = problem.inner_outputs;
  const int64_t groups = problem.outer.numel();
  const auto [loads, splits] = run_shape(problem, finish.partials_capacity, context);
  // The kernel reloads a span's last vector for a round that starts past it.
  TORCH_INTERNAL_ASSERT(span_vectors(problem) >= kThreads,
                        "interleaved_column_kernel: a span of under a block's vectors");
  const int64_t threads = splits * kThreads;
  TORCH_INTERNAL_ASSERT(threads * kVec < int64_t(UINT32_MAX) - kVec,
                        "interleaved_column_kernel's 32-bit phase: ", splits, " splits");
  // A counter a span: more spans than counters finish in a second launch.
  // So do more columns than the last block's 8 warps, of a warp's splits
  // or more: a warp a column (launch_warp_an_output), which starts early,
  // where the last block took them in turns of 8 warps. H200, us, last
  // block -> second launch started early: fp16 200001x9 dim=0 5.54 ->
  // 5.09, 500001x24 an element in 13.27 -> 11.95, fp32 300001x31 16.35 ->
  // 14.32, fp64 200001x17 15.21 -> 13.01; up to 8 columns (a turn) within
  // 0.1 of each other, fp16 1000001x5 7.90 / 7.84, bf16 8x2^20x3 dim=1
  // 15.46 / 15.57 (benchmarks/NOTES.md, session 74). Of fewer splits, the
  // last block adds all columns in one turn (sum_partials: 9-31 a group of
  // lanes each, from session 79; more, a thread each): fp32
  // 64x20001x33 dim=1, 8 splits a span, 42.23 us there against 42.81 in a
  // second launch; bf16 8x100001x33 dim=1, 66 splits, 19.17 against 17.72
  // (session 71).
  const bool warp_a_column = finishes_a_warp_a_column<InT, OutT>(columns, splits, context.device);
  if (groups > finish.counter_count || warp_a_column) finish.counter = nullptr;
  const dim3 grid(static_cast<unsigned>(splits), static_cast<unsigned>(groups));
  const bool by_element = columns % 8 == 0 && columns <= kWarpSize;
  auto kernel = run_kernel<InT, OutT, kLoads>(by_element);
  if (loads == kFewBlocksLoads) kernel = run_kernel<InT, OutT, kFewBlocksLoads>(by_element);
  if (loads == kLongRunLoads) kernel = run_kernel<InT, OutT, kLongRunLoads>(by_element);
  // Built for the 8-byte types alone, the only ones run_shape gives them.
  if constexpr (sizeof(InT) == 8) {
    if (loads == kMidRunLoads) kernel = run_kernel<InT, OutT, kMidRunLoads>(by_element);
  }
  const int64_t stride = run_stride(problem, splits);
  kernel<<<grid, kThreads, 0, context.stream>>>(stride, finish.partials, finish.counter,
                                                interleaved_spans(problem),
                                                shares_fit_position_type(problem, stride));
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  if (warp_a_column) {
    launch_warp_an_output<kThreads, kFinishBatch>(finish.partials, groups * columns, splits,
                                                  problem.result, context);
    return;
  }
  finish_in_second_launch_if_needed<kThreads>(finish, columns, splits, problem.result,
                                              context.stream, groups);
}

#define INSTANTIATE(InT, OutT)                                                                   \
  template bool interleaves_wide_columns<InT, OutT>(const ColumnProblem<InT, OutT>&, bool,       \
                                                    int64_t, const LaunchContext&);              \
  template bool run_reads_in_one_long_round<InT, OutT>(const ColumnProblem<InT, OutT>&, int64_t, \
                                                       const LaunchContext&);                    \
  template void launch_interleaved_column_sum<InT, OutT>(                                        \
      const ColumnProblem<InT, OutT>&, Finish<acc_t<InT>>, const LaunchContext&);
TORCH_REDUCE_V7_FOR_EACH_TYPE_PAIR(INSTANTIATE)
#undef INSTANTIATE

}  // namespace torch_reduce::cuda::v7
