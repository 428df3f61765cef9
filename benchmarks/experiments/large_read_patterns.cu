// Probe, not part of the build: how the read pattern and the finish of a
// large fp32 sum (2^26-2^30) set its time, with nothing else of sum_v7
// around them (benchmarks/NOTES.md, session 34).
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o /tmp/large_read_patterns \
//     benchmarks/experiments/large_read_patterns.cu && /tmp/large_read_patterns
//
// Every kernel reads 32 KB chunks (512 threads x 4 loads of 16 bytes) and
// leaves a partial a block, except `grouped`, which finishes the sum:
//  - runs: one wave of blocks taking chunks in turn (sum_v7's large shape),
//    or a block a range of neighbouring chunks over many waves (Inductor's
//    split reduction: 512 KB a program);
//  - piped: the interleave with the next chunk's loads issued first;
//  - dynamic / ticketed: chunks handed out by an atomic counter (is it the
//    balance across multiprocessors that a block a chunk buys?);
//  - fenced: a block a chunk that publishes with a fence and an atomic
//    (the acq_rel finish's cost a block);
//  - grouped: a block a chunk finished in two levels without a fence
//    (mailbox words with a full flag; a ticket per group of blocks).
// The input is small integers, so every partial is exact and each kernel's
// total must equal the float64 reference before it is timed. Times are
// CUDA-graph replays of 4 launches over two buffers, median of 9.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#define CHECK(x)                                                       \
  do {                                                                 \
    cudaError_t e = (x);                                               \
    if (e != cudaSuccess) {                                            \
      printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      exit(1);                                                         \
    }                                                                  \
  } while (0)
constexpr int kThreads = 512, kLoads = 4;
constexpr long kChunkVec = kThreads * kLoads;  // float4s: 32 KB
__device__ __forceinline__ float4 ld(const float4* a) {
  float4 v;
  asm("ld.global.nc.L1::no_allocate.v4.f32 {%0,%1,%2,%3}, [%4];"
      : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
      : "l"(a));
  return v;
}
__device__ __forceinline__ float chunk_sum(const float4* c) {
  float4 b[kLoads];
#pragma unroll
  for (int u = 0; u < kLoads; ++u) b[u] = ld(c + threadIdx.x + u * kThreads);
  float s = 0;
#pragma unroll
  for (int u = 0; u < kLoads; ++u) s += (b[u].x + b[u].y) + (b[u].z + b[u].w);
  return s;
}
__device__ void block_out(float s, float* out) {
  __shared__ float w[32];
  for (int o = 16; o; o /= 2) s += __shfl_down_sync(~0u, s, o);
  if (threadIdx.x % 32 == 0) w[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x < 32) {
    s = threadIdx.x < kThreads / 32 ? w[threadIdx.x] : 0;
    for (int o = 16; o; o /= 2) s += __shfl_down_sync(~0u, s, o);
    if (!threadIdx.x) out[blockIdx.x] = s;
  }
}
// Runs of `run` chunks; run r goes to block r % gridDim.x (run = 1: v7's interleave;
// gridDim.x * run >= chunks: a block per range, Inductor's shape).
__global__ void __launch_bounds__(kThreads, 4)
    runs(const float4* x, long chunks, int run, float* out) {
  float s = 0;
  for (long r = blockIdx.x; r * run < chunks; r += gridDim.x) {
    const long end = min(chunks, (r + 1) * run);
    for (long c = r * run; c < end; ++c) s += chunk_sum(x + c * kChunkVec);
  }
  block_out(s, out);
}
// v7's interleave with the next chunk's loads issued before this chunk's adds.
__global__ void __launch_bounds__(kThreads, 4)
    piped(const float4* x, long chunks, int, float* out) {
  float s = 0;
  long c = blockIdx.x;
  if (c >= chunks) {
    block_out(s, out);
    return;
  }
  float4 cur[kLoads];
#pragma unroll
  for (int u = 0; u < kLoads; ++u) cur[u] = ld(x + c * kChunkVec + threadIdx.x + u * kThreads);
  for (; c < chunks; c += gridDim.x) {
    float4 nxt[kLoads];
    const long n = c + gridDim.x < chunks ? c + gridDim.x : c;
#pragma unroll
    for (int u = 0; u < kLoads; ++u) nxt[u] = ld(x + n * kChunkVec + threadIdx.x + u * kThreads);
#pragma unroll
    for (int u = 0; u < kLoads; ++u) s += (cur[u].x + cur[u].y) + (cur[u].z + cur[u].w);
#pragma unroll
    for (int u = 0; u < kLoads; ++u) cur[u] = nxt[u];
  }
  block_out(s, out);
}
// Persistent blocks that take the next chunk from a counter (order not fixed:
// only to see whether balance across SMs is what a block a chunk buys).
__device__ unsigned long long next_chunk;
__global__ void __launch_bounds__(kThreads, 4)
    dynamic(const float4* x, long chunks, int, float* out) {
  __shared__ long mine;
  float s = 0;
  for (;;) {
    if (threadIdx.x == 0) mine = long(atomicAdd(&next_chunk, 1ull));
    __syncthreads();
    const long c = mine;
    __syncthreads();
    if (c >= chunks) break;
    s += chunk_sum(x + c * kChunkVec);
  }
  block_out(s, out);
}
// A block a chunk, the chunk taken by a ticket at the start (relaxed), the
// total posted to out[ticket]: the order of dispatch, not blockIdx.
__global__ void __launch_bounds__(kThreads, 4)
    ticketed(const float4* x, long chunks, int, float* out) {
  __shared__ long mine;
  if (threadIdx.x == 0) mine = long(atomicAdd(&next_chunk, 1ull));
  __syncthreads();
  const long c = mine;
  float s = chunk_sum(x + c * kChunkVec);
  __shared__ float w[32];
  for (int o = 16; o; o /= 2) s += __shfl_down_sync(~0u, s, o);
  if (threadIdx.x % 32 == 0) w[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x < 32) {
    s = threadIdx.x < kThreads / 32 ? w[threadIdx.x] : 0;
    for (int o = 16; o; o /= 2) s += __shfl_down_sync(~0u, s, o);
    if (!threadIdx.x) out[c] = s;
  }
}
// A block a chunk whose thread 0 publishes its total with a release fence and
// an atomic on a group counter (the acq_rel finish's cost per block).
__device__ unsigned int group_counters[1 << 14];
__global__ void __launch_bounds__(kThreads, 4)
    fenced(const float4* x, long chunks, int, float* out) {
  float s = chunk_sum(x + blockIdx.x * kChunkVec);
  __shared__ float w[32];
  for (int o = 16; o; o /= 2) s += __shfl_down_sync(~0u, s, o);
  if (threadIdx.x % 32 == 0) w[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x < 32) {
    s = threadIdx.x < kThreads / 32 ? w[threadIdx.x] : 0;
    for (int o = 16; o; o /= 2) s += __shfl_down_sync(~0u, s, o);
    if (!threadIdx.x) {
      out[blockIdx.x] = s;
      __threadfence();
      atomicAdd(&group_counters[(blockIdx.x / 64) % (1 << 14)], 1u);
    }
  }
}
// A block a chunk (blockIdx), finished in two levels with no fence: each block
// takes a ticket on its group's counter at its start (relaxed, beside its
// loads), posts its total to its mailbox word (flag in bit 63); the last of a
// group to start polls the group's words, sums them in order, posts the group
// word and takes the final ticket; the last group finisher sums the group
// words in order. Everything zero at rest.
constexpr unsigned long long kFull = 1ull << 63;
__device__ unsigned int group_tickets[1 << 16];
__device__ unsigned long long chunk_words[1 << 18];
__device__ unsigned long long group_words[1 << 16];
__device__ unsigned int final_ticket;
__device__ double final_total;
__device__ __forceinline__ unsigned long long poll(unsigned long long* w) {
  unsigned long long v;
  do {
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(w));
  } while (!(v & kFull));
  *w = 0;
  return v;
}
__global__ void __launch_bounds__(kThreads, 4)
    grouped(const float4* x, long chunks, int group, float*) {
  __shared__ unsigned int ticket;
  __shared__ float w[32];
  __shared__ double dw[32];
  const long b = blockIdx.x, g = b / group, first = g * group;
  const int size = int(min(long(group), chunks - first));
  if (threadIdx.x == 0) ticket = atomicAdd(&group_tickets[g], 1u);
  float s = chunk_sum(x + b * kChunkVec);
  for (int o = 16; o; o /= 2) s += __shfl_down_sync(~0u, s, o);
  if (threadIdx.x % 32 == 0) w[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    float t = 0;
    for (int i = 0; i < kThreads / 32; ++i) t += w[i];
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(chunk_words + b),
                 "l"(kFull | __float_as_uint(t)));
  }
  if (ticket != unsigned(size - 1)) return;
  float v = 0;
  if (threadIdx.x < size) v = __uint_as_float(unsigned(poll(chunk_words + first + threadIdx.x)));
  __syncthreads();
  for (int o = 16; o; o /= 2) v += __shfl_down_sync(~0u, v, o);
  if (threadIdx.x % 32 == 0) w[threadIdx.x / 32] = v;
  __syncthreads();
  const long groups = (chunks + group - 1) / group;
  if (threadIdx.x == 0) {
    float t = 0;
    for (int i = 0; i < kThreads / 32; ++i) t += w[i];
    group_tickets[g] = 0;
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(group_words + g),
                 "l"(kFull | __float_as_uint(t)));
    ticket = atomicAdd(&final_ticket, 1u);
  }
  __syncthreads();
  if (ticket != unsigned(groups - 1)) return;
  double d = 0;
  for (long i = threadIdx.x; i < groups; i += kThreads)
    d += __uint_as_float(unsigned(poll(group_words + i)));
  for (int o = 16; o; o /= 2) d += __shfl_down_sync(~0u, d, o);
  if (threadIdx.x % 32 == 0) dw[threadIdx.x / 32] = d;
  __syncthreads();
  if (threadIdx.x == 0) {
    double t = 0;
    for (int i = 0; i < kThreads / 32; ++i) t += dw[i];
    final_total = t;
    final_ticket = 0;
  }
}
__global__ void reset_next() {
  next_chunk = 0;
}
// One block sums n partials in order of threads (the finish's read).
__global__ void __launch_bounds__(1024) finish(const float* partials, long n, float* out) {
  float s = 0;
  for (long i = threadIdx.x; i < n; i += 1024) s += partials[i];
  for (int o = 16; o; o /= 2) s += __shfl_down_sync(~0u, s, o);
  __shared__ float w[32];
  if (threadIdx.x % 32 == 0) w[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    float t = 0;
    for (int i = 0; i < 32; ++i) t += w[i];
    out[0] = t;
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
__global__ void ref(const float* x, long n, double* r) {
  double s = 0;
  for (long i = blockIdx.x * long(blockDim.x) + threadIdx.x; i < n;
       i += long(gridDim.x) * blockDim.x)
    s += x[i];
  atomicAdd(r, s);
}
int main() {
  int sms;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaDeviceProp p;
  CHECK(cudaGetDeviceProperties(&p, 0));
  printf("%s, %d SMs, L2 %d MB\n", p.name, sms, p.l2CacheSize >> 20);
  const int wave = 4 * sms;
  for (int log2 : {26, 28, 30}) {
    const long n = 1L << log2, chunks = n / 4 / kChunkVec;
    float* buf[2];
    for (auto& b : buf) {
      CHECK(cudaMalloc(&b, n * 4));
      fill<<<1024, 256>>>(b, n);
    }
    double* dref;
    CHECK(cudaMalloc(&dref, 8));
    CHECK(cudaMemset(dref, 0, 8));
    ref<<<1024, 256>>>(buf[0], n, dref);
    double h;
    CHECK(cudaMemcpy(&h, dref, 8, cudaMemcpyDeviceToHost));
    float* out;
    CHECK(cudaMalloc(&out, (chunks + 1) * 4));
    using Kernel = void (*)(const float4*, long, int, float*);
    struct Shape {
      const char* name;
      int grid;
      int run;
      Kernel k = runs;
    };
    std::vector<Shape> shapes = {{"interleave 1 wave (v7)", wave, 1},
                                 {"range of 1/block", int(chunks), 1},
                                 {"range of 2/block", int((chunks + 1) / 2), 2},
                                 {"range of 4/block", int((chunks + 3) / 4), 4},
                                 {"range of 8/block", int((chunks + 7) / 8), 8},
                                 {"range of 16/block (Inductor)", int((chunks + 15) / 16), 16},
                                 {"range of 64/block", int((chunks + 63) / 64), 64},
                                 {"interleave, next chunk piped", wave, 1, piped},
                                 {"dynamic fetch, 1 wave", wave, 1, dynamic},
                                 {"a chunk a block, by ticket", int(chunks), 1, ticketed},
                                 {"a chunk a block, fenced atomic", int(chunks), 1, fenced},
                                 {"a chunk a block, groups of 64", int(chunks), 64, grouped},
                                 {"a chunk a block, groups of 256", int(chunks), 256, grouped}};
    printf("2^%d fp32 (%ld chunks of 32 KB)\n", log2, chunks);
    for (int round = 0; round < 2; ++round)
      for (auto& s : shapes) {
        reset_next<<<1, 1>>>();
        s.k<<<s.grid, kThreads>>>((const float4*)buf[0], chunks, s.run, out);
        CHECK(cudaGetLastError());
        std::vector<float> o(s.grid);
        CHECK(cudaMemcpy(o.data(), out, s.grid * 4, cudaMemcpyDeviceToHost));
        double t = 0;
        for (float v : o) t += v;
        if (s.k == grouped) CHECK(cudaMemcpyFromSymbol(&t, final_total, sizeof(double)));
        if (t != h) {
          printf("WRONG %s %f %f\n", s.name, t, h);
          exit(1);
        }
        cudaGraph_t g;
        cudaGraphExec_t ge;
        cudaStream_t st;
        CHECK(cudaStreamCreate(&st));
        CHECK(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
        for (int k = 0; k < 4; ++k) {
          if (s.k == dynamic || s.k == ticketed) reset_next<<<1, 1, 0, st>>>();
          s.k<<<s.grid, kThreads, 0, st>>>((const float4*)buf[k % 2], chunks, s.run, out);
        }
        CHECK(cudaStreamEndCapture(st, &g));
        CHECK(cudaGraphInstantiate(&ge, g, 0));
        cudaEvent_t a, b;
        cudaEventCreate(&a);
        cudaEventCreate(&b);
        std::vector<float> ts;
        for (int rep = 0; rep < 9; ++rep) {
          CHECK(cudaGraphLaunch(ge, st));
          cudaEventRecord(a, st);
          CHECK(cudaGraphLaunch(ge, st));
          cudaEventRecord(b, st);
          CHECK(cudaEventSynchronize(b));
          float ms;
          cudaEventElapsedTime(&ms, a, b);
          ts.push_back(ms * 1000 / 4);
        }
        std::sort(ts.begin(), ts.end());
        printf("  %-30s grid %7d: %9.2f us  %6.0f GB/s (min %.2f)\n", s.name, s.grid, ts[4],
               n * 4 / ts[4] / 1e3, ts[0]);
        cudaGraphExecDestroy(ge);
        cudaGraphDestroy(g);
        cudaStreamDestroy(st);
      }
    for (long np : {8192L, 32768L, 131072L}) {
      if (np > chunks) continue;
      cudaStream_t st;
      CHECK(cudaStreamCreate(&st));
      cudaGraph_t g;
      cudaGraphExec_t ge;
      CHECK(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
      for (int k = 0; k < 20; ++k) finish<<<1, 1024, 0, st>>>(out, np, out + chunks);
      CHECK(cudaStreamEndCapture(st, &g));
      CHECK(cudaGraphInstantiate(&ge, g, 0));
      cudaEvent_t a, b;
      cudaEventCreate(&a);
      cudaEventCreate(&b);
      CHECK(cudaGraphLaunch(ge, st));
      cudaEventRecord(a, st);
      CHECK(cudaGraphLaunch(ge, st));
      cudaEventRecord(b, st);
      CHECK(cudaEventSynchronize(b));
      float ms;
      cudaEventElapsedTime(&ms, a, b);
      printf("  one block of 1024 sums %ld partials (L2): %.2f us a launch\n", np, ms * 1000 / 20);
    }
    for (auto b : buf) cudaFree(b);
    cudaFree(out);
    cudaFree(dref);
  }
}
