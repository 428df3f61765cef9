// Warp and block sums, the hand-off by which the last block of a grid
// finishes a reduction in the same launch, and the second launches that
// finish it where it does not (sum_partials_kernel, warp_an_output_kernel).
#pragma once

#include <c10/cuda/CUDAException.h>

#include <cuda/atomic>
#include <optional>
#include <type_traits>

#include "../sum_launchers.h"
#include "launch_policy.h"
#include "loads.cuh"
#include "problem.h"

namespace torch_reduce::cuda::v7 {

constexpr int kWarpSize = 32;

// Lane 0 ends with each value's sum over lanes [0, kWidth), always added in
// the same order; the values' shuffles go out together, a level at a time.
template <int kWidth = kWarpSize, typename T, int kCount>
__device__ __forceinline__ void warp_sums(T (&values)[kCount]) {
#pragma unroll
  for (int offset = kWidth / 2; offset > 0; offset /= 2) {
#pragma unroll
    for (int i = 0; i < kCount; ++i) values[i] += __shfl_down_sync(0xffffffffu, values[i], offset);
  }
}

template <int kWidth = kWarpSize, typename T>
__device__ __forceinline__ T warp_sum(T value) {
  T values[1] = {value};
  warp_sums<kWidth>(values);
  return values[0];
}

// The seed's block reduction: shuffle within each warp, park one sum per warp
// in warpLevelSums, shuffle those in warp 0. Thread 0 holds the sum of the
// block's `warps` warps (at most kMaxWarps). warpLevelSums stays in use until
// warp 0 is done: a caller that sums again first waits at a barrier.
template <int kMaxWarps, typename AccT>
__device__ __forceinline__ AccT sum_over_warps(AccT value, unsigned warps) {
  __shared__ AccT warpLevelSums[kWarpSize];
  const unsigned lane = threadIdx.x % kWarpSize;
  const unsigned warp = threadIdx.x / kWarpSize;
  value = warp_sum(value);
  if (lane == 0) warpLevelSums[warp] = value;
  __syncthreads();
  if (warp == 0) {
    value = lane < warps ? warpLevelSums[lane] : AccT(0);
    // As few shuffle steps as `warps` need, where only the launch knows it
    // (one_block_sum_kernel): kMaxWarps's steps past them only add zeros,
    // a shuffle's latency each. A constant `warps` folds this away.
    if constexpr (kMaxWarps > 4) {
      if (warps <= 4) return warp_sum<4>(value);
    }
    if constexpr (kMaxWarps > 8) {
      if (warps <= 8) return warp_sum<8>(value);
    }
    value = warp_sum<kMaxWarps>(value);
  }
  return value;
}

// sum_over_warps for a block of exactly kWarps warps (a power of two), as
// Triton's block reductions finish: every warp adds the kWarps sums, with
// neither a predicate on the read nor a branch on the warp, which the
// runtime count of sum_over_warps needs (sm_90 SASS, benchmarks/NOTES.md,
// session 30). Thread 0 ends with the same bits: its tree reads lanes
// [0, kWarps) only. The block must be exactly kWarps warps (more would write
// past warpLevelSums), and a second call needs a barrier before it: every
// warp, not warp 0 alone, reads the sums after this one's barrier.
template <int kWarps, typename AccT>
__device__ __forceinline__ AccT sum_over_fixed_warps(AccT value) {
  static_assert(kWarps > 0 && kWarps <= kWarpSize && (kWarps & (kWarps - 1)) == 0);
  __shared__ AccT warpLevelSums[kWarps];
  const unsigned lane = threadIdx.x % kWarpSize;
  value = warp_sum(value);
  if (lane == 0) warpLevelSums[threadIdx.x / kWarpSize] = value;
  __syncthreads();
  return warp_sum<kWarps>(warpLevelSums[lane % kWarps]);
}

// Whether blocks that sum InT loads finish their own sums as Triton's
// (sum_over_fixed_warps). Not for 16- and 8-bit types: with it ptxas put a
// thread's first vector's conversions and adds between its loads in the
// mid and cluster kernels, 0.1-0.7 us slower (sm_90 SASS,
// benchmarks/NOTES.md, session 31).
template <typename InT>
constexpr bool kFixedFinishForOwnSums = kElementsPerVector<InT> <= 4;

// Thread 0 ends with the sum of a block of exactly kWarps warps:
// sum_over_warps, or with kFixed sum_over_fixed_warps.
template <int kWarps, bool kFixed, typename AccT>
__device__ __forceinline__ AccT sum_over_all_warps(AccT value) {
  if constexpr (kFixed) {
    return sum_over_fixed_warps<kWarps>(value);
  } else {
    return sum_over_warps<kWarps>(value, kWarps);
  }
}

// sum_over_all_warps for a block of kBlock threads, safe to call again right
// after it returns.
template <int kBlock, bool kFixed = false, typename AccT>
__device__ __forceinline__ AccT block_sum(AccT value) {
  value = sum_over_all_warps<kBlock / kWarpSize, kFixed>(value);
  __syncthreads();
  return value;
}

// Each of `arrivals` blocks calls this once, after its threads have written
// its partials; no fence is needed: the barrier below orders their stores
// before thread 0's acq_rel ticket, whose release carries them to the last
// block (cumulativity). It returns true in exactly one block, the last to
// arrive, which then sees every block's partials. The counter must be
// zero when the first block arrives; the last block sets it to zero again,
// so the next kernel that owns it can start at once.
// One acq_rel ticket per block instead of __threadfence + atomicAdd: the
// measured hand-off is ~0.35 us shorter (benchmarks/NOTES.md).
__device__ __forceinline__ bool arrive_last(unsigned int* counter, unsigned int arrivals) {
  __shared__ bool is_last;
  __syncthreads();
  if (threadIdx.x == 0) {
    ::cuda::atomic_ref<unsigned int, ::cuda::thread_scope_device> ticket(*counter);
    is_last = ticket.fetch_add(1u, ::cuda::memory_order_acq_rel) == arrivals - 1;
  }
  __syncthreads();
  return is_last;
}

// The sum of settle(fetch(s), s) for s = first, first + step, ... below end,
// added in that order, in batches of kBatch fetches meant to be in flight
// before the first settle: a finishing block that read its partials one
// latency at a time spent microseconds on it. With each fetch and settle
// under its own bound, ptxas may still settle a fetch before issuing the
// next ones (the overload over partials below, and benchmarks/NOTES.md,
// sessions 87-88). The order does not depend on kBatch.
template <typename AccT, int kBatch = 4, typename Fetch, typename Settle>
__device__ __forceinline__ AccT sum_every(const Fetch& fetch, const Settle& settle, int64_t first,
                                          int64_t end, int64_t step) {
  using Fetched = decltype(fetch(first));
  AccT sum = AccT(0);
  for (int64_t s = first; s < end; s += kBatch * step) {
    Fetched batch[kBatch];
#pragma unroll
    for (int b = 0; b < kBatch; ++b) {
      if (s + b * step < end) batch[b] = fetch(s + b * step);
    }
#pragma unroll
    for (int b = 0; b < kBatch; ++b) {
      if (s + b * step < end) sum += settle(batch[b], s + b * step);
    }
  }
  return sum;
}

// Partials: the batch's reads past `end` are +0s, added like the others.
// Predicated reads and adds (the form above) let ptxas put each add right
// after its read, before the next reads: warp_an_output_kernel's 16 reads a
// batch went out 1 (fp64) or 2 (fp32) before the first add, each read after
// them a round trip to L2 of its own (sm_90 SASS, CUDA 13.0). Adding +0
// leaves a sum from +0 as it is (it never is -0.0; inf and NaN stay): the
// same bits.
template <int kBatch = 4, typename AccT>
__device__ __forceinline__ AccT sum_every(const AccT* values, int64_t first, int64_t end,
                                          int64_t step) {
  AccT sum = AccT(0);
  for (int64_t s = first; s < end; s += kBatch * step) {
    AccT batch[kBatch];
#pragma unroll
    for (int b = 0; b < kBatch; ++b) {
      batch[b] = s + b * step < end ? load_partial(values + s + b * step) : AccT(0);
    }
#pragma unroll
    for (int b = 0; b < kBatch; ++b) sum += batch[b];
  }
  return sum;
}

// The sum of one output's `splits` partials by a warp: lane l adds splits l,
// l + 32, ..., kBatch in flight, then the lanes' tree.
template <int kBatch, typename AccT>
__device__ __forceinline__ AccT warp_sum_of_splits(const AccT* partials, int64_t splits) {
  return warp_sum(sum_every<kBatch>(partials, threadIdx.x % kWarpSize, splits, kWarpSize));
}

// Outputs [0, outputs) of fewer than a warp's splits, kLanes lanes each (a
// power of two, outputs * kLanes <= kBlock): lane l of an output's group adds
// splits l, l + kLanes, ..., kBatch in flight, then the group's tree.
template <int kLanes, int kBlock, int kBatch, typename AccT, typename OutT>
__device__ __forceinline__ void sum_partials_in_lane_groups(const AccT* partials, int64_t outputs,
                                                            int64_t splits, OutT* result) {
  if constexpr (kLanes > 1) {
    if (outputs * kLanes > kBlock) {
      return sum_partials_in_lane_groups<kLanes / 2, kBlock, kBatch>(partials, outputs, splits,
                                                                     result);
    }
  }
  const int64_t output = threadIdx.x / kLanes;
  const int lane = threadIdx.x % kLanes;
  AccT sum = AccT(0);
  if (output < outputs) sum = sum_every<kBatch>(partials + output * splits, lane, splits, kLanes);
  sum = warp_sum<kLanes>(sum);  // every lane of the block: the shuffles' mask is whole
  if (lane == 0 && output < outputs) result[output] = static_cast<OutT>(sum);
}

// result[o] = sum over s of partials[o * splits + s], in an order fixed by
// (kBlock, outputs, splits) alone, so the in-kernel finish and the
// second-launch finish give the same bits where both take the first
// kernel's kBlock. One output: the whole block; up to one a warp, or any
// number of a warp's splits or more each: a warp each; up to 31 of fewer
// splits: a group of lanes each, all in one turn; more of fewer splits: a
// thread each. A thread each added 33+ interleaved columns' hundreds of
// splits in a chain of loads 4 at a time: fp32 20001x66 dim=0 took 24.5 us
// interleaved (session 63), 11.0 with a warp each and a gather of 1-4
// threads a column (H200, benchmarks/NOTES.md, session 70); since
// session 71 those columns finish in warp_an_output_kernel, in the warp-each
// order below. A warp each took 9-31 outputs of few splits in 2-4 turns,
// each a round trip to L2: the interleaved run's 16 columns in one launch
// took ~0.8 us longer than its 8 (int8 5001x16 dim=0 4.93 us, 10001x8 4.03,
// the same 5 blocks; session 79). kBatch: the partials in flight a thread
// (the order does not depend on it).
template <int kBlock, int kBatch = 4, typename AccT, typename OutT>
__device__ __forceinline__ void sum_partials(const AccT* partials, int64_t outputs, int64_t splits,
                                             OutT* result) {
  static_assert(kBlock % kWarpSize == 0, "whole warps: the lane groups' shuffles");
  if (outputs == 1) {
    const AccT sum =
        sum_over_fixed_warps<kBlock / kWarpSize>(sum_every(partials, threadIdx.x, splits, kBlock));
    if (threadIdx.x == 0) result[0] = static_cast<OutT>(sum);
    return;
  }
  constexpr int kWarps = kBlock / kWarpSize;
  if (outputs <= kWarps || splits >= kWarpSize) {
    for (int64_t o = threadIdx.x / kWarpSize; o < outputs; o += kWarps) {
      const AccT sum = warp_sum_of_splits<kBatch>(partials + o * splits, splits);
      if (threadIdx.x % kWarpSize == 0) result[o] = static_cast<OutT>(sum);
    }
    return;
  }
  if (outputs < kWarpSize) {
    return sum_partials_in_lane_groups<kWarpSize / 2, kBlock, kBatch>(partials, outputs, splits,
                                                                      result);
  }
  for (int64_t o = threadIdx.x; o < outputs; o += kBlock) {
    const AccT sum = sum_every<kBatch>(partials + o * splits, 0, splits, 1);
    result[o] = static_cast<OutT>(sum);
  }
}

// The second launch of a split reduction whose first had no counter: block g
// finishes group g of `outputs` outputs, whose partials follow group g - 1's.
template <int kBlock, typename AccT, typename OutT>
__global__ void __launch_bounds__(kBlock)
    sum_partials_kernel(const AccT* partials, int64_t outputs, int64_t splits, OutT* result) {
  const int64_t group = blockIdx.x;
  sum_partials<kBlock>(partials + group * outputs * splits, outputs, splits,
                       result + group * outputs);
}

// Programmatic dependent launch (Hopper and newer; no-ops elsewhere). A
// kernel that writes partials lets the launch that finishes them
// (launch_starting_early, or a ClusterLaunch that starts early) start now,
// so that its launch and the gap between the two pass while this one runs.
__device__ __forceinline__ void let_dependents_start() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// Waits, in a kernel that may have started early, for the kernel ahead of it
// to end and its writes to be visible. The address of what that kernel wrote
// passes through the wait, so that no load of it moves above it.
template <typename T>
__device__ __forceinline__ void wait_for_kernel_ahead(T*& written) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" : "+l"(written)::"memory");
#endif
}

// Host side: a split reduction launched without a counter (external
// streams, or every graph slot in use) is finished by a second launch.
// `groups` groups of `outputs` outputs each, as the first launch's last
// blocks would have finished them (a group per counter).
template <int kBlock, typename AccT, typename OutT>
void finish_in_second_launch_if_needed(const Finish<AccT>& finish, int64_t outputs, int64_t splits,
                                       OutT* result, cudaStream_t stream, int64_t groups = 1) {
  if (splits <= 1 || finish.counter != nullptr) return;
  sum_partials_kernel<kBlock, AccT, OutT>
      <<<groups, kBlock, 0, stream>>>(finish.partials, outputs, splits, result);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

// The second launch of a split reduction of many outputs, each of many
// splits: a warp an output, kBlock / 32 outputs a block, side by side on as
// many multiprocessors, in sum_partials' warp-an-output order. One finishing
// block takes such outputs a warp at a time, in turns, each a chain of L2
// loads: interleaved_column_sum.cu's wide run (33-64 outputs of 32-512
// splits) took 1-4 us longer that way than with its second launch (H200,
// benchmarks/NOTES.md, session 71), its 9-32 columns 0.4-2.2 us longer
// than with the launch started early (session 74). It starts early (launch_starting_early)
// and waits for the kernel that writes the partials; their address passes
// through the wait, so that no load of them moves above it.
template <int kBlock, int kBatch, typename AccT, typename OutT>
__global__ void __launch_bounds__(kBlock)
    warp_an_output_kernel(const AccT* partials, int64_t outputs, int64_t splits, OutT* result) {
  wait_for_kernel_ahead(partials);
  const int64_t output = int64_t(blockIdx.x) * (kBlock / kWarpSize) + threadIdx.x / kWarpSize;
  if (output >= outputs) return;  // the whole warp
  const AccT sum = warp_sum_of_splits<kBatch>(partials + output * splits, splits);
  if (threadIdx.x % kWarpSize == 0) result[output] = static_cast<OutT>(sum);
}

template <int kBlock, int kBatch, typename AccT, typename OutT>
void launch_warp_an_output(const AccT* partials, int64_t outputs, int64_t splits, OutT* result,
                           const LaunchContext& context) {
  constexpr int64_t kOutputsPerBlock = kBlock / kWarpSize;
  const auto blocks = static_cast<unsigned>(ceil_div(outputs, kOutputsPerBlock));
  launch_starting_early<warp_an_output_kernel<kBlock, kBatch, AccT, OutT>>(
      dim3(blocks), kBlock, context.stream, context.device, partials, outputs, splits, result);
}

// Finishes a split reduction whose `arrivals` blocks have written their
// partials: in the last block to arrive when there is a counter, else the
// caller launches sum_partials_kernel (or, for its own outputs and order,
// warp_an_output_kernel).
template <int kBlock, int kBatch = 4, typename AccT, typename OutT>
__device__ __forceinline__ void finish_in_last_block(const AccT* partials, int64_t outputs,
                                                     int64_t splits, OutT* result,
                                                     unsigned int* counter, unsigned int arrivals) {
  if (counter == nullptr || !arrive_last(counter, arrivals)) return;
  sum_partials<kBlock, kBatch>(partials, outputs, splits, result);
  if (threadIdx.x == 0) *counter = 0;  // ready for the next launch that owns it
}

// Mailboxes: how the blocks of a one-output sum hand their partials to the
// last block without a fence. A block's mailbox is kMailboxWords<AccT>
// 64-bit words, zero when empty: 32 bits of the partial in the low half of
// each and a full flag above them, stored relaxed, so each word is whole or
// absent on its own (or one packed word, kPackedMailboxFull below). The
// ticket (take_mailbox_ticket) is relaxed too and comes before the block's
// post, so the last block may arrive before other blocks have stored; it
// reads a batch of mailboxes at once, then reads again each word still
// empty until it is full. Every other block holds a ticket, so it is
// resident and posts without waiting on anything: the polls end without
// waiting for any block to be scheduled. The last block empties the
// mailboxes it read, and the next launch that owns them starts from zero.
// Against the acq_rel ticket and a separate read of the partials: 0.3-0.5 us
// less at 2^18-2^22 on an H200 with 4-byte partials (benchmarks/NOTES.md).
// A block may take its ticket before its (last chunk's) loads, so that the
// atomic's round trip overlaps them instead of preceding the last block's
// reads; the last ticket then goes to the last block to start them, not to
// finish.
constexpr uint64_t kMailboxFull = uint64_t(1) << 32;

// Packed mailboxes (kPacked): an 8-byte integer partial in one word, its low
// 63 bits and the full flag in bit 63, for partials known to lie in
// [-2^62, 2^62): the int64 totals of blocks that add at most 2^31 integers
// of 32 bits or fewer (the launcher checks the count). One word is whole or
// absent, so such a block may take its ticket early, as a 4-byte one does.
constexpr uint64_t kPackedMailboxFull = uint64_t(1) << 63;

template <typename AccT, bool kPacked>
constexpr int kWordsPerMailbox = kPacked ? 1 : kMailboxWords<AccT>;

// Mailboxes read at once by a thread of the last block: four words in
// flight, as many as 4-byte partials take. Eight words spilled in every
// integer kernel under its 32-register cap (benchmarks/NOTES.md, session 19).
template <typename AccT, bool kPacked>
constexpr int kMailboxBatch = 4 / kWordsPerMailbox<AccT, kPacked>;

__device__ __forceinline__ void store_mailbox_word(uint64_t* word, uint64_t value) {
  asm volatile("st.relaxed.gpu.global.b64 [%0], %1;" ::"l"(word), "l"(value) : "memory");
}

__device__ __forceinline__ uint64_t load_mailbox_word(const uint64_t* word) {
  uint64_t value;
  asm volatile("ld.relaxed.gpu.global.b64 %0, [%1];" : "=l"(value) : "l"(word) : "memory");
  return value;
}

template <typename AccT, bool kPacked>
__device__ __forceinline__ void post_to_mailbox(uint64_t* mailbox, AccT value) {
  if constexpr (kPacked) {
    static_assert(sizeof(AccT) == sizeof(uint64_t) && std::is_integral_v<AccT>);
    // In range, bit 63 equals bit 62: the flag takes its place.
    store_mailbox_word(mailbox, kPackedMailboxFull | uint64_t(value));
  } else {
    uint32_t bits[kMailboxWords<AccT>];
    memcpy(bits, &value, sizeof(bits));
#pragma unroll
    for (int w = 0; w < kMailboxWords<AccT>; ++w) {
      store_mailbox_word(mailbox + w, kMailboxFull | bits[w]);
    }
  }
}

// A mailbox's words as first read, full or not.
template <typename AccT, bool kPacked>
struct MailboxWords {
  uint64_t words[kWordsPerMailbox<AccT, kPacked>];
};

template <typename AccT, bool kPacked>
__device__ __forceinline__ MailboxWords<AccT, kPacked> fetch_mailbox(const uint64_t* mailbox) {
  MailboxWords<AccT, kPacked> fetched;
#pragma unroll
  for (int w = 0; w < kWordsPerMailbox<AccT, kPacked>; ++w) {
    fetched.words[w] = load_mailbox_word(mailbox + w);
  }
  return fetched;
}

// The partial in a mailbox read as `fetched`, reading again each word that
// was still empty.
template <typename AccT, bool kPacked>
__device__ __forceinline__ AccT settle_mailbox(MailboxWords<AccT, kPacked> fetched,
                                               const uint64_t* mailbox) {
  if constexpr (kPacked) {
    uint64_t word = fetched.words[0];
    while ((word & kPackedMailboxFull) == 0) word = load_mailbox_word(mailbox);
    return AccT(int64_t(word << 1) >> 1);  // bit 62 is the sign
  } else {
    uint32_t bits[kMailboxWords<AccT>];
#pragma unroll
    for (int w = 0; w < kMailboxWords<AccT>; ++w) {
      while ((fetched.words[w] & kMailboxFull) == 0) {
        fetched.words[w] = load_mailbox_word(mailbox + w);
      }
      bits[w] = uint32_t(fetched.words[w]);
    }
    AccT value;
    memcpy(&value, bits, sizeof(value));
    return value;
  }
}

template <typename AccT, bool kPacked>
__device__ __forceinline__ void empty_mailbox(uint64_t* mailbox) {
#pragma unroll
  for (int w = 0; w < kWordsPerMailbox<AccT, kPacked>; ++w) store_mailbox_word(mailbox + w, 0);
}

// Every thread of every block calls this; thread 0's `value` is its block's
// total (the other threads' is ignored). result[0] gets the sum of all
// blocks' totals, added in the same order as sum_partials over them.
// `ticket` is thread 0's take_mailbox_ticket.
template <int kBlock, bool kPacked, typename AccT, typename OutT>
__device__ __forceinline__ void finish_through_mailboxes(AccT value, uint64_t* mailboxes,
                                                         OutT* result, unsigned int* counter,
                                                         unsigned int ticket) {
  constexpr int kWords = kWordsPerMailbox<AccT, kPacked>;
  __shared__ bool is_last;
  if (threadIdx.x == 0) {
    post_to_mailbox<AccT, kPacked>(mailboxes + blockIdx.x * kWords, value);
    is_last = ticket == gridDim.x - 1;
  }
  __syncthreads();
  if (!is_last) return;
  const auto fetch = [mailboxes](int64_t s) {
    return fetch_mailbox<AccT, kPacked>(mailboxes + s * kWords);
  };
  const auto settle = [mailboxes](MailboxWords<AccT, kPacked> fetched, int64_t s) {
    return settle_mailbox<AccT, kPacked>(fetched, mailboxes + s * kWords);
  };
  // The last block's sum finishes as Triton's (sum_over_fixed_warps): H100
  // graph, int32 2^22 8.61 us against 8.79, 16-bit 2^20 0.06 us less, fp32
  // 2^18 0.01-0.03 us more (both GPUs). The 16- and 8-bit blocks' own sums
  // keep sum_over_warps (kFixedFinishForOwnSums): with the same finish there
  // ptxas moved their conversions in between a thread's loads, 0.2-0.7 us
  // slower (sm_90 SASS, benchmarks/NOTES.md, session 31).
  const AccT sum = sum_over_fixed_warps<kBlock / kWarpSize>(
      sum_every<AccT, kMailboxBatch<AccT, kPacked>>(fetch, settle, threadIdx.x, gridDim.x, kBlock));
  for (int64_t s = threadIdx.x; s < gridDim.x; s += kBlock) {
    empty_mailbox<AccT, kPacked>(mailboxes + s * kWords);
  }
  if (threadIdx.x == 0) {
    result[0] = static_cast<OutT>(sum);
    *counter = 0;
  }
}

// Whether a block whose total goes to a mailbox of kPacked takes its ticket
// (take_mailbox_ticket) before its last loads and hands it to finish_row:
// one-word mailboxes do; with two-word ones the early ticket lost (H100
// graph, int32 2^20 4.48-4.54 us against 4.25; benchmarks/NOTES.md,
// session 32), so they take it as they finish.
template <typename AccT, bool kPacked>
constexpr bool kTakesTicketEarly = kWordsPerMailbox<AccT, kPacked> == 1;

// Thread 0's ticket for finish_row's mailbox finish of row `row` (blocks are
// 1-D, so thread 0 is lane 0); 0, with no atomic, in the other threads and
// where finish_row takes no ticket from the mailboxes.
__device__ __forceinline__ unsigned int take_mailbox_ticket(const uint64_t* mailboxes,
                                                            unsigned int* counter, int64_t row) {
  if (threadIdx.x != 0 || mailboxes == nullptr || gridDim.x == 1) return 0;
  // The address through %laneid (0 here), which ptxas cannot prove the same
  // across the warp: to a uniform one it turns the add into one lane's add
  // and a shuffle of its result right after it, so warp 0 waited out the
  // atomic's round trip before its first load (sm_90 SASS). Volatile, so
  // that the compiler cannot sink the atomic to the ticket's first use.
  unsigned int lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  unsigned int ticket;
  asm volatile("atom.relaxed.gpu.global.add.u32 %0, [%1], 1;"
               : "=r"(ticket)
               : "l"(counter + row + lane)
               : "memory");
  return ticket;
}

// Hands this block's total on, so that the last block of row `row` (a row of
// gridDim.x blocks, blockIdx.y picking the row; row 0 for a one-output grid)
// writes result[0]: through the row's mailboxes (with `mailbox_ticket`, the
// block's take_mailbox_ticket, else a ticket taken here), else its partials
// and ticket, else (no counter) its partials alone, for a second launch.
// kPacked: packed mailboxes, for the launches that allow them.
template <int kBlock, bool kPacked = false, typename AccT, typename OutT>
__device__ __forceinline__ void finish_row(AccT block_total, AccT* partials, uint64_t* mailboxes,
                                           unsigned int* counter, OutT* result, int64_t row,
                                           std::optional<unsigned int> mailbox_ticket = {}) {
  // One block a row (a wave no wider than the rows): no partials.
  if (gridDim.x == 1) {
    if (threadIdx.x == 0) *result = static_cast<OutT>(block_total);
    return;
  }
  if (mailboxes != nullptr) {
    return finish_through_mailboxes<kBlock, kPacked>(
        block_total, mailboxes + row * gridDim.x * kWordsPerMailbox<AccT, kPacked>, result,
        counter + row,
        mailbox_ticket ? *mailbox_ticket : take_mailbox_ticket(mailboxes, counter, row));
  }
  // Thread 0 writes the partial and takes the ticket: its acq_rel ticket
  // publishes the partial.
  AccT* row_partials = partials + row * gridDim.x;
  if (threadIdx.x == 0) row_partials[blockIdx.x] = block_total;
  finish_in_last_block<kBlock>(static_cast<const AccT*>(row_partials), 1, gridDim.x, result,
                               counter == nullptr ? nullptr : counter + row, gridDim.x);
}

}  // namespace torch_reduce::cuda::v7
