// Probe, not part of the build: where the mid sizes' finish spends its time
// after the last block's loads (benchmarks/NOTES.md, session 35, Next 2;
// run on an H100 in session 36, whose NOTES hold what it printed).
// sum_v7's mid shape is modelled here on its own: a 512-thread block a chunk
// (kLoads 16-byte loads a thread), a relaxed ticket taken before the loads,
// the block's total posted to a fence-free mailbox word (the full flag in
// bit 32), and the last ticket's block reading every mailbox, polling the
// empty ones, and adding them in block order. Stamps from %globaltimer:
//  - each block's post (after its loads and its block reduction);
//  - the finisher's start of its reads, the moment its last poll saw a full
//    word, and its store of the total.
// From those: the message (last post -> all seen), the finisher's reduction
// and store (all seen -> stored), and the whole tail (last post -> stored).
// The timer's step is printed first: stamps a few steps apart or closer are
// not resolved (it differs by GPU and driver).
// Graph-replay times of the same kernel without stamps and of a read-only
// twin (a partial a block, no finish) give the finish's cost in the kernel's
// time, which is what issue 11's 1.15x target counts. Inputs are small
// integers, so every total is exact and checked against the host's.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o /tmp/finish_timeline \
//     benchmarks/experiments/finish_timeline.cu && /tmp/finish_timeline
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "probe.cuh"

namespace {

constexpr int kThreads = 512;
constexpr int kWarps = kThreads / 32;
constexpr uint64_t kFull = uint64_t(1) << 32;
constexpr int kMaxBlocks = 4096;

// What one launch leaves: a stamp a block, and the finisher's three.
struct Timeline {
  unsigned long long posted[kMaxBlocks];
  unsigned long long finisher_start;
  unsigned long long all_seen;
  unsigned long long stored;
};

__device__ __forceinline__ unsigned long long now_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ uint64_t load_word(const uint64_t* word) {
  uint64_t bits;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(bits) : "l"(word) : "memory");
  return bits;
}

__device__ __forceinline__ void store_word(uint64_t* word, uint64_t bits) {
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(word), "l"(bits) : "memory");
}

// The block's total, valid in every thread (shuffles, a barrier, every warp
// adding the warp sums in order, as sum_v7's fixed-warp finish).
__device__ __forceinline__ float block_total(float value) {
  __shared__ float warp_sums[kWarps];
  for (int offset = 16; offset > 0; offset /= 2) value += __shfl_down_sync(~0u, value, offset);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = value;
  __syncthreads();
  value = threadIdx.x % 32 < kWarps ? warp_sums[threadIdx.x % 32] : 0.0f;
  for (int offset = kWarps / 2; offset > 0; offset /= 2) {
    value += __shfl_down_sync(~0u, value, offset);
  }
  return __shfl_sync(~0u, value, 0);
}

// kFinish: the mailbox finish (else each block leaves its partial in
// `partials`, the read-only twin); kStamp: record the timeline.
template <int kLoads, bool kFinish, bool kStamp>
__global__ void __launch_bounds__(kThreads)
    mid_sum(const float4* x, uint64_t* mailboxes, unsigned int* counter, float* partials,
            float* total, Timeline* timeline) {
  __shared__ unsigned int ticket;
  __shared__ unsigned long long last_seen;
  if (kFinish && threadIdx.x == 0) {
    asm volatile("atom.relaxed.gpu.global.add.u32 %0, [%1], 1;"
                 : "=r"(ticket)
                 : "l"(counter)
                 : "memory");
  }
  const float block_sum =
      block_total(chunk_share<kThreads, kLoads>(x + int64_t(blockIdx.x) * kThreads * kLoads));
  if (!kFinish) {
    if (threadIdx.x == 0) partials[blockIdx.x] = block_sum;
    return;
  }
  if (threadIdx.x == 0) {
    if (kStamp) timeline->posted[blockIdx.x] = now_ns();
    store_word(mailboxes + blockIdx.x, kFull | __float_as_uint(block_sum));
    last_seen = 0;
  }
  __syncthreads();
  if (ticket != gridDim.x - 1) return;
  if (kStamp && threadIdx.x == 0) timeline->finisher_start = now_ns();
  float partial = 0;
  if (threadIdx.x < gridDim.x) {  // at most kThreads blocks: one mailbox a thread
    uint64_t bits = load_word(mailboxes + threadIdx.x);
    while (!(bits & kFull)) bits = load_word(mailboxes + threadIdx.x);
    if (kStamp) atomicMax(&last_seen, now_ns());
    partial = __uint_as_float(unsigned(bits));
    store_word(mailboxes + threadIdx.x, 0);
  }
  const float grand_total = block_total(partial);
  if (threadIdx.x == 0) {
    *total = grand_total;
    *counter = 0;
    if (kStamp) {
      timeline->stored = now_ns();
      timeline->all_seen = last_seen;
    }
  }
}

// The timer's step: the smallest non-zero difference between successive
// reads. Stamps closer than a few steps apart are not resolved.
__global__ void timer_step(unsigned long long* step) {
  unsigned long long smallest = ~0ull;
  unsigned long long last = now_ns();
  for (int r = 0; r < 100000; ++r) {
    const unsigned long long t = now_ns();
    if (t != last) smallest = min(smallest, t - last);
    last = t;
  }
  *step = smallest;
}

__global__ void fill(float* x, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    x[i] = float((uint32_t(i) * 2654435761u >> 7) % 4);  // small integers: exact sums
  }
}

template <int kLoads>
void run(int log2, int64_t l2_bytes) {
  const int64_t n = int64_t(1) << log2;
  const int blocks = int(n / 4 / (kThreads * kLoads));
  if (blocks > kThreads) return;  // the finisher reads one mailbox a thread
  // Rotating buffers: 4x the L2 in all, so that each launch reads from DRAM.
  const int buffers = int(std::max<int64_t>(2, 4 * l2_bytes / (n * 4)));
  float* x;
  CHECK(cudaMalloc(&x, buffers * n * sizeof(float)));
  fill<<<1024, 256>>>(x, buffers * n);
  CHECK(cudaGetLastError());
  std::vector<float> host(n);
  CHECK(cudaMemcpy(host.data(), x, n * sizeof(float), cudaMemcpyDeviceToHost));
  double expected = 0;
  for (float value : host) expected += value;
  uint64_t* mailboxes;
  unsigned int* counter;
  float *partials, *total;
  Timeline* timelines;
  CHECK(cudaMalloc(&mailboxes, kMaxBlocks * sizeof(uint64_t)));
  CHECK(cudaMemset(mailboxes, 0, kMaxBlocks * sizeof(uint64_t)));
  CHECK(cudaMalloc(&counter, sizeof(unsigned int)));
  CHECK(cudaMemset(counter, 0, sizeof(unsigned int)));
  CHECK(cudaMalloc(&partials, kMaxBlocks * sizeof(float)));
  CHECK(cudaMalloc(&total, sizeof(float)));
  CHECK(cudaMalloc(&timelines, buffers * sizeof(Timeline)));
  const auto buffer = [&](int k) { return reinterpret_cast<const float4*>(x + (k % buffers) * n); };
  const auto launcher = [&](auto kernel) {
    return [&, kernel](int k, cudaStream_t stream) {
      kernel<<<blocks, kThreads, 0, stream>>>(buffer(k), mailboxes, counter, partials, total,
                                              timelines + k % buffers);
      CHECK(cudaGetLastError());
    };
  };
  const auto stamped = launcher(mid_sum<kLoads, true, true>);
  stamped(0, nullptr);
  CHECK(cudaDeviceSynchronize());
  float finished;
  CHECK(cudaMemcpy(&finished, total, sizeof(float), cudaMemcpyDeviceToHost));
  if (double(finished) != expected) {
    std::printf("WRONG at 2^%d: %f, expected %f\n", log2, finished, expected);
    std::exit(1);
  }
  const float read_only = graph_us(launcher(mid_sum<kLoads, false, false>), buffers, 11);
  const float finish = graph_us(launcher(mid_sum<kLoads, true, false>), buffers, 11);
  const float with_stamps = graph_us(stamped, buffers, 11);
  std::vector<Timeline> lines(buffers);
  CHECK(cudaMemcpy(lines.data(), timelines, buffers * sizeof(Timeline), cudaMemcpyDeviceToHost));
  std::vector<double> message, reduction, tail, wait;
  for (const Timeline& line : lines) {
    const unsigned long long first = *std::min_element(line.posted, line.posted + blocks);
    const unsigned long long last = *std::max_element(line.posted, line.posted + blocks);
    message.push_back(double(line.all_seen) - double(last));
    reduction.push_back(double(line.stored) - double(line.all_seen));
    tail.push_back(double(line.stored) - double(last));
    wait.push_back(double(line.finisher_start) - double(first));
  }
  const auto median = [](std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
  };
  std::printf(
      "fp32 2^%d, %d blocks of %d loads: graph %.2f us read-only, %.2f with the finish "
      "(+%.2f), %.2f stamped; ns, median of %d launches: last post -> all seen %.0f, "
      "-> stored %.0f (tail %.0f); finisher starts %.0f after the first post\n",
      log2, blocks, kLoads, read_only, finish, finish - read_only, with_stamps, buffers,
      median(message), median(reduction), median(tail), median(wait));
  CHECK(cudaFree(x));
  CHECK(cudaFree(mailboxes));
  CHECK(cudaFree(counter));
  CHECK(cudaFree(partials));
  CHECK(cudaFree(total));
  CHECK(cudaFree(timelines));
}

}  // namespace

int main() {
  cudaDeviceProp properties;
  CHECK(cudaGetDeviceProperties(&properties, 0));
  unsigned long long* device_step;
  CHECK(cudaMalloc(&device_step, sizeof(unsigned long long)));
  timer_step<<<1, 1>>>(device_step);
  CHECK(cudaGetLastError());
  unsigned long long step;
  CHECK(cudaMemcpy(&step, device_step, sizeof(step), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(device_step));
  std::printf("%s, %d SMs, L2 %d MB; %%globaltimer steps by %llu ns\n", properties.name,
              properties.multiProcessorCount, properties.l2CacheSize >> 20, step);
  for (int repeat = 0; repeat < 2; ++repeat) {
    for (int log2 : {18, 20}) run<2>(log2, properties.l2CacheSize);  // narrow chunks, as sum_v7
    for (int log2 : {20, 21}) run<4>(log2, properties.l2CacheSize);  // wide: 2^21 is 16-bit 2^22
  }
  return 0;
}
