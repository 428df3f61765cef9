// sum_v7 over outer dims: the innermost kept dim is contiguous, so each
// thread takes a vector of neighbouring outputs (columns) and every row of a
// warp's loads is one contiguous span. A block is a band of up to 32 such
// threads side by side, times as many row lanes as fill 256 threads; the row
// lanes take interleaved rows and meet in shared memory. When there are too
// few bands to fill the GPU, blocks split the rows, and the last block of
// each band to finish sums the band's partials, on the band's own counter,
// laid out as in the main pass: vectors of partials, split lanes in place of
// row lanes; on Hopper and newer, bands of vectors on the boundary do so in
// a second launch started early (column_partials_kernel), and a band whose
// splits fit in one thread-block cluster finishes in the cluster instead
// (column_cluster_kernel).
// Rows whose bands start off the vector boundaries (an odd number of 16-bit
// columns, a slice that drops a first column) read the same vectors from the
// boundary before each row's band, add them as they come and move the sums into
// place once (OffBoundaryBandRows), over one reduced dim and where that fills
// enough of a wave and a column a thread would not take small clusters
// (launch_column_sum); other such rows, and every 1-byte one, a column a
// thread. Covers sums over a batch, over H x W of a channels_last activation,
// over the middle dim of a 3-D tensor, a Linear layer's bias gradient. Rows of
// a few columns that lie back to back off the vector boundaries (and of 1-
// and 2-byte integers on them) go to interleaved_column_sum.cu instead, but
// for the small ones of 4-32 columns that a column a thread reads in
// clusters.
#include <c10/cuda/CUDAException.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include <algorithm>
#include <climits>
#include <optional>
#include <type_traits>

#include "cluster_handoff.cuh"
#include "launch_policy.h"
#include "loads.cuh"
#include "problem.h"
#include "reduce.cuh"

namespace torch_reduce::cuda::v7 {
namespace {

constexpr int kBlock = 256;
constexpr int kMaxColumnLanes = 32;     // a band is at most a warp of column vectors
constexpr int kMinColumnLanesLog2 = 3;  // launch_band_kernels narrows clusters of splits to 8 lanes
// Strided offsets need more than 32 registers; 64 leaves half the threads
// resident, each with kUnroll vectors in flight: more than the memory needs.
constexpr int kRegisters = 64;
// Off-boundary bands (OffBoundaryBandRows) hold two vectors a row in flight
// (lane 0's second, in every thread's registers): at 64 registers their
// 16-bit and int16 kernels spilled (sm_90, session 58); at 80 none but the
// int16 ones (their 8 int64 sums: 8-40 bytes, session 61; 1-byte columns
// off the boundary, which spilled more, take a column a thread since session
// 78); 3 blocks an SM still keep 48 KB a multiprocessor in flight.
constexpr int kOffBoundaryRegisters = 80;
constexpr int kUnroll = 4;
// How a column a thread (one element a row) in the flat kernels reads its
// rows: kLoads rows' loads in flight, where vectors keep kUnroll of 16 bytes,
// and whether a row its last round lacks adds a zero (kZeroFill) or skips its
// add (sum_rows says what each costs). 16 loads for fp32, and for every other
// type narrower than 8 bytes in the cluster kernel, there with zeros; 8 for
// the rest. A "round of loads" in the launch rules below (load_rounds_of,
// kMinRowsPerThread, kMaxClusterRowsPerThread) stays kUnroll rows for a
// column a thread too: the unit its shapes were measured in; small_sum_bands
// alone counts a flat column a thread's rounds in kLoads rows (see there). On
// an H200 (benchmarks/NOTES.md, sessions 64-65), 8 against 4: fp32 3001x66
// dim=0 4.21 -> 3.55 us, 1001x33 3.12 -> 2.66, bf16 2000x66 4.05 -> 3.28,
// int16 2001x33 4.04 -> 3.64 (all in clusters); fp16 4001x127 through L2 5.01
// -> 5.07. 16 against 8: fp32 3001x66 3.55-3.60 -> 3.05 (Inductor 3.23-3.24),
// the other fp32 sums within their spread between runs (20001x66 6.71-6.90);
// in clusters with zeros, bf16 2000x66 3.30 -> 2.85 (Inductor 3.05), int16
// 2001x33 3.66-3.68 -> 3.23-3.26 (Inductor 3.22-3.24; fp16 in clusters not
// timed); session 67, in the clusters of small_sum_bands' rules: int32
// 8001x33 4.47 -> 4.02 (Inductor 3.33), 2048x1001 5.67 -> 5.11 (5.33), int8
// 2001x33 3.58 -> 3.19 (3.31), 2048x1001 4.96 -> 4.29 (4.40), 4001x127 4.96
// -> 4.16 (4.11), but int64 and f64 2001x33 3.00-3.02 -> 3.09-3.10 (Inductor
// 3.05-3.12). Not taken: 16 loads through L2 for 2-byte types (fp16 4001x127
// 5.07 -> 5.80-5.86, though bf16 2000x1001 5.01 -> 4.86-4.88), where, with
// every type at 16 loads skipping adds, every type's kernel but fp32's
// spilled 4-20 bytes (sm_90); zeros for fp32 (1001x33 2.68 -> 2.80) and at 8
// loads (fp16 4001x127 5.07 -> 5.22). The general-index kernels keep kUnroll:
// at 8, the ones through L2 spilled 12-28 bytes, those of 8-byte types 96
// (sm_90). At 16 with zeros the int8 and bool cluster kernels take 62
// registers on sm_90 and 64, the cap, on sm_120 (no spill): the first to
// spill if sum_rows grows.
template <typename InT, bool kInCluster>
struct ColumnAThreadReads {
  static constexpr bool kZeroFill = kInCluster && sizeof(InT) < 8 && !std::is_same_v<InT, float>;
  static constexpr int kLoads = (std::is_same_v<InT, float> || kZeroFill) ? 16 : 8;
};
// A thread's rows per split are at least this many: one round of loads (of
// kUnroll rows, as every rule here counts them; see ColumnAThreadReads). Small
// column sums are a chain of latencies (load, lane tree, ticket, finish), and
// a second round of loads is one more of them.
constexpr int64_t kMinRowsPerThread = kUnroll;
// A thread's rows per split, at most, for which a column sum takes fewer
// splits to finish in a cluster: 4 rounds of loads.
constexpr int64_t kMaxClusterRowsPerThread = 4 * kUnroll;
// A column a thread's rows per split, at least, where it splits through L2
// (launch_band_kernels).
constexpr int64_t kColumnAThreadL2RowsPerThread = 4 * kMinRowsPerThread;
// The most rows per split a thread of a few 8-byte clusters reads, where the
// interleaved run would read their columns (clusters_take_interleaved_columns).
constexpr int64_t kMaxEightByteClusterRowsPerThread = 7;
// The last block of a band reads the band's splits x band width partials,
// each thread this many at most.
constexpr int64_t kMaxPartialsPerThread = 32;

// Columns per thread: 16 bytes, or 8 columns of 1-byte types (their 64-bit
// accumulators would not fit more).
template <typename T>
constexpr int kVectorColumns = kVectorBytes / sizeof(T) < 8 ? kVectorBytes / sizeof(T) : 8;

// 16-byte columns stream (load_streaming: 256-byte L2 lines cost an H200
// 5-7% here, benchmarks/NOTES.md, session 24); narrower ones load plainly.
template <typename T, int kColumns>
__device__ __forceinline__ AlignedVector<T, kColumns> load_columns(const T* address) {
  if constexpr (kColumns * sizeof(T) == kVectorBytes) {
    return load_streaming(reinterpret_cast<const Vector<T>*>(address));
  } else {
    return *reinterpret_cast<const AlignedVector<T, kColumns>*>(address);
  }
}

// How a thread reads its column vector of a row, in two steps: fetch(row
// offset) issues the loads, settle(fetched) turns what they brought into the
// kColumns elements the thread adds, so that a batch of rows has all its
// loads in flight before the first settles.
//
// Rows whose bands all start on a vector boundary (rows_are_vector_aligned),
// or a column a thread (kColumns 1): the thread's vector is its columns.
template <typename InT, int kColumns>
struct AlignedBandRows {
  using Columns = AlignedVector<InT, kColumns>;
  static constexpr bool kMayLeaveSpan = false;
  const InT* columns;  // the thread's first column in the reduced index's row 0

  __device__ __forceinline__ Columns fetch(int64_t row_offset) const {
    return load_columns<InT, kColumns>(columns + row_offset);
  }
  __device__ __forceinline__ Columns settle(const Columns& fetched) const { return fetched; }
};

// Rows whose bands start anywhere (an odd number of 16-bit columns, a slice
// that drops a first column, rows with gaps): each lane loads the vector at
// the boundary at or before where its columns would start, so it holds its
// columns shifted by the row's phase (the band's distance from that
// boundary), the first `phase` of them in the lane before. A thread's rows
// are row_lanes apart, a multiple of kColumns, so they all have the same
// phase: the thread adds each vector as it comes, every element to the
// column it holds, and the sums move into place once, after the last row
// (place). Lane 0's first `phase` elements precede the band: it also loads
// the vector after the last lane's, whose first `phase` elements are the
// band's last columns, and takes those in their place (a mask a word), so
// no element before the band reaches a column that is stored; a band reads
// up to a vector more a row than its columns fill. Shifting each row's
// vectors into place instead (sessions 58-60: a shuffle, selects and a
// funnel shift a word a row, 141 SASS instructions a row at fp32) kept the
// SMs 60% busy issuing (ncu, base clocks): fp32 2048x50257 dim=0 read in 107
// us against 97 for 2048x50256; now 95.6 against 93.4 (H200,
// benchmarks/NOTES.md, session 61). A vector that reaches past the elements
// the rows span, [0, span_end), loads element by element within them, so no
// byte outside the view's span is read; inside it, the vectors take in
// bytes that are not the view's (the gaps between rows, a sliced-off
// column): they are added only to sums that are never stored, and
// compute-sanitizer's initcheck would report them where the storage of a
// view's gaps was never written (not run: expected from the reads).
template <typename InT, int kColumns>
struct OffBoundaryBandRows {
  using Columns = AlignedVector<InT, kColumns>;
  static constexpr bool kMayLeaveSpan = true;
  static constexpr int kWords = int(sizeof(Columns) / sizeof(uint32_t));
  static_assert(sizeof(Columns) % sizeof(uint32_t) == 0);
  static_assert(kBlock / kMaxColumnLanes % kColumns == 0,
                "a thread's rows must be a multiple of kColumns apart to share their phase");

  struct Words {
    uint32_t words[kWords];
  };
  struct Fetched {
    Words own;
    Words wrap;  // lane 0's vector after the band's last lane's
  };

  const InT* input;
  int64_t own_start;  // this lane's vector in row offset 0
  int64_t span_end;
  int phase;          // this thread's rows' distance from their vector boundary
  int reach;          // phase + the band's columns that the rows hold
  int wrap_distance;  // from lane 0's vector to the one after the last lane's
  bool loads_own;
  bool loads_wrap;
  Words wrap_mask;  // the bits of lane 0's first `phase` elements
  int lane;
  int lanes;  // a power of two up to a warp
  unsigned lane_mask;

  // band_start: the band's first column in the reduced index's row 0;
  // first_row_offset: the offset of the thread's first row.
  __device__ OffBoundaryBandRows(const InT* input, int64_t band_start, int64_t first_row_offset,
                                 int64_t span_end, int64_t columns_left, int column_lanes)
      : input(input),
        span_end(span_end),
        lane(int(threadIdx.x) & (column_lanes - 1)),
        lanes(column_lanes),
        lane_mask(column_lanes == kWarpSize
                      ? 0xffffffffu
                      : ((1u << column_lanes) - 1)
                            << (threadIdx.x % kWarpSize & ~(column_lanes - 1))) {
    const int input_phase = int(reinterpret_cast<uintptr_t>(input) % sizeof(Columns) / sizeof(InT));
    phase = (input_phase + int((band_start + first_row_offset) & (kColumns - 1))) & (kColumns - 1);
    reach = phase + int(std::min<int64_t>(columns_left, int64_t(column_lanes) * kColumns));
    own_start = band_start - phase + lane * kColumns;
    wrap_distance = column_lanes * kColumns;
    loads_own = lane * kColumns < reach;
    loads_wrap = lane == 0 && wrap_distance < reach;
    const int wrap_bits = loads_wrap ? 8 * phase * int(sizeof(InT)) : 0;
#pragma unroll
    for (int w = 0; w < kWords; ++w) {
      const int bits = std::clamp(wrap_bits - 32 * w, 0, 32);
      wrap_mask.words[w] = bits == 32 ? ~0u : (1u << bits) - 1;
    }
  }

  // Whether the vectors that fetch loads for the rows from offset `first` to
  // offset `last` lie in [0, span_end). The same in every lane of a band.
  __device__ __forceinline__ bool within_span(int64_t first, int64_t last) const {
    const int64_t band_vectors = own_start - lane * kColumns;
    return band_vectors + first >= 0 &&
           band_vectors + last + ((reach + kColumns - 1) & -kColumns) <= span_end;
  }

  // The vectors of row `row_offset`, where within_span holds.
  __device__ __forceinline__ Fetched fetch(int64_t row_offset) const {
    Fetched fetched{};
    const int64_t own = own_start + row_offset;
    if (loads_own) fetched.own = load_words(own);
    if (loads_wrap) fetched.wrap = load_words(own + wrap_distance);
    return fetched;
  }

  __device__ __forceinline__ Words load_words(int64_t offset) const {
    const Columns vector = load_columns<InT, kColumns>(input + offset);
    Words words;
    memcpy(&words, &vector, sizeof(Words));
    return words;
  }

  // fetch's elements, one at a time, only those in [0, span_end): for the
  // rows at the span's two ends, whose vectors may reach out of it.
  __device__ __forceinline__ Fetched fetch_within_span(int64_t row_offset) const {
    const int64_t own = own_start + row_offset;
    Columns vectors[2] = {};
#pragma unroll
    for (int c = 0; c < kColumns; ++c) {
      if (loads_own && own + c >= 0 && own + c < span_end) vectors[0].values[c] = input[own + c];
      if (loads_wrap && own + wrap_distance + c < span_end) {
        vectors[1].values[c] = input[own + wrap_distance + c];
      }
    }
    Fetched fetched;
    memcpy(&fetched.own, &vectors[0], sizeof(Words));
    memcpy(&fetched.wrap, &vectors[1], sizeof(Words));
    return fetched;
  }

  // The elements this thread adds: its vector, with lane 0's first `phase`
  // elements from the vector after the last lane's.
  __device__ __forceinline__ Columns settle(const Fetched& fetched) const {
    uint32_t words[kWords];
#pragma unroll
    for (int w = 0; w < kWords; ++w) {
      words[w] = (fetched.wrap.words[w] & wrap_mask.words[w]) |
                 (fetched.own.words[w] & ~wrap_mask.words[w]);
    }
    Columns columns;
    memcpy(&columns, words, sizeof(Columns));
    return columns;
  }

  // The thread's sums, element by element as settle gave them, moved to its
  // own kColumns columns: from `phase` on in its own sums, then the next
  // lane's (lane 0's after the last lane's). Every lane of the band calls it.
  // Each lane rotates its sums by the phase (the band's lanes share it), so
  // that the next lane's rotated sum c is the one this lane takes for column
  // c. The rotation is log2(kColumns) steps of selects, which keep the sums
  // in registers in the flat kernels of every type but int16 (sm_90): a
  // select for each shift had the compiler index the sums through a
  // 16-32-byte local frame, and shifting the pair of own and next lane's sums
  // by halves a 64-byte one at 16 bits. (The general-index 16-bit kernels
  // spill 24 bytes with it, none before; benchmarks/NOTES.md, session 62.)
  template <typename AccT>
  __device__ __forceinline__ void place(AccT (&sums)[kColumns]) const {
    AccT rotated[kColumns];
#pragma unroll
    for (int c = 0; c < kColumns; ++c) rotated[c] = sums[c];
#pragma unroll
    for (int step = 1; step < kColumns; step *= 2) {
      const bool take = (phase & step) != 0;
      AccT shifted[kColumns];
#pragma unroll
      for (int c = 0; c < kColumns; ++c) {
        shifted[c] = take ? rotated[(c + step) % kColumns] : rotated[c];
      }
#pragma unroll
      for (int c = 0; c < kColumns; ++c) rotated[c] = shifted[c];
    }
#pragma unroll
    for (int c = 0; c < kColumns; ++c) {
      const AccT next_lanes = __shfl_sync(lane_mask, rotated[c], lane + 1, lanes);
      sums[c] = c + phase < kColumns ? rotated[c] : next_lanes;
    }
  }
};

// The first `count` of a thread's kColumns column sums (fewer where the
// columns end inside its vector).
template <int kColumns, typename AccT, typename OutT>
__device__ __forceinline__ void store_columns(OutT* out, const AccT (&sums)[kColumns],
                                              int64_t count) {
#pragma unroll
  for (int c = 0; c < kColumns; ++c) {
    if (c < count) out[c] = static_cast<OutT>(sums[c]);
  }
}

// The block's lanes: 2^column_lanes_log2 threads side by side along the
// columns, kBlock / that many along the rows; and how many bands each outer
// index has.
struct BandShape {
  int column_lanes_log2;
  IndexDivider bands_per_outer;

  struct Start {
    int64_t outer;
    int64_t column;
  };

  // Where band `band` of bands `width` columns wide starts: its outer index
  // and its first column.
  C10_HOST_DEVICE Start start_of(int64_t band, int width) const {
    const int64_t outer = bands_per_outer.div(band);
    return {outer, (band - outer * bands_per_outer.divisor()) * width};
  }
};

// Lanes of the block `width` threads apart (thread = lane * width + offset,
// width a power of two up to a warp) meet in a fixed order: lane 0 ends with
// the sum over all kBlock / width lanes of each of its kValues values. A
// warp's lanes meet by shuffle, then lane 0 adds the warps' sums from
// `shared` in warp order: one barrier, where a tree in shared memory took one
// per halving (4 for 16 lanes).
template <int kValues, typename AccT>
__device__ __forceinline__ void sum_across_lanes(AccT (&values)[kValues], AccT (*shared)[kBlock],
                                                 int width) {
  constexpr int kWarps = kBlock / kWarpSize;
  for (int distance = kWarpSize / 2; distance >= width; distance /= 2) {
#pragma unroll
    for (int v = 0; v < kValues; ++v)
      values[v] += __shfl_down_sync(0xffffffffu, values[v], distance);
  }
  const int warp = threadIdx.x / kWarpSize;
  const int offset = threadIdx.x % kWarpSize;
  if (offset < width) {
#pragma unroll
    for (int v = 0; v < kValues; ++v) shared[v][warp * width + offset] = values[v];
  }
  __syncthreads();
  if (threadIdx.x < width) {
#pragma unroll
    for (int w = 1; w < kWarps; ++w) {
#pragma unroll
      for (int v = 0; v < kValues; ++v) values[v] += shared[v][w * width + threadIdx.x];
    }
  }
}

// A vector of kColumns partials written by other blocks of this kernel, read
// from L2 (load_partial) in 16-byte pieces where it is made of them.
template <int kColumns, typename AccT>
__device__ __forceinline__ AlignedVector<AccT, kColumns> load_partials(const AccT* address) {
  AlignedVector<AccT, kColumns> vector;
  constexpr int kBytes = sizeof(vector);
  if constexpr (kBytes % kVectorBytes == 0) {
    uint4 pieces[kBytes / kVectorBytes];
#pragma unroll
    for (int p = 0; p < kBytes / kVectorBytes; ++p) {
      pieces[p] = load_partial(reinterpret_cast<const uint4*>(address) + p);
    }
    memcpy(&vector, pieces, kBytes);
  } else {
#pragma unroll
    for (int c = 0; c < kColumns; ++c) vector.values[c] = load_partial(address + c);
  }
  return vector;
}

// Partial vectors a finishing thread has in flight: up to 32 bytes, within
// the kernel's 64 registers (64 bytes, as the main pass's loads, spilled the
// 16-bit kernels).
template <int kColumns, typename AccT>
constexpr int kPartialLoadsInFlight = std::clamp(32 / int(kColumns * sizeof(AccT)), 1, kUnroll);

// The same in column_partials_kernel, which has the registers for 128 bytes:
// one round trip to L2 where 32 bytes took up to 4 (int32 50001x16 dim=0,
// 8-byte partials: 195 splits, 64 split lanes). On an H200 (benchmarks/
// NOTES.md, session 75, calls 3-4, 32 bytes -> 128): int32 50001x16 5.38 ->
// 5.09 us, int64 20001x16 5.04 -> 4.75, fp32 20001x32 4.92 -> 4.68, 50001x32
// 6.21 -> 5.75. fp64's loads are whole rounds (sum_band_partials).
template <int kColumns, typename AccT>
constexpr int kSecondLaunchPartialLoads = std::clamp(128 / int(kColumns * sizeof(AccT)), 1, 8);

// result_band[c] = sum over s of band_partials[s * band_width + c], for the
// band's first `columns` columns, by the block laid out as the main pass:
// each thread a vector of kColumns columns and a split lane that sums every
// split_lanes-th split with several loads in flight, then the main pass's
// fixed tree over the lanes. A finish that read one partial per L2 round
// trip spent 16-32 of them per band (benchmarks/NOTES.md). The in-kernel
// finish and the second launch run this same code and give the same bits:
// kInFlight, the partial vectors in flight a thread, does not change the
// order of the adds.
template <int kColumns, int kInFlight, typename AccT, typename OutT>
__device__ __forceinline__ void sum_band_partials(const AccT* band_partials, int64_t splits,
                                                  BandShape shape, int64_t columns,
                                                  OutT* result_band, AccT (*scratch)[kBlock]) {
  const int column_lanes = 1 << shape.column_lanes_log2;
  const int split_lanes = kBlock >> shape.column_lanes_log2;
  const int column = (threadIdx.x & (column_lanes - 1)) * kColumns;
  const int split_lane = threadIdx.x >> shape.column_lanes_log2;
  const int band_width = column_lanes * kColumns;
  AccT sums[kColumns];
#pragma unroll
  for (int c = 0; c < kColumns; ++c) sums[c] = AccT(0);
  if (column < columns) {
    const AccT* first = band_partials + column;
    for (int64_t s = split_lane; s < splits; s += kInFlight * split_lanes) {
      AlignedVector<AccT, kColumns> batch[kInFlight];
#pragma unroll
      for (int u = 0; u < kInFlight; ++u) {
        const int64_t split = s + u * split_lanes;
        if constexpr (std::is_same_v<AccT, double>) {
          // A split past the last loads the round's first again, not added:
          // with the loads conditional, nvcc interleaved fp64's loads with
          // its in-order adds, two in flight, where the other types issue
          // all of them first (sm_90 SASS). Loaded this way, fp64 20001x16
          // took 4.78 us against 5.08 (H200), where the 2- and 4-byte bands
          // lost 0.2-0.4 (benchmarks/NOTES.md, session 76, call 1).
          batch[u] = load_partials<kColumns>(first + (split < splits ? split : s) * band_width);
        } else if (split < splits) {
          batch[u] = load_partials<kColumns>(first + split * band_width);
        }
      }
#pragma unroll
      for (int u = 0; u < kInFlight; ++u) {
        if (s + u * split_lanes < splits) {
#pragma unroll
          for (int c = 0; c < kColumns; ++c) sums[c] += batch[u].values[c];
        }
      }
    }
  }
  sum_across_lanes(sums, scratch, column_lanes);
  if (split_lane == 0 && column < columns) {
    store_columns(result_band + column, sums, columns - column);
  }
}

// Fetches rows r, r + row_lanes, ... kCount of them, with kClamp each
// clamped to last_row, a row of the batch (where it is a row again, the
// caller adds nothing for it): all of a batch's loads issue before the first
// settles. A batch that may reach out of the span (OffBoundaryBandRows: its
// first or last row, whose offsets bound the others', one reduced dim of a
// stride never negative) loads element by element instead.
template <bool kClamp, int kCount, typename BandRows, typename RowOffset, typename Fetched>
__device__ __forceinline__ void fetch_rows(const BandRows& rows, int64_t r, int64_t last_row,
                                           int row_lanes, const RowOffset& row_offset,
                                           Fetched (&batch)[kCount]) {
  const auto offset = [&](int u) {
    return row_offset(kClamp ? std::min(r + u * row_lanes, last_row) : r + u * row_lanes);
  };
  if constexpr (BandRows::kMayLeaveSpan) {
    if (!rows.within_span(offset(0), offset(kCount - 1))) {
#pragma unroll
      for (int u = 0; u < kCount; ++u) batch[u] = rows.fetch_within_span(offset(u));
      return;
    }
  }
#pragma unroll
  for (int u = 0; u < kCount; ++u) batch[u] = rows.fetch(offset(u));
}

// sums[c] += the row_lanes-th rows from first_row up to row_end, as `rows`
// reads them (AlignedBandRows, OffBoundaryBandRows), kLoads rows' loads in
// flight; row_offset(r) is row r's element offset.
template <int kLoads, bool kZeroFill = false, int kColumns, typename AccT, typename BandRows,
          typename RowOffset>
__device__ __forceinline__ void sum_rows(const BandRows& rows, int64_t first_row, int64_t row_end,
                                         int row_lanes, const RowOffset& row_offset,
                                         AccT (&sums)[kColumns]) {
  static_assert(!kZeroFill || kLoads > kUnroll, "zeros only in a column a thread's round");
  using Fetched = decltype(rows.fetch(0));
  int64_t r = first_row;
  for (; r + (kLoads - 1) * row_lanes < row_end; r += kLoads * row_lanes) {
    Fetched batch[kLoads];
    fetch_rows<false>(rows, r, row_end - 1, row_lanes, row_offset, batch);
#pragma unroll
    for (int u = 0; u < kLoads; ++u) {
      const auto columns = rows.settle(batch[u]);
#pragma unroll
      for (int c = 0; c < kColumns; ++c) sums[c] += static_cast<AccT>(columns.values[c]);
    }
  }
  if (r >= row_end) return;
  // The last rows, fewer than kLoads: one round of loads, not a latency
  // each (fp32 64x1024x64 dim=1 on an H100, 9.2 to 9.0 us).
  if constexpr (kLoads > kUnroll) {
    // A column a thread loads only the rows it has: clamped as below, a
    // thread of 4 rows would load kLoads - 1 (fp16 4001x127 dim=0 through L2:
    // 5.01 us with 4 loads in flight, 5.54 with 8 clamped, 5.07 with 8 like
    // this; H200, session 64). A row it lacks either adds zero (kZeroFill;
    // exact: a sum from +0 never becomes -0), its test ending at its load, or
    // skips its add, tested again there. In bf16's cluster kernel at 16 loads
    // the second way kept 15 tests alive across both loops, past the
    // predicate registers: 7 of the loads issued one at a time, each after
    // the add before it (SASS, sm_90; bf16 2000x66 dim=0 5.45 us against 2.85
    // with zeros; H200, benchmarks/NOTES.md, session 65). fp32's 16 loads all
    // issue first either way, and its sums were faster skipping adds
    // (ColumnAThreadReads). One add loop for both branches changed the SASS
    // of 33 band kernels, vectors' too (sm_90): not measured, not taken.
    static_assert(kColumns == 1 && !BandRows::kMayLeaveSpan);
    Fetched batch[kLoads - 1];
    if constexpr (kZeroFill) {
#pragma unroll
      for (int u = 0; u < kLoads - 1; ++u) {
        batch[u] =
            r + u * row_lanes < row_end ? rows.fetch(row_offset(r + u * row_lanes)) : Fetched{};
      }
#pragma unroll
      for (int u = 0; u < kLoads - 1; ++u) sums[0] += static_cast<AccT>(batch[u].values[0]);
    } else {
#pragma unroll
      for (int u = 0; u < kLoads - 1; ++u) {
        if (r + u * row_lanes < row_end) batch[u] = rows.fetch(row_offset(r + u * row_lanes));
      }
#pragma unroll
      for (int u = 0; u < kLoads - 1; ++u) {
        if (r + u * row_lanes < row_end) sums[0] += static_cast<AccT>(batch[u].values[0]);
      }
    }
  } else {
    // A missing row loads the thread's last row again (one of its rows: the
    // same phase, OffBoundaryBandRows) and adds nothing.
    Fetched batch[kLoads - 1];
    int64_t last_row = r;
#pragma unroll
    for (int u = 1; u < kLoads - 1; ++u) {
      if (r + u * row_lanes < row_end) last_row = r + u * row_lanes;
    }
    fetch_rows<true>(rows, r, last_row, row_lanes, row_offset, batch);
#pragma unroll
    for (int u = 0; u < kLoads - 1; ++u) {
      const auto columns = rows.settle(batch[u]);
      if (r + u * row_lanes < row_end) {
#pragma unroll
        for (int c = 0; c < kColumns; ++c) sums[c] += static_cast<AccT>(columns.values[c]);
      }
    }
  }
}

// sum_rows over the rows of `reduced` from first_row: with one coalesced
// reduced dim (almost every model's layout), a multiply per row instead of
// the general offset's chain of divisions; with kFlat (has_flat_index) only
// that is compiled. kInCluster: for column_cluster_kernel (ColumnAThreadReads).
template <bool kFlat, bool kInCluster, typename InT, int kColumns, typename AccT, typename BandRows,
          typename Index>
__device__ __forceinline__ void sum_reduced_rows(const BandRows& rows, int64_t first_row,
                                                 int64_t row_end, int row_lanes,
                                                 const Index& reduced, AccT (&sums)[kColumns]) {
  if (kFlat || reduced.ndim == 1) {
    using ColumnAThread = ColumnAThreadReads<InT, kInCluster>;
    constexpr bool kColumnAThread = kFlat && kColumns == 1;
    const int64_t row_stride = reduced.strides[0];
    sum_rows<kColumnAThread ? ColumnAThread::kLoads : kUnroll,
             kColumnAThread && ColumnAThread::kZeroFill>(
        rows, first_row, row_end, row_lanes, [row_stride](int64_t r) { return r * row_stride; },
        sums);
  } else if constexpr (!kFlat && !BandRows::kMayLeaveSpan) {  // off-boundary: one reduced dim
    sum_rows<kUnroll>(
        rows, first_row, row_end, row_lanes, [&reduced](int64_t r) { return reduced.offset(r); },
        sums);
  }
}

// A band's column sums from this thread's row lane: its rows from first_row
// up to row_end, every row_lanes-th (sum_reduced_rows), in the band of outer
// index `outer` that starts at band_column. Aligned bands read only where the
// thread has columns; off-boundary ones in every lane the band reaches, and
// every lane moves its sums into place (OffBoundaryBandRows::place, a
// shuffle across the band).
template <bool kOffBoundary, bool kFlat, bool kInCluster, int kColumns, typename InT, typename OutT,
          int kDims, typename AccT>
__device__ __forceinline__ void sum_band_rows(const ColumnProblem<InT, OutT, kDims>& problem,
                                              int64_t span_end, int64_t outer, int64_t band_column,
                                              int column_lanes, int64_t first_row, int64_t row_end,
                                              int row_lanes, AccT (&sums)[kColumns]) {
  static_assert(!kFlat || kDims == 1, "a flat band kernel takes a FlatColumnProblem");
  int64_t band_start = band_column;
  if constexpr (kFlat) {
    band_start += outer * problem.outer.strides[0];
  } else {
    band_start += problem.outer.offset(outer);
  }
  if constexpr (kOffBoundary) {
    const OffBoundaryBandRows<InT, kColumns> rows(
        problem.input, band_start, first_row * problem.reduced.strides[0], span_end,
        problem.inner_outputs - band_column, column_lanes);
    sum_reduced_rows<kFlat, kInCluster, InT>(rows, first_row, row_end, row_lanes, problem.reduced,
                                             sums);
    rows.place(sums);
  } else {
    const int lane_column = (int(threadIdx.x) & (column_lanes - 1)) * kColumns;
    if (band_column + lane_column < problem.inner_outputs) {
      const AlignedBandRows<InT, kColumns> rows{problem.input + band_start + lane_column};
      sum_reduced_rows<kFlat, kInCluster, InT>(rows, first_row, row_end, row_lanes, problem.reduced,
                                               sums);
    }
  }
}

template <bool kOffBoundary>
constexpr int kBandRegisters = kOffBoundary ? kOffBoundaryRegisters : kRegisters;

// Whether a problem's offsets are products, each one multiply: one reduced
// dim and at most one outer dim (a batch of rows, H x W of channels_last, the
// middle dim of a 3-D tensor; without an outer dim the outer index is always
// 0, whatever strides[0] holds). Their kernels (kFlat) compile without the
// general index, which cost each block 0.8-0.9 us before its first load even
// where its branch was not taken: its constants and divisions were hoisted
// above the branch, in a kernel of 8x the instructions (the aligned fp32
// cluster kernel 5,600 against 688; int16 spilled 76 bytes against 24). On
// an H200 (benchmarks/NOTES.md, session 60): fp32 3001x64 dim=0 3.51 -> 3.00
// us, int32 1024x1024 4.63 -> 4.03, fp32 16384x1000 21.5 -> 19.8, 8192x4096
// dim=0 35.4 -> 34.7.
template <typename InT, typename OutT>
bool has_flat_index(const ColumnProblem<InT, OutT>& problem) {
  return problem.reduced.ndim == 1 && problem.outer.ndim <= 1;
}

// The problem as a band kernel takes it: flat (FlatColumnProblem, one dim a
// side) where kFlat. Spelled by its dims, not std::conditional_t, which
// would put `std::conditional<...>::type` in every profile's kernel name.
template <typename InT, typename OutT, bool kFlat>
using BandProblem = ColumnProblem<InT, OutT, kFlat ? 1 : kMaxDims>;

template <bool kFlat, typename InT, typename OutT>
BandProblem<InT, OutT, kFlat> band_problem(const ColumnProblem<InT, OutT>& problem) {
  if constexpr (kFlat) {
    return flat_column_problem(problem);
  } else {
    return problem;
  }
}

// span_end: one past the last element offset any row reaches (off-boundary
// reads stay below it). kFlat: for problems that has_flat_index.
template <typename InT, typename OutT, int kColumns, bool kOffBoundary, bool kFlat>
__global__ void __launch_bounds__(kBlock, min_blocks_per_sm<kBlock, kBandRegisters<kOffBoundary>>())
    column_sum_kernel(BandProblem<InT, OutT, kFlat> problem, int64_t span_end, BandShape shape,
                      EvenSplits row_splits, acc_t<InT>* partials, unsigned int* counters) {
  // column_partials_kernel, where it follows, may start now: it waits for
  // this kernel's end before it reads the partials.
  let_dependents_start();
  using AccT = acc_t<InT>;
  __shared__ AccT lane_sums[kColumns][kBlock];
  const int column_lanes = 1 << shape.column_lanes_log2;
  const int row_lanes = kBlock >> shape.column_lanes_log2;
  const int column_lane = threadIdx.x & (column_lanes - 1);
  const int row_lane = threadIdx.x >> shape.column_lanes_log2;
  const int band_width = column_lanes * kColumns;
  const int64_t splits = gridDim.y;
  const auto [first_row, row_end] = row_splits.range(blockIdx.y);
  const int64_t bands = problem.outer.numel() * shape.bands_per_outer.divisor();
  for (int64_t band = blockIdx.x; band < bands; band += gridDim.x) {
    const auto [outer, band_column] = shape.start_of(band, band_width);
    const int64_t column = band_column + column_lane * kColumns;
    const bool has_column = column < problem.inner_outputs;
    AccT sums[kColumns];
#pragma unroll
    for (int c = 0; c < kColumns; ++c) sums[c] = AccT(0);
    sum_band_rows<kOffBoundary, kFlat, /*kInCluster=*/false>(problem, span_end, outer, band_column,
                                                             column_lanes, first_row + row_lane,
                                                             row_end, row_lanes, sums);
    // Row lane 0 ends with the block's sums.
    sum_across_lanes(sums, lane_sums, column_lanes);
    if (row_lane == 0 && has_column) {
      if (splits == 1) {
        store_columns(problem.result + outer * problem.inner_outputs + column, sums,
                      kOffBoundary ? problem.inner_outputs - column : kColumns);
      } else {
        AccT* slot = partials + (band * splits + blockIdx.y) * band_width + column_lane * kColumns;
#pragma unroll
        for (int c = 0; c < kColumns; ++c) slot[c] = sums[c];
      }
    }
    // The threads that wrote partials need no fence (see arrive_last).
    if (splits > 1 && counters != nullptr && arrive_last(counters + band, splits)) {
      sum_band_partials<kColumns, kPartialLoadsInFlight<kColumns, AccT>>(
          partials + band * splits * band_width, splits, shape, problem.inner_outputs - band_column,
          problem.result + outer * problem.inner_outputs + band_column, lane_sums);
      if (threadIdx.x == 0) counters[band] = 0;  // ready for the next launch that owns it
    }
    __syncthreads();  // lane_sums is reused by the next band
  }
}

// Splits a band in a cluster: the portable 8, although an H100 runs 16. With
// 8, int32 1024x1024 dim=0 took 32 bands of 8 splits instead of 16 of 16
// (the same one round of loads a thread): 5.32-5.37 us against 5.67-5.73, a
// shorter gather and clusters that the GPCs place more easily
// (benchmarks/NOTES.md, session 15; since session 59 small_sum_bands gives
// it 16 bands of 8 splits of two rounds).
constexpr int kColumnClusterBlocks = kPortableClusterBlocks;

// A band's splits as one thread-block cluster (Hopper and newer; at most
// kColumnClusterBlocks splits): block 0 gathers the other splits' column sums
// in its shared memory (cluster_handoff.cuh) and adds them in split order,
// in place of partials in L2 and the acq_rel ticket, whose release is a
// MEMBAR.ALL.GPU in the SASS. A block per band and split; a band's cluster
// spans gridDim.y, so a block's rank is blockIdx.y. The main pass is
// column_sum_kernel's for one band.
template <typename InT, typename OutT, int kColumns, bool kOffBoundary, bool kFlat>
__global__ void __launch_bounds__(kBlock, min_blocks_per_sm<kBlock, kBandRegisters<kOffBoundary>>())
    column_cluster_kernel(BandProblem<InT, OutT, kFlat> problem, int64_t span_end, BandShape shape,
                          EvenSplits row_splits) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  using AccT = acc_t<InT>;
  __shared__ AccT lane_sums[kColumns][kBlock];
  __shared__ ClusterGather<AccT, kMaxColumnLanes * kColumns, kColumnClusterBlocks> gather;
  gather.open();
  const int column_lanes = 1 << shape.column_lanes_log2;
  const int row_lanes = kBlock >> shape.column_lanes_log2;
  const int column_lane = threadIdx.x & (column_lanes - 1);
  const int row_lane = threadIdx.x >> shape.column_lanes_log2;
  const int band_width = column_lanes * kColumns;
  const int64_t band = blockIdx.x;
  const auto [outer, band_column] = shape.start_of(band, band_width);
  const int64_t column = band_column + column_lane * kColumns;
  const bool has_column = column < problem.inner_outputs;
  const auto [first_row, row_end] = row_splits.range(blockIdx.y);
  AccT sums[kColumns];
#pragma unroll
  for (int c = 0; c < kColumns; ++c) sums[c] = AccT(0);
  sum_band_rows<kOffBoundary, kFlat, /*kInCluster=*/true>(problem, span_end, outer, band_column,
                                                          column_lanes, first_row + row_lane,
                                                          row_end, row_lanes, sums);
  sum_across_lanes(sums, lane_sums, column_lanes);  // row lane 0 ends with them
  gather.wait_until_open();
  if (row_lane != 0) return;
  const uint32_t rank = blockIdx.y;
  const int offset = column_lane * kColumns;
  if (rank != 0) {
    gather.send(sums, rank, offset);  // every column lane: the byte count is per band width
    return;
  }
  if (threadIdx.x == 0) gather.expect(band_width);
  gather.wait();
  for (uint32_t split = 1; split < gridDim.y; ++split) {
#pragma unroll
    for (int c = 0; c < kColumns; ++c) sums[c] += gather.values[split][offset + c];
  }
  if (has_column) {
    store_columns(problem.result + outer * problem.inner_outputs + column, sums,
                  kOffBoundary ? problem.inner_outputs - column : kColumns);
  }
#elif defined(__CUDA_ARCH__)
  __trap();  // launched only where the device supports clusters
#endif
}

// The second launch of a split column sum whose first had no counters: one
// block per band. It starts early (launch_starting_early), as
// warp_an_output_kernel does.
template <int kColumns, typename AccT, typename OutT>
__global__ void __launch_bounds__(kBlock)
    column_partials_kernel(const AccT* partials, int64_t splits, BandShape shape,
                           int64_t inner_outputs, OutT* result) {
  wait_for_kernel_ahead(partials);
  __shared__ AccT scratch[kColumns][kBlock];
  const int64_t band = blockIdx.x;
  const int band_width = (1 << shape.column_lanes_log2) * kColumns;
  const auto [outer, band_column] = shape.start_of(band, band_width);
  sum_band_partials<kColumns, kSecondLaunchPartialLoads<kColumns, AccT>>(
      partials + band * splits * band_width, splits, shape, inner_outputs - band_column,
      result + outer * inner_outputs + band_column, scratch);
}

// The fewest column lanes (log2) whose vectors read a row in spans of
// kSpanBytes or more: the narrowest band into which launch_band_kernels
// narrows a long column sum to finish in clusters or in fewer round trips
// through L2 (256 bytes), a long sum over a few bands for more splits (128
// bytes), and a small sum (small_sum_bands: 32 bytes, a sector; for a flat
// column a thread 16, or 4 lanes where those are fewer).
template <typename InT, int kColumns, int kSpanBytes>
constexpr int kSpanLanesLog2 = [] {
  int lanes_log2 = 0;
  while ((kColumns * int(sizeof(InT)) << lanes_log2) < kSpanBytes) ++lanes_log2;
  return lanes_log2;
}();

// The fewest column lanes (log2) of a flat column a thread's bands in
// small_sum_bands' clusters: 4 lanes, or 16-byte spans where those are fewer
// (8-byte types: 2 lanes; see there).
template <typename InT>
constexpr int kColumnAThreadMinLanesLog2 = std::min(2, kSpanLanesLog2<InT, 1, 16>);

// Bands of 2^column_lanes_log2 column lanes over `problem`'s columns.
struct Bands {
  BandShape shape;
  int row_lanes;
  int width;  // columns
  int64_t count;
};

template <int kColumns, typename InT, typename OutT>
Bands bands_of(const ColumnProblem<InT, OutT>& problem, int column_lanes_log2) {
  const int width = (1 << column_lanes_log2) * kColumns;
  const int64_t bands_per_outer = ceil_div(problem.inner_outputs, int64_t(width));
  const int64_t count = problem.outer.numel() * bands_per_outer;
  return {BandShape{column_lanes_log2, IndexDivider(bands_per_outer, count)},
          kBlock >> column_lanes_log2, width, count};
}

// The widest bands over `problem`'s columns: as many column lanes as the
// columns fill, up to a warp.
template <int kColumns, typename InT, typename OutT>
Bands widest_bands(const ColumnProblem<InT, OutT>& problem) {
  const int64_t vector_columns = ceil_div(problem.inner_outputs, kColumns);
  int column_lanes_log2 = 0;
  while ((1 << column_lanes_log2) < kMaxColumnLanes &&
         (int64_t(1) << column_lanes_log2) < vector_columns) {
    ++column_lanes_log2;
  }
  return bands_of<kColumns>(problem, column_lanes_log2);
}

// The most splits of a band of `bands` whose last block reads
// kMaxPartialsPerThread partials a thread.
int64_t max_band_splits(const Bands& bands) {
  return kMaxPartialsPerThread * kBlock / bands.width;
}

// The most splits of `rows` rows in bands of `bands` that give each thread a
// round of loads (0 for fewer rows than one round).
int64_t row_round_splits(const Bands& bands, int64_t rows) {
  return rows / (bands.row_lanes * kMinRowsPerThread);
}

// How many splits a band of `bands` takes: as many as fill a wave of `wave`
// blocks, but each thread a round of loads at least, and no more than
// max_band_splits.
int64_t band_splits(const Bands& bands, int64_t rows, int64_t wave) {
  return split_count(bands.count, std::max<int64_t>(1, row_round_splits(bands, rows)), wave,
                     max_band_splits(bands));
}

// Whether `splits` of `bands` are as many as the finish allows and fewer
// than the rows and a wave would take: a long sum over a few bands.
bool finish_caps_splits(const Bands& bands, int64_t splits, int64_t rows, int64_t wave) {
  return splits == max_band_splits(bands) && bands.count * splits < wave &&
         splits < row_round_splits(bands, rows);
}

// Bands and the splits of each.
struct SplitBands {
  Bands bands;
  int64_t splits;
};

// The bands, and their splits, into which launch_band_kernels narrows a long
// sum over a few bands whose splits the finish caps below a wave (see
// there), or none. The routing between vectors and a column a thread counts
// the vectors' blocks in these bands too.
template <int kColumns, typename InT, typename OutT>
std::optional<SplitBands> few_bands_narrowed(const ColumnProblem<InT, OutT>& problem,
                                             SplitBands shape, int64_t rows, int64_t wave) {
  const auto narrows = [&] {
    return shape.bands.shape.column_lanes_log2 > kSpanLanesLog2<InT, kColumns, 128> &&
           finish_caps_splits(shape.bands, shape.splits, rows, wave);
  };
  if (!narrows()) return std::nullopt;
  do {
    shape.bands = bands_of<kColumns>(problem, shape.bands.shape.column_lanes_log2 - 1);
    shape.splits = band_splits(shape.bands, rows, wave);
  } while (narrows());
  return shape;
}

// A thread's rounds of loads of kUnroll rows in `splits` splits of `bands`:
// the unit the launch rules count in (a flat column a thread loads
// ColumnAThreadReads::kLoads rows a round).
int64_t load_rounds_of(const Bands& bands, int64_t splits, int64_t rows) {
  return ceil_div(ceil_div(rows, splits * int64_t(bands.row_lanes)), kUnroll);
}

// A thread's rounds of loads in `splits` splits of `bands`, and the round
// trips of partial loads a thread of a band's finishing block makes.
template <int kColumns, typename AccT>
struct BandLatencies {
  int64_t load_rounds;
  int64_t finish_trips;

  static BandLatencies of(const Bands& bands, int64_t splits, int64_t rows) {
    return {load_rounds_of(bands, splits, rows),
            splits > 1 ? ceil_div(ceil_div(splits, int64_t(bands.row_lanes)),
                                  int64_t(kPartialLoadsInFlight<kColumns, AccT>))
                       : 0};
  }
};

// The bands in which a small column sum of aligned vectors, or of a column a
// thread, is read as clusters of kColumnClusterBlocks splits, where its
// shape so far (its `widest` bands in `splits` splits) gives a thread more
// than one round of loads or is more splits than a cluster: the narrowest
// bands whose clusters fill at most a block an SM, where a thread then has
// at most 2 rounds of loads, else (a column a thread of 2 or 4 bytes) a
// block an SM and 4 rounds, else at most two blocks an SM and 4 rounds;
// none where none holds. Such a sum is a chain of latencies (the launch,
// a round of loads, the lane tree, the gather), and these shapes keep it
// shortest. Timed in every band width and split counts of 1-4 rounds a
// thread, a wave and 8 on an H200 (small_columns.py; benchmarks/NOTES.md,
// session 59), on 6 of 7 such sums these shapes were the fastest or within
// 1.1% of it (the 7th, fp32 16384x1000, past 4 rounds, it leaves): fp32
// 3001x64 dim=0 3.51 us, against 4.89-4.92 in 46 splits of the widest bands
// through L2; bf16 8192x768 7.32 against 9.99-10.00. Narrower bands mean
// more blocks and fewer rounds each; a second block an SM cost more than a
// second round (fp32 4096x256: 256 blocks of one round 5.08 us, 128 of two
// 4.64; int32 1024x1024: 4.62-4.63 in 128 blocks of two rounds against 4.68
// in the 256 of one that the older cluster narrowing below gives). Sums that
// narrowing already reads in one round of a cluster (fp32 1000x64) are taken
// too: as int32 1024x1024, not timed on their own.
//
// Those rounds are kUnroll rows of vectors. A flat column a thread's round is
// the rows its cluster kernel loads at once (ColumnAThreadReads: 16 for types
// narrower than 8 bytes, 8 for 8-byte ones), and its bands narrow down to
// 16-byte row spans (one row's elements of a warp split over more bands, each
// with more row lanes): counted in kUnroll rows of 32-byte spans, such sums
// went through L2, or in clusters of wider bands (since session 68 they narrow
// further, to 4 lanes where those are fewer: below). On an H200
// (routing_variants.py, benchmarks/NOTES.md, session 66), dim=0: fp16 4001x127
// 5.07 us -> 3.84 (Inductor 3.39), 8001x127 5.41 -> 4.61 (3.85), bf16 4001x255
// 4.86 -> 4.37 (3.82), 2000x1001 5.00 -> 4.61 (4.55), int16 8001x33 6.65 ->
// 4.02 (3.16), 2001x33 3.22 -> 2.99 (3.23), fp32 6001x33 5.84 -> 3.21 (3.17);
// in kLoads rows alone, 32-byte spans, 4.03, 5.11, 4.38, 4.61, 4.94, 3.22,
// 3.67. bf16 2000x66 2.83 -> 2.89 and fp32 1001x33 2.68 -> 2.70 (Inductor
// 3.06, 2.88), the other column sums of routing_variants.py's cases within
// 0.15 us. Session 67, for the other types (in the rows their cluster kernels
// load at once since then, see ColumnAThreadReads): int32 8001x33 6.60 -> 4.02
// (Inductor 3.33), 2048x1001 7.17 -> 5.11 (5.33), int64 2001x33 4.43 -> 3.00
// (3.05), f64 2001x33 4.37 -> 3.02 (3.12), 1001x1001 5.86 -> 4.89 (5.41), int8
// 2001x33 3.97 -> 3.19 (3.31), 2048x1001 8.73 -> 4.29 (4.40), 4001x127 5.51 ->
// 4.16 (4.11).
//
// Session 68: a column a thread's bands narrow further, down to 4 column lanes
// (8-byte spans of 2-byte types, 4-byte spans of 1-byte ones; 16-byte spans
// stay the floor where they are fewer lanes, as for 8-byte types), so that each
// band has more row lanes and the clusters more blocks, each with fewer rows.
// On an H200 (routing_variants.py, benchmarks/NOTES.md, session 68), dim=0,
// 16-byte spans -> 4 lanes (all but int8 2001x33 and 4001x127 through L2
// before): int8 8193x33 4.56 us -> 3.32 (Inductor 3.95), 16384x63 5.59 -> 4.38
// (3.67), 2001x33 3.16 -> 2.95 (3.28), 4001x127 4.09 -> 3.73 (4.07), bool
// 20001x66 6.43 -> 5.42 (4.32), int16 20001x33 5.80 -> 4.74 (4.32), bf16
// 20001x33 5.60 -> 4.60 (3.57), fp16 27649x33 6.26 -> 5.28 (3.82). Narrower
// than 4 lanes lost where it moved a sum: 2 lanes of 2-byte types (int16
// 20001x33 5.07, bf16 4.79), 2 and 1 of 4- and 8-byte types (fp32 20001x66 6.22
// -> 8.59, int32 6.48 -> 8.84, f64 20001x33 6.22 -> 8.73, int64 50001x33 9.79
// -> 18.33). The sums the second limit had taken in wider bands took twice
// their blocks (timed in session 69, 16-byte spans -> 4 lanes): the 16-bit
// ones lost or kept, bf16 16001x66 5.46 -> 5.71, fp16 9001x100 4.86 -> 5.11,
// 12001x127 5.48 -> 6.44, bf16 10001x66 4.64 -> 4.63, and a rule below takes
// them back to one block an SM; the 1-byte ones gained or kept, int8 20001x33
// 5.93 -> 4.62, 10001x66 5.22 -> 4.45 (both from L2), 8001x255 5.68 -> 5.61,
// 12001x255 6.74 -> 6.67.
template <int kColumns, bool kFlat, typename InT, typename OutT>
std::optional<Bands> small_sum_bands(const ColumnProblem<InT, OutT>& problem, const Bands& widest,
                                     int64_t rows, int64_t splits, const ClusterCapacity& clusters,
                                     int sm_count) {
  constexpr int kSplits = kColumnClusterBlocks;
  if (splits <= kSplits && load_rounds_of(widest, splits, rows) <= 1) {
    return std::nullopt;  // one round already, in a cluster or a block
  }
  constexpr bool kColumnAThread = kFlat && kColumns == 1;
  // load_rounds_of's rounds in one of this kernel's rounds.
  constexpr int64_t kRoundsARound =
      kColumnAThread ? ColumnAThreadReads<InT, /*kInCluster=*/true>::kLoads / kUnroll : 1;
  constexpr int kMinLanesLog2 =
      kColumnAThread ? kColumnAThreadMinLanesLog2<InT> : kSpanLanesLog2<InT, kColumns, 32>;
  const auto narrowest_within = [&](int64_t blocks, int64_t rounds) -> std::optional<Bands> {
    for (int lanes_log2 = kMinLanesLog2; lanes_log2 <= widest.shape.column_lanes_log2;
         ++lanes_log2) {
      const Bands bands = bands_of<kColumns>(problem, lanes_log2);
      if (bands.count * kSplits > blocks || !clusters.holds(kSplits, bands.count)) continue;
      // The narrowest bands within the blocks have the fewest rounds.
      if (load_rounds_of(bands, kSplits, rows) <= rounds) return bands;
      break;
    }
    return std::nullopt;
  };
  if (auto bands = narrowest_within(sm_count, 2 * kRoundsARound)) return bands;
  // A column a thread of 2 or 4 bytes takes up to twice the rounds at one
  // block an SM before a second block an SM. On an H200
  // (column-a-thread-second-limit-switch.patch, benchmarks/NOTES.md, session
  // 69), dim=0, two blocks an SM -> one: fp16 12001x127, 32 bands -> 16,
  // 6.39-6.44 us -> 5.43-5.49 (Inductor 4.39), 9001x100 5.07-5.11 ->
  // 4.80-4.86, bf16 16001x66 5.65-5.71 -> 5.37-5.47, fp32 12001x67 5.01-5.07
  // -> 4.91-4.97, int32 12001x67 5.25 -> 5.17, bf16 10001x66 4.59-4.63 ->
  // 4.57-4.64. 1- and 8-byte ones keep the second block first: one block an
  // SM lost for 1-byte ones, int8 8001x255 5.52-5.61 -> 5.60-5.66, 10001x66
  // 4.41-4.45 -> 4.46-4.53, and was mixed for 8-byte ones, int64 12001x33
  // 4.95 -> 5.33, f64 5.00 -> 5.41, against 8193x33 4.39 -> 4.33, 4.47 ->
  // 4.43.
  if constexpr (kColumnAThread && (sizeof(InT) == 2 || sizeof(InT) == 4)) {
    if (auto bands = narrowest_within(sm_count, 4 * kRoundsARound)) return bands;
  }
  return narrowest_within(2 * int64_t(sm_count), 4 * kRoundsARound);
}

// The largest element offset of `index` (strides are never negative).
int64_t last_offset(const StridedIndex& index) {
  int64_t last = 0;
  for (int d = 0; d < index.ndim; ++d) last += (index.sizes[d] - 1) * index.strides[d];
  return last;
}

template <typename InT, typename OutT, int kColumns, bool kOffBoundary, bool kFlat>
void launch_band_kernels(const ColumnProblem<InT, OutT>& problem, const Finish<acc_t<InT>>& finish,
                         const LaunchContext& context) {
  using AccT = acc_t<InT>;
  // sum_reduced_rows reads off-boundary rows over one reduced dim only, and
  // OffBoundaryBandRows' phase a thread holds for offsets r x stride.
  TORCH_INTERNAL_ASSERT(!kOffBoundary || problem.reduced.ndim == 1,
                        "off-boundary column bands over ", problem.reduced.ndim, " reduced dims");
  TORCH_INTERNAL_ASSERT(!kFlat || has_flat_index(problem), "flat column kernels for ",
                        problem.reduced.ndim, " reduced and ", problem.outer.ndim, " outer dims");
  constexpr auto kernel = column_sum_kernel<InT, OutT, kColumns, kOffBoundary, kFlat>;
  const int64_t span_end =
      last_offset(problem.outer) + last_offset(problem.reduced) + problem.inner_outputs;
  Bands bands = widest_bands<kColumns>(problem);
  const int64_t wave = one_wave<kernel>(kBlock, context.device, context.sm_count);
  const int64_t rows = problem.reduced.numel();
  int64_t splits = band_splits(bands, rows, wave);
  constexpr auto cluster = column_cluster_kernel<InT, OutT, kColumns, kOffBoundary, kFlat>;
  const ClusterCapacity clusters =
      cluster_capacity<cluster, kColumnClusterBlocks>(context.device, kBlock);
  // A small sum of aligned vectors or of a column a thread: small_sum_bands'
  // clusters. Its rule was measured on vectors; a column a thread in its
  // clusters gained 0.35 us over two sums and lost on one of them (H200,
  // benchmarks/NOTES.md, session 63): fp32 3001x66 dim=0, 3 bands of 93
  // splits through L2 to 9 of 8 in clusters (3 rounds), 4.64-4.65 us to
  // 4.20-4.21; int16 2001x33, 2 bands of 62 splits to 3 of 8 (4 rounds),
  // 3.93-3.98 to 4.07, slower; both then behind Inductor's two launches.
  // Both ahead now: 3001x66 with 16 fp32 loads (3.05 us against 3.23,
  // session 65), 2001x33 in small_sum_bands' 16-byte spans for a column a
  // thread (2.99 against 3.24, session 66; in its 4-lane bands since session
  // 68, 2.98).
  std::optional<Bands> small;
  if constexpr (!kOffBoundary) {
    small =
        small_sum_bands<kColumns, kFlat>(problem, bands, rows, splits, clusters, context.sm_count);
  }
  if (small) {
    bands = *small;
    splits = kColumnClusterBlocks;
  } else if (const std::optional<SplitBands> narrowed =
                 few_bands_narrowed<kColumns>(problem, {bands, splits}, rows, wave)) {
    // A long sum over a few bands, whose splits the finish caps below a
    // wave: narrower bands, down to rows read in spans of 128 bytes, each
    // with more splits, while the cap holds them. Each halving doubles the
    // band's split lanes, so its finishing block reads the same number of
    // partials a thread at twice the splits, where the cap still sets them
    // (then a thread has half the rounds of loads; where the rows or the
    // wave set them, the blocks only fill the wave): fp32
    // 100x2048x64[..., :60] dims=(0,1), one band of 128 splits (25 rounds
    // a thread), 21.1 us; 512 splits of that band (7 rounds, 4x the
    // partials a finishing thread), 20.1; two bands of 256 splits (7
    // rounds, the partials as before), 17.1 (H200, benchmarks/NOTES.md,
    // session 62).
    bands = narrowed->bands;
    splits = narrowed->splits;
  } else if (clusters.blocks > 0 && splits > clusters.blocks &&
             ceil_div(rows, clusters.blocks * int64_t(bands.row_lanes)) <=
                 kMaxClusterRowsPerThread &&
             clusters.holds(clusters.blocks, bands.count)) {
    // A small sum that small_sum_bands left (a few rounds of loads a
    // thread) of more splits than a cluster holds: as many splits as it
    // does, so that the band finishes in the cluster and not through L2,
    // whose chain of round trips costs more than the extra rounds (int32
    // 1024x1024 dim=0 on an H100: 32 splits of a round, 7.34 us; 16 of two,
    // 6.30; small_sum_bands takes it now). Long sums keep their splits:
    // there the finish is a small part, and fewer blocks read slower
    // (16x2048x4096 bf16 dim=(0,1), 32 splits to 16: 92.95 to 93.69 us).
    splits = clusters.blocks;
    // Then narrower bands, down to 8 column lanes (row spans of 128 bytes
    // or more), while a thread has more than one round of rows and the
    // clusters still fit: twice the blocks, half the rounds (the same int32
    // sum in clusters of 16: 8 bands of two rounds a thread, 6.3 us; 16
    // bands of one, 5.9).
    while (bands.shape.column_lanes_log2 > kMinColumnLanesLog2 &&
           load_rounds_of(bands, splits, rows) > 1) {
      const Bands narrower = bands_of<kColumns>(problem, bands.shape.column_lanes_log2 - 1);
      if (!clusters.holds(splits, narrower.count)) break;
      bands = narrower;
    }
  } else if (splits > 1 && clusters.blocks > 0 && !clusters.holds(splits, bands.count)) {
    // Any other split sum that clusters do not hold at once (more splits
    // than a cluster, or more clusters than a wave: on an H100, fp32
    // 64x1024x64 dim=1's 64 bands of 8 splits, where fewer than 64 clusters
    // of 8 fit, took 9.9 us through L2 and take 9.2 as 7 splits in
    // clusters; benchmarks/NOTES.md, session 42):
    // narrower bands (rows read in spans of 256 bytes or more) of at most a
    // cluster's splits each, one wave of clusters, where that keeps at least
    // 7/8 of the blocks (GPCs fit fewer blocks in clusters than alone), so
    // that each band finishes in its cluster. Through partials in L2, the
    // last block of a band starts its finish only after the band's last
    // split: a tail of round trips (ticket, partial loads) that no other
    // block overlaps. On an H100, bf16 32x256x56x56 channels_last
    // dim=(2,3), 32 bands of 16 splits to 64 of 7: 22.6-23.0 us to 21.2;
    // 8192x4096 fp32 dim=0 level (49.1-49.3); 128-byte spans read slower
    // (bf16 16x2048x4096 dim=(0,1), 93.0 to 97.6; benchmarks/NOTES.md,
    // session 21).
    const int64_t blocks = bands.count * splits;
    Bands narrower = bands;
    while (narrower.shape.column_lanes_log2 > kSpanLanesLog2<InT, kColumns, 256> &&
           narrower.count * clusters.blocks < blocks) {
      narrower = bands_of<kColumns>(problem, narrower.shape.column_lanes_log2 - 1);
    }
    const int64_t cluster_splits =
        std::min<int64_t>(clusters.blocks, clusters.resident / narrower.count);
    if (8 * narrower.count * cluster_splits >= 7 * blocks &&
        clusters.holds(cluster_splits, narrower.count)) {
      bands = narrower;
      splits = cluster_splits;
    }
  }
  // A split sum through L2: narrower bands, down to 256-byte spans, while
  // a thread keeps its rounds of loads and the finishing threads make fewer
  // round trips (each halving doubles a band's split lanes, which share its
  // partials). As bands are at most 32 lanes, that is one step, from 32
  // lanes of 16-byte vectors to 16. On an H200 (benchmarks/NOTES.md,
  // session 63): fp32 16384x1001 dim=0, 8 bands of 49 splits (4 trips) to
  // 16 of 24 (1 trip), 20.2-20.5 us to 19.7; bf16 2048x50257, 197 bands of
  // 2 splits to 393 of one (no finish), 51.6 to 50.9. Without clusters
  // (TORCH_REDUCE_NO_CLUSTERS=1 there), where it reshapes aligned sums too:
  // int32 1024x1024 dim=0 5.41-5.43 to 4.72-4.75, bf16 2048x50256
  // 49.9-50.0 to 49.5-49.7.
  while (splits > 1 && !clusters.holds(splits, bands.count) &&
         bands.shape.column_lanes_log2 > kSpanLanesLog2<InT, kColumns, 256>) {
    const Bands narrower = bands_of<kColumns>(problem, bands.shape.column_lanes_log2 - 1);
    const int64_t narrower_splits = band_splits(narrower, rows, wave);
    const auto now = BandLatencies<kColumns, AccT>::of(bands, splits, rows);
    const auto then = BandLatencies<kColumns, AccT>::of(narrower, narrower_splits, rows);
    if (then.load_rounds > now.load_rounds || then.finish_trips >= now.finish_trips) break;
    bands = narrower;
    splits = narrower_splits;
  }
  // A column a thread through L2: a quarter of the splits a round of loads a
  // thread would take, and so a quarter of the partials its bands' last
  // blocks read (the rules above, and launch_column_sum's choice between it
  // and vectors, count it at the old splits). On an H200, dim=0
  // (min-rows-per-thread-switch.patch, benchmarks/NOTES.md, session 67):
  // int8 8193x33 6.69 us -> 4.58 (2 bands of 256 splits -> 64), 16384x63
  // 6.66 -> 5.59, int16 20001x33 7.20 -> 5.80, bf16 6.66 -> 5.54, fp16
  // 27649x33 6.79 -> 6.27, bool 20001x66 6.89 -> 6.45; off-boundary vectors
  // lost (f64 3001x1001 9.65 -> 10.16), as did the int8 sums where the
  // routing counted the column a thread at its fewer splits (8.3-8.6, in
  // vectors). Since session 68 those flat sums take small_sum_bands'
  // clusters of 4-lane bands, faster still; the rule stays for the sums that
  // go through L2: on GPUs without clusters, in the general-index kernels,
  // whose bands small_sum_bands keeps at 32-byte spans, and past the rows
  // its clusters take. Splits it leaves within a cluster launch in one.
  if constexpr (kColumns == 1) {
    // A flat column a thread of 1 or 2 bytes whose bands leave a third or
    // more of their column lanes idle (a band of 32 lanes over the last of 33
    // columns loads its rows with one thread of 32, as many blocks as the
    // full band): the narrowest bands of small_sum_bands instead, whose
    // blocks are (nearly) full, each split as a wave and a round of loads
    // allow, where those still split through L2 (fewer splits in clusters,
    // or no splits, were not timed). Not timed on 4- and 8-byte types, whose
    // measured sums of 33-67 columns this long took off-boundary vectors
    // (launch_column_sum), nor on GPUs without clusters; since session 91
    // sums of 33-128 such columns back to back take the interleaved run. On an
    // H200 (column-a-thread-narrow-l2-bands-switch.patch, benchmarks/NOTES.md,
    // session 69), dim=0, 2 bands of 256 splits -> 4-lane bands: fp16
    // 100001x33 9.59 us -> 7.81 (Inductor 5.91), 100001x35 9.69 -> 7.91,
    // 100001x37 9.69 -> 8.44, 100001x41 9.80 -> 9.73, 1000001x33 43.55 ->
    // 40.89, bf16 50001x33 7.72 -> 6.09, int16 300001x33 17.29 -> 15.85, int8
    // 70001x33 9.66 -> 6.16 (6.30), 70001x41 9.68 -> 7.53, 1000001x33 48.75
    // -> 27.96. Where fewer lanes were idle, 4 lanes lost (fp16 100001x45 9.94
    // -> 10.28, 100001x65 in 3 bands 10.95 -> 15.88, 100001x97 12.84 ->
    // 21.11), though 1-byte ones gained up to 65 columns (int8 70001x51 9.66
    // -> 7.90, 70001x65 10.33 -> 8.73; 70001x97 11.54 -> 12.55): 8 bands of 4
    // 1-byte lanes share each 32-byte sector, so 7.5x the data crosses L2 ->
    // SM (ncu, session 69), which a wide sum's L2 does not keep up with.
    if constexpr (kFlat && sizeof(InT) <= 2) {
      // 1-byte ones also where, of up to 3 bands, the last leaves a third or
      // more of its lanes idle (int8 70001x51 9.66 -> 7.90, 70001x65 10.33
      // -> 8.73), where the sectors they share stay within the L2's rate; not
      // where the last is (nearly) full (70001x95 10.51 -> 12.56, session 71,
      // one-byte-l2-bounds-switch.patch; 54-63 and 86-94 columns by extension,
      // not timed) nor from 4 bands (70001x97 11.54 -> 12.55).
      const int64_t columns = problem.inner_outputs;
      const int64_t band_count = ceil_div(columns, int64_t(bands.width));
      const bool one_byte_last_band_idle =
          sizeof(InT) == 1 && band_count <= 3 &&
          leaves_a_third_of_lanes_idle(columns - (band_count - 1) * bands.width, bands.width);
      if (splits > 1 && !clusters.holds(splits, bands.count) &&
          (leaves_a_third_of_lanes_idle(columns, bands.width) || one_byte_last_band_idle)) {
        const Bands narrowest = bands_of<1>(problem, kColumnAThreadMinLanesLog2<InT>);
        const int64_t narrowest_splits = band_splits(narrowest, rows, wave);
        if (narrowest_splits > 1 && !clusters.holds(narrowest_splits, narrowest.count)) {
          bands = narrowest;
          splits = narrowest_splits;
        }
      }
    }
    if (splits > 1 && !clusters.holds(splits, bands.count)) {
      splits =
          std::clamp<int64_t>(rows / (bands.row_lanes * kColumnAThreadL2RowsPerThread), 1, splits);
    }
  }
  if (bands.count <= INT_MAX && clusters.holds(splits, bands.count)) {
    const dim3 grid(static_cast<unsigned>(bands.count),
                    static_cast<unsigned>(splits));  // a cluster a band
    return launch_in_clusters<cluster>(grid, dim3(1, grid.y), kBlock, context.stream,
                                       band_problem<kFlat>(problem), span_end, bands.shape,
                                       EvenSplits(rows, splits));
  }
  // Vectors of 2 bytes or more on the boundary finish in the second launch
  // where it starts early, not in the last block behind its ticket. On an
  // H200 (benchmarks/NOTES.md, session 75, call 3, dim=0, us): fp32 20001x32
  // 4.94 -> 4.68, 50001x32 6.36 -> 5.75, 1000001x32 35.53 -> 35.02, int32
  // 50001x16 5.53 -> 5.09, 100001x16 7.06 -> 6.37, int64 20001x16 5.03 ->
  // 4.69, fp16 50001x16 4.75 -> 4.66, bf16 40001x16 4.33 -> 4.20; fp64,
  // then with 32 bytes in flight (call 4; whole rounds since session 77),
  // 20001x16 5.03 -> 4.89, 50001x16 6.93 -> 6.71; but bf16 16x2048x4096
  // dim=(0,1) 63.38 -> 63.63 (call 4: 62.33 -> 62.48).
  // Not 1-byte ones nor off-boundary rows (call 2, every split band: int8
  // 70001x24 7.23 -> 7.32, 70001x31 11.27 -> 11.63, fp16 100001x65 10.89 ->
  // 11.23; both int8 sums take the interleaved run since sessions 77-78).
  constexpr auto kFinishKernel = column_partials_kernel<kColumns, AccT, OutT>;
  const bool finishes_in_second_launch = !kOffBoundary && kColumns > 1 && sizeof(InT) >= 2 &&
                                         starts_early_on<kFinishKernel>(context.device);
  AccT* partials = splits > 1 ? finish.partials_for(bands.count * splits * bands.width) : nullptr;
  unsigned int* counters =
      splits > 1 && bands.count <= finish.counter_count && !finishes_in_second_launch
          ? finish.counter
          : nullptr;
  const dim3 grid(std::min<int64_t>(bands.count, INT_MAX), splits);
  kernel<<<grid, kBlock, 0, context.stream>>>(band_problem<kFlat>(problem), span_end, bands.shape,
                                              EvenSplits(rows, splits), partials, counters);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  if (splits > 1 && counters == nullptr) {
    launch_starting_early<kFinishKernel>(dim3(bands.count), kBlock, context.stream, context.device,
                                         partials, splits, bands.shape, problem.inner_outputs,
                                         problem.result);
  }
}

// Calls use(std::bool_constant<kFlat>) with the band kernels' kFlat for
// `problem`: the flat kernels where it has a flat index. Off-boundary rows
// too since OffBoundaryBandRows adds its vectors as they come: there the
// flat kernels read fp32 2048x50257 dim=0 in 94.1 us against 98.2 for the
// general ones, 16384x1001 in 20.0 against 21.3 (H200, one build of both,
// session 61, benchmarks/NOTES.md; with each row's vectors shifted into
// place they had read 2-3% slower than the general ones, session 60).
template <typename InT, typename OutT, typename Use>
auto with_band_kernels(const ColumnProblem<InT, OutT>& problem, const Use& use) {
  if (has_flat_index(problem)) return use(std::true_type{});
  return use(std::false_type{});
}

template <typename InT, typename OutT, int kColumns, bool kOffBoundary = false>
void launch_bands(const ColumnProblem<InT, OutT>& problem, const Finish<acc_t<InT>>& finish,
                  const LaunchContext& context) {
  with_band_kernels(problem, [&](auto flat) {
    launch_band_kernels<InT, OutT, kColumns, kOffBoundary, decltype(flat)::value>(problem, finish,
                                                                                  context);
  });
}

// One wave of the split kernel that launch_bands launches for `problem`.
template <typename InT, typename OutT, int kColumns, bool kOffBoundary>
int64_t band_wave(const ColumnProblem<InT, OutT>& problem, const LaunchContext& context) {
  return with_band_kernels(problem, [&](auto flat) {
    constexpr auto kernel =
        column_sum_kernel<InT, OutT, kColumns, kOffBoundary, decltype(flat)::value>;
    return one_wave<kernel>(kBlock, context.device, context.sm_count);
  });
}

// Whether every row of every band starts on a vector boundary: the bands'
// vectors are then their columns (AlignedBandRows); other rows' vectors hold
// their columns shifted (OffBoundaryBandRows).
template <typename InT, typename OutT>
bool rows_are_vector_aligned(const ColumnProblem<InT, OutT>& problem) {
  constexpr int kColumns = kVectorColumns<InT>;
  if (reinterpret_cast<uintptr_t>(problem.input) % (kColumns * sizeof(InT)) != 0 ||
      problem.inner_outputs % kColumns != 0) {
    return false;
  }
  for (const StridedIndex* side : {&problem.outer, &problem.reduced}) {
    for (int d = 0; d < side->ndim; ++d) {
      if (side->strides[d] % kColumns != 0) return false;
    }
  }
  return true;
}

// How a column a thread would read `problem`: its widest bands and their
// splits in a wave of column_sum_kernel (band_wave), and, for a flat one, the
// bands in which it reads it in small_sum_bands' clusters, if any
// (launch_band_kernels' first rule, with its cluster kernel).
struct ColumnAThread {
  SplitBands widest;
  int64_t wave;
  std::optional<Bands> small_bands;
};

template <typename InT, typename OutT>
ColumnAThread column_a_thread(const ColumnProblem<InT, OutT>& problem,
                              const LaunchContext& context) {
  const Bands widest = widest_bands<1>(problem);
  const int64_t rows = problem.reduced.numel();
  const int64_t wave = band_wave<InT, OutT, 1, /*kOffBoundary=*/false>(problem, context);
  const int64_t splits = band_splits(widest, rows, wave);
  if (!has_flat_index(problem)) return {{widest, splits}, wave, std::nullopt};
  constexpr auto cluster = column_cluster_kernel<InT, OutT, 1, false, true>;
  const ClusterCapacity clusters =
      cluster_capacity<cluster, kColumnClusterBlocks>(context.device, kBlock);
  return {{widest, splits},
          wave,
          small_sum_bands<1, true>(problem, widest, rows, splits, clusters, context.sm_count)};
}

// A thread's rounds of the cluster kernel's loads (ColumnAThreadReads) in a
// column a thread's clusters of `bands` (column_a_thread's small_bands).
template <typename InT>
int64_t cluster_rounds(const Bands& bands, int64_t rows) {
  constexpr int64_t kRoundsARound = ColumnAThreadReads<InT, /*kInCluster=*/true>::kLoads / kUnroll;
  return ceil_div(load_rounds_of(bands, kColumnClusterBlocks, rows), kRoundsARound);
}

// Whether a sum of 4-32 columns off the vector boundary that the interleaved
// run reads (interleaves_columns) is read instead as a column a thread in the
// clusters of `bands` (column_a_thread's small_bands).
//
// 1- and 2-byte integers, whose run sums positions in int32: where the
// clusters give a thread at most 2 rounds of their loads, or 3 (1-byte, or
// in a quarter of the SMs or more). Against session 77's run, the clusters
// won everywhere: on an H200, dim=0, run -> clusters, us: int8 30001x31 5.46
// -> 5.22, 20001x17 6.17 -> 4.43, int16 20001x31 5.19 -> 4.68, bool
// 20001x31 5.43 -> 4.49 (benchmarks/NOTES.md, session 77, calls 2-3).
// Against the run as it is since session 80 (its last block's lane groups,
// session 79; 2 loads a thread where blocks of 4 would fill under a quarter
// of the SMs, run_shape), clusters -> run (session 81, calls 1-2; blocks
// are the clusters'): at 4 rounds the run won, int16 30001x15 (32 blocks)
// 5.05 -> 4.30 (Inductor 4.34), 30001x21 (48) 5.11 -> 4.62, int8 30001x13
// (32) 5.11 -> 4.48, 30001x19 (40) 5.05 -> 4.65, 2x30001x13 dim=1 (64) 5.09
// -> 4.74, bool 25001x11 (24) 4.92 -> 4.19 (4.77), uint8 30001x7 (16) 4.83
// -> 4.37, but not int8 30001x31 (64: 5.23 -> 5.47, 5.14 -> 5.26); at 3 in
// under a quarter of the SMs, 2-byte sums gained or tied, int16 20001x9 (24)
// 4.34 -> 3.84 (4.15), 20001x13 (32) 4.36 -> 4.19, 20001x7 (16) 4.22 ->
// 3.79, and 1-byte ones tied or lost, int8 20001x9 (24) 4.32 -> 4.55 and
// 4.25 -> 4.35, uint8 20001x13 (32) 4.17 -> 4.21, int8 22001x11 (24) 4.34 ->
// 4.27, bool 18001x7 (16) 4.20 -> 4.06 (their run parks twice a 2-byte
// run's positions a block: a guess, not measured); at 3 in more blocks, the
// clusters won, int16 20001x27 (56) 4.52 -> 5.12, 20001x31 (64) 4.68 ->
// 5.21, int8 20001x17 (40) 4.44 -> 4.68.
//
// The other types where the clusters give a thread at most 2 rounds of its
// loads (small_sum_bands' first limit) or fill half the SMs or more: fp32
// 5001x13 4.11 -> 2.68 (Inductor 2.75), 3001x31 5.60 -> 2.80, 10001x31 4.59
// -> 3.86, bf16 5001x31 6.64 -> 2.83, 10001x31 4.61 -> 3.66, fp16 10001x9
// 5.00 -> 3.37, fp64 5001x15 4.08 -> 2.98, int64 10001x9 3.79 -> 3.45; where
// they are fewer blocks of up to 4 rounds, they lost: fp32 30001x17 (40
// blocks) 4.37 -> 4.98, fp16 30001x9 (24) 3.78 -> 4.70, fp32 20001x17 4.20
// -> 4.28 (session 78, call 1). Up to 3 rounds in a quarter of the SMs or
// more, as aligned narrow integers take them
// (aligned_narrow_integers_take_clusters), was mixed (session 79, call 3):
// bf16 20001x31 (64 blocks) 4.79 -> 4.43, fp32 20001x32 one element in 5.21
// -> 4.97, bf16 24001x31 4.82 -> 4.55, but fp64 24001x15 (64) 5.24 -> 5.56,
// fp32 24001x17 (40) 4.25 -> 4.40, 20001x24 one element in (48) 4.41 ->
// 4.51; so was it against the 2-load run (session 81, call 1).
//
// 8-byte columns, which alone fill half of an H200's SMs there (from 17
// columns, 9 bands of 16-byte spans): where the clusters would fill under
// half the SMs, giving a thread 7 rows or fewer (so one round of its 8
// loads), and the run (`run_in_one_long_round`, which the launcher asks of
// 8-byte columns alone) would not read them in one round of 8 loads a thread.
// That round won at every round count (session 87, call 2), clusters -> run:
// fp64 10001x31 (2 rounds) 4.62 -> 4.37 (Inductor 4.48), 20001x31 (3) 6.00 ->
// 5.41 (4.93), 24001x31 (3) 6.95 -> 5.87 (5.13), int64 20001x31 (3) 5.92 ->
// 5.34 (4.58); so did the run in half the SMs' clusters or more, once its
// finish read its partials in flight (session 88): fp64 16625x17 (72 cluster
// blocks; the run's 138 of 4 loads) 4.94 -> 3.78 (4.37), 8001x31 (128) 4.41
// -> 3.71 (4.75), 4x10001x31 dim=1 (256) 7.11 -> 6.24 (5.92), int64 16625x17
// 4.78 -> 3.77 (3.88), 8001x31 4.28 -> 3.74 (4.27) (H200, dim=0 unless said,
// us; benchmarks/NOTES.md, session 89, calls 1-2). In fewer clusters, against
// today's run (call 5, clusters -> run), they won at 3-6 rows a thread, fp64
// 5001x15 2.99 -> 3.19, 3001x15 2.82 -> 3.18, int64 6001x16 an element in
// 3.08 -> 3.37, and lost at 8-10, fp64 10001x9 3.51 -> 3.18, 8001x13 3.64 ->
// 3.21, int64 10001x9 3.43 -> 3.11. Bounded at 6 rows a thread (session 90,
// call 1, clusters -> run), the clusters still won at 7, fp64 6145x15 3.10 ->
// 3.24, 7001x15 3.17 -> 3.27, and lost from 8, 8001x13 3.64 -> 3.23, 10001x9
// 3.52 -> 3.13, int64 10001x9 3.45 -> 3.10, fp64 12001x5 (12 rows) 3.39 ->
// 3.30: so the bound is 7.
template <typename InT>
bool clusters_take_interleaved_columns(const Bands& bands, int64_t rows, bool run_in_one_long_round,
                                       int sm_count) {
  const int64_t blocks = bands.count * kColumnClusterBlocks;
  if constexpr (sums_positions_in_int32(sizeof(InT), std::is_integral_v<InT>)) {
    const int64_t rounds = cluster_rounds<InT>(bands, rows);
    return rounds <= 2 || (rounds == 3 && (sizeof(InT) == 1 || 4 * blocks >= sm_count));
  } else if constexpr (sizeof(InT) == 8) {
    const int64_t rows_a_thread = ceil_div(rows, kColumnClusterBlocks * int64_t(bands.row_lanes));
    return !run_in_one_long_round && 2 * blocks < sm_count &&
           rows_a_thread <= kMaxEightByteClusterRowsPerThread;
  } else {
    return cluster_rounds<InT>(bands, rows) <= 2 || 2 * blocks >= sm_count;
  }
}

// Whether 1- and 2-byte integer columns on the vector boundary, which the
// interleaved run reads, are read instead as a column a thread in the
// clusters of `bands`: where those give a thread at most 2 rounds of its
// loads, or 3 in a quarter of the SMs or more. On an H200, dim=0, vector
// bands -> run | clusters, us (the run's last block adding its 9-31 columns
// in lane groups, reduce.cuh's sum_partials; benchmarks/NOTES.md, session
// 79, call 3): up to 2 rounds, int8 5001x16 3.84 -> 4.42 | 2.91, int16
// 10001x16 4.67 -> 4.33 | 3.65, 15001x32 5.58 -> 4.98 | 4.06; 3 rounds (10
// of kUnroll rows) in 64-256 blocks, int16 20001x32 5.05 -> 5.27 | 4.71, int8
// 20001x32 5.18 -> 4.94 | 4.46, int16 8x20001x8 dim=1 5.05 -> 5.03 | 4.80,
// int16 16x20001x8 dim=1 5.78 -> 6.08 | 5.86 (but int8 16x20001x8 5.82 ->
// 5.37 | 5.76); in 16-32 blocks, int16 20001x8 4.75 -> 4.03 | 4.24, 20001x16
// 4.47 -> 4.11 | 4.35, int8 20001x16 4.81 -> 4.31 | 4.36, bool 20001x16 4.80
// -> 4.31 | 4.36; 4 rounds, int16 30001x8 5.65 -> 4.05 | 4.87, int8 30001x32
// (64 blocks) 5.45 -> 5.00 | 5.17, 30001x16 5.15 -> 4.47 | 5.09. The vector
// bands won nowhere by more than 0.08.
template <typename InT>
bool aligned_narrow_integers_take_clusters(const Bands& bands, int64_t rows, int sm_count) {
  const int64_t rounds = cluster_rounds<InT>(bands, rows);
  return rounds <= 2 || (rounds <= 3 && 4 * bands.count * kColumnClusterBlocks >= sm_count);
}

}  // namespace

template <typename InT, typename OutT>
void launch_column_sum(const ColumnProblem<InT, OutT>& problem, const Finish<acc_t<InT>>& finish,
                       const LaunchContext& context) {
  constexpr int kColumns = kVectorColumns<InT>;
  const bool rows_aligned = rows_are_vector_aligned(problem);
  // 1- and 2-byte integers' rows on the vector boundary too (below).
  const bool interleaves =
      ((!rows_aligned || sums_positions_in_int32(sizeof(InT), std::is_integral_v<InT>)) &&
       interleaves_columns(sizeof(InT), std::is_integral_v<InT>, problem.inner_outputs,
                           problem.reduced, problem.outer.numel())) ||
      interleaves_wide_columns(problem, rows_aligned, finish.partials_capacity, context);
  // Interleaved columns of 4-32 a row may take a column a thread's clusters
  // (below, clusters_take_interleaved_columns off the vector boundary,
  // aligned_narrow_integers_take_clusters on it); 2 and 3, and 33-128 (whose
  // rule, interleaves_wide_columns, was timed against the bands, and against
  // the clusters too past 64 columns and for integers), always take the run.
  // 1- and 2-byte integers of 2-3 columns: the row class took them at
  // 0.4-0.5x the run's speed (benchmarks/NOTES.md, session 77); of more, on
  // an H200, dim=0, bands -> run, us: int8
  // 70001x31 11.90 -> 6.78, 40001x31 10.79 -> 5.75, 200001x31 17.95 ->
  // 9.79, int16 35001x31 7.43 -> 5.57, uint8 100001x9 4.84 -> 4.67.
  const bool may_take_clusters = problem.inner_outputs >= 4 && problem.inner_outputs <= kWarpSize;
  if (interleaves && !may_take_clusters) {
    return launch_interleaved_column_sum(problem, finish, context);
  }
  if (rows_aligned) {
    // 1- and 2-byte integers' interleaved rows on the vector boundary: a
    // column a thread's clusters where aligned_narrow_integers_take_clusters
    // says so, else the run; never the vector bands. Where a column a thread
    // has no clusters, the run beat those bands: int8 70001x24 7.03 -> 5.95
    // (Inductor 4.84), 300001x16 8.83 -> 7.98, int16 50001x16 5.16 -> 4.72
    // (H200, dim=0, us; benchmarks/NOTES.md, session 78, call 2); where it
    // has, the run or the clusters did (session 79, call 3).
    if (interleaves) {
      const std::optional<Bands> small_bands = column_a_thread(problem, context).small_bands;
      if (small_bands.has_value() && aligned_narrow_integers_take_clusters<InT>(
                                         *small_bands, problem.reduced.numel(), context.sm_count)) {
        return launch_bands<InT, OutT, 1>(problem, finish, context);
      }
      return launch_interleaved_column_sum(problem, finish, context);
    }
    return launch_bands<InT, OutT, kColumns>(problem, finish, context);
  }
  // Off-boundary vectors over one reduced dim (a thread's rows share a phase
  // where they are a multiple of its row lanes times one stride apart;
  // fetch_rows bounds a batch by its first and last rows; a general offset's
  // divisions beside the second vector spilled, sm_90), else a column a
  // thread. Vectors where they fill at least two thirds of the share of a
  // wave of their blocks that a column a thread fills of its own: narrow
  // bands split into fewer blocks (their finish reads a band's partials).
  // Before launch_band_kernels narrowed a long sum over a few bands, 204,800
  // rows of 63 fp32 columns took 32.1 us in one band of vectors (128 blocks,
  // a third of their wave), 24.3 in two bands of a column a thread (512
  // blocks, all of theirs; H200, benchmarks/NOTES.md, session 58). The
  // vectors' blocks are counted in the bands that narrowing gives
  // (few_bands_narrowed): those rows now take 2 bands of 198 splits of
  // vectors (a wave), 17.7 us against 23.9-24.0 as a column a thread. At half
  // the share, bf16 2000x1001 dim=0 took 8 bands of 31 splits of vectors
  // (5.89-5.93 us); at two thirds, 32 bands of 16 splits of a column a thread
  // (5.00-5.05; Inductor 4.54-4.57), and no other of session 63's twenty
  // off-boundary sums or its narrow ones moved (H200, benchmarks/NOTES.md,
  // session 65). The column a thread is counted in its widest bands here:
  // the sums it reads in clusters take it first.
  if (problem.reduced.ndim == 1) {
    const int64_t rows = problem.reduced.numel();
    const ColumnAThread scalars = column_a_thread(problem, context);
    // A flat column a thread that small_sum_bands reads in clusters, before
    // off-boundary vectors, which it never gives clusters (they finish through
    // L2, or in the clusters of the rules after it). On an H200
    // (routing_variants.py, benchmarks/NOTES.md, session 66), dim=0: fp32
    // 2048x1001 6.62 -> 5.04 us (Inductor 5.16), 1024x1001 4.55 -> 3.87 (4.06),
    // 3001x1001 7.62 -> 6.16 (6.20), bf16 2048x1001 5.74 -> 4.43 (4.59), fp32
    // 20001x66 6.79 -> 6.25 (4.74), 12001x67 6.01 -> 5.04 (3.99: both take
    // the interleaved run since session 91); but fp32
    // 16384x63 5.41 -> 5.67 (4.27). The 31 other sums of those runs moved 0.17
    // us at most. The int32, 8-byte and 1-byte sums it moves (session 67):
    // small_sum_bands.
    const std::optional<Bands>& small_bands = scalars.small_bands;
    const auto clusters_take_interleaved = [&] {
      bool run_in_one_long_round = false;
      if constexpr (sizeof(InT) == 8) {
        run_in_one_long_round =
            run_reads_in_one_long_round(problem, finish.partials_capacity, context);
      }
      return clusters_take_interleaved_columns<InT>(*small_bands, rows, run_in_one_long_round,
                                                    context.sm_count);
    };
    if (small_bands.has_value() && (!interleaves || clusters_take_interleaved())) {
      return launch_bands<InT, OutT, 1>(problem, finish, context);
    }
    if (interleaves) return launch_interleaved_column_sum(problem, finish, context);
    // 1-byte columns take a column a thread. Off-boundary vectors of 8 of
    // them a thread, their kernels at 80 registers with 8 int64 sums, spilled
    // (76 bytes in the bool cluster kernel, sm_90), and their warps waited on
    // memory 5x as long as the aligned twin's (ncu, long scoreboard: 416
    // samples against 82, the same grid). On an H200, dim=0, vectors -> a
    // column a thread, us: bool 1024x4095 11.87 -> 6.35 (aligned 1024x4096
    // 6.02, Inductor 5.86), uint8 4096x4095 24.77 -> 13.98 (12.95), int8
    // 16384x1001 27.02 -> 14.76 (14.86), 8192x4095 44.27 -> 25.25 (35.43),
    // bool 2048x50257 111.76 -> 67.87 (120.22); 4 columns a thread, 9.03,
    // 18.77, 21.45, 35.39, 85.55 (one-byte-off-boundary-columns-switch.patch,
    // benchmarks/NOTES.md, session 78, call 3).
    if constexpr (sizeof(InT) > 1) {
      const Bands widest_vectors = widest_bands<kColumns>(problem);
      const int64_t vector_wave =
          band_wave<InT, OutT, kColumns, /*kOffBoundary=*/true>(problem, context);
      const SplitBands widest{widest_vectors, band_splits(widest_vectors, rows, vector_wave)};
      const SplitBands vectors =
          few_bands_narrowed<kColumns>(problem, widest, rows, vector_wave).value_or(widest);
      const int64_t vector_blocks = std::min(vector_wave, vectors.bands.count * vectors.splits);
      const int64_t scalar_blocks =
          std::min(scalars.wave, scalars.widest.bands.count * scalars.widest.splits);
      if (3 * vector_blocks * scalars.wave >= 2 * scalar_blocks * vector_wave) {
        return launch_bands<InT, OutT, kColumns, /*kOffBoundary=*/true>(problem, finish, context);
      }
    }
  }
  launch_bands<InT, OutT, 1>(problem, finish, context);
}

#define INSTANTIATE(InT, OutT)                                                \
  template void launch_column_sum<InT, OutT>(const ColumnProblem<InT, OutT>&, \
                                             const Finish<acc_t<InT>>&, const LaunchContext&);
TORCH_REDUCE_V7_FOR_EACH_TYPE_PAIR(INSTANTIATE)
#undef INSTANTIATE

}  // namespace torch_reduce::cuda::v7
