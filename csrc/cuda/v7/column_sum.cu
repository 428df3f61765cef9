// sum_v7 over outer dims: the innermost kept dim is contiguous, so each
// thread takes a vector of neighbouring outputs (columns) and every row of a
// warp's loads is one contiguous span. A block is a band of up to 32 such
// threads side by side, times as many row lanes as fill 256 threads; the row
// lanes take interleaved rows and meet in shared memory. When there are too
// few bands to fill the GPU, blocks split the rows, and the last block of
// each band to finish sums the band's partials, on the band's own counter,
// laid out as in the main pass: vectors of partials, split lanes in place of
// row lanes. On Hopper and newer, a band whose splits fit in one
// thread-block cluster finishes in the cluster instead (column_cluster_kernel).
// Covers sums over a batch, over H x W of a channels_last activation, over
// the middle dim of a 3-D tensor. Rows of a few columns that lie back to back
// off the vector boundaries go to interleaved_column_sum.cu instead.
#include <c10/cuda/CUDAException.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include <algorithm>
#include <climits>
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
constexpr int kMinColumnLanesLog2 = 3;  // the narrowest band a small sum takes: 8 lanes
// Strided offsets need more than 32 registers; 64 leaves half the threads
// resident, each with kUnroll vectors in flight: more than the memory needs.
constexpr int kRegisters = 64;
constexpr int kUnroll = 4;
// A thread's rows per split are at least this many: one round of loads. Small
// column sums are a chain of latencies (load, lane tree, ticket, finish), and
// a second round of loads is one more of them.
constexpr int64_t kMinRowsPerThread = kUnroll;
// A thread's rows per split, at most, for which a column sum takes fewer
// splits to finish in a cluster: 4 rounds of loads.
constexpr int64_t kMaxClusterRowsPerThread = 4 * kUnroll;
// The last block of a band reads the band's splits x band width partials,
// each thread this many at most.
constexpr int64_t kMaxPartialsPerThread = 32;

// Columns per thread when the layout allows vector loads: 16 bytes, or 8
// columns of 1-byte types (their 64-bit accumulators would not fit more).
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

// result_band[c] = sum over s of band_partials[s * band_width + c], for the
// band's first `columns` columns, by the block laid out as the main pass:
// each thread a vector of kColumns columns and a split lane that sums every
// split_lanes-th split with several loads in flight, then the main pass's
// fixed tree over the lanes. A finish that read one partial per L2 round
// trip spent 16-32 of them per band (benchmarks/NOTES.md). The in-kernel
// finish and the second launch run this same code and give the same bits.
template <int kColumns, typename AccT, typename OutT>
__device__ __forceinline__ void sum_band_partials(const AccT* band_partials, int64_t splits,
                                                  BandShape shape, int64_t columns,
                                                  OutT* result_band, AccT (*scratch)[kBlock]) {
  constexpr int kInFlight = kPartialLoadsInFlight<kColumns, AccT>;
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
        if (s + u * split_lanes < splits) {
          batch[u] = load_partials<kColumns>(first + (s + u * split_lanes) * band_width);
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
#pragma unroll
    for (int c = 0; c < kColumns; ++c) result_band[column + c] = static_cast<OutT>(sums[c]);
  }
}

// sums[c] += the row_lanes-th rows of column vector `base` from first_row up to
// row_end, kUnroll loads in flight; row_offset(r) is row r's element offset.
template <typename InT, int kColumns, typename AccT, typename RowOffset>
__device__ __forceinline__ void sum_rows(const InT* base, int64_t first_row, int64_t row_end,
                                         int row_lanes, const RowOffset& row_offset,
                                         AccT (&sums)[kColumns]) {
  int64_t r = first_row;
  for (; r + (kUnroll - 1) * row_lanes < row_end; r += kUnroll * row_lanes) {
    AlignedVector<InT, kColumns> batch[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      batch[u] = load_columns<InT, kColumns>(base + row_offset(r + u * row_lanes));
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
#pragma unroll
      for (int c = 0; c < kColumns; ++c) sums[c] += static_cast<AccT>(batch[u].values[c]);
    }
  }
  // The last rows, fewer than kUnroll: one round of loads, not a latency
  // each (fp32 64x1024x64 dim=1 on an H100, 9.2 to 9.0 us). A missing row
  // loads the last row again and adds nothing.
  if (r < row_end) {
    AlignedVector<InT, kColumns> batch[kUnroll - 1];
#pragma unroll
    for (int u = 0; u < kUnroll - 1; ++u) {
      const int64_t row = std::min(r + u * row_lanes, row_end - 1);
      batch[u] = load_columns<InT, kColumns>(base + row_offset(row));
    }
#pragma unroll
    for (int u = 0; u < kUnroll - 1; ++u) {
      if (r + u * row_lanes < row_end) {
#pragma unroll
        for (int c = 0; c < kColumns; ++c) sums[c] += static_cast<AccT>(batch[u].values[c]);
      }
    }
  }
}

// sum_rows over the rows of `reduced` from first_row: with one coalesced
// reduced dim (almost every model's layout), a multiply per row instead of
// the general offset's chain of divisions.
template <typename InT, int kColumns, typename AccT>
__device__ __forceinline__ void sum_reduced_rows(const InT* base, int64_t first_row,
                                                 int64_t row_end, int row_lanes,
                                                 const StridedIndex& reduced,
                                                 AccT (&sums)[kColumns]) {
  if (reduced.ndim == 1) {
    const int64_t row_stride = reduced.strides[0];
    sum_rows(
        base, first_row, row_end, row_lanes, [row_stride](int64_t r) { return r * row_stride; },
        sums);
  } else {
    sum_rows(
        base, first_row, row_end, row_lanes, [&reduced](int64_t r) { return reduced.offset(r); },
        sums);
  }
}

template <typename InT, typename OutT, int kColumns>
__global__ void __launch_bounds__(kBlock, min_blocks_per_sm<kBlock, kRegisters>())
    column_sum_kernel(ColumnProblem<InT, OutT> problem, BandShape shape, EvenSplits row_splits,
                      acc_t<InT>* partials, unsigned int* counters) {
  using AccT = acc_t<InT>;
  __shared__ AccT lane_sums[kColumns][kBlock];
  const int column_lanes = 1 << shape.column_lanes_log2;
  const int row_lanes = kBlock >> shape.column_lanes_log2;
  const int column_lane = threadIdx.x & (column_lanes - 1);
  const int row_lane = threadIdx.x >> shape.column_lanes_log2;
  const int band_width = column_lanes * kColumns;
  const int64_t splits = gridDim.y;
  const int64_t first_row = row_splits.first(blockIdx.y);
  const int64_t row_end = row_splits.first(blockIdx.y + 1);
  const int64_t bands = problem.outer.numel() * shape.bands_per_outer.divisor();
  for (int64_t band = blockIdx.x; band < bands; band += gridDim.x) {
    const auto [outer, band_column] = shape.start_of(band, band_width);
    const int64_t column = band_column + column_lane * kColumns;
    const bool has_column = column < problem.inner_outputs;
    AccT sums[kColumns];
#pragma unroll
    for (int c = 0; c < kColumns; ++c) sums[c] = AccT(0);
    if (has_column) {
      sum_reduced_rows(problem.input + problem.outer.offset(outer) + column, first_row + row_lane,
                       row_end, row_lanes, problem.reduced, sums);
    }
    // Row lane 0 ends with the block's sums.
    sum_across_lanes(sums, lane_sums, column_lanes);
    if (row_lane == 0 && has_column) {
      if (splits == 1) {
        OutT* out = problem.result + outer * problem.inner_outputs + column;
#pragma unroll
        for (int c = 0; c < kColumns; ++c) out[c] = static_cast<OutT>(sums[c]);
      } else {
        AccT* slot = partials + (band * splits + blockIdx.y) * band_width + column_lane * kColumns;
#pragma unroll
        for (int c = 0; c < kColumns; ++c) slot[c] = sums[c];
      }
    }
    // The threads that wrote partials need no fence (see arrive_last).
    if (splits > 1 && counters != nullptr && arrive_last(counters + band, splits)) {
      sum_band_partials<kColumns>(
          partials + band * splits * band_width, splits, shape, problem.inner_outputs - band_column,
          problem.result + outer * problem.inner_outputs + band_column, lane_sums);
      if (threadIdx.x == 0) counters[band] = 0;  // ready for the next launch that owns it
    }
    __syncthreads();  // lane_sums is reused by the next band
  }
}

// Splits a band in a cluster: the portable 8, although an H100 runs 16. With
// 8, int32 1024x1024 dim=0 takes 32 bands of 8 splits instead of 16 of 16
// (the same one round of loads a thread): 5.32-5.37 us against 5.67-5.73, a
// shorter gather and clusters that the GPCs place more easily
// (benchmarks/NOTES.md, session 15).
constexpr int kColumnClusterBlocks = kPortableClusterBlocks;

// A band's splits as one thread-block cluster (Hopper and newer; at most
// kColumnClusterBlocks splits): block 0 gathers the other splits' column sums
// in its shared memory (cluster_handoff.cuh) and adds them in split order,
// in place of partials in L2 and the acq_rel ticket, whose release is a
// MEMBAR.ALL.GPU in the SASS. A block per band and split; a band's cluster
// spans gridDim.y, so a block's rank is blockIdx.y. The main pass is
// column_sum_kernel's for one band.
template <typename InT, typename OutT, int kColumns>
__global__ void __launch_bounds__(kBlock, min_blocks_per_sm<kBlock, kRegisters>())
    column_cluster_kernel(ColumnProblem<InT, OutT> problem, BandShape shape,
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
  AccT sums[kColumns];
#pragma unroll
  for (int c = 0; c < kColumns; ++c) sums[c] = AccT(0);
  if (has_column) {
    sum_reduced_rows(problem.input + problem.outer.offset(outer) + column,
                     row_splits.first(blockIdx.y) + row_lane, row_splits.first(blockIdx.y + 1),
                     row_lanes, problem.reduced, sums);
  }
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
    OutT* out = problem.result + outer * problem.inner_outputs + column;
#pragma unroll
    for (int c = 0; c < kColumns; ++c) out[c] = static_cast<OutT>(sums[c]);
  }
#elif defined(__CUDA_ARCH__)
  __trap();  // launched only where the device supports clusters
#endif
}

// The second launch of a split column sum whose first had no counters: one
// block per band.
template <int kColumns, typename AccT, typename OutT>
__global__ void __launch_bounds__(kBlock)
    column_partials_kernel(const AccT* partials, int64_t splits, BandShape shape,
                           int64_t inner_outputs, OutT* result) {
  __shared__ AccT scratch[kColumns][kBlock];
  const int64_t band = blockIdx.x;
  const int band_width = (1 << shape.column_lanes_log2) * kColumns;
  const auto [outer, band_column] = shape.start_of(band, band_width);
  sum_band_partials<kColumns>(partials + band * splits * band_width, splits, shape,
                              inner_outputs - band_column,
                              result + outer * inner_outputs + band_column, scratch);
}

// The narrowest band into which a long column sum is narrowed to finish in
// clusters: rows read in spans of 256 bytes or more, 8 column lanes at least.
template <typename InT, int kColumns>
constexpr int kMinClusterBandLanesLog2 = [] {
  int lanes_log2 = kMinColumnLanesLog2;
  while ((kColumns * int(sizeof(InT)) << lanes_log2) < 256) ++lanes_log2;
  return lanes_log2;
}();

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

template <typename InT, typename OutT, int kColumns>
void launch_bands(const ColumnProblem<InT, OutT>& problem, const Finish<acc_t<InT>>& finish,
                  const LaunchContext& context) {
  using AccT = acc_t<InT>;
  constexpr auto kernel = column_sum_kernel<InT, OutT, kColumns>;
  const int64_t vector_columns = ceil_div(problem.inner_outputs, kColumns);
  int column_lanes_log2 = 0;
  while ((1 << column_lanes_log2) < kMaxColumnLanes &&
         (int64_t(1) << column_lanes_log2) < vector_columns) {
    ++column_lanes_log2;
  }
  Bands bands = bands_of<kColumns>(problem, column_lanes_log2);
  const int64_t wave = one_wave<kernel>(kBlock, context.device, context.sm_count);
  const int64_t rows = problem.reduced.numel();
  int64_t splits =
      split_count(bands.count, std::max<int64_t>(1, rows / (bands.row_lanes * kMinRowsPerThread)),
                  wave, kMaxPartialsPerThread * kBlock / bands.width);
  constexpr auto cluster = column_cluster_kernel<InT, OutT, kColumns>;
  const ClusterCapacity clusters =
      cluster_capacity<cluster, kColumnClusterBlocks>(context.device, kBlock);
  // A small sum (a few rounds of loads a thread) of more splits than a
  // cluster holds: as many splits as it does, so that the band finishes in
  // the cluster and not through L2, whose chain of round trips costs more
  // than the extra rounds (int32 1024x1024 dim=0 on an H100: 32 splits of a
  // round, 7.34 us; 16 of two, 6.30). Long sums keep their splits: there the
  // finish is a small part, and fewer blocks read slower (16x2048x4096 bf16
  // dim=(0,1), 32 splits to 16: 92.95 to 93.69 us).
  if (splits > clusters.blocks &&
      ceil_div(rows, clusters.blocks * int64_t(bands.row_lanes)) <= kMaxClusterRowsPerThread &&
      clusters.holds(clusters.blocks, bands.count)) {
    splits = clusters.blocks;
    // Then narrower bands, down to 8 column lanes (row spans of 128 bytes
    // or more), while a thread has more than one round of rows and the
    // clusters still fit: twice the blocks, half the rounds (the same int32
    // sum in clusters of 16: 8 bands of two rounds a thread, 6.3 us; 16
    // bands of one, 5.9).
    while (column_lanes_log2 > kMinColumnLanesLog2 &&
           ceil_div(rows, splits * int64_t(bands.row_lanes)) > kUnroll) {
      const Bands narrower = bands_of<kColumns>(problem, column_lanes_log2 - 1);
      if (!clusters.holds(splits, narrower.count)) break;
      bands = narrower;
      --column_lanes_log2;
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
    int narrow_log2 = column_lanes_log2;
    Bands narrower = bands;
    while (narrow_log2 > kMinClusterBandLanesLog2<InT, kColumns> &&
           narrower.count * clusters.blocks < blocks) {
      narrower = bands_of<kColumns>(problem, --narrow_log2);
    }
    const int64_t cluster_splits =
        std::min<int64_t>(clusters.blocks, clusters.resident / narrower.count);
    if (8 * narrower.count * cluster_splits >= 7 * blocks &&
        clusters.holds(cluster_splits, narrower.count)) {
      bands = narrower;
      column_lanes_log2 = narrow_log2;
      splits = cluster_splits;
    }
  }
  if (bands.count <= INT_MAX && clusters.holds(splits, bands.count)) {
    const dim3 grid(static_cast<unsigned>(bands.count),
                    static_cast<unsigned>(splits));  // a cluster a band
    return launch_in_clusters<cluster>(grid, dim3(1, grid.y), kBlock, context.stream, problem,
                                       bands.shape, EvenSplits(rows, splits));
  }
  AccT* partials = splits > 1 ? finish.partials_for(bands.count * splits * bands.width) : nullptr;
  unsigned int* counters =
      splits > 1 && bands.count <= finish.counter_count ? finish.counter : nullptr;
  const dim3 grid(std::min<int64_t>(bands.count, INT_MAX), splits);
  kernel<<<grid, kBlock, 0, context.stream>>>(problem, bands.shape, EvenSplits(rows, splits),
                                              partials, counters);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  if (splits > 1 && counters == nullptr) {
    column_partials_kernel<kColumns, AccT, OutT><<<bands.count, kBlock, 0, context.stream>>>(
        partials, splits, bands.shape, problem.inner_outputs, problem.result);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
  }
}

// Vector loads need every row of every band to start on a vector boundary.
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

}  // namespace

template <typename InT, typename OutT>
void launch_column_sum(const ColumnProblem<InT, OutT>& problem, const Finish<acc_t<InT>>& finish,
                       const LaunchContext& context) {
  if (rows_are_vector_aligned(problem)) {
    return launch_bands<InT, OutT, kVectorColumns<InT>>(problem, finish, context);
  }
  if (interleaves_columns(sizeof(InT), std::is_integral_v<InT>, problem.inner_outputs,
                          problem.reduced, problem.outer.numel())) {
    return launch_interleaved_column_sum(problem, finish, context);
  }
  launch_bands<InT, OutT, 1>(problem, finish, context);
}

#define INSTANTIATE(InT, OutT)                                                \
  template void launch_column_sum<InT, OutT>(const ColumnProblem<InT, OutT>&, \
                                             const Finish<acc_t<InT>>&, const LaunchContext&);
TORCH_REDUCE_V7_FOR_EACH_TYPE_PAIR(INSTANTIATE)
#undef INSTANTIATE

}  // namespace torch_reduce::cuda::v7
