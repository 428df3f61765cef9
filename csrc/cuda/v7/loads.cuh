// Global loads for sum_v7: the split of a span into vectors, 16-byte loads
// (8-byte ones for a few small 16-bit sums), and the per-architecture facts
// its launch bounds need. (The cluster hand-off, sm_90 and newer, is
// cluster_handoff.cuh.)
#pragma once

#include <c10/util/BFloat16.h>

#include <cstdint>
#include <cstring>
#include <iterator>
#include <type_traits>

namespace torch_reduce::cuda::v7 {

constexpr int kVectorBytes = 16;

template <typename T, int kSize>
struct alignas(sizeof(T) * kSize) AlignedVector {
  T values[kSize];
};

template <typename T>
using Vector = AlignedVector<T, kVectorBytes / sizeof(T)>;

template <typename T>
constexpr int kElementsPerVector = kVectorBytes / sizeof(T);

// Half a vector, 8 bytes: the one-block shape's load at a few 16-bit sizes
// (contiguous_sum.cu).
template <typename T>
using HalfVector = AlignedVector<T, kVectorBytes / 2 / sizeof(T)>;

// Resident threads per multiprocessor of the architecture being compiled, so
// that __launch_bounds__ asks for as many blocks as the target can hold
// (Turing 1024; Ampere GA10x, Ada and consumer Blackwell 1536; A100, Hopper
// and data-centre Blackwell 2048).
constexpr int max_threads_per_sm() {
#if !defined(__CUDA_ARCH__)
  return 2048;
#elif __CUDA_ARCH__ == 750
  return 1024;
#elif __CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 870 || __CUDA_ARCH__ == 890 || __CUDA_ARCH__ >= 1200
  return 1536;
#else
  return 2048;
#endif
}

// Blocks per multiprocessor to ask __launch_bounds__ for: as many as the
// target holds, or fewer where each thread needs more than the resulting
// register budget (every target has 64K registers per multiprocessor).
template <int kBlock, int kRegistersPerThread = 32>
constexpr int min_blocks_per_sm() {
  constexpr int by_threads = max_threads_per_sm() / kBlock;
  constexpr int by_registers = 65536 / (kRegistersPerThread * kBlock);
  constexpr int blocks = by_threads < by_registers ? by_threads : by_registers;
  return blocks > 0 ? blocks : 1;
}

// A 16-byte load (8 bytes for a HalfVector) of data nothing writes during
// the kernel. From Ampere on it bypasses L1 (the input is read once; Turing
// has no such hint), and it leaves L2 its default fill. Lines of 256 bytes
// (L2::256B) kept more traffic in flight while few loads were (+0.3 to +8%
// at 2^20-2^22 fp32 on an H100, session 1), but cost an H200 (HBM3e)
// bandwidth once every multiprocessor streamed: 8% at 2^26-2^30 in the
// contiguous sum, 4-6% in the row sums, 5-7% in the column sums, 2.5% at
// 2^22 in the mid split; the H100 was level in each once the kernels were
// tuned (benchmarks/NOTES.md, sessions 5, 24 and 25).
//
// kL1Fill kAllocate drops the L1 hint: for the 8-byte loads of one-block
// 16-bit sums of at most 256 half vectors (2 KB), and for the first L2 of
// chunks after the tail of a many-wave sweep, with which L2 evicts a
// producer's dirty lines early (contiguous_sum.cu says what each gained and
// what the hint's absence cost elsewhere).
enum class L1Fill { kNoAllocate, kAllocate };
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define TORCH_REDUCE_V7_LOAD_STREAMING "ld.global.nc.L1::no_allocate"
#else
#define TORCH_REDUCE_V7_LOAD_STREAMING "ld.global.nc"
#endif
template <L1Fill kL1Fill = L1Fill::kNoAllocate, typename T, int kSize>
__device__ __forceinline__
    AlignedVector<T, kSize> load_streaming(const AlignedVector<T, kSize>* address) {
  static_assert(sizeof(T) * kSize == 16 || sizeof(T) * kSize == 8, "16- or 8-byte loads");
  std::conditional_t<sizeof(T) * kSize == 16, uint4, uint2> bits;
  if constexpr (sizeof(bits) == 16 && kL1Fill == L1Fill::kAllocate) {
    asm("ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];"
        : "=r"(bits.x), "=r"(bits.y), "=r"(bits.z), "=r"(bits.w)
        : "l"(address));
  } else if constexpr (sizeof(bits) == 16) {
    asm(TORCH_REDUCE_V7_LOAD_STREAMING ".v4.u32 {%0, %1, %2, %3}, [%4];"
        : "=r"(bits.x), "=r"(bits.y), "=r"(bits.z), "=r"(bits.w)
        : "l"(address));
  } else if constexpr (kL1Fill == L1Fill::kAllocate) {
    asm("ld.global.nc.v2.u32 {%0, %1}, [%2];" : "=r"(bits.x), "=r"(bits.y) : "l"(address));
  } else {
    asm(TORCH_REDUCE_V7_LOAD_STREAMING ".v2.u32 {%0, %1}, [%2];"
        : "=r"(bits.x), "=r"(bits.y)
        : "l"(address));
  }
  AlignedVector<T, kSize> vector;
  memcpy(&vector, &bits, sizeof(vector));
  return vector;
}
#undef TORCH_REDUCE_V7_LOAD_STREAMING

// Where `numel` elements from `input` split into a scalar head up to the first
// 16-byte boundary, whole vectors, and a scalar tail. Index is int where the
// launch keeps the span under 2^31 elements, int64_t otherwise.
template <typename Index>
struct VectorSplit {
  int head;
  Index num_vectors;
  Index tail_begin;
};

template <typename Index, typename InT>
__device__ __forceinline__ VectorSplit<Index> split_into_vectors(const InT* input, Index numel) {
  constexpr int kVec = kElementsPerVector<InT>;
  const int misalignment = int(reinterpret_cast<uintptr_t>(input) % kVectorBytes / sizeof(InT));
  const int head = misalignment == 0 ? 0 : int(min(numel, Index(kVec - misalignment)));
  const Index num_vectors = (numel - head) / kVec;
  return {head, num_vectors, head + num_vectors * kVec};
}

// A bfloat16 is a float's high half, so a pair in one 32-bit word widens
// with a shift (the first element, the word's low half: little-endian) and
// a mask (the second): 2 instructions a pair, where c10's conversion first
// takes the word apart (3 a pair in the sm_90 SASS).
__device__ __forceinline__ float first_of_bfloat16_pair(uint32_t pair) {
  return __uint_as_float(pair << 16);
}
__device__ __forceinline__ float second_of_bfloat16_pair(uint32_t pair) {
  return __uint_as_float(pair & 0xffff0000u);
}

// The sum of a vector's elements in order, from the first element rather
// than from 0: nvcc keeps an add of 0 (0 + -0.0 is +0.0). The bits are the
// same where the caller adds the result to an accumulator that starts at
// +0, as every caller does: the two differ only for a vector of -0.0
// elements (-0.0 against +0.0), which that add makes +0.0. NaN and inf go
// through the same adds in the same order.
template <typename AccT, typename T, int kSize>
__device__ __forceinline__ AccT vector_sum(const AlignedVector<T, kSize>& vector) {
  if constexpr (std::is_same_v<T, c10::BFloat16> && std::is_same_v<AccT, float>) {
    uint32_t words[sizeof(vector) / sizeof(uint32_t)];
    memcpy(words, &vector, sizeof(words));
    AccT sum = first_of_bfloat16_pair(words[0]);
    sum += second_of_bfloat16_pair(words[0]);
#pragma unroll
    for (int w = 1; w < int(std::size(words)); ++w) {
      sum += first_of_bfloat16_pair(words[w]);
      sum += second_of_bfloat16_pair(words[w]);
    }
    return sum;
  } else {
    AccT sum = static_cast<AccT>(vector.values[0]);
#pragma unroll
    for (int e = 1; e < kSize; ++e) sum += static_cast<AccT>(vector.values[e]);
    return sum;
  }
}

// One round: the sum of vectors[thread + u * stride] for u < kLoads,
// those below `count` (at least 1). Every thread loads all of its vectors,
// those past `count` from the last one, so that the loads are one straight
// run: predicated loads let nvcc 13 start summing the first before issuing
// the last (two memory latencies instead of one, at fp32).
template <typename AccT, int kLoads, typename InT>
__device__ __forceinline__ AccT round_sum(const Vector<InT>* vectors, int count, int thread,
                                          int stride) {
  Vector<InT> batch[kLoads];
#pragma unroll
  for (int u = 0; u < kLoads; ++u) {
    batch[u] = load_streaming(vectors + min(thread + u * stride, count - 1));
  }
  AccT sum = AccT(0);
#pragma unroll
  for (int u = 0; u < kLoads; ++u) {
    if (thread + u * stride < count) sum += vector_sum<AccT>(batch[u]);
  }
  return sum;
}

// A thread's round at fixed offsets: vectors[u * stride] for u < kLoads,
// every load made, so that they are one straight run, at addresses from one
// pointer and fixed offsets (immediates where `stride` is a constant): no
// clamp and no bound.
template <int kLoads, L1Fill kL1Fill, typename InT, int kSize>
__device__ __forceinline__ void load_round(const AlignedVector<InT, kSize>* vectors, int stride,
                                           AlignedVector<InT, kSize> (&batch)[kLoads]) {
#pragma unroll
  for (int u = 0; u < kLoads; ++u) batch[u] = load_streaming<kL1Fill>(vectors + u * stride);
}

// One round at fixed offsets (load_round) that adds only the vectors at or
// past `from`: the sum of vectors[u * stride] for u < kLoads with u * stride
// >= from. The adds it keeps are round_sum's, in its order, from the same
// +0: the same bits. Float sums add +0 for a skipped vector instead of
// branching around its add, so that nvcc interleaves the vectors' sums
// rather than running them one branch after another: the same bits, as the
// running sum starts at +0 and is never -0 (+0 + -0 is +0), and x + +0 is x
// for every other x, NaN and inf included. H100 graph (benchmarks/NOTES.md,
// session 37): 16-bit 2^18 2.52-2.57 us against 2.67-2.72, 2^22 5.36-5.40
// against 5.54-5.57, after a producer 2^22 0.15-0.2 us less; fp32 level.
// Integer sums keep the branch: int32 lost 0.02-0.06 us with the select.
template <typename AccT, int kLoads, typename InT, int kSize>
__device__ __forceinline__ AccT round_sum_from(const AlignedVector<InT, kSize>* vectors, int from,
                                               int stride) {
  AlignedVector<InT, kSize> batch[kLoads];
  load_round<kLoads, L1Fill::kNoAllocate>(vectors, stride, batch);
  AccT sum = AccT(0);
  if constexpr (std::is_floating_point_v<AccT>) {
    AccT sums[kLoads];
#pragma unroll
    for (int u = 0; u < kLoads; ++u) sums[u] = vector_sum<AccT>(batch[u]);
#pragma unroll
    for (int u = 0; u < kLoads; ++u) sum += u * stride >= from ? sums[u] : AccT(0);
  } else {
#pragma unroll
    for (int u = 0; u < kLoads; ++u) {
      if (u * stride >= from) sum += vector_sum<AccT>(batch[u]);
    }
  }
  return sum;
}

// One round where every vector is there (`vectors` already at the thread's
// first): round_sum_from's adds with nothing to skip, the same bits.
template <typename AccT, int kLoads, L1Fill kL1Fill = L1Fill::kNoAllocate, typename InT, int kSize>
__device__ __forceinline__ AccT whole_round_sum(const AlignedVector<InT, kSize>* vectors,
                                                int stride) {
  AlignedVector<InT, kSize> batch[kLoads];
  load_round<kLoads, kL1Fill>(vectors, stride, batch);
  AccT sum = AccT(0);
#pragma unroll
  for (int u = 0; u < kLoads; ++u) sum += vector_sum<AccT>(batch[u]);
  return sum;
}

// A partial written by another block of the same kernel: read from L2, where
// the writer's release put it (L1 is not coherent across multiprocessors).
template <typename T>
__device__ __forceinline__ T load_partial(const T* address) {
  return __ldcg(address);
}

}  // namespace torch_reduce::cuda::v7
