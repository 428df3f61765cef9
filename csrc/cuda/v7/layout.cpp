#include "layout.h"

#include <algorithm>
#include <numeric>

namespace torch_reduce::cuda::v7 {
namespace {

// Rows the contiguous class takes over from the row class: a few long,
// evenly spaced contiguous rows (a sum over the last dim of a small batch).
// There each row is a contiguous sum of its own, with whole blocks and the
// mid shape's finish, where the row class splits every row over many small
// blocks that all take tickets (3 x 10^6 float32 over dim 1: 0.72x Inductor
// on an H100, benchmarks/NOTES.md). 64 rows stay well within a graph slot's
// counters (one a row), as do the long rows below (a row an SM at most);
// rows past the counters finish in a second launch.
constexpr int64_t kMaxContiguousRows = 64;
// Rows of this many bytes or more, no more of them than SMs, go to the
// contiguous class too: its one-wave split reads them faster than the row
// class's block a row, which leaves SMs idle below a row an SM and has only
// 32 KB a row in flight at one (benchmarks/NOTES.md, session 25): fp32
// 132x2^20 dim=-1 178.8 us instead of 182.5 on an H100 (Inductor 179.6),
// 124.5 instead of 132.1 on an H200 (124.1); 66x2^22 354.3 instead of 357.6
// and 244.4 instead of 260.0; bf16 100x2^21 137.8 instead of 147.1 (H100).
// Rows of 0.5-2 MB read 1-4% slower there (fp32 128x2^17, 128x2^18,
// 100x2^19 on an H100).
constexpr int64_t kMinContiguousLongRowBytes = int64_t(4) << 20;

// The dims of `input` that `select` picks, outermost in memory first: by
// decreasing stride, with broadcast (stride 0) dims outermost so that the
// innermost dim is a real one. Ties keep their logical order.
c10::SmallVector<int64_t, 8> memory_order(const at::Tensor& input, const std::bitset<64>& mask,
                                          bool select) {
  c10::SmallVector<int64_t, 8> dims;
  for (int64_t d = 0; d < input.dim(); ++d) {
    if (mask.test(d) == select) dims.push_back(d);
  }
  const auto strides = input.strides();
  std::stable_sort(dims.begin(), dims.end(), [&](int64_t a, int64_t b) {
    if ((strides[a] == 0) != (strides[b] == 0)) return strides[a] == 0;
    return strides[a] > strides[b];
  });
  return dims;
}

// `dims` (outermost first) without size-1 dims, neighbours merged where the
// outer one steps over exactly the inner one. A sum visits the same elements
// either way; fewer dims mean fewer divisions per offset.
std::optional<StridedIndex> coalesce(const at::Tensor& input,
                                     const c10::SmallVector<int64_t, 8>& dims) {
  StridedIndex index;
  for (const int64_t d : dims) {
    const int64_t size = input.size(d);
    const int64_t stride = input.stride(d);
    if (size == 1) continue;
    if (index.ndim > 0 && index.strides[index.ndim - 1] == size * stride) {
      index.sizes[index.ndim - 1] *= size;
      index.strides[index.ndim - 1] = stride;
      continue;
    }
    if (index.ndim == kMaxDims) return std::nullopt;
    index.sizes[index.ndim] = size;
    index.strides[index.ndim] = stride;
    ++index.ndim;
  }
  return index;
}

// `index` less its innermost dim, which is returned through size and stride.
StridedIndex split_innermost(StridedIndex index, int64_t& size, int64_t& stride) {
  size = 1;
  stride = 1;
  if (index.ndim > 0) {
    --index.ndim;
    size = index.sizes[index.ndim];
    stride = index.strides[index.ndim];
  }
  return index;
}

}  // namespace

std::optional<ReductionPlan> plan_reduction(const at::Tensor& input,
                                            const std::bitset<64>& reduced_mask, int sm_count) {
  ReductionPlan plan{};
  plan.kept_order = memory_order(input, reduced_mask, /*select=*/false);
  auto kept = coalesce(input, plan.kept_order);
  auto reduced = coalesce(input, memory_order(input, reduced_mask, /*select=*/true));
  if (!kept || !reduced) return std::nullopt;
  plan.numel = input.numel();
  plan.rows = 1;

  const bool dense_span = reduced->ndim == 0 || (reduced->ndim == 1 && reduced->strides[0] == 1);
  if (kept->ndim == 0 && dense_span) {
    plan.kind = ReductionClass::kContiguous;
    return plan;
  }
  int64_t row_length = 0;
  int64_t inner_stride = 0;
  StridedIndex outer_reduced = split_innermost(*reduced, row_length, inner_stride);
  int64_t inner_outputs = 0;
  int64_t kept_inner_stride = 0;
  StridedIndex outer_kept = split_innermost(*kept, inner_outputs, kept_inner_stride);
  // Columns when the kept side, not the reduced one, is contiguous: a warp
  // then reads whole spans of a row, at least 4 outputs wide; or rows of 2 or
  // 3 interleaved columns back to back, which the column class reads as one
  // run of vectors where the row class loaded each element on its own
  // (interleaved_column_sum.cu says what that cost).
  const bool interleaved =
      kept_inner_stride == 1 &&
      interleaves_columns(input.element_size(),
                          at::isIntegralType(input.scalar_type(), /*includeBool=*/true),
                          inner_outputs, *reduced, outer_kept.numel());
  if (inner_stride != 1 && kept_inner_stride == 1 && (inner_outputs >= 4 || interleaved)) {
    plan.kind = ReductionClass::kColumns;
    plan.kept = outer_kept;
    plan.inner_outputs = inner_outputs;
    plan.reduced = *reduced;
    return plan;
  }
  const bool few_long_rows =
      kept->numel() <= sm_count &&
      row_length * int64_t(input.element_size()) >= kMinContiguousLongRowBytes;
  if (inner_stride == 1 && outer_reduced.ndim == 0 && kept->ndim <= 1 &&
      (kept->numel() <= kMaxContiguousRows || few_long_rows)) {
    plan.kind = ReductionClass::kContiguous;
    plan.numel = row_length;
    plan.rows = kept->numel();
    plan.row_stride = kept->ndim == 0 ? 0 : kept->strides[0];
    return plan;
  }
  plan.kind = ReductionClass::kRows;
  plan.kept = *kept;
  plan.reduced = outer_reduced;
  plan.row_length = row_length;
  plan.inner_stride = inner_stride;
  return plan;
}

}  // namespace torch_reduce::cuda::v7
