// What the private reference ops share: the dtypes they read, the C++ types
// behind them, and the input checks.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "../../sum_common.h"

namespace torch_reduce::reference {

// The CUDA types a kernel loads, the type it accumulates in (float32 for the
// 16-bit floats, like torch.sum; int64 for int32) and the type ATen stores
// the result in.
template <typename Load, typename Accumulate, typename Result>
struct Types {
  using load = Load;
  using accumulate = Accumulate;
  using result = Result;
};

// Calls `fn(Types<...>{})` for the dtypes the reference ops read.
template <typename Fn>
void dispatch_reference_dtype(const at::Tensor& self, const char* op, Fn&& fn) {
  switch (self.scalar_type()) {
    case at::kFloat: return fn(Types<float, float, float>{});
    case at::kHalf: return fn(Types<__half, float, c10::Half>{});
    case at::kBFloat16: return fn(Types<__nv_bfloat16, float, c10::BFloat16>{});
    case at::kInt: return fn(Types<int32_t, int64_t, int64_t>{});
    default:
      TORCH_CHECK(false, op, ": unsupported dtype ", self.scalar_type(),
                  "; supported are float32, float16, bfloat16 and int32");
  }
}

inline void check_reference_input(const at::Tensor& self, const char* op) {
  TORCH_CHECK(self.defined(), op, ": expected a tensor, got an undefined one");
  TORCH_CHECK(self.is_cuda(), op, ": expected a CUDA tensor, got one on ", self.device());
  TORCH_CHECK(self.layout() == at::kStrided, op, ": expected a strided (dense) tensor, got layout ",
              self.layout());
  TORCH_CHECK(self.is_contiguous(), op, ": expected a contiguous tensor, got sizes ",
              decimal(self.sizes()), " and strides ", decimal(self.strides()));
}

// The accumulation type of a loaded element, with explicit conversions:
// PyTorch builds CUDA code with the implicit half/bfloat16 conversions off.
struct ToAccumulate {
  __host__ __device__ float operator()(float value) const { return value; }
  __host__ __device__ float operator()(__half value) const { return __half2float(value); }
  __host__ __device__ float operator()(__nv_bfloat16 value) const {
    return __bfloat162float(value);
  }
  __host__ __device__ int64_t operator()(int32_t value) const { return value; }
};

}  // namespace torch_reduce::reference
