// A per-device value computed once and read without locking afterwards, for
// device facts that the hot path needs on every call.
#pragma once

#include <c10/core/Device.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAMacros.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <atomic>

namespace torch_reduce::cuda {

class PerDeviceCache {
 public:
  // `compute()` must return a positive value; it may run more than once if
  // two threads race on the first call, which is harmless.
  template <typename Compute>
  int get(c10::DeviceIndex device, Compute&& compute) {
    std::atomic<int>& slot = values_.at(device);
    int value = slot.load(std::memory_order_relaxed);
    if (value == 0) {
      value = compute();
      slot.store(value, std::memory_order_relaxed);
    }
    return value;
  }

 private:
  std::array<std::atomic<int>, C10_COMPILE_TIME_MAX_GPUS> values_{};
};

inline int multiprocessor_count(c10::DeviceIndex device) {
  static PerDeviceCache cache;
  return cache.get(device, [&] {
    int count = 0;
    C10_CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
    return count;
  });
}

inline int l2_cache_bytes(c10::DeviceIndex device) {
  static PerDeviceCache cache;
  return cache.get(device, [&] {
    int bytes = 0;
    C10_CUDA_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrL2CacheSize, device));
    return std::max(bytes, 1);
  });
}

// Each multiprocessor's share of the peak DRAM bandwidth (two transfers a
// memory clock over the bus), in MB/s; at least 1, should a driver report
// no memory clock.
inline int dram_mb_per_s_per_multiprocessor(c10::DeviceIndex device) {
  static PerDeviceCache cache;
  return cache.get(device, [&] {
    int clock_khz = 0;
    int bus_bits = 0;
    C10_CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, device));
    C10_CUDA_CHECK(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device));
    const int64_t mb_per_s = int64_t(clock_khz) * bus_bits / 4000;
    return static_cast<int>(std::max<int64_t>(1, mb_per_s / multiprocessor_count(device)));
  });
}

}  // namespace torch_reduce::cuda
