// reduce_opt::_cub_sum: CUB's DeviceReduce over a contiguous tensor, the
// library reduction a user would reach for instead of writing a kernel.
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/library.h>

#include <cstdint>
#include <cub/device/device_reduce.cuh>
#include <cuda/std/functional>
#include <limits>

#include "reference_common.h"

namespace torch_reduce::reference {
namespace {

constexpr const char* kCubSum = "reduce_opt::_cub_sum";

// TransformReduce is DeviceReduce::Sum with the conversion to the
// accumulation type made explicit: 16-bit floats add in float32 and int32 in
// int64, as torch.sum does, and the result is rounded once when stored.
template <typename T>
void cub_sum(const at::Tensor& self, at::Tensor& result, cudaStream_t stream) {
  using Load = typename T::load;
  using Accumulate = typename T::accumulate;
  const auto* input = reinterpret_cast<const Load*>(self.const_data_ptr());
  auto* output = result.mutable_data_ptr<typename T::result>();
  const ::cuda::std::plus<Accumulate> add;

  // CUB picks its offset type from the count's: 32-bit offsets where they
  // suffice, as a caller of CUB would pass an int, 64-bit beyond.
  const auto reduce = [&](auto numel) {
    size_t temp_bytes = 0;
    C10_CUDA_CHECK(cub::DeviceReduce::TransformReduce(nullptr, temp_bytes, input, output, numel,
                                                      add, ToAccumulate{}, Accumulate{0}, stream));
    // From the caching allocator on the current stream, so that it is legal
    // (and freed in order) under CUDA graph capture.
    const at::Tensor temp =
        at::empty({static_cast<int64_t>(temp_bytes)}, self.options().dtype(at::kByte));
    C10_CUDA_CHECK(cub::DeviceReduce::TransformReduce(temp.mutable_data_ptr(), temp_bytes, input,
                                                      output, numel, add, ToAccumulate{},
                                                      Accumulate{0}, stream));
    C10_CUDA_KERNEL_LAUNCH_CHECK();
  };
  if (self.numel() <= std::numeric_limits<int32_t>::max()) {
    reduce(static_cast<int32_t>(self.numel()));
  } else {
    reduce(self.numel());
  }
}

at::Tensor cub_sum_cuda(const at::Tensor& self) {
  check_reference_input(self, kCubSum);
  const c10::cuda::CUDAGuard device_guard(self.device());
  const cudaStream_t stream = c10::cuda::getCurrentCUDAStream(self.get_device()).stream();
  const at::ScalarType result_dtype =
      self.scalar_type() == at::kInt ? at::kLong : self.scalar_type();
  at::Tensor result = at::empty({}, self.options().dtype(result_dtype));
  dispatch_reference_dtype(self, kCubSum,
                           [&](auto types) { cub_sum<decltype(types)>(self, result, stream); });
  return result;
}

}  // namespace
}  // namespace torch_reduce::reference

TORCH_LIBRARY_IMPL(reduce_opt, CUDA, m) {
  m.impl("_cub_sum", &torch_reduce::reference::cub_sum_cuda);
}
