// The CPU implementation, registered for every version: the same two-stage
// scheme as the GPU (fixed-size blocks summed in parallel into partials, then
// the partials summed in order), so the result does not depend on the thread
// count and CI can test the ops' semantics without a GPU. sum_v7 also takes
// torch.sum's `dtype=` and its sums over dims.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/library.h>

#include <type_traits>
#include <vector>

#include "../sum_common.h"
#include "../sum_dims.h"

namespace torch_reduce::cpu {
namespace {

constexpr int64_t kElementsPerBlock = 4096;
// The longest run added one element after another; longer spans are halved.
constexpr int64_t kSequentialRun = 32;

// The sum of values[0 .. count) as a pairwise tree over runs of
// kSequentialRun: a rounding error that grows with log2(count), where one
// running sum's grows with count. On 3,072 float32 values (1,024 copies of 3,
// tests/test_sum.py) a running sum was off by 2.7e-5 of the total; pairwise,
// the worst of 300 seeds is 2.8e-6, as torch.sum's (2.7e-6).
template <typename AccT, typename T>
AccT pairwise_sum(const T* values, int64_t count) {
  if (count <= kSequentialRun) {
    AccT sum = AccT(0);
    for (int64_t i = 0; i < count; ++i) sum += static_cast<AccT>(values[i]);
    return sum;
  }
  const int64_t half = count / 2;
  return pairwise_sum<AccT>(values, half) + pairwise_sum<AccT>(values + half, count - half);
}

// The sum of data[0 .. numel), in fixed-size blocks whose partials are then
// summed: the same bits whatever the thread count.
template <typename InT>
acc_t<InT> two_stage_sum(const InT* data, int64_t numel) {
  using AccT = acc_t<InT>;
  const auto block_sum = [&](int64_t block) {
    const int64_t begin = block * kElementsPerBlock;
    return pairwise_sum<AccT>(data + begin, std::min(numel - begin, kElementsPerBlock));
  };
  const int64_t num_blocks = (numel + kElementsPerBlock - 1) / kElementsPerBlock;
  if (num_blocks <= 1) return block_sum(0);  // short rows: no partials to allocate
  std::vector<AccT> partials(num_blocks);
  at::parallel_for(0, num_blocks, /*grain_size=*/1, [&](int64_t first, int64_t last) {
    for (int64_t block = first; block < last; ++block) partials[block] = block_sum(block);
  });
  return pairwise_sum<AccT>(partials.data(), num_blocks);
}

// The sum of `repeats` copies of a slice that sums to `sum`
// (without_repeated_dims), in the accumulator: integers wrap as the repeated
// additions would.
template <typename AccT>
AccT times_repeats(AccT sum, int64_t repeats) {
  if constexpr (std::is_integral_v<AccT>) {
    return static_cast<AccT>(static_cast<uint64_t>(sum) * static_cast<uint64_t>(repeats));
  } else {
    return sum * static_cast<AccT>(repeats);
  }
}

// Calls fn(TypeTag<InT>{}, TypeTag<OutT>{}) for a sum of `compute_dtype`
// values into `out_dtype`: either the requested dtype itself, or
// result_t<InT> when none was requested.
template <typename Fn>
void dispatch_sum_types(at::ScalarType compute_dtype, at::ScalarType out_dtype,
                        const std::string& op, Fn&& fn) {
  dispatch_input_dtype(compute_dtype, op, [&](auto in_tag) {
    using InT = typename decltype(in_tag)::type;
    if (out_dtype == compute_dtype) {
      fn(in_tag, TypeTag<InT>{});
    } else {
      fn(in_tag, TypeTag<result_t<InT>>{});
    }
  });
}

// self's values as `compute_dtype`, dense and in row-major order, in one copy
// at most: to() converts into a dense tensor, but returns self as it is, strides
// included, when the dtype already matches.
at::Tensor contiguous_as(const at::Tensor& self, at::ScalarType compute_dtype) {
  if (self.scalar_type() == compute_dtype) return self.contiguous();
  return self
      .to(compute_dtype, /*non_blocking=*/false, /*copy=*/false, at::MemoryFormat::Contiguous)
      .contiguous();
}

template <int kVersion>
at::Tensor sum_cpu(const at::Tensor& self) {
  static const std::string op = op_name(kVersion);
  check_sum_input(self, op, c10::DeviceType::CPU);
  at::Tensor result;
  dispatch_input_dtype(self.scalar_type(), op, [&](auto tag) {
    using InT = typename decltype(tag)::type;
    const at::Tensor input = self.contiguous();
    const auto total =
        static_cast<result_t<InT>>(two_stage_sum(input.const_data_ptr<InT>(), input.numel()));
    result = at::scalar_tensor(total, self.options().dtype(result_dtype(self.scalar_type())));
  });
  return result;
}

// torch.sum(self, dtype=dtype): the sum of self.to(dtype).
at::Tensor sum_v7_cpu(const at::Tensor& self, std::optional<at::ScalarType> dtype) {
  static const std::string op = op_name(7);
  check_sum_input(self, op, c10::DeviceType::CPU);
  const at::ScalarType out_dtype = sum_result_dtype(self.scalar_type(), dtype, op);
  const at::ScalarType compute_dtype = sum_compute_dtype(self.scalar_type(), dtype);
  at::Tensor result = at::empty({}, self.options().dtype(out_dtype));
  int64_t repeats = 1;
  const at::Tensor slices = without_repeated_dims(self, repeats);
  dispatch_sum_types(compute_dtype, out_dtype, op, [&](auto in_tag, auto out_tag) {
    using InT = typename decltype(in_tag)::type;
    using OutT = typename decltype(out_tag)::type;
    const at::Tensor input = contiguous_as(slices, compute_dtype);
    *result.mutable_data_ptr<OutT>() = static_cast<OutT>(
        times_repeats(two_stage_sum(input.const_data_ptr<InT>(), input.numel()), repeats));
  });
  return result;
}

// torch.sum(self, dim, keepdim, dtype=dtype). The kept dims are moved in front
// of the reduced ones and the input made dense, so every output sums one
// contiguous row; outputs are computed in parallel, each in a fixed order.
at::Tensor sum_v7_dims_cpu(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim,
                           std::optional<at::ScalarType> dtype) {
  static const std::string op = op_name(7);
  check_sum_input(self, op, c10::DeviceType::CPU);
  const at::ScalarType out_dtype = sum_result_dtype(self.scalar_type(), dtype, op);
  const at::ScalarType compute_dtype = sum_compute_dtype(self.scalar_type(), dtype);
  const DimMask mask = reduced_dims(self.dim(), dim, op);
  at::Tensor result =
      at::empty(reduced_sizes(self.sizes(), mask, keepdim), self.options().dtype(out_dtype));
  int64_t repeats = 1;
  const at::Tensor slices = without_repeated_dims(self, mask, repeats);

  std::vector<int64_t> kept_then_reduced;
  int64_t row_length = 1;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (!mask.test(d)) kept_then_reduced.push_back(d);
  }
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (mask.test(d)) {
      kept_then_reduced.push_back(d);
      row_length *= slices.size(d);
    }
  }
  const int64_t num_outputs = result.numel();
  if (num_outputs == 0) return result;

  dispatch_sum_types(compute_dtype, out_dtype, op, [&](auto in_tag, auto out_tag) {
    using InT = typename decltype(in_tag)::type;
    using OutT = typename decltype(out_tag)::type;
    const at::Tensor rows = contiguous_as(slices.permute(kept_then_reduced), compute_dtype);
    const InT* data = rows.const_data_ptr<InT>();
    OutT* out = result.mutable_data_ptr<OutT>();
    // Enough outputs per task that short rows do not drown in scheduling.
    const int64_t grain =
        std::max<int64_t>(1, kElementsPerBlock / std::max<int64_t>(row_length, 1));
    at::parallel_for(0, num_outputs, grain, [&](int64_t first, int64_t last) {
      for (int64_t row = first; row < last; ++row) {
        out[row] = static_cast<OutT>(
            times_repeats(two_stage_sum(data + row * row_length, row_length), repeats));
      }
    });
  });
  return result;
}

}  // namespace

TORCH_LIBRARY_IMPL(reduce_opt, CPU, m) {
  m.impl("sum_v0", &sum_cpu<0>);
  m.impl("sum_v1", &sum_cpu<1>);
  m.impl("sum_v2", &sum_cpu<2>);
  m.impl("sum_v3", &sum_cpu<3>);
  m.impl("sum_v4", &sum_cpu<4>);
  m.impl("sum_v5", &sum_cpu<5>);
  m.impl("sum_v6", &sum_cpu<6>);
  m.impl("sum_v7", &sum_v7_cpu);
  m.impl("sum_v7.dim_IntList", &sum_v7_dims_cpu);
}

}  // namespace torch_reduce::cpu
