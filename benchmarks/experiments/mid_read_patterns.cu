// Probe, not part of the build: whether the order in which a grid reads a
// mid-size span (12-22 MB: the 8-byte interleaved runs of 31 columns, fp64
// 50001-89841 rows) sets its time, with nothing else of sum_v7 around it
// (benchmarks/NOTES.md, session 90). sum_v7's run reads fp64 60001x31 in
// 4.50 us (272 blocks, the held partials' cap, of 256 threads: 3.34 rounds
// of 4 loads a thread at v + u * stride, the grid's stride trimmed to a
// multiple of the columns' period, so 4 rounds, the last one's surplus loads
// reloading the round's first vector); Inductor's split read takes 3.66 us
// in 909 blocks of 128 threads, each 128 neighbouring rows' 15 or 16 columns
// read once (two_launch_timeline.py, session 90, call 1). Past 5 rounds of 4
// (89841 rows) sum_v7 reads in 264 blocks of 8 pipelined loads instead.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o /tmp/mid_read_patterns \
//     benchmarks/experiments/mid_read_patterns.cu && /tmp/mid_read_patterns
//
// Patterns, each leaving a partial a block (no finish):
//  - strided: sum_v7's run, `blocks` blocks of 256 threads, rounds of
//    `loads` loads a stride of the grid apart;
//  - contiguous: the same blocks and rounds, but each block a range of
//    neighbouring vectors, its rounds 256 x `loads` vectors apart;
//  - once: a block per chunk of threads x loads neighbouring vectors, read
//    in one round (Inductor's grid shape, not its columns: the same number
//    of blocks and threads at 128 threads x 8 vectors).
// Only 4 loads a round or fewer: ptxas splits a thread's 8 loads of these
// kernels in two batches (3 and 5: the review of session 90), as it did
// sum_v7's 8-load loop (session 87). Every kernel's total must equal the
// input's exact sum (integers 1-8, so a vector skipped or read twice shows)
// before it is timed. Times are CUDA-graph replays of 20 launches over 20
// copies of the input (over 4x an H200's L2), median of 9.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "probe.cuh"

namespace {

constexpr int kCopies = 20;

// Integers 1-8: every partial is exact, and a pattern that skips or
// repeats a vector cannot match the reference.
__global__ void fill_small_integers(float* data, size_t count) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += size_t(gridDim.x) * blockDim.x) {
    unsigned h = unsigned(i) * 2654435761u;
    h ^= h >> 15, h *= 2246822519u, h ^= h >> 13;
    data[i] = float(1 + h % 8);
  }
}

__device__ __forceinline__ float vector_sum(float4 v) {
  return (v.x + v.y) + (v.z + v.w);
}

template <int kThreads>
__device__ __forceinline__ void store_block_total(float value, float* partials) {
  __shared__ float warp_sums[kThreads / 32];
  for (int offset = 16; offset > 0; offset /= 2) value += __shfl_down_sync(~0u, value, offset);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = value;
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0;
    for (int w = 0; w < kThreads / 32; ++w) total += warp_sums[w];
    partials[blockIdx.x] = total;
  }
}

// sum_v7's run: a thread's round is vectors v, v + stride, ...; loads past
// the end reload the round's first and are not added.
template <int kLoads>
__global__ void __launch_bounds__(256) strided(const float4* data, long n, float* partials) {
  const long stride = long(gridDim.x) * 256;
  float sum = 0;
  for (long v = long(blockIdx.x) * 256 + threadIdx.x; v < n; v += kLoads * stride) {
    float4 batch[kLoads];
#pragma unroll
    for (int u = 0; u < kLoads; ++u)
      batch[u] = load_streaming(data + (v + u * stride < n ? v + u * stride : v));
#pragma unroll
    for (int u = 0; u < kLoads; ++u)
      if (v + u * stride < n) sum += vector_sum(batch[u]);
  }
  store_block_total<256>(sum, partials);
}

// The same blocks and rounds, each block a range of neighbouring vectors.
template <int kLoads>
__global__ void __launch_bounds__(256) contiguous(const float4* data, long n, float* partials) {
  constexpr long kChunk = 256L * kLoads;
  const long chunks = (n + kChunk - 1) / kChunk;
  const long begin = chunks * blockIdx.x / gridDim.x * kChunk;
  const long end = min(n, chunks * (blockIdx.x + 1) / gridDim.x * kChunk);
  float sum = 0;
  for (long v = begin + threadIdx.x; v < end; v += kChunk) {
    float4 batch[kLoads];
#pragma unroll
    for (int u = 0; u < kLoads; ++u)
      batch[u] = load_streaming(data + (v + u * 256 < end ? v + u * 256 : v));
#pragma unroll
    for (int u = 0; u < kLoads; ++u)
      if (v + u * 256 < end) sum += vector_sum(batch[u]);
  }
  store_block_total<256>(sum, partials);
}

// A block per chunk of kThreads x kLoads vectors, read in one round.
template <int kThreads, int kLoads>
__global__ void __launch_bounds__(kThreads) once(const float4* data, long n, float* partials) {
  const long first = long(blockIdx.x) * kThreads * kLoads + threadIdx.x;
  float4 batch[kLoads];
#pragma unroll
  for (int u = 0; u < kLoads; ++u) {
    const long v = first + u * kThreads;
    batch[u] = load_streaming(data + (v < n ? v : n - 1));
  }
  float sum = 0;
#pragma unroll
  for (int u = 0; u < kLoads; ++u)
    if (first + u * kThreads < n) sum += vector_sum(batch[u]);
  store_block_total<kThreads>(sum, partials);
}

struct Pattern {
  const char* name;
  void (*kernel)(const float4*, long, float*);
  int threads;
  long blocks;  // 0: a block per chunk of threads x loads
  int loads;
};

}  // namespace

int main() {
  const Pattern patterns[] = {
      {"strided 272x4 (sum_v7 to 5 rounds)", strided<4>, 256, 272, 4},
      {"strided 264x4", strided<4>, 256, 264, 4},
      {"strided 528x4", strided<4>, 256, 528, 4},
      {"contiguous 272x4", contiguous<4>, 256, 272, 4},
      {"contiguous 528x4", contiguous<4>, 256, 528, 4},
      {"once 256 threads x 4", once<256, 4>, 256, 0, 4},
      {"once 128 threads x 4", once<128, 4>, 128, 0, 4},
      {"once 128 threads x 2", once<128, 2>, 128, 0, 2},
  };
  int device;
  CHECK(cudaGetDevice(&device));
  cudaDeviceProp properties;
  CHECK(cudaGetDeviceProperties(&properties, device));
  std::printf("%s, %d SMs\n", properties.name, properties.multiProcessorCount);
  // fp64 rows x 31 columns, as 16-byte vectors.
  for (const long rows : {50001L, 60001L, 71873L, 89841L}) {
    const long n = (rows * 31 + 1) / 2;
    float4* data;
    float* partials;
    CHECK(cudaMalloc(&data, kCopies * n * sizeof(float4)));
    CHECK(cudaMalloc(&partials, 8192 * sizeof(float)));
    fill_small_integers<<<1024, 256>>>(reinterpret_cast<float*>(data), kCopies * n * 4);
    CHECK(cudaGetLastError());
    std::vector<float> host(n * 4);
    CHECK(cudaMemcpy(host.data(), data, n * sizeof(float4), cudaMemcpyDeviceToHost));
    double expected = 0;
    for (const float value : host) expected += value;
    std::printf("fp64 %ldx31 (%.2f MB):\n", rows, n * 16e-6);
    for (const Pattern& pattern : patterns) {
      const long chunk = long(pattern.threads) * pattern.loads;
      const long blocks = pattern.blocks ? pattern.blocks : (n + chunk - 1) / chunk;
      pattern.kernel<<<blocks, pattern.threads>>>(data, n, partials);
      CHECK(cudaGetLastError());
      std::vector<float> block_totals(blocks);
      CHECK(cudaMemcpy(block_totals.data(), partials, blocks * sizeof(float),
                       cudaMemcpyDeviceToHost));
      double total = 0;
      for (const float value : block_totals) total += value;
      if (total != expected) {
        std::printf("  %s: total %f, expected %f\n", pattern.name, total, expected);
        return 1;
      }
      const float us = graph_us(
          [&](int k, cudaStream_t stream) {
            pattern.kernel<<<blocks, pattern.threads, 0, stream>>>(data + k * n, n, partials);
            CHECK(cudaGetLastError());
          },
          kCopies, 9);
      std::printf("  %-30s %5ld blocks %7.2f us %6.0f GB/s\n", pattern.name, blocks, us,
                  n * 16e-3 / us);
    }
    CHECK(cudaFree(data));
    CHECK(cudaFree(partials));
  }
  return 0;
}
