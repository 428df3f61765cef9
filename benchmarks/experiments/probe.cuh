// What the standalone probes in this folder share (read_patterns.cu,
// large_read_patterns.cu, finish_latency.cu, finish_timeline.cu): the error
// check and sum_v7's streaming 16-byte load (loads.cuh: L1 bypassed, L2's
// default fill).
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                       \
  do {                                                                                    \
    const cudaError_t status = (call);                                                    \
    if (status != cudaSuccess) {                                                          \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(status)); \
      std::exit(1);                                                                       \
    }                                                                                     \
  } while (0)

__device__ __forceinline__ float4 load_streaming(const float4* address) {
  float4 v;
  asm("ld.global.nc.L1::no_allocate.v4.f32 {%0, %1, %2, %3}, [%4];"
      : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
      : "l"(address));
  return v;
}
