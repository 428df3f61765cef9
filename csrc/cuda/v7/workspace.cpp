#include "workspace.h"

#include <ATen/cuda/EmptyTensor.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGraphsC10Utils.h>

#include <atomic>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

namespace torch_reduce::cuda::v7 {

// Most resident blocks per multiprocessor on any target (sm_75..sm_120 allow
// at most 32), twice over: a split reduction has fewer than two waves of
// partials (launch_policy.h).
int64_t max_partials(int sm_count) {
  return 2 * 32 * int64_t(sm_count);
}

namespace {

// Mailbox words (reduce.cuh) for the largest grid that finishes through
// them: the mid shape's 512-thread blocks, at most 2048 resident threads per
// multiprocessor, two words a block for 8-byte partials.
constexpr int64_t kMailboxWordsPerSm = 8;

int64_t mailbox_count(int sm_count) {
  return kMailboxWordsPerSm * sm_count;
}

int64_t mailboxes_bytes(int sm_count) {
  return int64_t(sizeof(uint64_t)) * mailbox_count(sm_count);
}

constexpr int64_t kPartialBytes = 8;  // the widest accumulator
// Graph-owned finishing state per device: slots for this many graphs (times
// capturing streams) alive at once before captures fall back to two launches,
// each with counters for a column sum of this many bands and one set of
// mailboxes (9.25 MiB in all on a 132-SM GPU).
constexpr int kGraphSlots = 1024;
constexpr int64_t kCountersPerGraphSlot = 256;
constexpr int64_t kGraphSlotCountersBytes = kCountersPerGraphSlot * sizeof(unsigned int);

int64_t partials_bytes(int sm_count) {
  return kPartialBytes * max_partials(sm_count);
}

// As many counters as partials; a multiple of 4 counters keeps the partials
// after them 16-byte aligned.
int64_t counters_bytes(int sm_count) {
  return int64_t(sizeof(unsigned int)) * max_partials(sm_count);
}

// c10 gives an external stream the id of its handle, which is even and
// non-zero; its own streams have odd ids, the default stream 0.
bool is_external(const c10::cuda::CUDAStream& stream) {
  const c10::StreamId id = stream.id();
  return id != 0 && (id & 1) == 0;
}

// Plain cudaMalloc, not the caching allocator: during torch.compile's
// warm-up the allocator may be serving a graph's private pool, and these
// buffers outlive any pool. Frees what it got if the zeroing fails, so that a
// failed call leaves nothing behind.
void* zeroed_device_buffer(int64_t bytes, cudaStream_t stream) {
  void* buffer = nullptr;
  C10_CUDA_CHECK(cudaMalloc(&buffer, bytes));
  const cudaError_t zeroed = cudaMemsetAsync(buffer, 0, bytes, stream);
  if (zeroed != cudaSuccess) {
    C10_CUDA_IGNORE_ERROR(cudaFree(buffer));
    C10_CUDA_CHECK(zeroed);
  }
  return buffer;
}

uint8_t* stream_buffer(const c10::cuda::CUDAStream& stream, int sm_count) {
  using Key = std::pair<c10::DeviceIndex, cudaStream_t>;
  // Keyed by device too: every device's default stream has the same handle.
  const Key key{stream.device_index(), stream.stream()};
  // Most calls come from the thread and stream of the call before.
  thread_local Key last_key{-1, nullptr};
  thread_local uint8_t* last_buffer = nullptr;
  if (key != last_key) {
    static std::mutex mutex;
    static auto* buffers = new std::map<Key, uint8_t*>();
    const std::lock_guard<std::mutex> lock(mutex);
    auto found = buffers->find(key);
    if (found == buffers->end()) {
      // Allocated before the entry is made: if it throws (out of memory), the
      // stream has no entry and the next call tries again.
      auto* buffer = static_cast<uint8_t*>(zeroed_device_buffer(
          counters_bytes(sm_count) + partials_bytes(sm_count) + mailboxes_bytes(sm_count),
          stream.stream()));
      found = buffers->emplace(key, buffer).first;
    }
    last_key = key;
    last_buffer = found->second;
  }
  return last_buffer;
}

// Slots of counters and mailboxes that captured graphs borrow. A slot is
// zero whenever no kernel is using it (each launch's last block resets what
// it used), so a slot a destroyed graph returns is ready for the next
// capture.
class GraphSlotPool {
 public:
  // Never destroyed: user-object callbacks may run while the process exits.
  static GraphSlotPool& on(c10::DeviceIndex device) {
    static auto* pools = new GraphSlotPool[C10_COMPILE_TIME_MAX_GPUS];
    return pools[device];
  }

  // Allocated on the first eager call on the device: capture cannot wait for
  // the zeroing. One synchronisation of that stream, once per process.
  void prepare(cudaStream_t stream, int sm_count) {
    if (prepared_.load(std::memory_order_acquire)) return;
    const std::lock_guard<std::mutex> lock(mutex_);
    if (slots_ != nullptr) return;
    const int64_t slot_bytes = kGraphSlotCountersBytes + mailboxes_bytes(sm_count);
    auto* slots = static_cast<uint8_t*>(zeroed_device_buffer(kGraphSlots * slot_bytes, stream));
    const cudaError_t synchronized = cudaStreamSynchronize(stream);
    if (synchronized != cudaSuccess) {
      C10_CUDA_IGNORE_ERROR(cudaFree(slots));
      C10_CUDA_CHECK(synchronized);
    }
    slots_ = slots;
    slot_bytes_ = slot_bytes;
    free_slots_.reserve(kGraphSlots);
    for (int slot = kGraphSlots - 1; slot >= 0; --slot) free_slots_.push_back(slot);
    prepared_.store(true, std::memory_order_release);
  }

  // The slot of the graph that `stream` is capturing into
  // (kCountersPerGraphSlot counters, then the mailboxes), leased on the
  // first sum of that capture on that stream; nullptr when no slot is free.
  uint8_t* slot_for_capture(cudaStream_t stream) {
    cudaStreamCaptureStatus status;
    unsigned long long capture_id = 0;
    cudaGraph_t graph = nullptr;
    C10_CUDA_CHECK(cudaStreamGetCaptureInfo(stream, &status, &capture_id, &graph));
    const std::lock_guard<std::mutex> lock(mutex_);
    const CaptureKey key{capture_id, stream};
    if (auto found = by_capture_.find(key); found != by_capture_.end()) {
      return slots_ + found->second * slot_bytes_;
    }
    if (slots_ == nullptr || free_slots_.empty()) return nullptr;
    const int slot = free_slots_.back();
    auto* lease = new Lease{this, key, slot};
    cudaUserObject_t object = nullptr;
    const cudaError_t created = cudaUserObjectCreate(&object, lease, &GraphSlotPool::release, 1,
                                                     cudaUserObjectNoDestructorSync);
    if (created != cudaSuccess) {
      delete lease;
      C10_CUDA_CHECK(created);
    }
    C10_CUDA_CHECK(cudaGraphRetainUserObject(graph, object, 1, cudaGraphUserObjectMove));
    // Taken only once the graph owns the lease: a failed call keeps the slot free.
    free_slots_.pop_back();
    by_capture_.emplace(key, slot);
    return slots_ + slot * slot_bytes_;
  }

 private:
  using CaptureKey = std::pair<unsigned long long, cudaStream_t>;
  struct Lease {
    GraphSlotPool* pool;
    CaptureKey key;
    int slot;
  };

  // Runs when the graph and every executable made from it are gone and
  // their launches have finished; it may not call CUDA.
  static void CUDART_CB release(void* data) {
    const auto* lease = static_cast<Lease*>(data);
    {
      const std::lock_guard<std::mutex> lock(lease->pool->mutex_);
      lease->pool->by_capture_.erase(lease->key);
      lease->pool->free_slots_.push_back(lease->slot);
    }
    delete lease;
  }

  std::atomic<bool> prepared_{false};
  std::mutex mutex_;
  uint8_t* slots_ = nullptr;
  int64_t slot_bytes_ = 0;
  std::vector<int> free_slots_;
  std::map<CaptureKey, int> by_capture_;
};

at::Tensor device_bytes(int64_t bytes, c10::DeviceIndex device) {
  return at::detail::empty_cuda({bytes}, at::kByte, at::Device(at::kCUDA, device), std::nullopt);
}

Workspace per_call_partials(const c10::cuda::CUDAStream& stream, int sm_count) {
  at::Tensor owner = device_bytes(partials_bytes(sm_count), stream.device_index());
  void* partials = owner.mutable_data_ptr();
  return {stream.device_index(), partials, partials_bytes(sm_count), std::move(owner)};
}

}  // namespace

void* Workspace::allocate(int64_t bytes) {
  scratch_.push_back(device_bytes(bytes, device_));
  return scratch_.back().mutable_data_ptr();
}

Workspace workspace_for(const c10::cuda::CUDAStream& stream, int sm_count) {
  if (c10::cuda::currentStreamCaptureStatusMayInitCtx() != c10::cuda::CaptureStatus::None) {
    Workspace workspace = per_call_partials(stream, sm_count);
    uint8_t* slot = GraphSlotPool::on(stream.device_index()).slot_for_capture(stream.stream());
    if (slot != nullptr) {
      workspace.set_finishing_state(reinterpret_cast<unsigned int*>(slot), kCountersPerGraphSlot,
                                    reinterpret_cast<uint64_t*>(slot + kGraphSlotCountersBytes),
                                    mailbox_count(sm_count));
    }
    return workspace;
  }
  GraphSlotPool::on(stream.device_index()).prepare(stream.stream(), sm_count);
  if (is_external(stream)) return per_call_partials(stream, sm_count);
  uint8_t* buffer = stream_buffer(stream, sm_count);
  Workspace workspace(stream.device_index(), buffer + counters_bytes(sm_count),
                      partials_bytes(sm_count), at::Tensor());
  workspace.set_finishing_state(
      reinterpret_cast<unsigned int*>(buffer), max_partials(sm_count),
      reinterpret_cast<uint64_t*>(buffer + counters_bytes(sm_count) + partials_bytes(sm_count)),
      mailbox_count(sm_count));
  return workspace;
}

}  // namespace torch_reduce::cuda::v7
