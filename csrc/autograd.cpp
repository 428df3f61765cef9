// Autograd for every version and overload, in C++ rather than through
// torch.library.register_autograd: a Python autograd kernel runs Python code on
// every call that reaches the Autograd key, grad-free inference included,
// which costs more than the whole op does on small inputs.
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/autograd.h>
#include <torch/library.h>

#include <optional>
#include <vector>

#include "sum_common.h"
#include "sum_dims.h"

namespace torch_reduce {
namespace {

template <int kVersion>
const c10::TypedOperatorHandle<at::Tensor(const at::Tensor&)>& sum_op() {
  static const auto handle = c10::Dispatcher::singleton()
                                 .findSchemaOrThrow(op_name(kVersion).c_str(), "")
                                 .typed<at::Tensor(const at::Tensor&)>();
  return handle;
}

// Straight to the kernel below autograd, without a second key computation.
template <int kVersion>
at::Tensor sum_below_autograd(c10::DispatchKeySet keys, const at::Tensor& self) {
  const at::AutoDispatchBelowADInplaceOrView guard;
  return sum_op<kVersion>().redispatch(keys & c10::after_autograd_keyset, self);
}

// d(sum x)/dx is 1 everywhere: the incoming gradient, broadcast to x's shape.
template <int kVersion>
struct SumFunction : public torch::autograd::Function<SumFunction<kVersion>> {
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, c10::DispatchKeySet keys,
                            const at::Tensor& self) {
    ctx->saved_data["sizes"] = self.sym_sizes();
    return sum_below_autograd<kVersion>(keys, self);
  }

  // One gradient per forward input: none for the key set, then self's.
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_outputs) {
    return {at::Tensor(), grad_outputs[0].expand_symint(ctx->saved_data["sizes"].toSymIntVector())};
  }
};

template <int kVersion>
at::Tensor sum_autograd(c10::DispatchKeySet keys, const at::Tensor& self) {
  // The common inference case skips building a graph node.
  if (!at::GradMode::is_enabled() || !self.requires_grad()) {
    return sum_below_autograd<kVersion>(keys, self);
  }
  return SumFunction<kVersion>::apply(keys, self);
}

// sum_v7 with torch.sum's options. Its gradient flows back in self's dtype
// whatever dtype= made of the result, as torch.sum's does.
using SumV7Signature = at::Tensor(const at::Tensor&, std::optional<at::ScalarType>);
using SumV7DimsSignature = at::Tensor(const at::Tensor&, at::OptionalIntArrayRef, bool,
                                      std::optional<at::ScalarType>);

const c10::TypedOperatorHandle<SumV7Signature>& sum_v7_op() {
  static const auto handle = c10::Dispatcher::singleton()
                                 .findSchemaOrThrow(op_name(7).c_str(), "")
                                 .typed<SumV7Signature>();
  return handle;
}

const c10::TypedOperatorHandle<SumV7DimsSignature>& sum_v7_dims_op() {
  static const auto handle = c10::Dispatcher::singleton()
                                 .findSchemaOrThrow(op_name(7).c_str(), "dim_IntList")
                                 .typed<SumV7DimsSignature>();
  return handle;
}

at::Tensor sum_v7_below_autograd(c10::DispatchKeySet keys, const at::Tensor& self,
                                 std::optional<at::ScalarType> dtype) {
  const at::AutoDispatchBelowADInplaceOrView guard;
  return sum_v7_op().redispatch(keys & c10::after_autograd_keyset, self, dtype);
}

at::Tensor sum_v7_dims_below_autograd(c10::DispatchKeySet keys, const at::Tensor& self,
                                      at::OptionalIntArrayRef dim, bool keepdim,
                                      std::optional<at::ScalarType> dtype) {
  const at::AutoDispatchBelowADInplaceOrView guard;
  return sum_v7_dims_op().redispatch(keys & c10::after_autograd_keyset, self, dim, keepdim, dtype);
}

struct SumV7Function : public torch::autograd::Function<SumV7Function> {
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, c10::DispatchKeySet keys,
                            const at::Tensor& self, std::optional<at::ScalarType> dtype) {
    ctx->saved_data["sizes"] = self.sym_sizes();
    ctx->saved_data["dtype"] = self.scalar_type();
    return sum_v7_below_autograd(keys, self, dtype);
  }

  // Gradients for (keys, self, dtype).
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_outputs) {
    const at::Tensor grad = grad_outputs[0].to(ctx->saved_data["dtype"].toScalarType());
    return {at::Tensor(), grad.expand_symint(ctx->saved_data["sizes"].toSymIntVector()),
            at::Tensor()};
  }
};

// The gradient of a sum over dims: the incoming gradient with the reduced dims
// put back as size 1 (keepdim=True kept them), broadcast to self's shape.
struct SumV7DimsFunction : public torch::autograd::Function<SumV7DimsFunction> {
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, c10::DispatchKeySet keys,
                            const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim,
                            std::optional<at::ScalarType> dtype) {
    const DimMask mask = reduced_dims(self.dim(), dim, op_name(7));
    std::vector<int64_t> squeezed_dims;
    if (!keepdim) {
      for (int64_t d = 0; d < self.dim(); ++d) {
        if (mask.test(d)) squeezed_dims.push_back(d);
      }
    }
    ctx->saved_data["sizes"] = self.sym_sizes();
    ctx->saved_data["dtype"] = self.scalar_type();
    ctx->saved_data["squeezed_dims"] = squeezed_dims;
    return sum_v7_dims_below_autograd(keys, self, dim, keepdim, dtype);
  }

  // Gradients for (keys, self, dim, keepdim, dtype).
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_outputs) {
    at::Tensor grad = grad_outputs[0].to(ctx->saved_data["dtype"].toScalarType());
    // In increasing order, so that each dim lands where it was in self.
    for (const int64_t d : ctx->saved_data["squeezed_dims"].toIntVector()) {
      grad = grad.unsqueeze(d);
    }
    return {at::Tensor(), grad.expand_symint(ctx->saved_data["sizes"].toSymIntVector()),
            at::Tensor(), at::Tensor(), at::Tensor()};
  }
};

at::Tensor sum_v7_autograd(c10::DispatchKeySet keys, const at::Tensor& self,
                           std::optional<at::ScalarType> dtype) {
  if (!at::GradMode::is_enabled() || !self.requires_grad()) {
    return sum_v7_below_autograd(keys, self, dtype);
  }
  return SumV7Function::apply(keys, self, dtype);
}

at::Tensor sum_v7_dims_autograd(c10::DispatchKeySet keys, const at::Tensor& self,
                                at::OptionalIntArrayRef dim, bool keepdim,
                                std::optional<at::ScalarType> dtype) {
  if (!at::GradMode::is_enabled() || !self.requires_grad()) {
    return sum_v7_dims_below_autograd(keys, self, dim, keepdim, dtype);
  }
  return SumV7DimsFunction::apply(keys, self, dim, keepdim, dtype);
}

}  // namespace

TORCH_LIBRARY_IMPL(reduce_opt, Autograd, m) {
  m.impl("sum_v0", &sum_autograd<0>);
  m.impl("sum_v1", &sum_autograd<1>);
  m.impl("sum_v2", &sum_autograd<2>);
  m.impl("sum_v3", &sum_autograd<3>);
  m.impl("sum_v4", &sum_autograd<4>);
  m.impl("sum_v5", &sum_autograd<5>);
  m.impl("sum_v6", &sum_autograd<6>);
  m.impl("sum_v7", &sum_v7_autograd);
  m.impl("sum_v7.dim_IntList", &sum_v7_dims_autograd);
}

}  // namespace torch_reduce
