// sum_v7 over contiguous memory (and any dense layout, whose storage span is
// contiguous): many elements per thread, warp-shuffle block sums (seed 003,
// "Reduce_v7_shuffle"), 16-byte loads with a scalar head and tail for
// misaligned pointers, and one launch. A few long rows (sums over the last
// dim of a small batch) are that many such sums side by side: blockIdx.y
// picks the row, and each row finishes on its own counter. Every thread loads
// in rounds of up to 4 vectors issued together (loads.cuh's round sums).
// Launch shapes by size, from the graph-mode sweeps in benchmarks/NOTES.md:
//  - one block, of as few warps as cover the input in one round (two where
//    no thread-block cluster takes it) (16-bit rows of whole warps of 8-byte
//    loads up to 2^12 elements, 2^11 and 2^12 in 256 threads of 2 and 4),
//    with 32-bit indices: no second stage at all;
//  - mid sizes: a 512-thread block per chunk of 1024 or 2048 vectors (one
//    round a thread), finished by the last block to arrive, or, up to the
//    largest cluster the GPU runs (8 blocks on Hopper and newer, 16 on an
//    H100), by block 0 of a thread-block cluster;
//  - large sizes: one wave of the same blocks, taking chunks in turn;
//  - past kManyWavesL2Multiple x L2, a block per chunk (per kManyWaveChunks
//    neighbouring chunks where one cluster cannot hold the totals or memory
//    is fast for a multiprocessor) over many waves, finished by a second
//    launch over the partials.
#include <c10/cuda/CUDAException.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include <type_traits>

#include "cluster_handoff.cuh"
#include "launch_policy.h"
#include "loads.cuh"
#include "problem.h"
#include "reduce.cuh"

namespace torch_reduce::cuda::v7 {
namespace {

// The one-block shape: up to kOneBlockThreads threads with 1, 2 or
// kLoadsPerRound loads in flight each, for one round, or two where no cluster
// takes the row (launch_contiguous_sum), with 32-bit indices (one block never
// sees 2^31 elements). The grid-stride kernel that served these sizes ran
// 2.5x the instructions of Inductor's one-block kernel (64-bit indices, a
// count-down loop, the split finish's branches), and 0.6 us longer
// (benchmarks/NOTES.md).
constexpr int kOneBlockThreads = 512;
constexpr int kLoadsPerRound = 4;
constexpr int64_t kOneBlockRoundVectors = int64_t(kOneBlockThreads) * kLoadsPerRound;
constexpr int64_t kOneBlockMaxVectors = 2 * kOneBlockRoundVectors;

// 16-bit one-block sums in 8-byte loads (HalfVectors): their loads may
// allocate in L1 while a block's loads are at most this many halves (2 KB);
// past that they keep L1::no_allocate. Rows of 512 and 1024 halves take
// kHalfVectorBlockThreads threads of 2 and 4 loads (graph mode,
// benchmarks/NOTES.md):
//  - session 28, one half a thread: through L1, H100 fp16 2^10 1.51 us
//    instead of 1.56 (0.954x -> 0.998x Inductor), bf16 1.51 instead of 1.57,
//    fp16 2^9 1.38 instead of 1.48; H200 2^10 1.30-1.31 instead of 1.38. At
//    512 threads (2^11, 4 KB) the same loads cost 0.09 us on an H100 and
//    0.03-0.04 on an H200; on an H200 every 16-byte load lost 3-15% without
//    the hint (session 27).
//  - session 29, runs of other machines (other times for the same shapes):
//    2^11 and 2^12 in 256 threads of 2 and 4 halves with the hint, H100 1.62
//    and 1.73-1.74 us against 1.65 and 1.78 in 512 threads of one 8- or
//    16-byte load (0.98-0.99x -> 1.01x Inductor), H200 1.47-1.48 and
//    1.55-1.56 against 1.51 and 1.60; through L1 the 4 KB level, the 8 KB
//    0.18 us slower. 2^10 in 128 threads of 2 halves through L1: H100 fp16
//    1.27 against 1.29, bf16 1.47 against 1.49 (0.96-0.98x -> 0.975-0.994x),
//    H200 fp16 1.11 against 1.13, bf16 1.27 against 1.29; with the hint
//    1.375 and 1.545 on the H100.
constexpr int kL1AllocatingMaxHalves = 256;
constexpr int kHalfVectorBlockThreads = 256;
static_assert(kL1AllocatingMaxHalves % (2 * kWarpSize) == 0, "whole warps of 2 halves");

// 4-byte one-round rows of at least this many 16-byte vectors take 2 a thread
// (launch_one_block).
constexpr int kTwoLoadMinVectors = 256;

// How a row of the one-block shape meets the vectors, as the host sees it:
// kAny (any start: a scalar head, vectors, a scalar tail); kAligned (every
// row starts on a vector boundary: no head, so the first load's address needs
// no alignment arithmetic, 0.02-0.07 us off 2^10-2^13 on an H100); kWholeRound
// (aligned, and the block's threads hold the row in exactly one round of
// kLoads vectors each: no tail, and no clamp or bound before the loads, whose
// addresses then depend on the thread alone); kWholeRoundOfHalves (a
// half-precision or bfloat16 row as kWholeRound, but in 8-byte HalfVectors,
// kLoads a thread); kL1Halves (the same, for at most kL1AllocatingMaxHalves
// halves, with loads that may allocate in L1).
enum class RowFit { kAny, kAligned, kWholeRound, kWholeRoundOfHalves, kL1Halves };

// Block r sums row r, each thread kLoads vectors a round: 1 or 2 for the
// smallest sizes (one round; 16-bit half vectors up to 4), kLoadsPerRound for
// one round, or two where no cluster takes the row (launch_contiguous_sum).
// At 2^10 fp32 Inductor launches 256 threads of one vector; 64 threads of 4
// loads each were 0.2-0.3 us slower, 128 of 2 0.02 us faster
// (benchmarks/NOTES.md, session 30).
// kThreads: the block size where the launch fixes it for the kernel (the
// whole-round shapes of 128, 256 and 512 threads), 0 where the launch picks
// it. A fixed size makes the second load's offset and the warp count after
// the barrier constants: with the runtime count's branches and predicated
// reads, fp32 2^10's kernel stalled ~223 cycles after the barrier, 41 with
// the size fixed (sm_90 SASS control bits, benchmarks/NOTES.md, sessions 30
// and 31). H200 graph:
// fp32 2^10 1.17 us against 1.24 (0.95x -> 1.01x Inductor), 16-bit 2^10 to
// 2^12 and 4-byte 2^11 0.03-0.08 us less (session 31).
template <int kLoads, RowFit kFit, typename InT, typename OutT, int kThreads = 0>
__global__ void __launch_bounds__(kThreads > 0 ? kThreads : kOneBlockThreads)
    one_block_sum_kernel(const InT* rows, int numel, int64_t row_stride, OutT* results) {
  using AccT = acc_t<InT>;
  const InT* input = rows + blockIdx.x * row_stride;
  const int thread = threadIdx.x;
  const int threads = kThreads > 0 ? kThreads : int(blockDim.x);
  AccT sum = AccT(0);
  if constexpr (kFit == RowFit::kWholeRound) {
    // The same bits as the other fits give this row (whole_round_sum) at the
    // same block size; 4-byte rows of 256 or more vectors run in half the
    // threads (launch_one_block), the same bits call after call.
    const auto* vectors = reinterpret_cast<const Vector<InT>*>(input);
    sum = whole_round_sum<AccT, kLoads>(vectors + thread, threads);
  } else if constexpr (kFit == RowFit::kWholeRoundOfHalves || kFit == RowFit::kL1Halves) {
    // Not the other fits' bits for this row (each thread adds 4 elements a
    // load, not 8), but the same bits call after call.
    static_assert(kLoads == 1 || kLoads == 2 || kLoads == 4);
    static_assert(kFit != RowFit::kL1Halves || kLoads <= 2, "at most 2 KB through L1");
    constexpr L1Fill kL1Fill = kFit == RowFit::kL1Halves ? L1Fill::kAllocate : L1Fill::kNoAllocate;
    const auto* halves = reinterpret_cast<const HalfVector<InT>*>(input);
    sum = whole_round_sum<AccT, kLoads, kL1Fill>(halves + thread, threads);
  } else {
    constexpr int kVec = kElementsPerVector<InT>;
    const auto [head, num_vectors, tail_begin] =
        kFit == RowFit::kAligned ? VectorSplit<int>{0, numel / kVec, numel / kVec * kVec}
                                 : split_into_vectors(input, numel);
    // Read before the vectors, added after them: an add that waits for a
    // scalar load would hold back the vector loads behind it.
    const InT head_element = kFit == RowFit::kAny && thread < head ? input[thread] : InT(0);
    const InT tail_element = thread < numel - tail_begin ? input[tail_begin + thread] : InT(0);
    const auto* vectors = reinterpret_cast<const Vector<InT>*>(input + head);
    if (num_vectors > 0) {
      sum = round_sum<AccT, kLoads>(vectors, num_vectors, thread, threads);
    }
    const int second_round = kLoads * threads;
    if (num_vectors > second_round) {
      sum += round_sum<AccT, kLoads>(vectors + second_round, num_vectors - second_round, thread,
                                     threads);
    }
    sum += static_cast<AccT>(head_element) + static_cast<AccT>(tail_element);
  }
  if constexpr (kThreads > 0) {
    sum = sum_over_fixed_warps<kThreads / kWarpSize>(sum);
  } else {
    sum = sum_over_warps<kOneBlockThreads / kWarpSize>(sum, threads / kWarpSize);
  }
  if (thread == 0) results[blockIdx.x] = static_cast<OutT>(sum);
}

// Whole warps, as few as give each thread one round of kLoads loads, up to
// kOneBlockThreads.
int one_block_threads(int64_t vectors, int loads) {
  const int64_t warps = ceil_div(ceil_div(vectors, int64_t(loads)), int64_t(kWarpSize));
  return int(std::clamp<int64_t>(warps * kWarpSize, kWarpSize, kOneBlockThreads));
}

template <int kLoads, typename InT, typename OutT>
void launch_one_block(const ContiguousProblem<InT, OutT>& problem, int64_t vectors,
                      const LaunchContext& context) {
  const bool aligned = reinterpret_cast<uintptr_t>(problem.input) % kVectorBytes == 0 &&
                       (problem.rows == 1 || problem.row_stride % kElementsPerVector<InT> == 0);
  int threads = one_block_threads(vectors, kLoads);
  const bool whole_round =
      aligned && problem.numel == int64_t(threads) * kLoads * kElementsPerVector<InT>;
  auto kernel = whole_round ? one_block_sum_kernel<kLoads, RowFit::kWholeRound, InT, OutT>
                : aligned   ? one_block_sum_kernel<kLoads, RowFit::kAligned, InT, OutT>
                            : one_block_sum_kernel<kLoads, RowFit::kAny, InT, OutT>;
  // A whole round of the largest block (fp32 and int32 2^12 and 2^13, 16-bit
  // 2^13 and 2^14; 8-bit and 8-byte types at the same byte counts, not
  // timed): its size is fixed too, so it finishes as the smaller fixed blocks.
  // H100 graph: fp32 2^12 1.67 us against 1.77, 2^13 1.74 against 1.80,
  // 16-bit 2^13 0.08-0.10 us less, 2^14 0.03-0.04 (session 31).
  if constexpr (kLoads > 1) {
    if (whole_round && threads == kOneBlockThreads) {
      kernel = one_block_sum_kernel<kLoads, RowFit::kWholeRound, InT, OutT, kOneBlockThreads>;
    }
  }
  // 4-byte rows of kTwoLoadMinVectors or more vectors in one round: half the
  // threads, 2 loads each (fewer threads of more loads, as the 16-bit rows
  // below). H100 graph, fp32 2^10 1.58 us against 1.60, int32 1.60 against
  // 1.62; 2^11 level; 2^9 in 64 threads 0.01 us slower (benchmarks/NOTES.md,
  // session 30). Whole warps only: sum_over_warps counts threads / 32.
  if constexpr (kLoads == 1 && sizeof(InT) == 4) {
    if (whole_round && vectors >= kTwoLoadMinVectors && threads % (2 * kWarpSize) == 0) {
      threads /= 2;
      kernel = threads == 128   ? one_block_sum_kernel<2, RowFit::kWholeRound, InT, OutT, 128>
               : threads == 256 ? one_block_sum_kernel<2, RowFit::kWholeRound, InT, OutT, 256>
                                : one_block_sum_kernel<2, RowFit::kWholeRound, InT, OutT>;
    }
  }
  // 16-bit rows of whole warps of 8-byte half vectors: Inductor's load,
  // where v7's 16-byte loads ran 0.1 us longer at 2^10 on an H100
  // (benchmarks/NOTES.md, session 27). 2^10 as 128 threads of 2 halves
  // through L1, 2^11 and 2^12 as 256 threads of 2 and 4 with the hint, other
  // counts up to 512 halves one a thread (kL1AllocatingMaxHalves).
  if constexpr (kLoads == 1 &&
                (std::is_same_v<InT, c10::Half> || std::is_same_v<InT, c10::BFloat16>)) {
    constexpr int kPerHalf = kElementsPerVector<InT> / 2;
    const int64_t halves = problem.numel / kPerHalf;
    if (aligned && problem.numel % (kPerHalf * kWarpSize) == 0) {
      if (halves == kL1AllocatingMaxHalves) {
        threads = kL1AllocatingMaxHalves / 2;
        kernel = one_block_sum_kernel<2, RowFit::kL1Halves, InT, OutT, kL1AllocatingMaxHalves / 2>;
      } else if (halves < kL1AllocatingMaxHalves) {
        threads = int(halves);
        kernel = one_block_sum_kernel<1, RowFit::kL1Halves, InT, OutT>;
      } else if (halves == 2 * kHalfVectorBlockThreads) {
        threads = kHalfVectorBlockThreads;
        kernel = one_block_sum_kernel<2, RowFit::kWholeRoundOfHalves, InT, OutT,
                                      kHalfVectorBlockThreads>;
      } else if (halves == 4 * kHalfVectorBlockThreads) {
        threads = kHalfVectorBlockThreads;
        kernel = one_block_sum_kernel<4, RowFit::kWholeRoundOfHalves, InT, OutT,
                                      kHalfVectorBlockThreads>;
      } else if (halves <= kOneBlockThreads) {
        threads = int(halves);
        kernel = one_block_sum_kernel<1, RowFit::kWholeRoundOfHalves, InT, OutT>;
      }
    }
  }
  kernel<<<problem.rows, threads, 0, context.stream>>>(problem.input, int(problem.numel),
                                                       problem.row_stride, problem.result);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

// Split sums: blocks of kChunkThreads threads, each round of a block a chunk
// of kChunkThreads * kLoads vectors, every thread's kLoads loads issued
// together.
// Block b takes chunks b, b + gridDim.x, ...: a window that moves over the row,
// as a grid-stride loop's does. Mid sizes launch a block per chunk (one round
// each), large sizes one wave of blocks. Block 0 adds the scalar head and
// tail. The grid-stride kernel this replaced divided for its loop count.
constexpr int kChunkThreads = 512;

// Chunks of kLoads vectors a thread over `vectors` vectors.
template <int kLoads>
int64_t chunk_count(int64_t vectors) {
  return ceil_div(vectors, int64_t(kChunkThreads * kLoads));
}

// Large sums read their chunks from the end (thread_share_of_row) while the
// bytes they read are at most this many times the L2. fp32 2^26 (256 MB,
// 4.3-5.1x the L2) reads its tail first instead: after a producer 85.1-85.7
// us instead of 87.8-87.9 on an H100 (61.1-61.7 instead of 62.7-63.6 on an
// H200); in graphs 0.1-0.3% slower (H100 87.65-87.86 against 87.55-87.68).
// At 16-bit 2^26 (128 MB, 2.1-2.6x) the tail first also gained after a
// producer (H100 41.8-42.1 against 42.8-43.2) but cost the H100's graph 1.2%
// (46.0-46.3 against 45.5-45.6 us, 98.7% of the fastest read), so it reads
// from the end (benchmarks/NOTES.md, session 28).
constexpr int64_t kFromEndL2Multiple = 4;

// Larger sums up to this many times the L2 read the row's last L2 of chunks
// first, then the rest forward (thread_share_of_row); past it, where that
// gained nothing, forward only (launch_contiguous_sum says what was measured).
constexpr int64_t kTailFirstL2Multiple = 64;

// One-row sums past this many times the L2 read a block per chunk over many
// waves, and a second launch adds the blocks' totals; where one thread-block
// cluster cannot hold those totals, or memory is fast for a multiprocessor
// (kChunkABlockMaxDramMBPerSm), a block per kManyWaveChunks neighbouring
// chunks, which halves them (launch_contiguous_sum says what was measured).
constexpr int64_t kManyWavesL2Multiple = 16;
constexpr int kManyWaveChunks = 2;

// Many-wave blocks read a chunk each only where a multiprocessor's share of
// the DRAM bandwidth is at most this (MB/s): a block then lives long enough
// (32 KB at that share, 4 blocks an SM) that its start and end are a small
// part of it. H100 SXM (25.4 GB/s an SM): a chunk a block 0.6-0.7% faster.
// Two H200s (36.5 GB/s), graphs, 2 chunks a block against one: 0.15-0.4%
// faster at 2^30 fp32 and int32 (read forward), up to 0.4% at 2^28-2^29 and
// bf16 2^30 (tail first), where after a producer they were 0.6-1.6% slower
// but still 0.9-2.2% ahead of Inductor (benchmarks/NOTES.md, session 49).
constexpr int kChunkABlockMaxDramMBPerSm = 30000;

// Loads a thread in the cluster that sums many-wave totals too many for 16
// chunks of kLoadsPerRound: int32 2^30 on an H100 (2^17 int64 totals, 16
// chunks of 4,096 vectors), which can then read a block a chunk. H100
// GPU-20785d35 (session 48), int32 2^30 graph 1,351.0-1,351.1 us -> 1,342.1
// (Inductor 1,366.0-1,366.2), after a producer 1,361.4 -> 1,350.9.
constexpr int kWideTotalsLoads = 8;

// Loads a thread in the narrow chunks of small mid sizes: 2 where a vector
// holds 4 or more elements, whose conversions and adds hold a thread's block
// sum back behind its last load; twice the blocks then finish sooner. bf16
// 2^18 on an H100, finished through L2: 3.22 us against 3.62 (measured before
// that size went to a cluster; benchmarks/NOTES.md); fp32 2^18 in the graph:
// 3.00 us against 3.09 on an H200 (0.962x -> 0.990x Inductor) and 3.12
// against 3.17 on an H100 (session 28). int32 takes them on fp32's evidence
// (not timed before; 1.04x Inductor at 2^18 after, H100); float64, 2 a
// vector, was never timed with them and keeps 4. Only while chunks of
// kLoadsPerRound would leave multiprocessors without a block: beyond that,
// twice the blocks add only their fixed instructions (launch_contiguous_sum).
template <typename InT>
constexpr int kNarrowChunkLoads = kElementsPerVector<InT> >= 4 ? 2 : kLoadsPerRound;

// Row `row` as 16-byte vectors (split_into_vectors) and this thread's
// scalar head and tail elements, which block 0's threads read and the others
// leave at 0: read before the vectors, added after them (as in
// one_block_sum_kernel). Predicated loads rather than a branch of block 0: in
// a branch nvcc widened an int32 edge to int64 there, which waited for the
// edge's load before the vector loads issued (sm_90 SASS; int32 mid sums
// 0.15-0.27 us slower on an H100, benchmarks/NOTES.md, session 17). Index is
// int where the launch keeps a row under 2^31 elements, int64_t otherwise.
template <typename Index, typename InT>
struct RowVectors {
  const Vector<InT>* vectors;
  Index num_vectors;
  InT head_element;
  InT tail_element;
};

template <typename Index, typename InT, typename OutT>
__device__ __forceinline__ RowVectors<Index, InT> row_vectors(
    const ContiguousProblem<InT, OutT>& problem, int64_t row) {
  const InT* input = problem.input + row * problem.row_stride;
  const Index numel = Index(problem.numel);
  const auto [head, num_vectors, tail_begin] = split_into_vectors(input, numel);
  const int thread = threadIdx.x;
  const bool takes_edges = blockIdx.x == 0;
  const InT head_element = takes_edges && thread < head ? input[thread] : InT(0);
  const InT tail_element =
      takes_edges && thread < numel - tail_begin ? input[tail_begin + thread] : InT(0);
  return {reinterpret_cast<const Vector<InT>*>(input + head), num_vectors, head_element,
          tail_element};
}

// This thread's share of row `row` in a large sum: its loads of whole chunks
// blockIdx.x, blockIdx.x + gridDim.x, ..., counted from the row's end with
// `from_end`, else from its last `tail_chunks` whole chunks (at most) on,
// wrapping to its start after its last chunk; the last block's of a partial
// last chunk; block 0's threads add the scalar head and tail.
// The end first, because a kernel that has just written the row (a producer)
// leaves its last part in L2: read first, it hits there, where a
// front-to-back sweep evicts each line just before it is needed (LRU's worst
// case) and reads the whole row from DRAM (launch_contiguous_sum says where).
// A rotation, not a tail loop and then a head loop, so that every block has
// as many chunks as in a forward sweep: two ragged loops can give a block one
// more (a chunk is 1.6% of a block's share of fp32 2^28 on an H100).
// `before_last_chunk()` runs once, just before the block's last whole
// chunk, or at once where it has none (after the last block's partial
// chunk).
template <int kLoads, typename InT, typename OutT, typename BeforeLastChunk>
__device__ __forceinline__ acc_t<InT> thread_share_of_row(
    const ContiguousProblem<InT, OutT>& problem, int64_t row, bool from_end, int64_t tail_chunks,
    BeforeLastChunk before_last_chunk) {
  using AccT = acc_t<InT>;
  const auto [vectors, num_vectors, head_element, tail_element] =
      row_vectors<int64_t>(problem, row);
  const int thread = threadIdx.x;
  constexpr int kChunkVectors = kChunkThreads * kLoads;
  const int64_t whole_chunks = num_vectors / kChunkVectors;
  AccT sum = AccT(0);
  // The row's last chunk, where it is partial: one clamped round, by the
  // last block, which has no more whole chunks than any other. First, so
  // that from the end it is read first.
  const int partial = int(num_vectors - whole_chunks * kChunkVectors);
  if (partial > 0 && blockIdx.x == gridDim.x - 1) {
    sum = round_sum<AccT, kLoads>(vectors + whole_chunks * kChunkVectors, partial, thread,
                                  kChunkThreads);
  }
  // Whole chunks through a pointer that steps by the window: no clamp, no
  // bound and no 64-bit index arithmetic per load. A clamped round per chunk
  // (round_sum) cost 73 instructions a round of 4 fp32 vectors in the sm_90
  // SASS, and 3.5M warp instructions against Inductor's 1.1M at fp32 2^24:
  // a cost that shows once a producer has left part of the row in L2
  // (benchmarks/NOTES.md, session 18).
  const int64_t window = int64_t(gridDim.x) * kChunkVectors;
  // Chunks blockIdx.x, + gridDim.x, ... from `chunk` on, `next` stepping the
  // pointer, the last one after before_last_chunk().
  const auto sweep = [&](const Vector<InT>* chunk, auto next) {
    int64_t c = blockIdx.x;
    for (; c + gridDim.x < whole_chunks; c += gridDim.x, chunk = next(chunk)) {
      sum += whole_round_sum<AccT, kLoads>(chunk, kChunkThreads);
    }
    before_last_chunk();
    if (c < whole_chunks) sum += whole_round_sum<AccT, kLoads>(chunk, kChunkThreads);
  };
  if (from_end) {
    sweep(vectors + (whole_chunks - 1 - blockIdx.x) * kChunkVectors + thread,
          [window](const Vector<InT>* chunk) { return chunk - window; });
  } else {
    int64_t first = whole_chunks - min(tail_chunks, whole_chunks) + blockIdx.x;
    if (first >= whole_chunks) first -= whole_chunks;
    const int64_t span = whole_chunks * kChunkVectors;
    const Vector<InT>* const wrap = vectors + span + thread;
    sweep(vectors + first * kChunkVectors + thread, [window, span, wrap](const Vector<InT>* chunk) {
      chunk += window;
      return chunk >= wrap ? chunk - span : chunk;
    });
  }
  return sum + static_cast<AccT>(head_element) + static_cast<AccT>(tail_element);
}

// This thread's share of row `row` where block b owns chunk b alone (the mid
// and cluster shapes: a block per chunk, at most one wave of them, so every
// index fits 32 bits); block 0's threads add the scalar head and tail.
// thread_share_of_row's 64-bit chunk arithmetic put ~100 instructions before
// the first load, a fixed cost per block that weighs on a mid sum whose input
// is in L2 (benchmarks/NOTES.md, session 16).
template <int kLoads, typename InT, typename OutT>
__device__ __forceinline__ acc_t<InT> chunk_share_of_row(
    const ContiguousProblem<InT, OutT>& problem, int64_t row) {
  using AccT = acc_t<InT>;
  const auto [vectors, num_vectors, head_element, tail_element] = row_vectors<int>(problem, row);
  const int thread = threadIdx.x;
  constexpr int kChunkVectors = kChunkThreads * kLoads;
  const int first = int(blockIdx.x) * kChunkVectors;
  // The last block's chunk may run past the row: a partial chunk, or none
  // where the scalar head and tail took up to two vectors of the count the
  // launch made. It loads the row's last whole chunk instead and adds only
  // the vectors from `first` on. A split row has more than one round of the
  // one block (2,048 vectors), so it holds a whole chunk: at least 2,047
  // vectors besides the head and tail, against chunks of 1,024 or fewer, and
  // at least 2,048 for 8-byte types (a head and a tail of one element at
  // most), whose chunks are 2,048. The many-wave totals (launch_many_waves)
  // are more than 2,048 vectors in a 16-byte-aligned buffer: no scalar head,
  // a whole chunk of either width. So every block's loads are at fixed
  // offsets from one pointer, with no clamp per load (round_sum's clamps put
  // the fp32 kernel's first 16-byte load at instruction 67 of the sm_90 SASS,
  // now 38) and no branch (one around the round let nvcc widen int32 edges
  // before the loads, benchmarks/NOTES.md, session 17).
  const int start = min(first, num_vectors - kChunkVectors);
  const AccT sum =
      round_sum_from<AccT, kLoads>(vectors + start + thread, first - start - thread, kChunkThreads);
  return sum + static_cast<AccT>(head_element) + static_cast<AccT>(tail_element);
}

// Integer sums of 32-bit-or-narrower elements hand their int64 block totals
// over in packed mailboxes (reduce.cuh), one word each, so that they take
// their tickets early as the float sums do; launch_split keeps each block
// under 2^31 elements.
template <typename InT>
constexpr bool kPackedMailboxes = std::is_integral_v<InT> && sizeof(InT) <= sizeof(int32_t);

// kChunkABlock: the mid shape (chunk_share_of_row, `from_end` and
// `tail_chunks` unused); else the large one (thread_share_of_row).
template <bool kChunkABlock, int kLoads, typename InT, typename OutT>
__global__ void __launch_bounds__(kChunkThreads, min_blocks_per_sm<kChunkThreads>())
    contiguous_sum_kernel(ContiguousProblem<InT, OutT> problem, acc_t<InT>* partials,
                          uint64_t* mailboxes, unsigned int* counter, bool from_end,
                          int64_t tail_chunks) {
  const int64_t row = blockIdx.y;
  // A block of one-word partials (fp32, fp16, bf16, and the packed int64 of
  // narrow integers) takes its mailbox ticket as it starts its last chunk,
  // so that the atomic's round trip overlaps loads instead of preceding the
  // last block's reads, and the last ticket goes to a block that finishes
  // about last (benchmarks/NOTES.md):
  //  - a mid block reads one chunk: before its loads. H100 graph, fp32 2^18
  //    2.90 us against 3.12, 16-bit 2^20 3.37-3.39 against 3.57 (session 32);
  //  - a large block reading from the end: before its last chunk's loads.
  //    H100 graph, 16-bit 2^24 13.72-13.82 us against 13.95-14.14, fp32
  //    24.13-24.30 against 24.41-24.46 (session 33). Before its first chunk,
  //    a block of fewer chunks could start last and poll the mailboxes for
  //    most of the launch (int32 2^24 25.5 us against 24.6, session 32).
  //    Reading forward (past kFromEndL2Multiple x L2), the same: graph,
  //    fp32 2^26 60.63-60.68 us against 60.84-60.92 (H200), 87.39-87.56
  //    against 87.76-87.77 (H100); bf16 2^28 118.21-118.24 against
  //    118.41-118.42 (H200), 172.09-172.28 against 172.57-172.74 (H100);
  //    level at 4-byte 2^28 (H100) and 2^30 (H200) (session 34).
  //  - int32 through packed mailboxes: H100 graph 2^18 2.97 us against
  //    3.23-3.24, 2^22 8.25-8.26 against 8.53-8.54, 2^24 24.36-24.48 against
  //    24.75-24.80 (session 33).
  // Two-word partials (int64, float64) take it as they finish
  // (kTakesTicketEarly).
  constexpr bool kEarlyTicket = kTakesTicketEarly<acc_t<InT>, kPackedMailboxes<InT>>;
  std::optional<unsigned int> ticket;
  acc_t<InT> sum;
  if constexpr (kChunkABlock) {
    if constexpr (kEarlyTicket) ticket = take_mailbox_ticket(mailboxes, counter, row);
    sum = chunk_share_of_row<kLoads>(problem, row);
  } else {
    sum = thread_share_of_row<kLoads>(problem, row, from_end, tail_chunks, [&] {
      if constexpr (kEarlyTicket) ticket = take_mailbox_ticket(mailboxes, counter, row);
    });
  }
  finish_row<kChunkThreads, kPackedMailboxes<InT>>(
      block_sum<kChunkThreads, kFixedFinishForOwnSums<InT>>(sum), partials, mailboxes, counter,
      problem.result + row, row, ticket);
}

// Block b of a many-wave sum: the row's whole chunks chunks_per_block * b up
// to chunks_per_block * (b + 1), counted after its last `tail_chunks` chunks
// (at most) have been moved to the front, as thread_share_of_row reads them
// for a producer's sake; the last block also the partial last chunk, block
// 0 the scalar head and tail. The `flush_chunks` chunks read right after the
// tail (the first of the forward sweep) load without the L1 hint, so that
// L2 evicts a producer's dirty lines early (launch_many_waves). Thread 0
// stores the block's total in partials[b] for the sum of the totals
// (launch_many_waves): no ticket and no fence, whose acq_rel ticket a block
// cost an H200 13% over 131,072 blocks (benchmarks/NOTES.md, session 38).
template <typename InT, typename OutT>
__global__ void __launch_bounds__(kChunkThreads, min_blocks_per_sm<kChunkThreads>())
    many_wave_sum_kernel(ContiguousProblem<InT, OutT> problem, acc_t<InT>* partials,
                         int64_t tail_chunks, int chunks_per_block, int64_t flush_chunks) {
  using AccT = acc_t<InT>;
  // The cluster that sums the totals may launch once every block has run
  // this (or exited) and waits for this kernel's end in griddepcontrol.wait
  // (launch_many_waves); a launch without the attribute, as the one-block
  // finish, waits for the end as any launch does.
  let_dependents_start();
  // Not a structured binding: read_chunks captures `vectors`, which C++17
  // (torch 2.11's builds) allows a binding only as an extension.
  const RowVectors<int64_t, InT> row = row_vectors<int64_t>(problem, 0);
  const Vector<InT>* vectors = row.vectors;
  const int64_t num_vectors = row.num_vectors;
  constexpr int kChunkVectors = kChunkThreads * kLoadsPerRound;
  const int64_t whole_chunks = num_vectors / kChunkVectors;
  const int64_t tail_read = min(tail_chunks, whole_chunks);
  const int64_t shift = whole_chunks - tail_read;
  const int64_t first = int64_t(blockIdx.x) * chunks_per_block;
  const int64_t end = min(first + chunks_per_block, whole_chunks);
  AccT sum = AccT(0);
  const auto read_chunks = [&](auto l1_fill) {
    for (int64_t c = first; c < end; ++c) {
      const int64_t chunk = c + shift < whole_chunks ? c + shift : c + shift - whole_chunks;
      sum += whole_round_sum<AccT, kLoadsPerRound, decltype(l1_fill)::value>(
          vectors + chunk * kChunkVectors + threadIdx.x, kChunkThreads);
    }
  };
  if (first >= tail_read && first < tail_read + flush_chunks) {
    read_chunks(std::integral_constant<L1Fill, L1Fill::kAllocate>{});
  } else {
    read_chunks(std::integral_constant<L1Fill, L1Fill::kNoAllocate>{});
  }
  const int partial = int(num_vectors - whole_chunks * kChunkVectors);
  if (partial > 0 && blockIdx.x == gridDim.x - 1) {
    sum += round_sum<AccT, kLoadsPerRound>(vectors + whole_chunks * kChunkVectors, partial,
                                           threadIdx.x, kChunkThreads);
  }
  sum += static_cast<AccT>(row.head_element) + static_cast<AccT>(row.tail_element);
  constexpr int kWarps = kChunkThreads / kWarpSize;
  const AccT total = sum_over_all_warps<kWarps, kFixedFinishForOwnSums<InT>>(sum);
  if (threadIdx.x == 0) partials[blockIdx.x] = total;
}

// The second launch of a many-wave sum where no cluster holds the totals
// (launch_many_waves): one block adds the `count` block totals (16-byte
// aligned) in 16-byte loads, 4 in flight a thread (sum_every's batch), in an
// order fixed by `count`. 65,536 fp32 totals (fp32 2^30) are 16 loads a
// thread. sum_partials_kernel<1024> in its place (one total a load, 64 a
// thread) took 0.8-2.6 us longer at 2^30 on an H200 (benchmarks/NOTES.md,
// session 40).
constexpr int kManyWaveFinishThreads = 1024;

template <typename AccT, typename OutT>
__global__ void __launch_bounds__(kManyWaveFinishThreads)
    many_wave_finish_kernel(const AccT* partials, int64_t count, OutT* result) {
  constexpr int kPerVector = kElementsPerVector<AccT>;
  const auto* vectors = reinterpret_cast<const Vector<AccT>*>(partials);
  const int64_t vector_count = count / kPerVector;
  AccT sum =
      sum_every<AccT>([vectors](int64_t v) { return vectors[v]; },
                      [](const Vector<AccT>& vector, int64_t) { return vector_sum<AccT>(vector); },
                      threadIdx.x, vector_count, kManyWaveFinishThreads);
  const int64_t rest = vector_count * kPerVector + threadIdx.x;
  if (rest < count) sum += partials[rest];
  sum = sum_over_fixed_warps<kManyWaveFinishThreads / kWarpSize>(sum);
  if (threadIdx.x == 0) *result = static_cast<OutT>(sum);
}

// `blocks` blocks a row of `kKernel` (a contiguous_sum_kernel); the launcher
// keeps blocks * rows within the held partials, so a second launch finds them
// where the first left them.
template <auto kKernel, typename InT, typename OutT>
void launch_split(const ContiguousProblem<InT, OutT>& problem, Finish<acc_t<InT>> finish,
                  const LaunchContext& context, int64_t blocks, bool from_end = false,
                  int64_t tail_chunks = 0) {
  // A counter a row: more rows than counters finish in a second launch.
  if (problem.rows > finish.counter_count) finish.counter = nullptr;
  // Packed mailboxes hold a block's total of up to 2^31 elements: a block
  // reads at most numel / blocks elements and one chunk more. Past that
  // (2.3 TB of int32 on 528 blocks), the partials and an acq_rel ticket.
  const bool packs = !kPackedMailboxes<InT> || problem.numel <= (blocks << 30);
  uint64_t* mailboxes = packs ? finish.mailboxes_for(blocks * problem.rows) : nullptr;
  const dim3 grid(blocks, problem.rows);
  kKernel<<<grid, kChunkThreads, 0, context.stream>>>(problem, finish.partials, mailboxes,
                                                      finish.counter, from_end, tail_chunks);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  finish_in_second_launch_if_needed<kChunkThreads>(finish, 1, blocks, problem.result,
                                                   context.stream, problem.rows);
}

// Registers a thread of cluster_sum_kernel<kLoads> may take: room for its
// loads (4 a 16-byte vector) beside 16 others, so 32 up to 4 loads, as every
// kernel here, and 48 at kWideTotalsLoads, whose one cluster a row needs no
// more than a block a multiprocessor.
template <int kLoads>
constexpr int cluster_sum_registers() {
  return 4 * kLoads + 16 > 32 ? 4 * kLoads + 16 : 32;
}

// Mid sizes of a few chunks, and the totals of a many-wave sum, on GPUs with
// thread-block clusters (Hopper and newer): the blocks of a row form one
// cluster and hand their totals to block 0 (cluster_handoff.cuh), in place
// of a ticket in L2 and the last block's read of the mailboxes. No state
// between calls. A row's cluster spans gridDim.x, so a block's rank in it is
// blockIdx.x. kStartsEarly: launched to start early (ClusterLaunch), it
// waits for the kernel that writes its input (many_wave_sum_kernel) after
// setting up the gather. The input's address passes through the wait: the
// streaming load's asm is neither volatile nor a memory clobber, so only
// that data dependence keeps it after the wait. Its non-coherent load is
// sound although the writer runs while this grid is resident: no line of
// the input is read before the wait, which makes the writes visible.
template <int kLoads, typename InT, typename OutT, bool kStartsEarly = false>
__global__ void __launch_bounds__(
    kChunkThreads, min_blocks_per_sm<kChunkThreads, cluster_sum_registers<kLoads>()>())
    cluster_sum_kernel(ContiguousProblem<InT, OutT> problem) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  using AccT = acc_t<InT>;
  __shared__ ClusterGather<AccT, 1, kMaxClusterBlocks> gather;
  gather.open();
  if constexpr (kStartsEarly) {
    wait_for_kernel_ahead(problem.input);
  }
  const int64_t row = blockIdx.y;
  const auto sum = chunk_share_of_row<kLoads>(problem, row);
  constexpr int kWarps = kChunkThreads / kWarpSize;
  const AccT block_total[1] = {
      sum_over_all_warps<kWarps, kFixedFinishForOwnSums<InT>>(sum)};  // in thread 0
  gather.wait_until_open();
  const uint32_t rank = blockIdx.x;
  if (rank != 0) {
    if (threadIdx.x == 0) gather.send(block_total, rank, 0);
    return;
  }
  if (threadIdx.x >= kWarpSize) return;
  if (threadIdx.x == 0) gather.expect(1);
  gather.wait();
  // Block totals in rank order, as warp_sum adds lanes.
  const uint32_t lane = threadIdx.x;
  const AccT value = lane == 0                      ? block_total[0]
                     : lane < cluster_block_count() ? gather.values[lane][0]
                                                    : AccT(0);
  const AccT total = warp_sum<kMaxClusterBlocks>(value);
  if (lane == 0) problem.result[row] = static_cast<OutT>(total);
#elif defined(__CUDA_ARCH__)
  __trap();  // launched only where the device supports clusters
#endif
}

// Each row as one thread-block cluster of chunks of kLoads vectors a thread,
// where the GPU runs clusters of that many blocks in one wave and a row is
// more than one round of the one block (chunk_share_of_row needs a whole
// chunk in the row; launch_contiguous_sum's rows always are, the many-wave
// totals past 16x an L2 of 16 MB or more for int64 totals, 32 MB for fp32
// ones: a block's 64 KB a total); false otherwise.
template <int kLoads, typename InT, typename OutT, bool kStartsEarly = false>
bool one_cluster_holds(int64_t vectors, int64_t rows, const LaunchContext& context) {
  if (vectors <= kOneBlockRoundVectors) return false;
  constexpr auto cluster = cluster_sum_kernel<kLoads, InT, OutT, kStartsEarly>;
  return cluster_capacity<cluster, kMaxClusterBlocks>(context.device, kChunkThreads)
      .holds(chunk_count<kLoads>(vectors), rows);
}

// kStartsEarly: the cluster starts before the kernel that writes its input
// ends (cluster_sum_kernel says how); it comes before InT and OutT, which
// the problem gives.
template <int kLoads, bool kStartsEarly = false, typename InT, typename OutT>
bool launch_in_one_cluster(const ContiguousProblem<InT, OutT>& problem, int64_t vectors,
                           const LaunchContext& context) {
  if (!one_cluster_holds<kLoads, InT, OutT, kStartsEarly>(vectors, problem.rows, context)) {
    return false;
  }
  const int64_t chunks = chunk_count<kLoads>(vectors);
  const dim3 grid(static_cast<unsigned>(chunks),
                  static_cast<unsigned>(problem.rows));  // a cluster a row
  launch_in_clusters<cluster_sum_kernel<kLoads, InT, OutT, kStartsEarly>, kStartsEarly>(
      grid, dim3(grid.x), kChunkThreads, context.stream, problem);
  return true;
}

// A block per chunk of kLoads vectors a thread, where that many blocks fit
// one wave; false otherwise. chunk_share_of_row indexes in 32 bits, which
// holds: a wave's chunks are far fewer than 2^31 elements (an H100's 528
// chunks of 2,048 vectors, 2^24 8-bit elements).
template <int kLoads, typename InT, typename OutT>
bool launch_mid_split(const ContiguousProblem<InT, OutT>& problem, const Finish<acc_t<InT>>& finish,
                      int64_t vectors, const LaunchContext& context) {
  const int64_t chunks = chunk_count<kLoads>(vectors);
  constexpr auto mid = contiguous_sum_kernel<true, kLoads, InT, OutT>;
  if (chunks * problem.rows >= one_wave<mid>(kChunkThreads, context.device, context.sm_count)) {
    return false;
  }
  launch_split<mid>(problem, finish, context, chunks);
  return true;
}

// Calls try_shape with the loads a thread (a std::integral_constant) of each
// chunk shape that one cluster may sum a many-wave sum's totals in, narrowest
// first (2 or 4, 4, kWideTotalsLoads), until it returns true; whether one did.
// The rule that picks a block's chunks and the launch of the totals' sum take
// their shapes from here, so that they agree.
template <typename AccT, typename TryShape>
bool first_totals_cluster(TryShape&& try_shape) {
  return try_shape(std::integral_constant<int, kNarrowChunkLoads<AccT>>{}) ||
         try_shape(std::integral_constant<int, kLoadsPerRound>{}) ||
         try_shape(std::integral_constant<int, kWideTotalsLoads>{});
}

// A one-row sum as many waves of many_wave_sum_kernel, then a sum of the
// blocks' totals. The partials are the call's own (scratch memory:
// held partials are too few, and need not be 16-byte aligned).
template <typename InT, typename OutT>
void launch_many_waves(const ContiguousProblem<InT, OutT>& problem,
                       const Finish<acc_t<InT>>& finish, const LaunchContext& context,
                       int64_t vectors, int64_t tail_chunks, int64_t flush_chunks) {
  using AccT = acc_t<InT>;
  const auto total_vectors_of = [](int64_t totals) {
    return ceil_div(totals, int64_t(kElementsPerVector<AccT>));
  };
  const int64_t whole_chunks = std::max<int64_t>(1, vectors / (kChunkThreads * kLoadsPerRound));
  // Whether the sum of the totals below runs in one cluster.
  const auto in_one_cluster = [&](int64_t total_vectors) {
    return first_totals_cluster<AccT>([&](auto loads) {
      return one_cluster_holds<decltype(loads)::value, AccT, OutT, true>(total_vectors, 1, context);
    });
  };
  // A block a chunk where memory is slow enough for a multiprocessor and one
  // cluster holds their totals, else a block per kManyWaveChunks chunks. The
  // bandwidth first: it is one cached number, the cluster three occupancy
  // lookups.
  const bool chunk_a_block =
      dram_mb_per_s_per_multiprocessor(context.device) <= kChunkABlockMaxDramMBPerSm &&
      in_one_cluster(total_vectors_of(whole_chunks));
  const int chunks_per_block = chunk_a_block ? 1 : kManyWaveChunks;
  const int64_t blocks = ceil_div(whole_chunks, int64_t(chunks_per_block));
  auto* partials = static_cast<AccT*>(finish.scratch->allocate(blocks * int64_t(sizeof(AccT))));
  // The first L2 of chunks after the tail loads without the L1 hint: such
  // loads, as CUB's, push a producer's dirty lines out of L2 early, and an
  // L2 of them is enough; the hint on the rest keeps the graphs' times.
  // With the hint on every load the sweep kept up to 17.6 MB of those lines
  // to its end and took 20.9 us over its fastest clean read, without it
  // anywhere 8.7 (H200, ncu, fp32 2^30), but graphs lost 0.3-0.4% at 2^28
  // without it anywhere. On the first L2 of chunks only, against the hint
  // everywhere (H200 GPU-7b06b4f9), after a producer fp32 2^28 241.5-241.6
  // -> 237.8-238.0 us, 2^29 476.3-476.5 -> 468.8-469.0, bf16 2^30
  // 476.8-477.4 -> 469.5-469.7 (Inductor 482.5); fp32 2^30 took 935.2-935.8
  // without the hint anywhere, 937.2-937.4 so (CUB 945.8); graphs within
  // 0.3%, 2^30 1.1-1.7 us faster than without the hint anywhere
  // (benchmarks/NOTES.md, session 54).
  many_wave_sum_kernel<InT, OutT><<<blocks, kChunkThreads, 0, context.stream>>>(
      problem, partials, tail_chunks, chunks_per_block, flush_chunks);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  // The totals as a sum of their own: one thread-block cluster where the GPU
  // runs one that holds them (up to 16 chunks: 65,536 fp32 totals, fp32
  // 2^30, in chunks of 2 loads a thread, as many int64 ones in chunks of 4,
  // twice that in chunks of kWideTotalsLoads), so that 16 multiprocessors
  // read them instead of one. H200 graph, 2^30, against one block: fp32
  // 931.1-931.2 us against 932.7-932.8, int32 933.0 against 935.4-935.5,
  // bf16 467.7-467.9 against 468.4-468.6; after a producer 1.6-2.6 us less
  // (benchmarks/NOTES.md, session 46). The totals' buffer (the caching
  // allocator's) is 16-byte aligned, so no scalar head takes a vector from
  // their count.
  const ContiguousProblem<AccT, OutT> totals{partials, blocks, problem.result};
  const int64_t total_vectors = total_vectors_of(blocks);
  if (first_totals_cluster<AccT>([&](auto loads) {
        return launch_in_one_cluster<decltype(loads)::value, true>(totals, total_vectors, context);
      })) {
    return;
  }
  many_wave_finish_kernel<AccT, OutT>
      <<<1, kManyWaveFinishThreads, 0, context.stream>>>(partials, blocks, problem.result);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

}  // namespace

template <typename InT, typename OutT>
void launch_contiguous_sum(const ContiguousProblem<InT, OutT>& problem,
                           const Finish<acc_t<InT>>& finish, const LaunchContext& context) {
  const int64_t vectors = ceil_div(problem.numel, kElementsPerVector<InT>);
  if (vectors <= kOneBlockThreads) return launch_one_block<1>(problem, vectors, context);
  if (vectors <= 2 * kOneBlockThreads) return launch_one_block<2>(problem, vectors, context);
  if (vectors <= kOneBlockRoundVectors) {
    return launch_one_block<kLoadsPerRound>(problem, vectors, context);
  }
  constexpr int kNarrowLoads = kNarrowChunkLoads<InT>;
  // Past one round of the one block, a cluster of narrow chunks where the GPU
  // runs one: H100 graph, fp32 and int32 2^14 2.10 and 2.12 us against 2.43
  // and 2.87 in the block's two rounds, bf16 2^15 2.21 against 2.74 (fp32
  // 2^14 1.23x -> 1.41x Inductor). Where no cluster takes the rows (GPUs
  // without clusters, more rows than a wave of clusters), the block's second
  // round (not timed against the split). 16- and 8-bit sums take chunks of
  // one load where those fit a cluster: bf16 2^15 2.11 us against 2.20-2.21,
  // 2^16 2.22-2.23 against 2.29; 4-byte sums lost 0.03-0.04 us that way at
  // 2^15 (benchmarks/NOTES.md, session 35). 8-bit and 8-byte sums follow
  // the 16-bit and 4-byte evidence (not timed).
  if constexpr (kElementsPerVector<InT> >= 8) {
    if (launch_in_one_cluster<1>(problem, vectors, context)) return;
  }
  if (launch_in_one_cluster<kNarrowLoads>(problem, vectors, context)) return;
  if (vectors <= kOneBlockMaxVectors) {
    return launch_one_block<kLoadsPerRound>(problem, vectors, context);
  }
  if constexpr (kNarrowLoads != kLoadsPerRound) {
    // Narrow chunks too many for a cluster, wide ones few enough (with
    // clusters of 16: 16-bit sums up to 2^18 elements, 4-byte ones up to
    // 2^17): the cluster finish saves more than the wider chunks cost (bf16
    // 2^18 on an H100: 2.87 us, against 3.24 for 32 chunks of 2 loads
    // finished through mailboxes; benchmarks/NOTES.md). fp32 2^17 was timed
    // only this way.
    if (launch_in_one_cluster<kLoadsPerRound>(problem, vectors, context)) return;
    // Narrow chunks only while the wide ones would leave multiprocessors
    // idle. Past that, the blocks' fixed instructions (the edges, the block
    // sum, the finish) decide when the input is in L2, as after a producer:
    // bf16 2^22 ran 1.8x the instructions of Inductor's first kernel on the
    // same 512 blocks (benchmarks/NOTES.md, sessions 11 and 16).
    // 16- and 8-bit sums take the same narrow chunks, not chunks of one load
    // (twice the blocks) where these leave multiprocessors idle: once their
    // skipped vectors added +0 (round_sum_from), one load lost. H100, 16-bit
    // 2^19 graph 2.73 us against 2.80 (fp16 2.91 against 2.98), 2^20 level
    // (3.37-3.38), after a producer 2^20 2.69-2.74 against 2.77-2.81; H200
    // 2^19 2.62 against 2.68 (fp16 2.80 against 2.86), 2^20 level, after a
    // producer 2.74-2.75 against 2.79-2.81 (benchmarks/NOTES.md, session 38).
    if (chunk_count<kLoadsPerRound>(vectors) * problem.rows < context.sm_count &&
        launch_mid_split<kNarrowLoads>(problem, finish, vectors, context)) {
      return;
    }
  }
  if (launch_mid_split<kLoadsPerRound>(problem, finish, vectors, context)) return;
  constexpr auto large = contiguous_sum_kernel<false, kLoadsPerRound, InT, OutT>;
  const int64_t large_wave = std::min(
      one_wave<large>(kChunkThreads, context.device, context.sm_count), finish.partials_capacity);
  // From the end up to kFromEndL2Multiple x L2: after a producer, 2^24
  // float32 elements (64 MB, 1.3x an H100's L2) took 20.2 us instead of 21.4
  // forward (benchmarks/NOTES.md, session 12), and 20.0-20.1 instead of 20.4 with
  // the tail first; bf16 2^24 9.1 instead of 9.6 (session 28). Mid sizes,
  // L2-resident anyway, keep the forward order.
  // Beyond that, up to kTailFirstL2Multiple x L2, the last L2's worth of
  // chunks first, then the rest forward: after a producer those hit in L2,
  // where a forward sweep evicts them before it gets there. fp32 2^28 took
  // 346.4 us instead of 350.1 on an H100 (243.2 instead of 246.9 on an H200,
  // level with CUB), bf16 2^28 171.4 instead of 176.7 (122.3, 127.0), bf16
  // 2^30 691.4 instead of 694.5 (480.9, 484.9); clean sums (graph) within
  // 0.2%. fp32 2^30 (82x an H100's L2, 68x an H200's) gained nothing on
  // either GPU and lost 0.2% on the H100 (benchmarks/NOTES.md, session 26),
  // so it reads forward.
  const int64_t bytes = problem.numel * int64_t(sizeof(InT)) * problem.rows;
  const int64_t l2_bytes = l2_cache_bytes(context.device);
  const int64_t l2_chunks = l2_bytes / (int64_t(kChunkThreads) * kLoadsPerRound * kVectorBytes);
  const int64_t tail_first_chunks = bytes <= kTailFirstL2Multiple * l2_bytes ? l2_chunks : 0;
  // Past kManyWavesL2Multiple x L2, a block per chunk (or per
  // kManyWaveChunks neighbouring chunks) over many waves: fresh blocks start
  // on the chunks next to those being read as others end, where one wave's
  // blocks drift apart over the row. Its finish is a second launch: no
  // in-kernel finish measured paid for its cost a block on both GPUs (an
  // acq_rel ticket a block: H200 13% slower; fence-free mailboxes that the
  // last block empties: H100 1.5% slower; groups of 64 blocks: 3 us over the
  // bare read on an H200; benchmarks/NOTES.md, sessions 35 and 38).
  // Graph, us, one wave -> many waves (session 39; on the H100 the
  // experiment's build, the chunks a block a runtime argument):
  //  - H100 GPU-190bcd2c: fp32 2^30 1,364.9-1,366.4 -> 1,351.6-1,351.9
  //    (Inductor 1,370.7), int32 1,364.8-1,365.6 -> 1,353.8-1,353.9, bf16
  //    681.9-683.3 -> 677.5-677.8; after a producer fp32 1,387.0-1,388.1 ->
  //    1,362.6-1,362.9 (torch.sum 1,386.1), int32 1,389.4 -> 1,364.9-1,365.3,
  //    bf16 690.8-691.2 -> 677.4-677.8.
  //  - H200 GPU-892ab65f: fp32 2^30 937.3-937.7 -> 932.4-932.5, int32
  //    938.4 -> 936.0-936.1, bf16 470.1-470.3 -> 468.5; after a producer
  //    fp32 959.1-959.2 -> 950.2-950.5, int32 959.4-960.1 -> 951.6-951.8,
  //    bf16 479.9-480.1 -> 477.7-478.3.
  // A block per chunk was faster on the H100 (fp32 2^30 1,344.6-1,344.7) and
  // level on an H200 (937.0-937.2 against 937.4-937.5). At 2^28 (17-20x L2)
  // the H100's graph was level to 0.4% faster and 1.0-1.8% faster after a
  // producer; an H200's graph, read forward, 0.25% slower at bf16, and after
  // a producer 1.2-3.9% slower; with the tail first (session 40) fp32 level
  // and int32 0.3% slower in graphs, level after a producer. Since the totals
  // are summed in a cluster (session 46) the H200 gains there too (GPU-39b080e3,
  // session 47): graph fp32 2^28 236.54-236.70 -> 236.24-236.25, int32
  // 236.84-236.87 -> 236.53-236.57 (Inductor 236.58-236.67), after a producer
  // fp32 242.56-242.73 -> 242.04-242.20, int32 242.63-243.08 -> 242.29-242.68;
  // bf16 2^29 (20x) graph 236.80-236.86 -> 236.69-236.70, level after a
  // producer. So many waves start at 16x. They keep the tail first up to
  // kTailFirstL2Multiple: 16-bit 2^30 (34x an H200's L2) read forward was
  // level in graphs and 1.0-1.1% slower after a producer (session 40).
  // With the cluster finish, a block a chunk where one cluster holds the
  // totals (session 48, H100 GPU-9c7e4ca4, four rounds each): graph fp32
  // 2^28 340.2-340.3 -> 338.2, 2^29 676.8 -> 672.6-672.7, 2^30 1,350.0-1,350.2
  // -> 1,340.6-1,340.7 (Inductor 1,370.2-1,370.6); int32 2^29 676.4 ->
  // 672.0-672.1; bf16 2^30 676.8-676.9 -> 672.7-672.8; after a producer fp32 2^30
  // 1,360.7-1,361.3 -> 1,349.1-1,349.4. int32 2^30, whose 2^17 int64 totals
  // passed 16 cluster chunks of 4 loads, gained once kWideTotalsLoads took
  // them. An H200 (GPU-d06a66fc, one round, both changes) lost 0.1-0.2%: fp32
  // 2^30 932.0 -> 933.5, int32 932.9 -> 934.7, bf16 468.6 -> 469.3 (Inductor
  // 935.4, 935.0, 469.4); its faster memory keeps 2 chunks a block
  // (kChunkABlockMaxDramMBPerSm).
  if (problem.rows == 1 && bytes > kManyWavesL2Multiple * l2_bytes) {
    return launch_many_waves(problem, finish, context, vectors, tail_first_chunks, l2_chunks);
  }
  launch_split<large>(problem, finish, context, std::max<int64_t>(1, large_wave / problem.rows),
                      bytes <= kFromEndL2Multiple * l2_bytes, tail_first_chunks);
}

#define INSTANTIATE(InT, OutT)                                                        \
  template void launch_contiguous_sum<InT, OutT>(const ContiguousProblem<InT, OutT>&, \
                                                 const Finish<acc_t<InT>>&, const LaunchContext&);
TORCH_REDUCE_V7_FOR_EACH_TYPE_PAIR(INSTANTIATE)
#undef INSTANTIATE

}  // namespace torch_reduce::cuda::v7
