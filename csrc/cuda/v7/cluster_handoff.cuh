// The hand-off by which the blocks of a thread-block cluster (Hopper and
// newer) give their sums to block 0 without going through L2: each block
// stores its values into block 0's shared memory with st.async, which also
// counts their bytes on an mbarrier there; block 0 waits on that mbarrier.
// cooperative_groups' cluster.sync() would order the stores with a
// release, which nvcc 13 compiles into MEMBAR.ALL.GPU: a GPU-wide fence of
// the kind whose removal took ~0.35 us off the ticket (benchmarks/NOTES.md).
//
// The protocol, with a `__shared__ ClusterGather gather` in every block:
//   gather.open();             // every thread, before the block's loads
//   ...                        // the loads and the block's sums
//   gather.wait_until_open();  // every thread
//   then in block rank r != 0: gather.send(values, r, offset) by the threads
//   that hold the block's values; in block 0: gather.expect(...) by thread
//   0, and gather.wait() by each thread that reads gather.values.
// open() lets block 0 initialise its mbarrier and starts a cluster barrier
// whose wait makes the mbarrier visible to the other blocks; by then every
// block has long arrived, so the wait costs nothing. The mbarrier has one
// phase: a gather is used once per launch.
#pragma once

#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "../device_cache.h"

namespace torch_reduce::cuda::v7 {

constexpr int kPortableClusterBlocks = 8;  // every GPU with clusters runs these
constexpr int kMaxClusterBlocks = 16;      // the most any runs (non-portable; an H100)

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900

__device__ __forceinline__ uint32_t cluster_block_rank() {
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  return rank;
}

__device__ __forceinline__ uint32_t cluster_block_count() {
  uint32_t count;
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(count));
  return count;
}

__device__ __forceinline__ uint32_t shared_address(const void* pointer) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(pointer));
}

// The address of the same shared variable in block `rank` of the cluster.
__device__ __forceinline__ uint32_t in_cluster_block(uint32_t address, uint32_t rank) {
  uint32_t remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(address), "r"(rank));
  return remote;
}

// Block r's values land in block 0's values[r], up to kValues of them, from
// clusters of up to kBlocks blocks.
template <typename AccT, int kValues, int kBlocks>
struct ClusterGather {
  uint64_t arrived;  // block 0's mbarrier: its phase ends when every value is in
  alignas(16) AccT values[kBlocks][kValues];

  __device__ __forceinline__ void open() {
    if (cluster_block_rank() == 0 && threadIdx.x == 0) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(&arrived))
                   : "memory");
      asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
  }

  __device__ __forceinline__ void wait_until_open() {
    asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
  }

  // From a thread of block `rank` (not 0): block 0's values[rank][offset +
  // i] = source[i]. Sent in 16-byte pieces where the values make them.
  template <int kCount>
  __device__ __forceinline__ void send(const AccT (&source)[kCount], uint32_t rank, int offset) {
    constexpr int kBytes = kCount * int(sizeof(AccT));
    const uint32_t barrier = in_cluster_block(shared_address(&arrived), 0);
    const uint32_t slot = in_cluster_block(shared_address(&values[rank][offset]), 0);
    if constexpr (kBytes % 16 == 0 && sizeof(AccT) == 8) {
#pragma unroll
      for (int p = 0; p < kCount / 2; ++p) {
        uint64_t low, high;
        memcpy(&low, &source[2 * p], 8);
        memcpy(&high, &source[2 * p + 1], 8);
        asm volatile(
            "st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b64 [%0], {%1, %2}, [%3];" ::
                "r"(slot + 16 * p),
            "l"(low), "l"(high), "r"(barrier)
            : "memory");
      }
    } else if constexpr (kBytes % 16 == 0) {
#pragma unroll
      for (int p = 0; p < kCount / 4; ++p) {
        uint32_t words[4];
        memcpy(words, &source[4 * p], 16);
        asm volatile(
            "st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [%0], {%1, %2, %3, %4}, "
            "[%5];" ::"r"(slot + 16 * p),
            "r"(words[0]), "r"(words[1]), "r"(words[2]), "r"(words[3]), "r"(barrier)
            : "memory");
      }
    } else {
#pragma unroll
      for (int i = 0; i < kCount; ++i)
        send_one(source[i], slot + i * uint32_t(sizeof(AccT)), barrier);
    }
  }

  // Block 0's thread 0: the other blocks send `values_per_block` values each.
  __device__ __forceinline__ void expect(int values_per_block) {
    const uint32_t bytes =
        (cluster_block_count() - 1) * uint32_t(values_per_block) * uint32_t(sizeof(AccT));
    asm volatile(
        "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(&arrived)),
        "r"(bytes)
        : "memory");
  }

  // Block 0: returns once every expected value is in `values`. Acquire at
  // cluster scope: st.async's complete-tx releases at cluster scope, from
  // threads of other blocks, which try_wait's default (.cta) does not
  // synchronise with.
  __device__ __forceinline__ void wait() {
    const uint32_t barrier = shared_address(&arrived);
    uint32_t done = 0;
    while (!done) {
      asm volatile(
          "{ .reg .pred p; mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], 0; "
          "selp.u32 %0, 1, 0, p; }"
          : "=r"(done)
          : "r"(barrier)
          : "memory");
    }
  }

 private:
  __device__ __forceinline__ static void send_one(AccT value, uint32_t slot, uint32_t barrier) {
    if constexpr (sizeof(AccT) == 4) {
      uint32_t bits;
      memcpy(&bits, &value, sizeof(bits));
      asm volatile(
          "st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];" ::"r"(slot),
          "r"(bits), "r"(barrier)
          : "memory");
    } else {
      static_assert(sizeof(AccT) == 8);
      uint64_t bits;
      memcpy(&bits, &value, sizeof(bits));
      asm volatile(
          "st.async.shared::cluster.mbarrier::complete_tx::bytes.b64 [%0], %1, [%2];" ::"r"(slot),
          "l"(bits), "r"(barrier)
          : "memory");
    }
  }
};

#endif

// Host side: a launch of `grid` blocks of `block` threads in clusters of
// `cluster` blocks. `starts_early`: it may start once every block of the
// kernel before it on the stream has run griddepcontrol.launch_dependents
// (programmatic dependent launch, Hopper and newer), so the kernel must run
// griddepcontrol.wait before it reads what that kernel wrote.
struct ClusterLaunch {
  cudaLaunchAttribute attributes[2];
  cudaLaunchConfig_t config;

  ClusterLaunch(dim3 grid, dim3 cluster, int block, cudaStream_t stream, bool starts_early = false)
      : attributes{}, config{} {
    attributes[0].id = cudaLaunchAttributeClusterDimension;
    attributes[0].val.clusterDim.x = cluster.x;
    attributes[0].val.clusterDim.y = cluster.y;
    attributes[0].val.clusterDim.z = cluster.z;
    config.gridDim = grid;
    config.blockDim = dim3(block);
    config.stream = stream;
    config.attrs = attributes;
    config.numAttrs = 1;
    if (starts_early) {
      attributes[1].id = cudaLaunchAttributeProgrammaticStreamSerialization;
      attributes[1].val.programmaticStreamSerializationAllowed = 1;
      config.numAttrs = 2;
    }
  }
  ClusterLaunch(const ClusterLaunch&) = delete;  // config points into this object
  ClusterLaunch& operator=(const ClusterLaunch&) = delete;
};

// How the device runs `kKernel` (blocks of `block` threads) in clusters of
// up to kMaxBlocks blocks: `blocks`, the largest such cluster it takes, and
// `resident`, how many blocks in clusters of that size it holds at once
// (each cluster lives in one GPC, so fewer than in one wave of single
// blocks). Zero where it takes none: no clusters (before Hopper), the
// kernel's code compiled for older targets (a build JIT-compiled from their
// PTX has just the __trap()), or a partition that refuses the shape (a MIG
// slice). Clusters over the portable 8 blocks are asked for where the
// kernel allows them (an H100 runs 16).
struct ClusterCapacity {
  int blocks = 0;
  int64_t resident = 0;

  // Whether `clusters` clusters of `cluster_blocks` blocks run in one wave.
  bool holds(int64_t cluster_blocks, int64_t clusters) const {
    return cluster_blocks > 1 && cluster_blocks <= blocks && cluster_blocks * clusters <= resident;
  }
};

// TORCH_REDUCE_NO_CLUSTERS=1 (read once a process) makes cluster_capacity
// report none on every GPU, so that a Hopper or newer GPU takes the launch
// paths of the GPUs before it: the only way the tests can run those paths
// on the GPUs at hand (a division by zero hid there until session 60).
inline bool clusters_switched_off() {
  static const bool off = [] {
    const char* value = std::getenv("TORCH_REDUCE_NO_CLUSTERS");
    return value != nullptr && std::string_view(value) == "1";
  }();
  return off;
}

template <auto kKernel, int kMaxBlocks>
ClusterCapacity cluster_capacity(int device, int block) {
  static_assert(kMaxBlocks <= kMaxClusterBlocks);
  // One positive int a device: 1 + blocks + (kMaxBlocks + 1) * clusters.
  static PerDeviceCache cache;
  const int packed = cache.get(device, [&] {
    int has_clusters = 0;
    C10_CUDA_CHECK(cudaDeviceGetAttribute(&has_clusters, cudaDevAttrClusterLaunch, device));
    if (has_clusters == 0 || clusters_switched_off()) return 1;
    // The attribute and occupancy queries ask the current device.
    const c10::cuda::CUDAGuard device_guard(static_cast<c10::DeviceIndex>(device));
    cudaFuncAttributes compiled{};
    C10_CUDA_CHECK(cudaFuncGetAttributes(&compiled, kKernel));
    if (compiled.ptxVersion < 90) return 1;
    // A query the partition refuses (a MIG slice) means no clusters; its
    // error is not sticky: clear it for the launch checks that follow.
    const auto refused = [](cudaError_t error) {
      if (error == cudaSuccess) return false;
      (void)cudaGetLastError();
      return true;
    };
    if constexpr (kMaxBlocks > kPortableClusterBlocks) {
      // Where refused, the size query below stays within the portable size.
      refused(cudaFuncSetAttribute(kKernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    }
    int blocks = 0;
    const ClusterLaunch largest(dim3(kMaxBlocks), dim3(kMaxBlocks), block, nullptr);
    if (refused(cudaOccupancyMaxPotentialClusterSize(&blocks, kKernel, &largest.config))) return 1;
    blocks = std::min(blocks, kMaxBlocks);
    if (blocks < 2) return 1;
    // The caller's clusters lie along x or y; the count depends on the size.
    int clusters = 0;
    const ClusterLaunch launch(dim3(blocks), dim3(blocks), block, nullptr);
    if (refused(cudaOccupancyMaxActiveClusters(&clusters, kKernel, &launch.config))) return 1;
    return 1 + blocks + (kMaxBlocks + 1) * clusters;
  }) - 1;
  const int blocks = packed % (kMaxBlocks + 1);
  return {blocks, int64_t(blocks) * (packed / (kMaxBlocks + 1))};
}

template <auto kKernel, bool kStartsEarly = false, typename... Args>
void launch_in_clusters(dim3 grid, dim3 cluster, int block, cudaStream_t stream,
                        const Args&... args) {
  const ClusterLaunch launch(grid, cluster, block, stream, kStartsEarly);
  C10_CUDA_CHECK(cudaLaunchKernelEx(&launch.config, kKernel, args...));
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

}  // namespace torch_reduce::cuda::v7
