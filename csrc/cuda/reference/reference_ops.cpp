// Private reference ops for the benchmark (benchmarks/): what sum_v7 is
// measured against. They are not part of the public API; their names start
// with an underscore and they have CUDA implementations only.
#include <torch/library.h>

TORCH_LIBRARY_FRAGMENT(reduce_opt, m) {
  // CUB's DeviceReduce sum of a contiguous tensor, with torch.sum's result dtype.
  m.def("_cub_sum(Tensor self) -> Tensor");
  // Reads every byte of a contiguous tensor once, as fast as it can: one wave
  // of blocks_per_sm blocks per SM, each thread keeping vectors_in_flight
  // 16-byte loads in flight. Returns one partial sum per block (float32 for
  // floating inputs, int64 for int32), with no second stage.
  m.def("_read_roofline(Tensor self, int blocks_per_sm, int vectors_in_flight) -> Tensor");
}
