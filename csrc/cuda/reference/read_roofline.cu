// reduce_opt::_read_roofline: the benchmark's ceiling, a kernel that does
// nothing but read every byte of a contiguous tensor. One wave of blocks
// (blocks_per_sm per SM), 16-byte loads, vectors_in_flight independent loads
// per thread per step, one partial sum per block and no second stage. The
// partials are returned so that the benchmark can check that every element
// was read (their sum is the tensor's sum).
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/library.h>

#include <algorithm>
#include <cstdint>

#include "reference_common.h"

namespace torch_reduce::reference {
namespace {

constexpr const char* kReadRoofline = "reduce_opt::_read_roofline";
constexpr int kThreads = 128;  // small blocks, so that 1..16 of them per SM are all possible
constexpr int kVectorBytes = 16;
constexpr int kWarpSize = 32;

// The sum of the elements packed in one 16-byte vector.
template <typename Load, typename Accumulate>
__device__ Accumulate sum_vector(const uint4& vector) {
  constexpr int kPerVector = kVectorBytes / sizeof(Load);
  Load elements[kPerVector];
  static_assert(sizeof(elements) == sizeof(vector));
  memcpy(elements, &vector, sizeof(vector));
  Accumulate sum = 0;
#pragma unroll
  for (int i = 0; i < kPerVector; ++i) sum += ToAccumulate{}(elements[i]);
  return sum;
}

template <typename Accumulate>
__device__ Accumulate block_sum(Accumulate value) {
  __shared__ Accumulate warp_sums[kThreads / kWarpSize];
#pragma unroll
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) {
    value += __shfl_down_sync(0xffffffffu, value, offset);
  }
  const int lane = threadIdx.x % kWarpSize;
  const int warp = threadIdx.x / kWarpSize;
  if (lane == 0) warp_sums[warp] = value;
  __syncthreads();
  Accumulate sum = 0;
  if (threadIdx.x == 0) {
#pragma unroll
    for (int i = 0; i < kThreads / kWarpSize; ++i) sum += warp_sums[i];
  }
  return sum;
}

template <typename Load, typename Accumulate, int kVectorsInFlight>
__global__ void __launch_bounds__(kThreads)
    read_roofline_kernel(const Load* __restrict__ data, int64_t numel, int64_t head,
                         Accumulate* __restrict__ partials) {
  constexpr int kPerVector = kVectorBytes / sizeof(Load);
  const int64_t thread = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * kThreads;
  const int64_t vectors = (numel - head) / kPerVector;
  const int64_t tail_begin = head + vectors * kPerVector;

  // The elements before the first 16-byte boundary and after the last one.
  Accumulate sum = 0;
  if (thread < head) sum += ToAccumulate{}(data[thread]);
  if (thread < numel - tail_begin) sum += ToAccumulate{}(data[tail_begin + thread]);

  const auto* aligned = reinterpret_cast<const uint4*>(data + head);
  int64_t i = thread;
  for (; i + (kVectorsInFlight - 1) * stride < vectors; i += kVectorsInFlight * stride) {
    uint4 loaded[kVectorsInFlight];
#pragma unroll
    for (int k = 0; k < kVectorsInFlight; ++k) loaded[k] = aligned[i + k * stride];
#pragma unroll
    for (int k = 0; k < kVectorsInFlight; ++k) sum += sum_vector<Load, Accumulate>(loaded[k]);
  }
  for (; i < vectors; i += stride) sum += sum_vector<Load, Accumulate>(aligned[i]);

  sum = block_sum(sum);
  if (threadIdx.x == 0) partials[blockIdx.x] = sum;
}

template <typename T, int kVectorsInFlight>
void launch(const at::Tensor& self, int64_t blocks_per_sm, at::Tensor& partials,
            cudaStream_t stream) {
  using Load = typename T::load;
  using Accumulate = typename T::accumulate;
  const auto kernel = read_roofline_kernel<Load, Accumulate, kVectorsInFlight>;
  int resident = 0;
  C10_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, kThreads, 0));
  TORCH_CHECK(blocks_per_sm <= resident, kReadRoofline, ": blocks_per_sm=", decimal(blocks_per_sm),
              " does not fit: at most ", decimal(resident),
              " blocks of this kernel (vectors_in_flight=", decimal(kVectorsInFlight),
              ") are resident on an SM");

  const auto* data = reinterpret_cast<const Load*>(self.const_data_ptr());
  const auto address = reinterpret_cast<uintptr_t>(data);
  const int64_t head_bytes = (kVectorBytes - address % kVectorBytes) % kVectorBytes;
  const int64_t head = std::min<int64_t>(self.numel(), head_bytes / sizeof(Load));
  kernel<<<partials.numel(), kThreads, 0, stream>>>(data, self.numel(), head,
                                                    partials.mutable_data_ptr<Accumulate>());
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

at::Tensor read_roofline_cuda(const at::Tensor& self, int64_t blocks_per_sm,
                              int64_t vectors_in_flight) {
  check_reference_input(self, kReadRoofline);
  TORCH_CHECK(blocks_per_sm >= 1, kReadRoofline, ": blocks_per_sm must be positive, got ",
              decimal(blocks_per_sm));
  const c10::cuda::CUDAGuard device_guard(self.device());
  const cudaStream_t stream = c10::cuda::getCurrentCUDAStream(self.get_device()).stream();
  int sm_count = 0;
  C10_CUDA_CHECK(
      cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, self.get_device()));
  const at::ScalarType partial_dtype = self.scalar_type() == at::kInt ? at::kLong : at::kFloat;
  at::Tensor partials = at::empty({blocks_per_sm * sm_count}, self.options().dtype(partial_dtype));

  dispatch_reference_dtype(self, kReadRoofline, [&](auto types) {
    using T = decltype(types);
    switch (vectors_in_flight) {
      case 1: return launch<T, 1>(self, blocks_per_sm, partials, stream);
      case 2: return launch<T, 2>(self, blocks_per_sm, partials, stream);
      case 4: return launch<T, 4>(self, blocks_per_sm, partials, stream);
      case 8: return launch<T, 8>(self, blocks_per_sm, partials, stream);
      default:
        TORCH_CHECK(false, kReadRoofline, ": vectors_in_flight must be 1, 2, 4 or 8, got ",
                    decimal(vectors_in_flight));
    }
  });
  return partials;
}

}  // namespace
}  // namespace torch_reduce::reference

TORCH_LIBRARY_IMPL(reduce_opt, CUDA, m) {
  m.impl("_read_roofline", &torch_reduce::reference::read_roofline_cuda);
}
