// The host side of sum_v7 on CUDA: validate, map the input's layout and the
// reduced dims onto a reduction class, take the finishing state for the
// current stream (or the graph being captured), launch.
#include <ATen/core/Tensor.h>
#include <ATen/cuda/EmptyTensor.h>
#include <ATen/ops/zeros.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/library.h>

#include <numeric>

#include "../../sum_common.h"
#include "../../sum_dims.h"
#include "../device_cache.h"
#include "layout.h"
#include "workspace.h"

namespace torch_reduce::cuda::v7 {
namespace {

const std::string& op() {
  static const std::string name = op_name(7);
  return name;
}

template <typename InT, typename OutT>
void launch(const at::Tensor& input, const ReductionPlan& plan, OutT* result,
            const LaunchContext& context, Workspace& workspace) {
  const auto finish = workspace.finish<acc_t<InT>>();
  const InT* data = input.const_data_ptr<InT>();
  switch (plan.kind) {
    case ReductionClass::kContiguous:
      return launch_contiguous_sum<InT, OutT>(
          {data, plan.numel, result, plan.rows, plan.row_stride}, finish, context);
    case ReductionClass::kRows:
      return launch_row_sum<InT, OutT>(
          {data, plan.kept, plan.reduced, plan.row_length, plan.inner_stride, result}, finish,
          context);
    case ReductionClass::kColumns:
      return launch_column_sum<InT, OutT>(
          {data, plan.kept, plan.inner_outputs, plan.reduced, result}, finish, context);
  }
}

// The result tensor for `plan`: a buffer the kernels fill contiguously in
// the kept dims' memory order, viewed in their logical order, with 1s for
// reduced dims under keepdim.
at::Tensor result_for(const at::Tensor& input, const ReductionPlan& plan, const DimMask& reduced,
                      bool keepdim, at::ScalarType dtype) {
  c10::SmallVector<int64_t, 8> buffer_sizes;
  for (const int64_t d : plan.kept_order) buffer_sizes.push_back(input.size(d));
  at::Tensor result = at::detail::empty_cuda(buffer_sizes, dtype, input.device(), std::nullopt);
  if (plan.kept_order.empty())
    return keepdim ? result.view(reduced_sizes(input.sizes(), reduced, true)) : result;
  c10::SmallVector<int64_t, 8> logical(plan.kept_order.begin(), plan.kept_order.end());
  std::sort(logical.begin(), logical.end());
  c10::SmallVector<int64_t, 8> permutation;
  for (const int64_t d : logical) {
    permutation.push_back(std::find(plan.kept_order.begin(), plan.kept_order.end(), d) -
                          plan.kept_order.begin());
  }
  result = result.permute(permutation);
  if (keepdim) {
    for (int64_t d = 0; d < input.dim(); ++d) {
      if (reduced.test(d)) result = result.unsqueeze(d);
    }
  }
  return result;
}

// More dims than the kernels index after coalescing (kept and reduced dims
// interleaved in memory): kept dims first, then a copy, which coalesces to
// one dim per side.
at::Tensor kept_dims_first(const at::Tensor& input, DimMask& reduced) {
  c10::SmallVector<int64_t, 8> order;
  for (int64_t d = 0; d < input.dim(); ++d) {
    if (!reduced.test(d)) order.push_back(d);
  }
  const int64_t kept = int64_t(order.size());
  for (int64_t d = 0; d < input.dim(); ++d) {
    if (reduced.test(d)) order.push_back(d);
  }
  reduced.reset();
  for (int64_t d = kept; d < input.dim(); ++d) reduced.set(d);
  return input.permute(order).contiguous();
}

at::Tensor sum(const at::Tensor& self, DimMask reduced, bool keepdim,
               std::optional<at::ScalarType> dtype) {
  check_sum_input(self, op(), c10::DeviceType::CUDA);
  const at::ScalarType out_dtype = sum_result_dtype(self.scalar_type(), dtype, op());
  const bool widens_16bit_to_float =
      out_dtype == at::kFloat &&
      (self.scalar_type() == at::kHalf || self.scalar_type() == at::kBFloat16);
  // A requested dtype means summing self.to(dtype); the kernels do that in
  // place only for 16-bit floats into float32, the common case in models.
  // Kernels read storage as it is: a view with a pending negation (the
  // imaginary part of a conjugate) is resolved first.
  at::Tensor input = self.is_neg() ? self.resolve_neg() : self;
  // Before any conversion, which would write out every repeat.
  int64_t repeats = 1;
  input = without_repeated_dims(input, reduced, repeats);
  if (out_dtype != sum_result_dtype(self.scalar_type(), std::nullopt, op()) &&
      !widens_16bit_to_float) {
    input = input.to(out_dtype);
  }
  const c10::cuda::CUDAGuard device_guard(self.device());
  if (input.numel() == 0) {
    return at::zeros(reduced_sizes(self.sizes(), reduced, keepdim),
                     self.options().dtype(out_dtype));
  }
  const c10::DeviceIndex device = self.device().index();
  const int sm_count = multiprocessor_count(device);
  std::optional<ReductionPlan> plan = plan_reduction(input, reduced, sm_count);
  if (!plan) {
    input = kept_dims_first(input, reduced);
    plan = plan_reduction(input, reduced, sm_count);
    TORCH_INTERNAL_ASSERT(plan, op(), ": a contiguous tensor must coalesce");
  }
  // Integer sums run in int64 and wrap into a narrower requested dtype, as
  // torch.sum's do (a multiply by the repeats wraps as their sum would).
  // 16-bit float sums leave the kernels in float32 when asked for, or when
  // the repeats still multiply them: rounded to 16 bits once, at the end.
  const bool input_16bit = input.scalar_type() == at::kHalf || input.scalar_type() == at::kBFloat16;
  const at::ScalarType kernel_dtype =
      at::isIntegralType(out_dtype, /*includeBool=*/true)     ? at::kLong
      : input_16bit && (widens_16bit_to_float || repeats > 1) ? at::kFloat
                                                              : out_dtype;
  at::Tensor result = result_for(input, *plan, reduced, keepdim, kernel_dtype);

  const c10::cuda::CUDAStream stream = c10::cuda::getCurrentCUDAStream(device);
  Workspace workspace = workspace_for(stream, sm_count);
  const LaunchContext context{device, sm_count, stream.stream()};
  dispatch_input_dtype(input.scalar_type(), op(), [&](auto tag) {
    using InT = typename decltype(tag)::type;
    if constexpr (std::is_same_v<InT, c10::Half> || std::is_same_v<InT, c10::BFloat16>) {
      if (kernel_dtype == at::kFloat) {
        return launch<InT, float>(input, *plan, result.mutable_data_ptr<float>(), context,
                                  workspace);
      }
    }
    launch<InT, result_t<InT>>(input, *plan, result.mutable_data_ptr<result_t<InT>>(), context,
                               workspace);
  });
  if (repeats > 1) result.mul_(repeats);
  // Contiguous, as the CPU and fake kernels' results are (torch.compile plans
  // with the fake one's strides): a copy only when the kept dims lie permuted
  // in memory.
  result = result.contiguous();
  return kernel_dtype == out_dtype ? result : result.to(out_dtype);
}

at::Tensor sum_all(const at::Tensor& self, std::optional<at::ScalarType> dtype) {
  DimMask all;
  for (int64_t d = 0; d < self.dim(); ++d) all.set(d);
  return sum(self, all, /*keepdim=*/false, dtype);
}

at::Tensor sum_dims(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim,
                    std::optional<at::ScalarType> dtype) {
  return sum(self, reduced_dims(self.dim(), dim, op()), keepdim, dtype);
}

}  // namespace

TORCH_LIBRARY_IMPL(reduce_opt, CUDA, m) {
  m.impl("sum_v7", &sum_all);
  m.impl("sum_v7.dim_IntList", &sum_dims);
}

}  // namespace torch_reduce::cuda::v7
