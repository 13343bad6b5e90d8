// What the tiled attention loops share, forward (attention_tiled.cpp) and backward
// (backward/tiled_grad.cpp): rows of one head's matrix read in place, and the keys a block of
// query rows can see.
#pragma once

#include <algorithm>
#include <utility>

#include "tensor/eigen_types.h"
#include "tensor/key_ranges.h"
#include "tensor/tensor.h"

namespace attnlab::tiles {

// Rows [r0, r0 + n) of the (T, Dh) matrix at (b, h) of a (B, H, T, Dh) view with unit last stride.
inline ConstStridedMap rows_of(const Tensor& t, int64_t b, int64_t h, int64_t r0, int64_t n) {
  const auto& s = t.strides();
  return {t.data() + b * s[0] + h * s[1] + r0 * s[2], n, t.size(3), Eigen::OuterStride<>(s[2])};
}

// The keys visible to some row of [i0, i0 + rows) of batch b, as [lo, hi): key blocks outside
// are hidden from every row (a causal mask's upper triangle, padding) and skipped.
inline std::pair<int64_t, int64_t> visible_keys(const KeyRanges& r, int64_t b, int64_t i0, int64_t rows) {
  int64_t lo = r.keys, hi = 0;
  for (int64_t i = i0; i < i0 + rows; ++i) {
    const size_t at = static_cast<size_t>(r.row(b, i));
    if (r.lo[at] >= r.hi[at]) continue;
    lo = std::min<int64_t>(lo, r.lo[at]);
    hi = std::max<int64_t>(hi, r.hi[at]);
  }
  return {lo, std::max(lo, hi)};
}

}  // namespace attnlab::tiles
