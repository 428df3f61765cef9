// The CPU implementation, registered for every version: the same two-stage
// scheme as the GPU (fixed-size blocks summed in parallel into partials, then
// the partials summed in order), so the result does not depend on the thread
// count and CI can test the ops' semantics without a GPU.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/library.h>

#include <vector>

#include "../sum_common.h"

namespace torch_reduce::cpu {
namespace {

constexpr int64_t kElementsPerBlock = 4096;

template <typename InT>
acc_t<InT> two_stage_sum(const InT* data, int64_t numel) {
  using AccT = acc_t<InT>;
  const int64_t num_blocks = (numel + kElementsPerBlock - 1) / kElementsPerBlock;
  std::vector<AccT> partials(num_blocks);
  at::parallel_for(0, num_blocks, /*grain_size=*/1, [&](int64_t first, int64_t last) {
    for (int64_t block = first; block < last; ++block) {
      const int64_t end = std::min(numel, (block + 1) * kElementsPerBlock);
      AccT sum = AccT(0);
      for (int64_t i = block * kElementsPerBlock; i < end; ++i) sum += static_cast<AccT>(data[i]);
      partials[block] = sum;
    }
  });
  AccT total = AccT(0);
  for (const AccT partial : partials) total += partial;
  return total;
}

template <int kVersion>
at::Tensor sum_cpu(const at::Tensor& self) {
  static const std::string op = op_name(kVersion);
  check_sum_input(self, op, c10::DeviceType::CPU);
  at::Tensor result;
  dispatch_input_dtype(self.scalar_type(), op, [&](auto tag) {
    using InT = typename decltype(tag)::type;
    const at::Tensor input = self.contiguous();
    const auto total =
        static_cast<result_t<InT>>(two_stage_sum(input.const_data_ptr<InT>(), input.numel()));
    result = at::scalar_tensor(total, self.options().dtype(result_dtype(self.scalar_type())));
  });
  return result;
}

}  // namespace

TORCH_LIBRARY_IMPL(reduce_opt, CPU, m) {
  m.impl("sum_v0", &sum_cpu<0>);
  m.impl("sum_v1", &sum_cpu<1>);
  m.impl("sum_v2", &sum_cpu<2>);
  m.impl("sum_v3", &sum_cpu<3>);
  m.impl("sum_v4", &sum_cpu<4>);
  m.impl("sum_v5", &sum_cpu<5>);
  m.impl("sum_v6", &sum_cpu<6>);
  m.impl("sum_v7", &sum_cpu<7>);
}

}  // namespace torch_reduce::cpu
