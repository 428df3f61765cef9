// The host dispatcher for the CUDA ops: validate, pick the stream, allocate,
// hand the pointers to the version's launcher.
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/zeros.h>
#include <c10/cuda/CUDAGraphsC10Utils.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/library.h>

#include <map>
#include <mutex>
#include <utility>

#include "../sum_common.h"
#include "device_cache.h"
#include "sum_launchers.h"

namespace torch_reduce::cuda {
namespace {

// A zeroed retirement counter for v7's single-launch path, one per (device,
// stream): kernels on one stream run in order and each leaves its counter at
// zero, so the counter is never shared by two kernels in flight. Allocated
// once per stream on that stream (its zero-fill is ordered before the first
// kernel that uses it) and never freed, like the stream pool it mirrors.
int device_attribute(cudaDeviceAttr attribute, c10::DeviceIndex device) {
  int value = 0;
  C10_CUDA_CHECK(cudaDeviceGetAttribute(&value, attribute, device));
  return value;
}

int sm_count(c10::DeviceIndex device) {
  static PerDeviceCache cache;
  return cache.get(device,
                   [&] { return device_attribute(cudaDevAttrMultiProcessorCount, device); });
}

int max_threads_per_sm(c10::DeviceIndex device) {
  static PerDeviceCache cache;
  return cache.get(
      device, [&] { return device_attribute(cudaDevAttrMaxThreadsPerMultiProcessor, device); });
}

unsigned int* retirement_counter(const at::Tensor& like, const c10::cuda::CUDAStream& stream) {
  static std::mutex mutex;
  // Keyed by device too: every device's default stream has the same handle.
  static auto* counters = new std::map<std::pair<c10::DeviceIndex, cudaStream_t>, at::Tensor>();
  std::lock_guard<std::mutex> lock(mutex);
  auto [entry, inserted] = counters->try_emplace({stream.device_index(), stream.stream()});
  if (inserted) entry->second = at::zeros({1}, like.options().dtype(at::kInt));
  return reinterpret_cast<unsigned int*>(entry->second.data_ptr<int32_t>());
}

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
    case 7: return sum_v7(args);
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
    const int multiprocessors = sm_count(device);
    const int64_t max_resident_blocks =
        int64_t(multiprocessors) * (max_threads_per_sm(device) / kV7BlockSize);
    const int64_t workspace_size = workspace_elements(kVersion, input.numel(), max_resident_blocks);

    result = at::empty({}, options.dtype(out_dtype));
    const at::Tensor workspace =
        at::empty({workspace_size}, options.dtype(c10::CppTypeToScalarType<AccT>::value));

    // During graph capture a counter would be shared between the graph and
    // later work on the capture stream, so v7 takes its two-launch path.
    unsigned int* counter = nullptr;
    if (kVersion == 7 &&
        c10::cuda::currentStreamCaptureStatusMayInitCtx() == c10::cuda::CaptureStatus::None) {
      counter = retirement_counter(input, stream);
    }

    const SumArgs<InT> args{input.const_data_ptr<InT>(),
                            input.numel(),
                            result.mutable_data_ptr<result_t<InT>>(),
                            workspace.mutable_data_ptr<AccT>(),
                            workspace_size,
                            counter,
                            device,
                            multiprocessors,
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
  m.impl("sum_v7", &sum_cuda<7>);
}

}  // namespace torch_reduce::cuda
