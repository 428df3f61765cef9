// Where sum_v7 keeps the state that lets it finish in one launch: counters
// and mailboxes (reduce.cuh) that are zero at rest, and room for the
// per-block partials.
//
// Lifetimes, all bounded:
//  - eager calls on PyTorch's own streams (the default stream and the fixed
//    pool behind torch.cuda.Stream()) use a buffer per (device, stream),
//    allocated once: kernels on one stream run in order and each leaves its
//    counters and mailboxes at zero, so consecutive sums share them. There
//    are at most (1 + pool size) * priorities streams per device. The buffer
//    holds one counter per block of a two-wave grid (a column sum finishes
//    each band of columns on its own counter), as many partials, and a
//    mailbox per block of the mid shape's largest grid; a launch that needs
//    more partials takes them from the caching allocator for that call.
//  - eager calls on external streams (torch.cuda.ExternalStream) take their
//    partials from the caching allocator and finish in a second launch: such
//    streams can come and go without limit, and nothing tells us when one is
//    gone.
//  - calls during CUDA graph capture take a slot of counters and mailboxes
//    owned by the graph being captured (one per graph and capturing stream,
//    released through a CUDA user object when the graph and its executable
//    instances are destroyed) and partials from the graph's private memory
//    pool. If every slot is in use, they finish in a second launch.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/cuda/CUDAStream.h>
#include <c10/util/SmallVector.h>

#include <utility>

#include "problem.h"

namespace torch_reduce::cuda::v7 {

// Counters and partials for one call. Kept alive by the caller until every
// launch of the call is queued: per-call memory (`owner`, scratch) returns to
// the caching allocator on the current stream, after those launches.
class Workspace final : public ScratchSource {
 public:
  // Partials only: the launches finish in a second launch until
  // set_finishing_state gives them counters.
  Workspace(c10::DeviceIndex device, void* partials, int64_t partials_bytes, at::Tensor owner)
      : device_(device),
        partials_(partials),
        partials_bytes_(partials_bytes),
        owner_(std::move(owner)) {}

  // Counters and mailboxes that are zero at rest, for a finish in one launch.
  void set_finishing_state(unsigned int* counter, int64_t counter_count, uint64_t* mailboxes,
                           int64_t mailbox_count) {
    counter_ = counter;
    counter_count_ = counter_count;
    mailboxes_ = mailboxes;
    mailbox_count_ = mailbox_count;
  }

  void* allocate(int64_t bytes) override;

  template <typename AccT>
  Finish<AccT> finish() {
    return {static_cast<AccT*>(partials_),
            partials_bytes_ / int64_t(sizeof(AccT)),
            counter_,
            counter_count_,
            mailboxes_,
            mailbox_count_,
            this};
  }

 private:
  c10::DeviceIndex device_;
  void* partials_;
  int64_t partials_bytes_;
  unsigned int* counter_ = nullptr;  // nullptr: finish in a second launch
  int64_t counter_count_ = 0;
  uint64_t* mailboxes_ = nullptr;
  int64_t mailbox_count_ = 0;
  at::Tensor owner_;
  c10::SmallVector<at::Tensor, 1> scratch_;
};

Workspace workspace_for(const c10::cuda::CUDAStream& stream, int sm_count);

}  // namespace torch_reduce::cuda::v7
