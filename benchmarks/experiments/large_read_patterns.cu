// Probe, not part of the build: how the read order and the finish of a large
// fp32 sum (2^26-2^30) set its time, with nothing else of sum_v7 around them
// (benchmarks/NOTES.md, session 34, calls 7-20, and session 35, calls 1-4).
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o /tmp/large_read_patterns \
//     benchmarks/experiments/large_read_patterns.cu && /tmp/large_read_patterns
//
// Every kernel reads 32 KB chunks (512 threads x 4 loads of 16 bytes, sum_v7's
// large chunk):
//  - runs: one wave of blocks taking chunks (or runs of neighbouring chunks)
//    in turn (sum_v7's large shape), or a block a range of neighbouring
//    chunks over many waves (Inductor's split reduction reads 512 KB a
//    program), optionally finished by a second launch as Inductor's is;
//    optionally with fewer blocks an SM, capped with dynamic shared memory;
//  - piped: the one-wave order with the next chunk's loads issued first;
//  - dynamic, ticketed: chunks handed out by an atomic counter (is it the
//    balance across multiprocessors that a block a chunk buys?);
//  - fenced: a block a chunk that publishes its total with a fence and an
//    atomic (the acq_rel finish's cost a block);
//  - grouped: a block a chunk (or 2, 4, 16), finished in two levels without
//    a fence, the final finisher's polls one after another or batched.
// All but `grouped` leave a partial a block for the host. The input is small
// integers, so every partial is exact and each kernel's total must equal the
// float64 reference before it is timed. Times are CUDA-graph replays of 4
// launches over two buffers, median of 9.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "probe.cuh"

namespace {

constexpr int kThreads = 512;
constexpr int kLoads = 4;
constexpr long kChunkVectors = kThreads * kLoads;  // float4s: 32 KB
constexpr int kWarps = kThreads / 32;

// The block's total of `value`, in a fixed order, valid in thread 0. Every
// thread of the block calls it; a block may call it again.
template <typename T>
__device__ T block_total(T value) {
  __shared__ T warp_sums[kWarps];
  for (int offset = 16; offset > 0; offset /= 2) value += __shfl_down_sync(~0u, value, offset);
  __syncthreads();  // an earlier call's reads of warp_sums are done
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = value;
  __syncthreads();
  T total = 0;
  if (threadIdx.x == 0) {
    for (int w = 0; w < kWarps; ++w) total += warp_sums[w];
  }
  return total;
}

// Runs of `run` chunks; run r goes to block r % gridDim.x. run = 1 with one
// wave: sum_v7's order; gridDim.x * run >= chunks: a block a range.
__global__ void __launch_bounds__(kThreads, 4)
    runs(const float4* x, long chunks, int run, float* partials) {
  float sum = 0;
  for (long r = blockIdx.x; r * run < chunks; r += gridDim.x) {
    const long end = min(chunks, (r + 1) * run);
    for (long c = r * run; c < end; ++c)
      sum += chunk_share<kThreads, kLoads>(x + c * kChunkVectors);
  }
  const float total = block_total(sum);
  if (threadIdx.x == 0) partials[blockIdx.x] = total;
}

// One wave, chunks in turn, the next chunk's loads issued before this
// chunk's adds.
__global__ void __launch_bounds__(kThreads, 4)
    piped(const float4* x, long chunks, int, float* partials) {
  float sum = 0;
  long c = blockIdx.x;
  if (c < chunks) {
    float4 current[kLoads];
#pragma unroll
    for (int u = 0; u < kLoads; ++u) {
      current[u] = load_streaming(x + c * kChunkVectors + threadIdx.x + u * kThreads);
    }
    for (; c < chunks; c += gridDim.x) {
      const long next = c + gridDim.x < chunks ? c + gridDim.x : c;
      float4 following[kLoads];
#pragma unroll
      for (int u = 0; u < kLoads; ++u) {
        following[u] = load_streaming(x + next * kChunkVectors + threadIdx.x + u * kThreads);
      }
#pragma unroll
      for (int u = 0; u < kLoads; ++u) {
        sum += (current[u].x + current[u].y) + (current[u].z + current[u].w);
        current[u] = following[u];
      }
    }
  }
  const float total = block_total(sum);
  if (threadIdx.x == 0) partials[blockIdx.x] = total;
}

__device__ unsigned long long next_chunk;  // zeroed by reset_next before each launch

__global__ void reset_next() {
  next_chunk = 0;
}

// One wave of blocks that take the next chunk from a counter (the order of
// the adds is not fixed: only to see whether balance across SMs is what a
// block a chunk buys).
__global__ void __launch_bounds__(kThreads, 4)
    dynamic(const float4* x, long chunks, int, float* partials) {
  __shared__ long mine;
  float sum = 0;
  for (;;) {
    if (threadIdx.x == 0) mine = long(atomicAdd(&next_chunk, 1ull));
    __syncthreads();
    const long c = mine;
    __syncthreads();
    if (c >= chunks) break;
    sum += chunk_share<kThreads, kLoads>(x + c * kChunkVectors);
  }
  const float total = block_total(sum);
  if (threadIdx.x == 0) partials[blockIdx.x] = total;
}

// A block a chunk, the chunk chosen by a ticket taken at the start: the
// order of dispatch, not blockIdx. Its total goes to partials[chunk].
__global__ void __launch_bounds__(kThreads, 4)
    ticketed(const float4* x, long, int, float* partials) {
  __shared__ long mine;
  if (threadIdx.x == 0) mine = long(atomicAdd(&next_chunk, 1ull));
  __syncthreads();
  const float total = block_total(chunk_share<kThreads, kLoads>(x + mine * kChunkVectors));
  if (threadIdx.x == 0) partials[mine] = total;
}

__device__ unsigned int group_counters[1 << 14];

// A block a chunk whose thread 0 publishes its total with a fence and an
// atomic on its group's counter.
__global__ void __launch_bounds__(kThreads, 4) fenced(const float4* x, long, int, float* partials) {
  const float total = block_total(chunk_share<kThreads, kLoads>(x + blockIdx.x * kChunkVectors));
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = total;
    __threadfence();
    atomicAdd(&group_counters[(blockIdx.x / 64) % (1 << 14)], 1u);
  }
}

// The two-level finish: blocks post their totals to mailbox words (the full
// flag in bit 63, relaxed stores, no fence) and take a ticket on their
// group's counter; the group's finisher polls the group's words, adds them in
// order, posts the group's word and takes the final ticket; the last group
// finisher adds the group words in order. Everything is zero at rest.
enum class Finisher {
  kLastToStart,   // the ticket is taken as the block starts, beside its loads
  kLastToArrive,  // the ticket is taken after the post
  kNone,          // tickets and posts only: no total (unchecked)
};

constexpr unsigned long long kFull = 1ull << 63;
__device__ unsigned int group_tickets[1 << 16];
__device__ unsigned long long chunk_words[1 << 18];
__device__ unsigned long long group_words[1 << 16];
__device__ unsigned int final_ticket;
__device__ double final_total;

__device__ __forceinline__ void post(unsigned long long* word, float value) {
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(word),
               "l"(kFull | __float_as_uint(value)));
}

__device__ __forceinline__ unsigned long long load_word(const unsigned long long* word) {
  unsigned long long bits;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(bits) : "l"(word));
  return bits;
}

// The value in `word` once it is full (`bits`: a load already made);
// leaves it empty.
__device__ __forceinline__ float collect(unsigned long long* word, unsigned long long bits = 0) {
  while (!(bits & kFull)) bits = load_word(word);
  *word = 0;
  return __uint_as_float(unsigned(bits));
}

// The final finisher's polls, batched: every word of the thread loaded
// before it waits on any. Up to kThreads * kMaxFinalWords groups.
constexpr int kMaxFinalWords = 8;

__device__ __forceinline__ double collect_batched(unsigned long long* words, long count) {
  unsigned long long bits[kMaxFinalWords];
#pragma unroll
  for (int k = 0; k < kMaxFinalWords; ++k) {
    const long i = threadIdx.x + long(k) * kThreads;
    bits[k] = i < count ? load_word(words + i) : 0;
  }
  double sum = 0;
#pragma unroll
  for (int k = 0; k < kMaxFinalWords; ++k) {
    const long i = threadIdx.x + long(k) * kThreads;
    if (i < count) sum += collect(words + i, bits[k]);
  }
  return sum;
}

// kChunksPerBlock neighbouring chunks a block; kBatchedPolls: the final
// finisher loads all its words before waiting on any.
template <Finisher kFinisher, int kChunksPerBlock = 1, bool kBatchedPolls = false>
__global__ void __launch_bounds__(kThreads, 4)
    grouped(const float4* x, long chunks, int group, float*) {
  __shared__ unsigned int ticket;
  const long blocks = (chunks + kChunksPerBlock - 1) / kChunksPerBlock;
  const long block = blockIdx.x;
  const long g = block / group;
  const long first = g * group;
  const int members = int(min(long(group), blocks - first));
  if (kFinisher != Finisher::kLastToArrive && threadIdx.x == 0) {
    ticket = atomicAdd(&group_tickets[g], 1u);
  }
  float share = 0;
  for (long c = block * kChunksPerBlock; c < min(chunks, (block + 1) * kChunksPerBlock); ++c) {
    share += chunk_share<kThreads, kLoads>(x + c * kChunkVectors);
  }
  const float total = block_total(share);
  if (threadIdx.x == 0) {
    post(chunk_words + block, total);
    if (kFinisher == Finisher::kLastToArrive) ticket = atomicAdd(&group_tickets[g], 1u);
  }
  __syncthreads();
  if (kFinisher == Finisher::kNone || ticket != unsigned(members - 1)) return;
  const float member = threadIdx.x < members ? collect(chunk_words + first + threadIdx.x) : 0.0f;
  const float group_total = block_total(member);
  const long groups = (blocks + group - 1) / group;
  if (threadIdx.x == 0) {
    group_tickets[g] = 0;
    post(group_words + g, group_total);
    ticket = atomicAdd(&final_ticket, 1u);
  }
  __syncthreads();
  if (ticket != unsigned(groups - 1)) return;
  double sum = 0;
  if (kBatchedPolls) {
    sum = collect_batched(group_words, groups);
  } else {
    for (long i = threadIdx.x; i < groups; i += kThreads) sum += collect(group_words + i);
  }
  const double grand_total = block_total(sum);
  if (threadIdx.x == 0) {
    final_total = grand_total;
    final_ticket = 0;
  }
}

// One block of 1,024 threads adds n partials (a second launch's finish), in
// Acc: double where the total must be exact.
template <typename Acc>
__global__ void __launch_bounds__(1024) finish(const float* partials, long n, Acc* out) {
  Acc sum = 0;
  for (long i = threadIdx.x; i < n; i += 1024) sum += partials[i];
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(~0u, sum, offset);
  __shared__ Acc warp_sums[32];
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    Acc total = 0;
    for (int w = 0; w < 32; ++w) total += warp_sums[w];
    out[0] = total;
  }
}

__global__ void fill(float* x, long n) {
  for (long i = blockIdx.x * long(blockDim.x) + threadIdx.x; i < n;
       i += long(gridDim.x) * blockDim.x) {
    unsigned h = unsigned(i) * 2654435761u ^ unsigned(i >> 32) * 40503u;
    h ^= h >> 15;
    x[i] = float(h % 4);  // small integers: every partial is exact
  }
}

__global__ void reference(const float* x, long n, double* total) {
  double sum = 0;
  for (long i = blockIdx.x * long(blockDim.x) + threadIdx.x; i < n;
       i += long(gridDim.x) * blockDim.x) {
    sum += x[i];
  }
  atomicAdd(total, sum);
}

using Kernel = void (*)(const float4*, long, int, float*);

// What a pattern's launch leaves to check: a partial a block, the finished
// total, the total of a second launch that adds the partials (Inductor's
// split reduction), or nothing (tickets and posts only).
enum class Result { kPartials, kTotal, kSecondLaunch, kUnchecked };

struct Pattern {
  const char* name;
  int grid;
  int run;  // chunks a run, or blocks a group
  Kernel kernel = runs;
  int shared_bytes = 0;  // dynamic shared memory: caps the blocks an SM
  Result result = Result::kPartials;
};

}  // namespace

int main() {
  int sms;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaDeviceProp properties;
  CHECK(cudaGetDeviceProperties(&properties, 0));
  std::printf("%s, %d SMs, L2 %d MB\n", properties.name, sms, properties.l2CacheSize >> 20);
  CHECK(cudaFuncSetAttribute(runs, cudaFuncAttributeMaxDynamicSharedMemorySize, 110 << 10));
  CHECK(cudaFuncSetAttribute(grouped<Finisher::kLastToArrive, 16, true>,
                             cudaFuncAttributeMaxDynamicSharedMemorySize, 110 << 10));
  const int wave = 4 * sms;
  const int three_an_sm = 64 << 10;  // 3 blocks of 64 KB fit an SM's 228 KB, 4 do not
  for (int log2 : {26, 28, 30}) {
    const long n = 1L << log2;
    const long chunks = n / 4 / kChunkVectors;
    const int all = int(chunks);
    float* buffers[2];
    for (auto& buffer : buffers) {
      CHECK(cudaMalloc(&buffer, n * sizeof(float)));
      fill<<<1024, 256>>>(buffer, n);
      CHECK(cudaGetLastError());
    }
    double* device_reference;
    CHECK(cudaMalloc(&device_reference, sizeof(double)));
    CHECK(cudaMemset(device_reference, 0, sizeof(double)));
    reference<<<1024, 256>>>(buffers[0], n, device_reference);
    CHECK(cudaGetLastError());
    double expected;
    CHECK(cudaMemcpy(&expected, device_reference, sizeof(double), cudaMemcpyDeviceToHost));
    float* partials;
    CHECK(cudaMalloc(&partials, (chunks + 1) * sizeof(float)));
    double* second_total;
    CHECK(cudaMalloc(&second_total, sizeof(double)));
    const std::vector<Pattern> patterns = {
        {"one wave, chunks in turn (v7)", wave, 1},
        {"one wave of 3 x SMs blocks", 3 * sms, 1},
        {"one wave, runs of 2 chunks", wave, 2},
        {"one wave, runs of 4 chunks", wave, 4},
        {"one wave, runs of 16 chunks", wave, 16},
        {"a block a chunk", all, 1},
        {"a block 2 chunks", (all + 1) / 2, 2},
        {"a block 4 chunks", (all + 3) / 4, 4},
        {"a block 16 chunks (Inductor)", (all + 15) / 16, 16},
        {"a block 16 chunks, 3 an SM", (all + 15) / 16, 16, runs, three_an_sm},
        {"a block 64 chunks", (all + 63) / 64, 64},
        {"one wave, next chunk's loads first", wave, 1, piped},
        {"one wave, chunks from a counter", wave, 1, dynamic},
        {"a block a chunk, chunk by ticket", all, 1, ticketed},
        {"a block a chunk, fence + atomic", all, 1, fenced},
        {"groups of 64, last to start finishes", all, 64, grouped<Finisher::kLastToStart>, 0,
         Result::kTotal},
        {"groups of 64, last to arrive finishes", all, 64, grouped<Finisher::kLastToArrive>, 0,
         Result::kTotal},
        {"groups of 256, last to arrive finishes", all, 256, grouped<Finisher::kLastToArrive>, 0,
         Result::kTotal},
        {"groups of 64, last to arrive, batched polls", all, 64,
         grouped<Finisher::kLastToArrive, 1, true>, 0, Result::kTotal},
        {"2 chunks a block, groups of 64, batched polls", (all + 1) / 2, 64,
         grouped<Finisher::kLastToArrive, 2, true>, 0, Result::kTotal},
        {"4 chunks a block, groups of 64, batched polls", (all + 3) / 4, 64,
         grouped<Finisher::kLastToArrive, 4, true>, 0, Result::kTotal},
        {"16 chunks a block, groups of 64, batched", (all + 15) / 16, 64,
         grouped<Finisher::kLastToArrive, 16, true>, 0, Result::kTotal},
        {"16 chunks a block, groups of 16, batched", (all + 15) / 16, 16,
         grouped<Finisher::kLastToArrive, 16, true>, 0, Result::kTotal},
        {"16 chunks, 3 an SM, groups of 64, batched", (all + 15) / 16, 64,
         grouped<Finisher::kLastToArrive, 16, true>, three_an_sm, Result::kTotal},
        {"16 chunks a block + a finishing launch", (all + 15) / 16, 16, runs, 0,
         Result::kSecondLaunch},
        {"group tickets and posts, no finish", all, 64, grouped<Finisher::kNone>, 0,
         Result::kUnchecked},
    };
    std::printf("2^%d fp32 (%ld chunks of 32 KB)\n", log2, chunks);
    for (int round = 0; round < 2; ++round) {
      for (const Pattern& pattern : patterns) {
        const bool counted = pattern.kernel == dynamic || pattern.kernel == ticketed;
        const bool finished = pattern.result == Result::kTotal;
        const bool second = pattern.result == Result::kSecondLaunch;
        const bool unfinished = pattern.result == Result::kUnchecked;
        auto launch = [&](int buffer, cudaStream_t stream) {
          if (counted) reset_next<<<1, 1, 0, stream>>>();
          pattern.kernel<<<pattern.grid, kThreads, pattern.shared_bytes, stream>>>(
              reinterpret_cast<const float4*>(buffers[buffer % 2]), chunks, pattern.run, partials);
          CHECK(cudaGetLastError());
          if (second) {
            finish<<<1, 1024, 0, stream>>>(partials, pattern.grid, second_total);
            CHECK(cudaGetLastError());
          }
        };
        launch(0, nullptr);
        CHECK(cudaDeviceSynchronize());
        double total = 0;
        if (finished) {
          CHECK(cudaMemcpyFromSymbol(&total, final_total, sizeof(double)));
        } else if (second) {
          CHECK(cudaMemcpy(&total, second_total, sizeof(double), cudaMemcpyDeviceToHost));
        } else if (!unfinished) {
          std::vector<float> host(pattern.grid);
          CHECK(cudaMemcpy(host.data(), partials, pattern.grid * sizeof(float),
                           cudaMemcpyDeviceToHost));
          for (float partial : host) total += partial;
        }
        if (!unfinished && total != expected) {
          std::printf("WRONG %s: %f, expected %f\n", pattern.name, total, expected);
          return 1;
        }
        const float us = graph_us(launch, 4, 9);  // launches alternate the two buffers
        std::printf("  %-40s grid %7d: %9.2f us %6.0f GB/s\n", pattern.name, pattern.grid, us,
                    n * sizeof(float) / us / 1e3);
        if (unfinished) {  // leave the finishing state zero again
          void* address;
          CHECK(cudaGetSymbolAddress(&address, chunk_words));
          CHECK(cudaMemset(address, 0, sizeof(chunk_words)));
          CHECK(cudaGetSymbolAddress(&address, group_tickets));
          CHECK(cudaMemset(address, 0, sizeof(group_tickets)));
          CHECK(cudaDeviceSynchronize());
        }
      }
    }
    for (long count : {8192L, 32768L, 131072L}) {
      if (count > chunks) continue;
      const float us = graph_us(
          [&](int, cudaStream_t stream) {
            finish<<<1, 1024, 0, stream>>>(partials, count, partials + chunks);
            CHECK(cudaGetLastError());
          },
          20, 9);
      std::printf("  one block of 1,024 threads adds %ld partials: %.2f us a launch\n", count, us);
    }
    for (float* buffer : buffers) CHECK(cudaFree(buffer));
    CHECK(cudaFree(partials));
    CHECK(cudaFree(device_reference));
    CHECK(cudaFree(second_total));
  }
  return 0;
}
