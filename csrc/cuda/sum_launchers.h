// The interface between the host dispatcher (sum_cuda.cpp) and the kernel
// versions (sum_vN.cu, one translation unit each). Host code only: the
// dispatcher includes it without seeing any device code.
#pragma once

#include <c10/macros/Macros.h>
#include <cuda_runtime_api.h>

#include <cstdint>

#include "../accumulate_type.h"

namespace torch_reduce::cuda {

C10_HOST_DEVICE constexpr int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

// v0–v6 use this many threads per block, as the seeds do.
constexpr int kBlockSize = 256;

// v0–v2 reduce one element per thread and block; v3–v5 add two during the load.
constexpr int64_t tile_elements(int version) {
  return version < 3 ? kBlockSize : 2 * kBlockSize;
}

// v6 splits the input over at most this many blocks, as its seed does (block_num = 1024).
constexpr int64_t kV6MaxBlocks = 1024;

// Partial sums (accumulator elements) a version needs for `numel` elements.
// v0–v5 keep two levels of partials (see reduce_in_passes); v6 one per block
// of its bounded grid.
constexpr int64_t workspace_elements(int version, int64_t numel) {
  if (version <= 5) {
    const int64_t first_level = ceil_div(numel, tile_elements(version));
    return first_level + ceil_div(first_level, tile_elements(version));
  }
  return kV6MaxBlocks;
}

// One sum: `numel` elements of `input` into `*result`, on `stream`.
template <typename InT>
struct SumArgs {
  const InT* input;
  int64_t numel;          // at least 1
  result_t<InT>* result;  // one element of device memory
  acc_t<InT>* workspace;  // partial sums, sized by the dispatcher for the version
  int device;
  int sm_count;
  cudaStream_t stream;
};

template <typename InT>
void sum_v0(const SumArgs<InT>& args);
template <typename InT>
void sum_v1(const SumArgs<InT>& args);
template <typename InT>
void sum_v2(const SumArgs<InT>& args);
template <typename InT>
void sum_v3(const SumArgs<InT>& args);
template <typename InT>
void sum_v4(const SumArgs<InT>& args);
template <typename InT>
void sum_v5(const SumArgs<InT>& args);
template <typename InT>
void sum_v6(const SumArgs<InT>& args);

}  // namespace torch_reduce::cuda

// Each sum_vN.cu instantiates its launcher for every supported input type.
#define TORCH_REDUCE_INSTANTIATE_LAUNCHER(launcher)                     \
  template void launcher<float>(const SumArgs<float>&);                 \
  template void launcher<double>(const SumArgs<double>&);               \
  template void launcher<c10::Half>(const SumArgs<c10::Half>&);         \
  template void launcher<c10::BFloat16>(const SumArgs<c10::BFloat16>&); \
  template void launcher<uint8_t>(const SumArgs<uint8_t>&);             \
  template void launcher<int8_t>(const SumArgs<int8_t>&);               \
  template void launcher<int16_t>(const SumArgs<int16_t>&);             \
  template void launcher<int32_t>(const SumArgs<int32_t>&);             \
  template void launcher<int64_t>(const SumArgs<int64_t>&);             \
  template void launcher<bool>(const SumArgs<bool>&)
