// The host dispatcher for v0..v6 on CUDA: validate, pick the stream, allocate,
// hand the pointers to the version's launcher. sum_v7 has its own host side
// (v7/sum_v7.cpp).
#include <ATen/core/Tensor.h>
#include <ATen/cuda/EmptyTensor.h>
#include <ATen/ops/zeros.h>
#include <c10/cuda/CUDAGraphsC10Utils.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/library.h>

#include "../sum_common.h"
#include "device_cache.h"
#include "sum_launchers.h"

namespace torch_reduce::cuda {
namespace {

template <typename InT>
void launch_version(int version, const SumArgs<InT>& args) {
  switch (version) {
    case 0: return sum_v0(args);
    case 1: return sum_v1(args);
    case 2: return sum_v2(args);
    case 3: return sum_v3(args);
    case 4: return sum_v4(args);
    case 5: return sum_v5(args);
    case 6: return sum_v6(args);
  }
}

template <int kVersion>
at::Tensor sum_cuda(const at::Tensor& self) {
  static const std::string op = op_name(kVersion);
  check_sum_input(self, op, c10::DeviceType::CUDA);
  const at::ScalarType out_dtype = result_dtype(self.scalar_type());
  at::Tensor result;
  dispatch_input_dtype(self.scalar_type(), op, [&](auto tag) {
    using InT = typename decltype(tag)::type;
    using AccT = acc_t<InT>;

    const c10::cuda::CUDAGuard device_guard(self.device());
    const at::TensorOptions options = self.options();
    if (self.numel() == 0) {
      result = at::zeros({}, options.dtype(out_dtype));
      return;
    }
    const at::Tensor input = self.contiguous();
    const c10::DeviceIndex device = self.device().index();
    const c10::cuda::CUDAStream stream = c10::cuda::getCurrentCUDAStream(device);
    // empty_cuda skips the dispatcher: this op's host cost is mostly overhead.
    result = at::detail::empty_cuda({}, out_dtype, self.device(), std::nullopt);

    const at::Tensor workspace =
        at::detail::empty_cuda({workspace_elements(kVersion, input.numel())},
                               c10::CppTypeToScalarType<AccT>::value, self.device(), std::nullopt);
    SumArgs<InT> args{input.const_data_ptr<InT>(),
                      input.numel(),
                      result.mutable_data_ptr<result_t<InT>>(),
                      workspace.mutable_data_ptr<AccT>(),
                      device,
                      multiprocessor_count(device),
                      stream.stream()};
    launch_version(kVersion, args);
  });
  return result;
}

}  // namespace

TORCH_LIBRARY_IMPL(reduce_opt, CUDA, m) {
  m.impl("sum_v0", &sum_cuda<0>);
  m.impl("sum_v1", &sum_cuda<1>);
  m.impl("sum_v2", &sum_cuda<2>);
  m.impl("sum_v3", &sum_cuda<3>);
  m.impl("sum_v4", &sum_cuda<4>);
  m.impl("sum_v5", &sum_cuda<5>);
  m.impl("sum_v6", &sum_cuda<6>);
}

}  // namespace torch_reduce::cuda
