#include "attention_tiled.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "eigen_types.h"
#include "errors.h"

namespace attnlab {

namespace {

// Rows [r0, r0 + n) of the (T, Dh) matrix at (b, h) of a (B, H, T, Dh) view with unit last stride.
ConstStridedMap rows_of(const Tensor& t, int64_t b, int64_t h, int64_t r0, int64_t n) {
  const auto& s = t.strides();
  return {t.data() + b * s[0] + h * s[1] + r0 * s[2], n, t.size(3), Eigen::OuterStride<>(s[2])};
}

// The first key that is visible to some row of [i0, i1) and the key after the last one: the
// key blocks outside are hidden from every row (a causal mask's upper triangle, padding).
std::pair<int64_t, int64_t> visible_keys(const float* mask_rows, int64_t rows, int64_t tk) {
  int64_t lo = tk, hi = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const float* m = mask_rows + r * tk;
    int64_t j = 0;
    while (j < tk && m[j] == 0.0f) ++j;
    if (j == tk) continue;
    int64_t e = tk;
    while (e > j && m[e - 1] == 0.0f) --e;
    lo = std::min(lo, j);
    hi = std::max(hi, e);
  }
  return {lo, std::max(lo, hi)};
}

// One (b, h, query block): the online softmax over the visible key blocks.
void query_block(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, float root, int64_t b,
                 int64_t h, int64_t i0, int64_t rows, const TileSizes& tiles, float* out) {
  const int64_t tq = q.size(2), tk = k.size(2), dh = q.size(3);
  const float neg_inf = -std::numeric_limits<float>::infinity();
  const float* mrows = mask.data() + (b * tq + i0) * tk;
  const ConstStridedMap Q = rows_of(q, b, h, i0, rows);
  Mat o = Mat::Zero(rows, dh);
  Vec m = Vec::Constant(rows, neg_inf), l = Vec::Zero(rows);
  Mat s(rows, tiles.keys);
  const auto [lo, hi] = visible_keys(mrows, rows, tk);
  for (int64_t j0 = lo - lo % tiles.keys; j0 < hi; j0 += tiles.keys) {
    const int64_t n = std::min(tiles.keys, tk - j0);
    auto S = s.leftCols(n);
    S.noalias() = Q * rows_of(k, b, h, j0, n).transpose();
    for (int64_t r = 0; r < rows; ++r) {
      const float* mk = mrows + r * tk + j0;
      float row_max = neg_inf;
      for (int64_t j = 0; j < n; ++j) {
        const float x = mk[j] == 0.0f ? neg_inf : S(r, j) / root;  // as the full path: qk / √Dh
        S(r, j) = x;
        row_max = std::max(row_max, x);
      }
      if (row_max == neg_inf) {  // nothing visible in this block for this row
        S.row(r).setZero();
        continue;
      }
      const float m_new = std::max(m[r], row_max);
      const float rescale = m[r] == neg_inf ? 0.0f : std::exp(m[r] - m_new);
      float sum = 0;
      for (int64_t j = 0; j < n; ++j) {
        const float e = S(r, j) == neg_inf ? 0.0f : std::exp(S(r, j) - m_new);
        S(r, j) = e;
        sum += e;
      }
      l[r] = l[r] * rescale + sum;
      o.row(r) *= rescale;
      m[r] = m_new;
    }
    o.noalias() += S * rows_of(v, b, h, j0, n);
  }
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int64_t r = 0; r < rows; ++r) {
    float* dst = out + (i0 + r) * dh;
    if (l[r] > 0)
      for (int64_t d = 0; d < dh; ++d) dst[d] = o(r, d) / l[r];
    else
      std::fill(dst, dst + dh, nan);  // every key masked: 0/0, as the softmax of an all −∞ row
  }
}

}  // namespace

Tensor attention_tiled(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, float root,
                       TileSizes tiles) {
  if (q.dim() != 4 || k.dim() != 4 || k.shape() != v.shape() || q.size(0) != k.size(0) || q.size(1) != k.size(1) ||
      q.size(3) != k.size(3) || mask.shape() != Shape{q.size(0), q.size(2), k.size(2)} || !mask.is_contiguous() ||
      q.strides()[3] != 1 || k.strides()[3] != 1 || v.strides()[3] != 1 || tiles.queries < 1 || tiles.keys < 1)
    throw ShapeError("attention_tiled: q " + shape_str(q.shape()) + ", k " + shape_str(k.shape()) + ", v " +
                     shape_str(v.shape()) + ", mask " + shape_str(mask.shape()) +
                     " (q, k, v (B, H, T, Dh) with unit last stride; mask (B, Tq, Tk) contiguous)");
  const int64_t B = q.size(0), H = q.size(1), tq = q.size(2), dh = q.size(3);
  Tensor out = Tensor::empty({B, H, tq, dh});
  const int64_t blocks = (tq + tiles.queries - 1) / tiles.queries;
  const int64_t tasks = B * H * blocks;
#pragma omp parallel for schedule(dynamic) if (tasks > 1)
  for (int64_t t = 0; t < tasks; ++t) {
    const int64_t b = t / (H * blocks), h = t / blocks % H, i0 = t % blocks * tiles.queries;
    query_block(q, k, v, mask, root, b, h, i0, std::min(tiles.queries, tq - i0), tiles,
                out.data() + (b * H + h) * tq * dh);
  }
  return out;
}

}  // namespace attnlab
