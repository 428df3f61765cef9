// What each input type is summed in. Shared by host and device code, so it
// depends on nothing but c10's scalar types.
#pragma once

#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include <cstdint>
#include <type_traits>

namespace torch_reduce {

// float16 and bfloat16 accumulate in float32 (so do their partials); integers
// and bool accumulate exactly in int64; float32 and float64 in themselves.
template <typename InT>
struct AccumulateType {
  static_assert(std::is_integral<InT>::value, "no accumulate type for this input type");
  using type = int64_t;
};
template <>
struct AccumulateType<float> {
  using type = float;
};
template <>
struct AccumulateType<double> {
  using type = double;
};
template <>
struct AccumulateType<c10::Half> {
  using type = float;
};
template <>
struct AccumulateType<c10::BFloat16> {
  using type = float;
};

template <typename InT>
using acc_t = typename AccumulateType<InT>::type;

// The type of the returned 0-dim tensor's element.
template <typename InT>
using result_t = std::conditional_t<std::is_integral<InT>::value, int64_t, InT>;

}  // namespace torch_reduce
