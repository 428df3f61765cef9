// The hand-off by which the blocks of a thread-block cluster (Hopper and
// newer) give their totals to block 0 without going through L2: each block
// stores its total into block 0's shared memory with st.async, which also
// counts its bytes on an mbarrier there; block 0 waits on that mbarrier.
// cooperative_groups' cluster.sync() would order the stores with a
// release, which nvcc 13 compiles into MEMBAR.ALL.GPU: a GPU-wide fence of
// the kind whose removal took ~0.35 us off the ticket (benchmarks/NOTES.md).
//
// The protocol, in every block of the cluster:
//   ClusterHandoff<AccT> handoff;            // __shared__
//   handoff.open();                          // before the block's loads
//   ...                                      // the loads and the block sum
//   handoff.send_or_collect(...)             // after them
// open() lets block 0 initialise its mbarrier and starts a cluster barrier
// whose wait (in send_or_collect) makes the mbarrier visible to the other
// blocks; by then every block has long arrived, so the wait costs nothing.
#pragma once

#include <cstdint>
#include <cstring>

#include "reduce.cuh"

namespace torch_reduce::cuda::v7 {

constexpr int kMaxClusterBlocks = 8;  // the portable cluster size

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

template <typename AccT>
struct ClusterHandoff {
  uint64_t arrived;  // block 0's mbarrier: its phase ends when every total is in
  AccT totals[kMaxClusterBlocks];

  __device__ __forceinline__ void open() {
    if (cluster_block_rank() == 0 && threadIdx.x == 0) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(&arrived))
                   : "memory");
      asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
  }

  // Every thread of every block calls this; thread 0's `block_total` is its
  // block's. Block 0's thread 0 gets the cluster's total, added in rank
  // order as warp_sum adds lanes; the other threads get nothing useful.
  __device__ __forceinline__ AccT send_or_collect(AccT block_total) {
    asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
    const uint32_t rank = cluster_block_rank();
    if (rank != 0) {
      if (threadIdx.x == 0) send(block_total, rank);
      return AccT(0);
    }
    if (threadIdx.x >= kWarpSize) return AccT(0);
    const uint32_t blocks = cluster_block_count();
    const uint32_t barrier = shared_address(&arrived);
    if (threadIdx.x == 0) {
      const uint32_t bytes = (blocks - 1) * uint32_t(sizeof(AccT));
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(barrier),
                   "r"(bytes)
                   : "memory");
    }
    // Acquire at cluster scope: st.async's complete-tx releases at cluster
    // scope, from threads of other blocks, which try_wait's default (.cta)
    // does not synchronise with.
    uint32_t done = 0;
    while (!done) {
      asm volatile(
          "{ .reg .pred p; mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], 0; "
          "selp.u32 %0, 1, 0, p; }"
          : "=r"(done)
          : "r"(barrier)
          : "memory");
    }
    const uint32_t lane = threadIdx.x;
    const AccT value = lane == 0 ? block_total : lane < blocks ? totals[lane] : AccT(0);
    return warp_sum<kMaxClusterBlocks>(value);
  }

 private:
  __device__ __forceinline__ void send(AccT value, uint32_t rank) {
    const uint32_t slot = in_cluster_block(shared_address(&totals[rank]), 0);
    const uint32_t barrier = in_cluster_block(shared_address(&arrived), 0);
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

}  // namespace torch_reduce::cuda::v7
