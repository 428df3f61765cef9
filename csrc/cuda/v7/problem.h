// What a sum_v7 launch is asked to do, in terms both the host and the
// kernels understand: element offsets of strided dims, and the three
// reduction classes. Host code includes this without seeing device code.
#pragma once

#include <c10/macros/Macros.h>
#include <cuda_runtime_api.h>

#include <cstdint>

#include "../../accumulate_type.h"

// After the macros above: it uses C10_HOST_DEVICE without including them.
#include <ATen/cuda/detail/IntegerDivider.cuh>

namespace torch_reduce::cuda::v7 {

// Coalesced dims of one side of a reduction (kept or reduced). Layouts with
// more dims than this, after coalescing, are copied to contiguous first.
constexpr int kMaxDims = 12;

// Maps a linear index over `sizes` (outermost first) to an element offset,
// for up to kDims dims: kMaxDims in general, one in the flat band kernels'
// parameters (FlatColumnProblem).
template <int kDims>
struct StridedIndexOf {
  int ndim = 0;
  int64_t sizes[kDims] = {};
  int64_t strides[kDims] = {};

  C10_HOST_DEVICE int64_t numel() const {
    if (ndim == 1) return sizes[0];  // the common case, before the loop's setup
    int64_t n = 1;
    // Static indices, as in offset(): indexed by ndim, the flat band kernels'
    // 72 bytes of parameters went to local memory (benchmarks/NOTES.md,
    // session 76, call 1).
#pragma unroll
    for (int d = 0; d < kDims; ++d) {
      if (d < ndim) n *= sizes[d];
    }
    return n;
  }

  // `index` < numel(). Static indices only: a dynamically indexed kernel
  // parameter would be copied to local memory. The outermost dim needs no
  // division, so one coalesced dim costs a multiply, and none (the one span
  // of a 2-d column sum) nothing; both return first, without stepping
  // through the other dims' code: a reload of ndim, a test and a taken
  // branch each, which put ~35 instructions and instruction-cache misses
  // before a column kernel's first load (benchmarks/NOTES.md, session 14),
  // and 22% of the interleaved kernel's warp samples where ndim was 0
  // (session 72).
  C10_HOST_DEVICE int64_t offset(int64_t index) const {
    if (ndim <= 1) return ndim == 1 ? index * strides[0] : 0;
    int64_t offset = 0;
#pragma unroll
    for (int d = kDims - 1; d > 0; --d) {
      if (d < ndim) {
        offset += (index % sizes[d]) * strides[d];
        index /= sizes[d];
      }
    }
    return offset + index * strides[0];
  }
};

using StridedIndex = StridedIndexOf<kMaxDims>;

// n / divisor for the indices 0 <= n < count that a kernel divides: ATen's
// multiply-high, add and shift where count fits 31 bits, else the division. A
// 64-bit division is nvcc's test of both operands' high words and a chain of
// ~20 dependent instructions, which the column kernels ran before their first
// load (benchmarks/NOTES.md, session 14).
// Where every index is below the divisor (one span of bands, one output's
// splits) the quotient is 0 without either: a column band kernel's prologue
// ran 30 instructions of the division before its first load (sm_90,
// benchmarks/NOTES.md, session 76).
class IndexDivider {
 public:
  IndexDivider(int64_t divisor, int64_t count)
      : divisor_(divisor),
        fast_(count <= INT32_MAX && divisor <= INT32_MAX),
        below_divisor_(count <= divisor) {
    if (fast_) divider_ = at::cuda::detail::IntDivider<unsigned int>(unsigned(divisor));
  }

  C10_HOST_DEVICE int64_t divisor() const { return divisor_; }

  C10_HOST_DEVICE int64_t div(int64_t n) const {
    if (below_divisor_) return 0;
    return fast_ ? int64_t(divider_.div(static_cast<unsigned int>(n))) : n / divisor_;
  }

 private:
  int64_t divisor_;
  bool fast_;
  bool below_divisor_;
  at::cuda::detail::IntDivider<unsigned int> divider_{};  // zeros where unused
};

// `count` items in `splits` contiguous runs, as even as integers allow: split
// s takes [first(s), first(s + 1)), the first `longer` splits one item more
// than the others. Computed on the host, where count * s / splits in a kernel
// is a division.
struct EvenSplits {
  int64_t each;
  int64_t longer;

  EvenSplits(int64_t count, int64_t splits) : each(count / splits), longer(count % splits) {}

  C10_HOST_DEVICE int64_t first(int64_t split) const {
    return split * each + (split < longer ? split : longer);
  }

  struct Range {
    int64_t first;
    int64_t end;
  };

  // [first(split), first(split + 1)) with one multiply, not two: the second
  // took 16 of a column band kernel's 156 instructions before its first load
  // (sm_90, benchmarks/NOTES.md, session 76).
  C10_HOST_DEVICE Range range(int64_t split) const {
    const int64_t start = first(split);
    return {start, start + each + (split < longer ? 1 : 0)};
  }
};

// Device memory that lives until the launch that asks for it is queued, for
// a launch that needs more partials than its Finish holds (many outputs,
// each split over rows). Implemented by the host (workspace.cpp).
class ScratchSource {
 public:
  virtual void* allocate(int64_t bytes) = 0;

 protected:
  ~ScratchSource() = default;
};

// Mailbox words a partial takes (reduce.cuh): 32 of its bits and a full
// flag in each 64-bit word, so one for a 4-byte accumulator, two for an
// 8-byte one (the host reserves that many; a packed mailbox takes one).
template <typename AccT>
constexpr int kMailboxWords = int(sizeof(AccT) / sizeof(uint32_t));

// Where the finishing state of one launch lives. The `counter_count`
// counters from `counter` and the `mailbox_count` mailbox words (reduce.cuh)
// are zero at rest; a nullptr counter asks the launcher to finish in a second
// launch instead of in the last block of the first.
template <typename AccT>
struct Finish {
  AccT* partials;
  int64_t partials_capacity;
  unsigned int* counter;
  int64_t counter_count;
  uint64_t* mailboxes;
  int64_t mailbox_count;
  ScratchSource* scratch;

  // `count` partials: the held ones, or scratch memory when they are too few.
  AccT* partials_for(int64_t count) const {
    if (count <= partials_capacity) return partials;
    return static_cast<AccT*>(scratch->allocate(count * int64_t(sizeof(AccT))));
  }

  // Mailboxes for a one-output launch of `blocks` blocks, or nullptr when it
  // hands its partials over through `partials` instead: more blocks than
  // mailbox words hold, or no counter to take tickets from.
  uint64_t* mailboxes_for(int64_t blocks) const {
    const bool fits = blocks * kMailboxWords<AccT> <= mailbox_count && counter != nullptr;
    return fits ? mailboxes : nullptr;
  }
};

struct LaunchContext {
  int device;
  int sm_count;
  cudaStream_t stream;
};

// result[r] = the sum of the `numel` contiguous elements from
// input + r * row_stride, for r < rows: a full sum of a dense span (one row),
// or a few long rows, which this class reads faster than the row class.
template <typename InT, typename OutT>
struct ContiguousProblem {
  const InT* input;
  int64_t numel;
  OutT* result;
  int64_t rows = 1;
  int64_t row_stride = 0;
};

// result[o] = sum over rows r of sum over l < row_length of
//   input[outputs.offset(o) + rows.offset(r) + l * inner_stride].
// Covers strided full sums (one output) and sums over the innermost dims.
template <typename InT, typename OutT>
struct RowProblem {
  const InT* input;
  StridedIndex outputs;
  StridedIndex rows;
  int64_t row_length;
  int64_t inner_stride;
  OutT* result;
};

// result[o * inner_outputs + k] = sum over r of
//   input[outer.offset(o) + k + reduced.offset(r)]:
// sums over outer dims, with the innermost kept dim contiguous (columns).
template <typename InT, typename OutT, int kDims = kMaxDims>
struct ColumnProblem {
  const InT* input;
  StridedIndexOf<kDims> outer;
  int64_t inner_outputs;
  StridedIndexOf<kDims> reduced;
  OutT* result;
};

// A column problem of one reduced dim and at most one outer dim, as the flat
// band kernels take it: 72 bytes of parameters where the general one's 12
// dims a side take 424, so that the few fields those kernels read lie in
// two or three lines of the constant cache, not five (ncu, fp32 20001x32
// dim=0: 51 of 260 warp samples waited on those misses before the first
// load, against 7 of Inductor's 181; benchmarks/NOTES.md, session 75). On an
// H200, graph, dim=0: fp32 20001x32 4.58 -> 4.43 us, fp16 50001x16 4.59 ->
// 4.45, int32 100001x16 6.40 -> 6.23, fp64 50001x16 6.75 -> 6.58 (session
// 76, call 2).
template <typename InT, typename OutT>
using FlatColumnProblem = ColumnProblem<InT, OutT, 1>;

// `problem` as a FlatColumnProblem; it must have one reduced dim and at most
// one outer dim (has_flat_index in column_sum.cu).
template <typename InT, typename OutT>
FlatColumnProblem<InT, OutT> flat_column_problem(const ColumnProblem<InT, OutT>& problem) {
  FlatColumnProblem<InT, OutT> flat{problem.input, {}, problem.inner_outputs, {}, problem.result};
  flat.outer.ndim = problem.outer.ndim;
  flat.outer.sizes[0] = problem.outer.sizes[0];
  flat.outer.strides[0] = problem.outer.strides[0];
  flat.reduced.ndim = problem.reduced.ndim;
  flat.reduced.sizes[0] = problem.reduced.sizes[0];
  flat.reduced.strides[0] = problem.reduced.strides[0];
  return flat;
}

// The most partials any launch below asks for, given the device's shape:
// every class sizes its split from one wave of resident blocks.
int64_t max_partials(int sm_count);

template <typename InT, typename OutT>
void launch_contiguous_sum(const ContiguousProblem<InT, OutT>& problem,
                           const Finish<acc_t<InT>>& finish, const LaunchContext& context);
template <typename InT, typename OutT>
void launch_row_sum(const RowProblem<InT, OutT>& problem, const Finish<acc_t<InT>>& finish,
                    const LaunchContext& context);
template <typename InT, typename OutT>
void launch_column_sum(const ColumnProblem<InT, OutT>& problem, const Finish<acc_t<InT>>& finish,
                       const LaunchContext& context);

// The threads of an interleaved_column_kernel block (interleaved_column_sum.cu).
constexpr int64_t kInterleavedBlock = 256;

// Whether interleaved_column_sum.cu's threads sum each element position of
// their vectors in int32, not in int64 as the sums they add up to: 1- and
// 2-byte integers, whose 16 or 8 positions a vector would take 32 or 16 of
// the kernel's 64 registers in int64 (int8 took the band kernels instead, at
// half Inductor's speed: 70001x31 dim=0 11.5 us against 6.1 on an H200,
// benchmarks/NOTES.md, session 77).
constexpr bool sums_positions_in_int32(int64_t element_size, bool integral) {
  return integral && element_size <= 2;
}

// Whether a column sum's rows of `columns` columns lie back to back (one
// reduced dim, of stride `columns`), at most `max_columns`, each of the `spans`
// outer indices' rows at least 256 vectors (a vector a thread of one block:
// shorter spans would leave its blocks idle, where the band kernels spread many
// outer indices over bands; not timed against them), at most 65,535 spans
// (gridDim.y): the shape interleaved_column_sum.cu reads. Where it sums
// positions in int32, a thread adds one element to a position every `stride`
// vectors, a block's 256 or more less the remainder by a period (under 128):
// 172 at the least (a period of 86). A span of at most 128 x (INT32_MAX >> 8
// x element_size) vectors (2^34 bytes of 1-byte elements, 2^26 of int16's)
// then gives a thread at most 0.75 x that shift's quotient elements a
// position, each of magnitude below 2^(8 x element_size): sums within 0.75 x
// INT32_MAX (128, not 172, is the margin).
inline bool interleaved_shape(int64_t element_size, bool integral, int64_t columns,
                              const StridedIndex& reduced, int64_t spans, int64_t max_columns) {
  if (columns > max_columns || spans > 65535 || reduced.ndim != 1 ||
      reduced.strides[0] != columns) {
    return false;
  }
  const int64_t span_vectors = reduced.sizes[0] * columns / (16 / element_size);
  const int64_t most_vectors = sums_positions_in_int32(element_size, integral)
                                   ? kInterleavedBlock / 2 * (INT32_MAX >> (8 * element_size))
                                   : INT64_MAX;
  return span_vectors >= kInterleavedBlock && span_vectors <= most_vectors;
}

// Whether a column sum is one of interleaved columns, which
// interleaved_column_sum.cu reads as one run of 16-byte vectors: an
// interleaved_shape of at most 32 columns. layout.cpp sends such sums of 2 and
// 3 columns to the column class for it. Past 32 columns, only long sums go
// there (interleaves_wide_columns).
inline bool interleaves_columns(int64_t element_size, bool integral, int64_t columns,
                                const StridedIndex& reduced, int64_t spans) {
  return interleaved_shape(element_size, integral, columns, reduced, spans, 32);
}

// The most columns interleaves_wide_columns takes (64 of 8-byte types).
constexpr int64_t kMaxWideInterleavedColumns = 128;

// Whether a column sum of 33-128 interleaved columns (33-64 of 8-byte types),
// its rows on the vector boundary or not, is long enough that
// interleaved_column_sum.cu's run of vectors beats the band kernels, with
// `partials_capacity` held partials for its splits: interleaved_column_sum.cu
// says where.
template <typename InT, typename OutT>
bool interleaves_wide_columns(const ColumnProblem<InT, OutT>& problem, bool rows_aligned,
                              int64_t partials_capacity, const LaunchContext& context);

// Whether interleaved_column_sum.cu's run would read each span of an
// interleaved column sum (interleaves_columns) in one round of its longest
// loads, with `partials_capacity` held partials for its splits.
template <typename InT, typename OutT>
bool run_reads_in_one_long_round(const ColumnProblem<InT, OutT>& problem, int64_t partials_capacity,
                                 const LaunchContext& context);

// A column sum for which interleaves_columns or interleaves_wide_columns
// holds.
template <typename InT, typename OutT>
void launch_interleaved_column_sum(const ColumnProblem<InT, OutT>& problem,
                                   Finish<acc_t<InT>> finish, const LaunchContext& context);

}  // namespace torch_reduce::cuda::v7

// Each kernel file instantiates its launcher for every (input, output) pair
// the op produces: torch.sum's result type, and float32 for 16-bit floats
// (dtype=torch.float32).
#define TORCH_REDUCE_V7_FOR_EACH_TYPE_PAIR(MACRO) \
  MACRO(float, float)                             \
  MACRO(double, double)                           \
  MACRO(c10::Half, c10::Half)                     \
  MACRO(c10::BFloat16, c10::BFloat16)             \
  MACRO(c10::Half, float)                         \
  MACRO(c10::BFloat16, float)                     \
  MACRO(uint8_t, int64_t)                         \
  MACRO(int8_t, int64_t)                          \
  MACRO(int16_t, int64_t)                         \
  MACRO(int32_t, int64_t)                         \
  MACRO(int64_t, int64_t)                         \
  MACRO(bool, int64_t)
