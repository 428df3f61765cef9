// Maps a tensor's sizes and strides, and the dims a sum reduces, onto one of
// sum_v7's reduction classes, without copying the input.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/util/SmallVector.h>

#include <bitset>
#include <optional>

#include "problem.h"

namespace torch_reduce::cuda::v7 {

enum class ReductionClass {
  kContiguous,  // one output over a dense span of storage, in any dim order,
                // or a few long contiguous rows, an output each
  kRows,        // outputs over rows along the innermost reduced dim
  kColumns,     // outputs along a contiguous innermost kept dim, over outer dims
};

struct ReductionPlan {
  ReductionClass kind;
  // kContiguous: `rows` sums of `numel` elements each, the first from the
  // data pointer, the others `row_stride` apart.
  int64_t numel;
  int64_t rows;
  int64_t row_stride;
  // The kept dims as the kernels index them (kRows' outputs, kColumns'
  // outer dims plus `inner_outputs`), and the reduced ones.
  StridedIndex kept;
  int64_t inner_outputs;
  StridedIndex reduced;
  // kRows: the innermost reduced dim, split off `reduced`.
  int64_t row_length;
  int64_t inner_stride;
  // The logical kept dims, outermost in memory first: the kernels write the
  // outputs contiguously in this order.
  c10::SmallVector<int64_t, 8> kept_order;
};

// `reduced_mask` marks the dims to sum (all of them for a full sum);
// `sm_count` is the device's multiprocessors. Returns nullopt when a side
// needs more than kMaxDims dims after coalescing.
std::optional<ReductionPlan> plan_reduction(const at::Tensor& input,
                                            const std::bitset<64>& reduced_mask, int sm_count);

}  // namespace torch_reduce::cuda::v7
