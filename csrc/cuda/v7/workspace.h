// Where sum_v7 keeps the state that lets it finish in one launch: a counter
// that is zero at rest, and room for the per-block partials.
//
// Lifetimes, all bounded:
//  - eager calls on PyTorch's own streams (the default stream and the fixed
//    pool behind torch.cuda.Stream()) use a buffer per (device, stream),
//    allocated once: kernels on one stream run in order and each leaves the
//    counter at zero, so consecutive sums share it. There are at most
//    (1 + pool size) * priorities streams per device.
//  - eager calls on external streams (torch.cuda.ExternalStream) take their
//    partials from the caching allocator and finish in a second launch: such
//    streams can come and go without limit, and nothing tells us when one is
//    gone.
//  - calls during CUDA graph capture take a counter slot owned by the graph
//    being captured (one per graph and capturing stream, released through a
//    CUDA user object when the graph and its executable instances are
//    destroyed) and partials from the graph's private memory pool. If every
//    slot is in use, they finish in a second launch.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/cuda/CUDAStream.h>

#include "problem.h"

namespace torch_reduce::cuda::v7 {

struct Workspace {
  void* partials;
  int64_t partials_bytes;
  unsigned int* counter;  // nullptr: finish in a second launch
  at::Tensor owner;       // keeps per-call partials alive until the launch is queued
};

Workspace workspace_for(const c10::cuda::CUDAStream& stream, int sm_count);

template <typename AccT>
Finish<AccT> finish_from(const Workspace& workspace) {
  return {static_cast<AccT*>(workspace.partials),
          workspace.partials_bytes / int64_t(sizeof(AccT)), workspace.counter};
}

}  // namespace torch_reduce::cuda::v7
