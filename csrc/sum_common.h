// Host-side pieces shared by the CPU and CUDA implementations: which dtypes the
// ops accept, what they accumulate in, and the input checks.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/util/ArrayRef.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include <cstdint>
#include <string>

#include "accumulate_type.h"

namespace torch_reduce {

constexpr int kNumVersions = 8;

// Integers in error messages, as text made without an ostream. On one GPU
// machine (g++ 13.3 against the torch 2.11 wheel), any extension that streams
// an integer into a message (TORCH_CHECK's c10::str) crashes inside
// std::ostream's integer insertion, so an error became a segfault; strings
// stream safely there.
inline std::string decimal(int64_t value) {
  return std::to_string(value);
}

inline std::string decimal(c10::IntArrayRef values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    text += (i == 0 ? "" : ", ") + std::to_string(values[i]);
  }
  return text + "]";
}

inline std::string op_name(int version) {
  return "reduce_opt::sum_v" + std::to_string(version);
}

// Like torch.sum: integers and bool sum to int64, floating types keep their dtype.
inline at::ScalarType result_dtype(at::ScalarType input) {
  return at::isIntegralType(input, /*includeBool=*/true) ? at::kLong : input;
}

template <typename T>
struct TypeTag {
  using type = T;
};

inline bool is_supported_dtype(at::ScalarType dtype) {
  switch (dtype) {
    case at::kFloat:
    case at::kDouble:
    case at::kHalf:
    case at::kBFloat16:
    case at::kByte:
    case at::kChar:
    case at::kShort:
    case at::kInt:
    case at::kLong:
    case at::kBool: return true;
    default: return false;
  }
}

// NotImplementedError, the type torch.sum raises for a dtype it has no kernel for.
inline void check_supported_dtype(at::ScalarType dtype, const std::string& op,
                                  const char* which = "dtype") {
  TORCH_CHECK_NOT_IMPLEMENTED(is_supported_dtype(dtype), op, ": unsupported ", which, " ", dtype,
                              "; supported are float32, float64, float16, bfloat16, uint8, int8, "
                              "int16, int32, int64 and bool");
}

// Calls `fn(TypeTag<InT>{})` with the C++ type of `dtype`: the one place where
// the runtime dtype becomes a compile-time type.
template <typename Fn>
void dispatch_input_dtype(at::ScalarType dtype, const std::string& op, Fn&& fn) {
  switch (dtype) {
    case at::kFloat: return fn(TypeTag<float>{});
    case at::kDouble: return fn(TypeTag<double>{});
    case at::kHalf: return fn(TypeTag<c10::Half>{});
    case at::kBFloat16: return fn(TypeTag<c10::BFloat16>{});
    case at::kByte: return fn(TypeTag<uint8_t>{});
    case at::kChar: return fn(TypeTag<int8_t>{});
    case at::kShort: return fn(TypeTag<int16_t>{});
    case at::kInt: return fn(TypeTag<int32_t>{});
    case at::kLong: return fn(TypeTag<int64_t>{});
    case at::kBool: return fn(TypeTag<bool>{});
    default: check_supported_dtype(dtype, op);
  }
}

// Checks that `self` can be summed by `op` on `device_type`; the dtype is
// checked by dispatch_input_dtype.
inline void check_sum_input(const at::Tensor& self, const std::string& op,
                            c10::DeviceType device_type) {
  TORCH_CHECK(self.defined(), op, ": expected a tensor, got an undefined one");
  TORCH_CHECK(self.layout() == at::kStrided, op, ": expected a strided (dense) tensor, got layout ",
              self.layout());
  TORCH_CHECK(!self.is_quantized(), op, ": quantized tensors are not supported (dtype ",
              self.scalar_type(), ")");
  TORCH_CHECK(self.device().type() == device_type, op, ": expected a ", device_type,
              " tensor, got one on ", self.device());
}

}  // namespace torch_reduce
