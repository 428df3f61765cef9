// What the standalone probes in this folder share (read_patterns.cu,
// row_read_patterns.cu, large_read_patterns.cu, finish_latency.cu,
// finish_timeline.cu, mid_read_patterns.cu): the error check, sum_v7's
// streaming 16-byte load (loads.cuh: L1 bypassed, L2's default fill), the
// random fill of read_patterns.cu and row_read_patterns.cu, and for
// large_read_patterns.cu, finish_timeline.cu, row_read_patterns.cu and
// mid_read_patterns.cu the graph timing (the first two also a thread's share
// of a chunk of such loads).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

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

// Fills `count` floats with hashed values in [-1, 1), the same for the same
// seed (read_patterns.cu and row_read_patterns.cu check against them).
__global__ void fill_kernel(float* data, size_t count, unsigned seed) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += size_t(gridDim.x) * blockDim.x) {
    unsigned h = unsigned(i) * 2654435761u ^ seed;
    h ^= h >> 15, h *= 2246822519u, h ^= h >> 13;
    data[i] = float(h & 0xffffff) / float(1 << 23) - 1.0f;
  }
}

struct NothingAfterLoads {
  __device__ void operator()() const {}
};

// This thread's share of a chunk of kThreads x kLoads 16-byte vectors at
// `chunk`: its kLoads vectors, all loaded before the first add;
// `after_loads` runs between the two.
template <int kThreads, int kLoads, typename AfterLoads = NothingAfterLoads>
__device__ __forceinline__ float chunk_share(const float4* chunk,
                                             const AfterLoads& after_loads = {}) {
  float4 batch[kLoads];
#pragma unroll
  for (int u = 0; u < kLoads; ++u) batch[u] = load_streaming(chunk + threadIdx.x + u * kThreads);
  after_loads();
  float sum = 0;
#pragma unroll
  for (int u = 0; u < kLoads; ++u) sum += (batch[u].x + batch[u].y) + (batch[u].z + batch[u].w);
  return sum;
}

// Median µs a launch: `launch(k, stream)` for k = 0 .. per_graph - 1 captured
// in one CUDA graph, `replays` timed replays, each queued right behind an
// untimed replay of the same graph (as the benchmark times its graphs).
template <typename Launch>
float graph_us(Launch launch, int per_graph, int replays) {
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  for (int k = 0; k < per_graph; ++k) launch(k, stream);
  CHECK(cudaStreamEndCapture(stream, &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  std::vector<float> times;
  for (int replay = 0; replay < replays; ++replay) {
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaEventRecord(start, stream));
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaEventRecord(stop, stream));
    CHECK(cudaEventSynchronize(stop));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms * 1000 / per_graph);
  }
  std::sort(times.begin(), times.end());
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  CHECK(cudaStreamDestroy(stream));
  return times[times.size() / 2];
}
