// Launch shapes for sum_v7, derived from the device (multiprocessor count,
// and resident blocks per multiprocessor from the occupancy API, which
// accounts for threads, registers and shared memory of the target), not
// from one GPU's constants. Host code; the kernel files include it.
#pragma once

#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>

#include "../device_cache.h"
#include "../sum_launchers.h"

namespace torch_reduce::cuda::v7 {

// Blocks of `kKernel` (launched with `block` threads) resident at once on
// the whole device: one wave. Asked once per device and kernel. The kernel is
// a template argument, not a function parameter, so that each kernel gets its
// own cache: kernels of one signature share a function-pointer type, and a
// cache keyed by that type once handed the 1024-thread shape the 512-thread
// shape's wave (two waves, benchmarks/NOTES.md).
template <auto kKernel>
int64_t one_wave(int block, int device, int sm_count) {
  static PerDeviceCache cache;
  const int per_sm = cache.get(device, [&] {
    int blocks = 0;
    C10_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kKernel, block, 0));
    return std::max(blocks, 1);
  });
  return int64_t(per_sm) * sm_count;
}

// Whether `kKernel` may start before the kernel ahead of it on the stream
// ends (programmatic dependent launch): on Hopper and newer, where its code
// was compiled for them, as griddepcontrol.wait, which holds its reads of
// the earlier kernel's output back, exists only there. Asked once per device
// and kernel.
template <auto kKernel>
bool starts_early_on(int device) {
  static PerDeviceCache cache;
  return cache.get(device, [&] {
    int major = 0;
    C10_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    // The function query asks the current device.
    const c10::cuda::CUDAGuard device_guard(static_cast<c10::DeviceIndex>(device));
    cudaFuncAttributes compiled{};
    C10_CUDA_CHECK(cudaFuncGetAttributes(&compiled, kKernel));
    return major >= 9 && compiled.ptxVersion >= 90 ? 2 : 1;
  }) == 2;
}

// `kKernel<<<grid, block, 0, stream>>>(args...)`, allowed to start once every
// block of the kernel ahead of it has run griddepcontrol.launch_dependents
// (or exited) where starts_early_on holds: its launch and the gap between
// the two kernels then pass while the first one runs. The kernel must run
// griddepcontrol.wait before it reads what the earlier kernel wrote.
template <auto kKernel, typename... Args>
void launch_starting_early(dim3 grid, int block, cudaStream_t stream, int device,
                           const Args&... args) {
  cudaLaunchAttribute starts_early{};
  starts_early.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  starts_early.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = dim3(block);
  config.stream = stream;
  config.attrs = &starts_early;
  config.numAttrs = starts_early_on<kKernel>(device) ? 1 : 0;
  C10_CUDA_CHECK(cudaLaunchKernelEx(&config, kKernel, args...));
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

// How many blocks share one output's work: as many as `outputs * splits`
// blocks fit in one wave (one block more would start a second wave that
// takes as long as the first), but no more than there is work for, and not so
// many that the final pass over `outputs * splits` partials dominates.
inline int64_t split_count(int64_t outputs, int64_t work_per_output, int64_t wave,
                           int64_t max_splits) {
  if (outputs >= wave) return 1;
  return std::clamp<int64_t>(wave / outputs, 1, std::min(work_per_output, max_splits));
}

// Whether bands of `band_width` column lanes over `columns` columns leave a
// third or more of their lanes idle (33 columns in two bands of 32: 31 of 64
// idle), whose blocks load rows as a full band's do: where a column a thread
// pays to leave its widest bands (column_sum.cu's 4-lane L2 bands,
// interleaved_column_sum.cu's run past 32 columns).
inline bool leaves_a_third_of_lanes_idle(int64_t columns, int64_t band_width) {
  const int64_t lanes = ceil_div(columns, band_width) * band_width;
  return 3 * (lanes - columns) >= lanes;
}

}  // namespace torch_reduce::cuda::v7
