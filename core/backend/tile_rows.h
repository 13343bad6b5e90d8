// What the tiled attention loops share, forward (attention_tiled.cpp) and backward
// (backward/tiled_grad.cpp): rows of one head's matrix read in place, the keys a block of query
// rows can see, where one row looks in a key block, and the online softmax's update of a row (the
// backward's log-sum-exp pass; the forward updates a whole block at once, as columns:
// row_kernels.h's online_softmax_columns).
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "tensor/eigen_types.h"
#include "tensor/key_ranges.h"
#include "tensor/row_kernels.h"
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

// Where query row i of batch b looks in the key block [j0, j0 + n): its visible keys [a, e) of the
// block, and its row of the dense (B, Tq, Tk) mask from key j0 (null when dense is null: the
// ranges are the whole mask).
struct RowKeys {
  int64_t a, e;
  const float* mask;
};
inline RowKeys row_keys(const KeyRanges& r, const float* dense, int64_t b, int64_t i, int64_t j0, int64_t n) {
  const size_t at = static_cast<size_t>(r.row(b, i));
  const int64_t a = std::clamp<int64_t>(r.lo[at] - j0, 0, n);
  const int64_t e = std::clamp<int64_t>(r.hi[at] - j0, a, n);
  return {a, e, dense ? dense + (b * r.queries + i) * r.keys + j0 : nullptr};
}

// Online-softmax update of one query row with one key block. s: the row's n scores q·kⱼ, whose
// visible part is k.a … k.e; turned into the unnormalised weights e^(x / root − m_new) in place
// (0 where masked). m, l: the row's running maximum and sum; returns the factor the row's output
// must be rescaled by (1 when nothing in the block is visible).
inline float update_row(float* s, int64_t n, const RowKeys& k, float root, float& m, float& l) {
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  Eigen::Map<Eigen::ArrayXf> row(s, n);
  if (k.a >= k.e) {
    row.setZero();
    return 1.0f;
  }
  // The scores are divided by root inside the exponential's pass; their maximum is the raw
  // maximum divided (a float quotient is monotonic in its numerator, root > 0).
  auto x = row.segment(k.a, k.e - k.a);
  if (k.mask)
    for (int64_t j = k.a; j < k.e; ++j)
      if (k.mask[j] == 0.0f) s[j] = kNegInf;
  const float row_max = x.maxCoeff() / root;
  if (row_max == kNegInf) {  // every visible key of the block is masked by hand
    row.setZero();
    return 1.0f;
  }
  const float m_new = std::max(m, row_max);
  const float rescale = m == kNegInf ? 0.0f : std::exp(m - m_new);
  // e^(x / root − m_new) on the widest vector unit this CPU has (row_kernels.h); −∞ (masked) gives 0.
  const float block_sum = exp_scaled_sum(best_isa(), s + k.a, k.e - k.a, root, m_new);
  row.head(k.a).setZero();
  row.tail(n - k.e).setZero();
  l = l * rescale + block_sum;
  m = m_new;
  return rescale;
}

}  // namespace attnlab::tiles
