// What a sum over dims means, independent of the device: the result dtype with
// torch.sum's `dtype=` option, which dims a `dim` argument reduces, and the
// output's sizes. Host code only, shared by the CPU and CUDA implementations
// and by autograd, so that every path raises the same errors.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/ScalarType.h>
#include <c10/util/DimVector.h>
#include <c10/util/OptionalArrayRef.h>

#include <algorithm>
#include <bitset>
#include <cstdint>
#include <optional>
#include <string>

#include "sum_common.h"

namespace torch_reduce {

// torch.sum's rule, after checking both dtypes: a requested dtype is the
// result dtype; without one, integers and bool sum to int64 and floating types
// keep their dtype. The sum then means the sum of `self.to(dtype)`,
// accumulated in acc_t<requested type> (see sum_compute_dtype).
inline at::ScalarType sum_result_dtype(at::ScalarType input, std::optional<at::ScalarType> dtype,
                                       const std::string& op) {
  check_supported_dtype(input, op);
  if (!dtype.has_value()) {
    return at::isIntegralType(input, /*includeBool=*/true) ? at::kLong : input;
  }
  check_supported_dtype(*dtype, op, "requested dtype");
  return *dtype;
}

// The dtype whose values are summed: the elements of self.to(dtype) when a
// dtype is requested, else self's own.
inline at::ScalarType sum_compute_dtype(at::ScalarType input, std::optional<at::ScalarType> dtype) {
  return dtype.value_or(input);
}

// The most dims a tensor may have here, as in ATen's dim_list_to_bitset.
constexpr int64_t kMaxDims = 64;
using DimMask = std::bitset<kMaxDims>;

// The dims of a `ndim`-dim tensor that `dim` reduces, as torch.sum reads it:
// negative dims count from the end, None or an empty list reduce every dim,
// a 0-dim tensor accepts 0 and -1, and out-of-range (IndexError) or repeated
// (RuntimeError) dims are errors.
inline DimMask reduced_dims(int64_t ndim, at::OptionalIntArrayRef dim, const std::string& op) {
  TORCH_CHECK(ndim <= kMaxDims, op, ": tensors with up to ", decimal(kMaxDims),
              " dims are supported, got one with ", decimal(ndim));
  DimMask mask;
  if (!dim.has_value() || dim->empty()) {
    for (int64_t d = 0; d < ndim; ++d) mask.set(d);
    return mask;
  }
  // A 0-dim tensor has one addressable dim, as in torch's maybe_wrap_dim.
  const int64_t addressable = std::max<int64_t>(ndim, 1);
  for (const int64_t requested : *dim) {
    TORCH_CHECK_INDEX(requested >= -addressable && requested < addressable, op,
                      ": dimension out of range (expected to be in range of [",
                      decimal(-addressable), ", ", decimal(addressable - 1), "], but got ",
                      decimal(requested), ")");
    const int64_t wrapped = requested < 0 ? requested + addressable : requested;
    TORCH_CHECK(!mask.test(wrapped), op, ": dim ", decimal(wrapped),
                " appears multiple times in the list of dims");
    mask.set(wrapped);
  }
  if (ndim == 0) mask.reset();  // nothing to reduce: the result is self's value
  return mask;
}

// The result's sizes: reduced dims dropped, or kept as 1 with keepdim.
inline c10::DimVector reduced_sizes(at::IntArrayRef sizes, const DimMask& mask, bool keepdim) {
  c10::DimVector result;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (!mask.test(d)) {
      result.push_back(sizes[d]);
    } else if (keepdim) {
      result.push_back(1);
    }
  }
  return result;
}

// A reduced dim of stride 0 (an expanded view) repeats one stored slice, so
// the sum over it is the slice's sum times the dim's size: `self` with such
// dims narrowed to their stored slice, and the product of their sizes in
// `repeats`, by which the implementations multiply each output's sum in its
// accumulator. Reading every repeat cost CUDA 40.9 us on
// x[0:1].expand(8192, 8192) float32, where Inductor's loads of the one stored
// row hit in cache (5.9 us, H100), and the CPU's blocked sum of repeats of
// one value loses more than a tree does (benchmarks/NOTES.md).
template <typename IsReduced>
at::Tensor without_repeated_dims_if(const at::Tensor& self, const IsReduced& is_reduced,
                                    int64_t& repeats) {
  repeats = 1;
  c10::DimVector sizes(self.sizes().begin(), self.sizes().end());
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (is_reduced(d) && self.stride(d) == 0 && sizes[d] > 1) {
      repeats *= sizes[d];
      sizes[d] = 1;
    }
  }
  return repeats == 1 ? self : self.as_strided(sizes, self.strides(), self.storage_offset());
}

inline at::Tensor without_repeated_dims(const at::Tensor& self, const DimMask& reduced,
                                        int64_t& repeats) {
  return without_repeated_dims_if(self, [&](int64_t d) { return reduced.test(d); }, repeats);
}

// A full sum: every dim is reduced, whatever their number (no DimMask limit).
inline at::Tensor without_repeated_dims(const at::Tensor& self, int64_t& repeats) {
  return without_repeated_dims_if(self, [](int64_t) { return true; }, repeats);
}

}  // namespace torch_reduce
