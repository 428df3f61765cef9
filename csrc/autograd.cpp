// Autograd for every version, in C++ rather than through
// torch.library.register_autograd: a Python autograd kernel runs Python code on
// every call that reaches the Autograd key, grad-free inference included,
// which costs more than the whole op does on small inputs.
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/autograd.h>
#include <torch/library.h>

#include "sum_common.h"

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

}  // namespace

TORCH_LIBRARY_IMPL(reduce_opt, Autograd, m) {
  m.impl("sum_v0", &sum_autograd<0>);
  m.impl("sum_v1", &sum_autograd<1>);
  m.impl("sum_v2", &sum_autograd<2>);
  m.impl("sum_v3", &sum_autograd<3>);
  m.impl("sum_v4", &sum_autograd<4>);
  m.impl("sum_v5", &sum_autograd<5>);
  m.impl("sum_v6", &sum_autograd<6>);
  m.impl("sum_v7", &sum_autograd<7>);
}

}  // namespace torch_reduce
