// The host dispatcher for the CUDA ops: validate, pick the stream, allocate,
// hand the pointers to the version's launcher.
#include <ATen/core/Tensor.h>
#include <ATen/cuda/EmptyTensor.h>
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

// The most v7 blocks that can be resident at once: a bound on its grid.
int64_t max_resident_v7_blocks(c10::DeviceIndex device) {
  static PerDeviceCache cache;
  return cache.get(device, [&] {
    return sm_count(device) *
           (device_attribute(cudaDevAttrMaxThreadsPerMultiProcessor, device) / kV7BlockSize);
  });
}

// v7's eager path keeps its partials and its retirement counter in a buffer
// owned by the stream: kernels on one stream run one after another, and each
// v7 kernel consumes its partials and leaves the counter at zero before it
// ends, so the next one finds the buffer ready. That saves an allocation and
// a second launch per call. Allocated once per stream and never freed, like
// the streams of PyTorch's pool, with plain cudaMalloc: the caching allocator
// would serve it from whatever private pool is active at that moment (a CUDA
// graph's, during torch.compile's warm-up runs), and it outlives any pool.
// Zeroed on the stream itself, so the fill is ordered before its first use.
struct StreamWorkspace {
  unsigned int* retirement_counter;
  void* partials;  // max_resident_v7_blocks() elements of up to 8 bytes
};

StreamWorkspace stream_workspace(const c10::cuda::CUDAStream& stream) {
  constexpr int64_t kCounterBytes = 16;  // keeps the partials 16-byte aligned
  using Key = std::pair<c10::DeviceIndex, cudaStream_t>;
  // Keyed by device too: every device's default stream has the same handle.
  const Key key{stream.device_index(), stream.stream()};
  // Most calls come from the thread and stream of the call before.
  thread_local Key last_key{-1, nullptr};
  thread_local uint8_t* last_base = nullptr;
  if (key != last_key) {
    static std::mutex mutex;
    static auto* buffers = new std::map<Key, uint8_t*>();
    const std::lock_guard<std::mutex> lock(mutex);
    auto [entry, inserted] = buffers->try_emplace(key, nullptr);
    if (inserted) {
      const int64_t bytes = kCounterBytes + 8 * max_resident_v7_blocks(stream.device_index());
      void* buffer = nullptr;
      C10_CUDA_CHECK(cudaMalloc(&buffer, bytes));
      C10_CUDA_CHECK(cudaMemsetAsync(buffer, 0, bytes, stream.stream()));
      entry->second = static_cast<uint8_t*>(buffer);
    }
    last_key = key;
    last_base = entry->second;
  }
  return {reinterpret_cast<unsigned int*>(last_base), last_base + kCounterBytes};
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
    // empty_cuda skips the dispatcher: this op's host cost is mostly overhead.
    result = at::detail::empty_cuda({}, out_dtype, self.device(), std::nullopt);

    SumArgs<InT> args{input.const_data_ptr<InT>(),
                      input.numel(),
                      result.mutable_data_ptr<result_t<InT>>(),
                      nullptr,
                      workspace_elements(kVersion, input.numel(), max_resident_v7_blocks(device)),
                      nullptr,
                      device,
                      sm_count(device),
                      stream.stream()};
    // A graph must not share the stream's buffer with later work on the
    // capture stream, so under capture v7 takes its own partials and finishes
    // in a second launch.
    at::Tensor workspace;
    if (kVersion == 7 &&
        c10::cuda::currentStreamCaptureStatusMayInitCtx() == c10::cuda::CaptureStatus::None) {
      const StreamWorkspace buffers = stream_workspace(stream);
      args.workspace = static_cast<AccT*>(buffers.partials);
      args.retirement_counter = buffers.retirement_counter;
    } else {
      workspace =
          at::detail::empty_cuda({args.workspace_elements}, c10::CppTypeToScalarType<AccT>::value,
                                 self.device(), std::nullopt);
      args.workspace = workspace.mutable_data_ptr<AccT>();
    }
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
