// Device helpers shared by the kernel versions, and the host-side pass loop
// that v0–v5 use.
#pragma once

#include <c10/cuda/CUDAException.h>

#include <algorithm>
#include <cstdint>
#include <utility>

#include "sum_launchers.h"

namespace torch_reduce::cuda {

constexpr int kWarpSize = 32;

// Elements past the end of the input read as the identity, so a block may
// own a partial tile: this is the "any N" fix the seeds lack.
template <typename AccT, typename InT>
__device__ __forceinline__ AccT load_or_zero(const InT* input, int64_t index, int64_t numel) {
  return index < numel ? static_cast<AccT>(input[index]) : AccT(0);
}

// The seeds' last-warp unroll (v4–v6) on `cache[0 .. kActive)`, for the first
// warp. The seeds rely on a warp running in lockstep, which Volta's
// independent thread scheduling no longer guarantees: every step reads both
// operands, then __syncwarp(), then writes, then __syncwarp(), so no lane
// overwrites a value another lane has yet to read.
template <int kActive, typename T>
__device__ __forceinline__ void warp_reduce_unrolled(volatile T* cache, unsigned tid) {
#pragma unroll
  for (int offset = kWarpSize; offset > 0; offset /= 2) {
    if (kActive >= 2 * offset) {
      const T sum = cache[tid] + cache[tid + offset];
      __syncwarp();
      cache[tid] = sum;
      __syncwarp();
    }
  }
}

// v5's completely unrolled tree for a block of kBlock threads (v6 inherits
// it): every step is decided at compile time, down to the last warp.
template <int kBlock, typename T>
__device__ __forceinline__ void block_reduce_unrolled(T* smem, unsigned tid) {
  static_assert(kBlock >= kWarpSize && kBlock <= 1024 && (kBlock & (kBlock - 1)) == 0,
                "block size must be a power of two between 32 and 1024");
  if (kBlock >= 1024) {
    if (tid < 512) smem[tid] += smem[tid + 512];
    __syncthreads();
  }
  if (kBlock >= 512) {
    if (tid < 256) smem[tid] += smem[tid + 256];
    __syncthreads();
  }
  if (kBlock >= 256) {
    if (tid < 128) smem[tid] += smem[tid + 128];
    __syncthreads();
  }
  if (kBlock >= 128) {
    if (tid < 64) smem[tid] += smem[tid + 64];
    __syncthreads();
  }
  if (tid < kWarpSize) warp_reduce_unrolled<(kBlock < 64 ? kBlock : 64)>(smem, tid);
}

// v7's warp reduction: lane 0 ends with the sum of lanes [0, kWidth).
template <int kWidth, typename T>
__device__ __forceinline__ T warp_shuffle_sum(T value) {
#pragma unroll
  for (int offset = kWidth / 2; offset > 0; offset /= 2) {
    value += __shfl_down_sync(0xffffffffu, value, offset);
  }
  return value;
}

// v0–v5 give every block a fixed tile of kTile elements, so one launch turns
// n values into ceil(n / kTile) partials. Apply the version's pass until one
// value is left; the last pass writes the result in its own dtype.
// `launch_pass(input, numel, output, blocks)` launches one pass.
template <int64_t kTile, typename InT, typename LaunchPass>
void reduce_in_passes(const SumArgs<InT>& args, LaunchPass&& launch_pass) {
  int64_t blocks = ceil_div(args.numel, kTile);
  if (blocks == 1) {
    launch_pass(args.input, args.numel, args.result, blocks);
    return;
  }
  // Two levels of partials ping-pong in the workspace: the first level holds
  // ceil(n / kTile) values and every later one fits in either half.
  acc_t<InT>* level = args.workspace;
  acc_t<InT>* next_level = args.workspace + blocks;
  launch_pass(args.input, args.numel, level, blocks);
  for (int64_t remaining = blocks;; remaining = blocks) {
    blocks = ceil_div(remaining, kTile);
    if (blocks == 1) {
      launch_pass(static_cast<const acc_t<InT>*>(level), remaining, args.result, blocks);
      return;
    }
    launch_pass(static_cast<const acc_t<InT>*>(level), remaining, next_level, blocks);
    std::swap(level, next_level);
  }
}

}  // namespace torch_reduce::cuda
