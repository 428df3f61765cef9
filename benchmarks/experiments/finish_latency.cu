// Probe, not part of the build: the latencies that any one-kernel finish of a
// sum across blocks must pay after the last block's loads return, for
// issue 11's "within 1.15x of the one-launch read-only kernel" at mid sizes
// (benchmarks/NOTES.md, session 35). A finish outside a thread-block cluster
// goes through L2: the last block adds its share (a block reduction), makes
// it visible to the finishing block (one message between multiprocessors),
// and the finisher adds the partials (a second block reduction) and stores
// the total. Measured here on their own, one thread or one block at a time:
//  - an L2 hit: a dependent chain of relaxed gpu-scope loads over 1 MB;
//  - an atomic round trip: a dependent chain of atomicAdd on words in L2;
//  - a message between two multiprocessors: two blocks ping-pong on one word
//    with relaxed stores and polls (the fence-free mailbox of reduce.cuh),
//    and with a release store and acquire polls;
//  - a 512-thread block reduction (warp shuffles, one barrier, warp sums),
//    with a broadcast that chains one to the next.
// Times come from %globaltimer (ns) over many repetitions. Session 35's
// numbers (NOTES) came from a version that warmed 64 lines of the chains
// before timing them, relying on the host's copy to leave the 1 MB in L2
// (173 ns is an L2 hit's time, not DRAM's); this one warms every line first
// and was not rerun.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o /tmp/finish_latency \
//     benchmarks/experiments/finish_latency.cu && /tmp/finish_latency
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "probe.cuh"

namespace {

__device__ __forceinline__ unsigned long long now_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ unsigned int load_relaxed(const unsigned int* address) {
  unsigned int value;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(value) : "l"(address) : "memory");
  return value;
}

__device__ __forceinline__ unsigned int load_acquire(const unsigned int* address) {
  unsigned int value;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(value) : "l"(address) : "memory");
  return value;
}

__device__ __forceinline__ void store_relaxed(unsigned int* address, unsigned int value) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(address), "r"(value) : "memory");
}

__device__ __forceinline__ void store_release(unsigned int* address, unsigned int value) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(address), "r"(value) : "memory");
}

// ns a dependent load: `next` is a random cycle over the buffer.
__global__ void load_chain(const unsigned int* next, int warm_steps, int steps, unsigned int* sink,
                           unsigned long long* ns) {
  unsigned int i = 0;
  for (int s = 0; s < warm_steps; ++s) i = load_relaxed(next + i);  // every line into L2
  const unsigned long long start = now_ns();
  for (int s = 0; s < steps; ++s) i = load_relaxed(next + i);
  *ns = now_ns() - start;
  *sink = i;
}

// ns a dependent atomicAdd: each returns the word's old value (the next index).
__global__ void atomic_chain(unsigned int* next, int warm_steps, int steps, unsigned int* sink,
                             unsigned long long* ns) {
  unsigned int i = 0;
  for (int s = 0; s < warm_steps; ++s) i = atomicAdd(next + i, 0u);
  const unsigned long long start = now_ns();
  for (int s = 0; s < steps; ++s) i = atomicAdd(next + i, 0u);
  *ns = now_ns() - start;
  *sink = i;
}

// Two blocks of one thread pass a count back and forth through `word`:
// block 0 writes odd values, block 1 even ones. ns a round trip (two
// messages). Each block records its multiprocessor.
template <bool kReleaseAcquire>
__global__ void ping_pong(unsigned int* word, int rounds, unsigned long long* ns,
                          unsigned int* sm_ids) {
  unsigned int sm;
  asm volatile("mov.u32 %0, %smid;" : "=r"(sm));
  sm_ids[blockIdx.x] = sm;
  auto wait_for = [&](unsigned int value) {
    while ((kReleaseAcquire ? load_acquire(word) : load_relaxed(word)) != value) {
    }
  };
  auto send = [&](unsigned int value) {
    kReleaseAcquire ? store_release(word, value) : store_relaxed(word, value);
  };
  const unsigned long long start = now_ns();
  for (int r = 0; r < rounds; ++r) {
    if (blockIdx.x == 0) {
      send(2 * r + 1);
      wait_for(2 * r + 2);
    } else {
      wait_for(2 * r + 1);
      send(2 * r + 2);
    }
  }
  if (blockIdx.x == 0) *ns = now_ns() - start;
}

// ns a 512-thread block reduction of one float a thread, as the finish's
// (shuffles within warps, a barrier, thread 0 adds the warp sums), each
// followed by a broadcast of its total (two more barriers) so that the next
// depends on it: an upper bound on one reduction, not a lower one.
__global__ void __launch_bounds__(512)
    block_reductions(int repeats, float* sink, unsigned long long* ns) {
  __shared__ float warp_sums[16];
  float value = float(threadIdx.x);
  __syncthreads();
  const unsigned long long start = now_ns();
  for (int r = 0; r < repeats; ++r) {
    for (int offset = 16; offset > 0; offset /= 2) value += __shfl_down_sync(~0u, value, offset);
    if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = value;
    __syncthreads();
    float total = 0;
    if (threadIdx.x == 0) {
      for (int w = 0; w < 16; ++w) total += warp_sums[w];
      warp_sums[0] = total;
    }
    __syncthreads();
    value = warp_sums[0] * 0.5f + float(threadIdx.x);  // the next one depends on this one
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    *ns = now_ns() - start;
    *sink = value;
  }
}

unsigned long long read_ns(const unsigned long long* device_ns) {
  unsigned long long ns;
  CHECK(cudaMemcpy(&ns, device_ns, sizeof(ns), cudaMemcpyDeviceToHost));
  return ns;
}

}  // namespace

int main() {
  cudaDeviceProp properties;
  CHECK(cudaGetDeviceProperties(&properties, 0));
  std::printf("%s, %d SMs, L2 %d MB\n", properties.name, properties.multiProcessorCount,
              properties.l2CacheSize >> 20);
  constexpr int kWords = 1 << 18;  // 1 MB: in L2, not in L1
  std::vector<unsigned int> order(kWords), cycle(kWords);
  for (int i = 0; i < kWords; ++i) order[i] = i;
  unsigned int state = 12345;
  for (int i = kWords - 1; i > 0; --i) {  // a random permutation, then one cycle through it
    state = state * 1664525u + 1013904223u;
    std::swap(order[i], order[state % (i + 1)]);
  }
  for (int i = 0; i < kWords; ++i) cycle[order[i]] = order[(i + 1) % kWords];
  unsigned int *next, *sink, *word, *sm_ids;
  unsigned long long* ns;
  float* float_sink;
  CHECK(cudaMalloc(&next, kWords * sizeof(unsigned int)));
  CHECK(cudaMalloc(&sink, sizeof(unsigned int)));
  CHECK(cudaMalloc(&word, sizeof(unsigned int)));
  CHECK(cudaMalloc(&sm_ids, 2 * sizeof(unsigned int)));
  CHECK(cudaMalloc(&ns, sizeof(unsigned long long)));
  CHECK(cudaMalloc(&float_sink, sizeof(float)));
  for (int repeat = 0; repeat < 3; ++repeat) {
    constexpr int kSteps = 20000;
    CHECK(cudaMemcpy(next, cycle.data(), kWords * sizeof(unsigned int), cudaMemcpyHostToDevice));
    load_chain<<<1, 1>>>(next, kWords, kSteps, sink, ns);
    CHECK(cudaGetLastError());
    const double load = double(read_ns(ns)) / kSteps;
    atomic_chain<<<1, 1>>>(next, kWords, kSteps, sink, ns);
    CHECK(cudaGetLastError());
    const double atomic = double(read_ns(ns)) / kSteps;
    constexpr int kRounds = 20000;
    double message[2];
    unsigned int sms[2][2];
    for (int acquire = 0; acquire < 2; ++acquire) {
      CHECK(cudaMemset(word, 0, sizeof(unsigned int)));
      if (acquire) {
        ping_pong<true><<<2, 1>>>(word, kRounds, ns, sm_ids);
      } else {
        ping_pong<false><<<2, 1>>>(word, kRounds, ns, sm_ids);
      }
      CHECK(cudaGetLastError());
      message[acquire] = double(read_ns(ns)) / kRounds / 2;
      CHECK(cudaMemcpy(sms[acquire], sm_ids, sizeof(sms[acquire]), cudaMemcpyDeviceToHost));
    }
    constexpr int kReductions = 20000;
    block_reductions<<<1, 512>>>(kReductions, float_sink, ns);
    CHECK(cudaGetLastError());
    const double reduction = double(read_ns(ns)) / kReductions;
    std::printf(
        "L2 hit %.0f ns, atomic %.0f ns, message: relaxed %.0f ns (SM %u -> SM %u), "
        "release/acquire %.0f ns (SM %u -> SM %u); 512-thread block reduction %.0f ns\n",
        load, atomic, message[0], sms[0][0], sms[0][1], message[1], sms[1][0], sms[1][1],
        reduction);
  }
  return 0;
}
