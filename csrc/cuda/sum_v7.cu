// v7, the production kernel: many elements per thread, then a warp-shuffle
// reduction whose per-warp sums meet in warpLevelSums[32] (seed 003,
// "Reduce_v7_shuffle"). Beyond the seed, for speed on current GPUs:
//  - 16-byte loads for every dtype, with scalar head and tail elements so a
//    misaligned data pointer (a storage offset) still gets aligned vectors;
//    they bypass L1 and ask L2 for 256-byte lines (the input is read once);
//  - kUnroll independent vector loads in flight per thread;
//  - a grid of at most one full wave of resident blocks (1024 threads, two
//    per SM), each thread striding over the whole input;
//  - one launch: the last block to retire sums the per-block partials in a
//    fixed order. A zeroed per-stream retirement counter elects it; without
//    one (during CUDA graph capture) a second one-block launch sums them.
// The partials are summed by the same code either way, so both paths give
// the same bits.
#include "device_cache.h"
#include "reduce_device.cuh"

namespace torch_reduce::cuda {
namespace {

constexpr int kVectorBytes = 16;
constexpr int kUnroll = 2;
// Hopper's limit; with it as a launch bound every block size gets a full SM.
constexpr int kMaxThreadsPerSm = 2048;

template <typename T, int kSize>
struct alignas(sizeof(T) * kSize) AlignedVector {
  T values[kSize];
};

// A 16-byte load of data nothing writes during the kernel: skip L1, and let
// L2 fetch 256-byte lines, which keeps more DRAM traffic in flight.
template <typename Vector>
__device__ __forceinline__ Vector load_streaming(const Vector* address) {
  static_assert(sizeof(Vector) == kVectorBytes, "streaming loads are 16 bytes");
  uint4 bits;
  asm("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
      : "=r"(bits.x), "=r"(bits.y), "=r"(bits.z), "=r"(bits.w)
      : "l"(address));
  Vector vector;
  memcpy(&vector, &bits, sizeof(vector));
  return vector;
}

template <bool kStreaming, typename Vector>
__device__ __forceinline__ Vector load_vector(const Vector* address) {
  if constexpr (kStreaming) {
    return load_streaming(address);
  } else {
    return *address;
  }
}

// This thread's share of input[0, numel): one of `num_threads` threads
// striding over whole vectors, plus at most one head and one tail element.
// kStreaming loads only suit data that this kernel does not write. The loop
// walks a pointer and counts down, which keeps the kernel within the 32
// registers that two 1024-thread blocks per SM allow.
template <typename AccT, bool kStreaming, typename InT>
__device__ __forceinline__ AccT thread_sum(const InT* input, int64_t numel, int thread_index,
                                           int num_threads) {
  constexpr int kVec = kVectorBytes / sizeof(InT);
  using Vector = AlignedVector<InT, kVec>;
  const auto misalignment = reinterpret_cast<uintptr_t>(input) % kVectorBytes;
  const int64_t head =
      misalignment == 0 ? 0 : std::min<int64_t>(numel, (kVectorBytes - misalignment) / sizeof(InT));
  const int64_t num_vectors = (numel - head) / kVec;
  const int64_t tail_begin = head + num_vectors * kVec;

  AccT sum = AccT(0);
  if (thread_index < head) sum += static_cast<AccT>(input[thread_index]);
  if (thread_index < numel - tail_begin) sum += static_cast<AccT>(input[tail_begin + thread_index]);

  const Vector* next = reinterpret_cast<const Vector*>(input + head) + thread_index;
  // Fits 32 bits: a tensor has fewer than 2^31 * num_threads vectors.
  int remaining =
      thread_index < num_vectors ? int(ceil_div(num_vectors - thread_index, num_threads)) : 0;
  for (; remaining >= kUnroll; remaining -= kUnroll, next += int64_t(kUnroll) * num_threads) {
    Vector batch[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) batch[u] = load_vector<kStreaming>(next + u * num_threads);
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
#pragma unroll
      for (int e = 0; e < kVec; ++e) sum += static_cast<AccT>(batch[u].values[e]);
    }
  }
  for (; remaining > 0; --remaining, next += num_threads) {
    const Vector vector = load_vector<kStreaming>(next);
#pragma unroll
    for (int e = 0; e < kVec; ++e) sum += static_cast<AccT>(vector.values[e]);
  }
  return sum;
}

// The seed's block reduction: shuffle within each warp, park one sum per warp
// in warpLevelSums, shuffle those in warp 0. Thread 0 holds the block's sum.
template <int kBlock, typename AccT>
__device__ __forceinline__ AccT block_sum(AccT value) {
  __shared__ AccT warpLevelSums[kWarpSize];
  const unsigned lane = threadIdx.x % kWarpSize;
  const unsigned warp = threadIdx.x / kWarpSize;
  value = warp_shuffle_sum<kWarpSize>(value);
  if (lane == 0) warpLevelSums[warp] = value;
  __syncthreads();
  if (warp == 0) {
    value = lane < kBlock / kWarpSize ? warpLevelSums[lane] : AccT(0);
    value = warp_shuffle_sum<kBlock / kWarpSize>(value);
  }
  return value;
}

template <int kBlock, typename InT, typename AccT, typename OutT>
__global__ void __launch_bounds__(kBlock, kMaxThreadsPerSm / kBlock)
    sum_v7_kernel(const InT* input, int64_t numel, AccT* partials, OutT* result,
                  unsigned int* retirement_counter) {
  const AccT block_total = block_sum<kBlock>(thread_sum<AccT, /*kStreaming=*/true>(
      input, numel, blockIdx.x * kBlock + threadIdx.x, gridDim.x * kBlock));
  if (gridDim.x == 1) {
    if (threadIdx.x == 0) *result = static_cast<OutT>(block_total);
    return;
  }
  __shared__ bool is_last_block;
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = block_total;
    // Publish the partial before taking a ticket, so the block that draws the
    // last ticket sees every partial.
    __threadfence();
    is_last_block =
        retirement_counter != nullptr && atomicAdd(retirement_counter, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!is_last_block) return;
  __threadfence();
  // Exactly what a one-block launch over the partials computes (which loads
  // them streaming: they come from the kernel before it).
  const AccT total = block_sum<kBlock>(thread_sum<AccT, /*kStreaming=*/false>(
      static_cast<const AccT*>(partials), gridDim.x, threadIdx.x, kBlock));
  if (threadIdx.x == 0) {
    *result = static_cast<OutT>(total);
    *retirement_counter = 0;  // ready for the next sum on this stream
  }
}

// Blocks of `kernel` that fit on one multiprocessor, asked once per device.
template <typename Kernel>
int resident_blocks_per_sm(Kernel kernel, c10::DeviceIndex device) {
  static PerDeviceCache cache;
  return cache.get(device, [&] {
    int blocks = 0;
    C10_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, kV7BlockSize, 0));
    return blocks;
  });
}

}  // namespace

template <typename InT>
void sum_v7(const SumArgs<InT>& args) {
  using AccT = acc_t<InT>;
  using OutT = result_t<InT>;
  const auto kernel = sum_v7_kernel<kV7BlockSize, InT, AccT, OutT>;
  constexpr int64_t kElementsPerBlockPass =
      int64_t(kV7BlockSize) * kUnroll * (kVectorBytes / sizeof(InT));
  const int64_t blocks =
      std::min({ceil_div(args.numel, kElementsPerBlockPass),
                int64_t(resident_blocks_per_sm(kernel, args.device)) * args.sm_count,
                args.workspace_elements});
  kernel<<<blocks, kV7BlockSize, 0, args.stream>>>(args.input, args.numel, args.workspace,
                                                   args.result, args.retirement_counter);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  if (blocks > 1 && args.retirement_counter == nullptr) {
    sum_v7_kernel<kV7BlockSize, AccT, AccT, OutT><<<1, kV7BlockSize, 0, args.stream>>>(
        args.workspace, blocks, nullptr, args.result, nullptr);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
  }
}

TORCH_REDUCE_INSTANTIATE_LAUNCHER(sum_v7);

}  // namespace torch_reduce::cuda
