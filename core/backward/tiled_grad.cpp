#include "backward/tiled_grad.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "backend/tile_rows.h"
#include "tensor/eigen_types.h"
#include "tensor/key_ranges.h"
#include "text/errors.h"

namespace attnlab::grad {

namespace {

using tiles::row_keys;
using tiles::RowKeys;
using tiles::update_row;
using tiles::visible_keys;

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

struct Inputs {
  const Tensor &q, &k, &v, &out, &dout;  // out, dout contiguous
  const KeyRanges& ranges;
  const float* dense;  // (B, Tq, Tk) when the ranges are not the whole mask, else null
  float root;
  TileSizes tiles;
  int64_t bin_q, bin_k;
};

struct Outputs {
  Tensor dq, dk, dv, overview;  // contiguous; overview zeroed
};

// The block S (rows × n, row-major, bk columns apart) of query rows i0… and keys j0… turned into
// scaled scores: q·k / root where row i may see key j, −∞ elsewhere.
void scale_and_mask(const Inputs& in, int64_t b, int64_t i0, int64_t rows, int64_t j0, int64_t n, Mat& s) {
  for (int64_t r = 0; r < rows; ++r) {
    const RowKeys k = row_keys(in.ranges, in.dense, b, i0 + r, j0, n);
    float* row = s.data() + r * s.cols();
    // Three loops rather than one choice per key: `seen ? row[j] / root : −∞` is a branch GCC does
    // not vectorise. row_keys gives 0 ≤ a ≤ e ≤ n.
    for (int64_t j = 0; j < k.a; ++j) row[j] = kNegInf;
    for (int64_t j = k.a; j < k.e; ++j) row[j] = row[j] / in.root;
    for (int64_t j = k.e; j < n; ++j) row[j] = kNegInf;
    if (k.mask)
      for (int64_t j = k.a; j < k.e; ++j)
        if (k.mask[j] == 0.0f) row[j] = kNegInf;
  }
}

// Pass 1: each query row's log-sum-exp over the keys it sees, by the forward's online softmax
// (NaN for a row that sees none).
Vec log_sum_exp(const Inputs& in, int64_t b, int64_t h) {
  const int64_t tq = in.q.size(2), tk = in.k.size(2), bq = in.tiles.queries, bk = in.tiles.keys;
  Vec L(tq);
  Mat s(bq, bk);
  for (int64_t i0 = 0; i0 < tq; i0 += bq) {
    const int64_t rows = std::min(bq, tq - i0);
    Vec m = Vec::Constant(rows, kNegInf), l = Vec::Zero(rows);
    const auto [lo, hi] = visible_keys(in.ranges, b, i0, rows);
    for (int64_t j0 = lo - lo % bk; j0 < hi; j0 += bk) {
      const int64_t n = std::min(bk, tk - j0);
      s.topLeftCorner(rows, n).noalias() = tiles::rows_of(in.q, b, h, i0, rows) * tiles::rows_of(in.k, b, h, j0, n).transpose();
      for (int64_t r = 0; r < rows; ++r)
        update_row(s.data() + r * bk, n, row_keys(in.ranges, in.dense, b, i0 + r, j0, n), in.root, m[r], l[r]);
    }
    for (int64_t r = 0; r < rows; ++r)
      L[i0 + r] = l[r] > 0 ? m[r] + std::log(l[r]) : std::numeric_limits<float>::quiet_NaN();
  }
  return L;
}

// ds (rows × n) into the overview of (b, h): each finite row's sums per key bin, over its query bin's size.
void add_overview(const Inputs& in, Outputs& o, int64_t b, int64_t h, int64_t i0, int64_t j0, const Mat& ds,
                  int64_t rows, int64_t n) {
  const int64_t tq = in.q.size(2), H = in.q.size(1), R = o.overview.size(2), C = o.overview.size(3);
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t bin = (i0 + r) / in.bin_q, in_bin = std::min(in.bin_q, tq - bin * in.bin_q);
    float* dst = o.overview.data() + ((b * H + h) * R + bin) * C;
    for (int64_t j = 0; j < n; ++j)
      if (std::isfinite(ds(r, j))) dst[(j0 + j) / in.bin_k] += ds(r, j) / static_cast<float>(in_bin);
  }
}

// Pass 2 for one (b, h): each key block with every query block that sees it.
void head_backward(const Inputs& in, Outputs& o, int64_t b, int64_t h) {
  const int64_t tq = in.q.size(2), tk = in.k.size(2), dh = in.q.size(3), H = in.q.size(1);
  const int64_t bq = in.tiles.queries, bk = in.tiles.keys;
  const Vec L = log_sum_exp(in, b, h);
  const ConstMatMap O(in.out.data() + (b * H + h) * tq * dh, tq, dh), dO(in.dout.data() + (b * H + h) * tq * dh, tq, dh);
  const Vec D = O.cwiseProduct(dO).rowwise().sum().transpose();
  MatMap dQ(o.dq.data() + (b * H + h) * tq * dh, tq, dh), dK(o.dk.data() + (b * H + h) * tk * dh, tk, dh),
      dV(o.dv.data() + (b * H + h) * tk * dh, tk, dh);
  Mat s(bq, bk), dp(bq, bk);
  for (int64_t j0 = 0; j0 < tk; j0 += bk) {
    const int64_t n = std::min(bk, tk - j0);
    const auto K = tiles::rows_of(in.k, b, h, j0, n), V = tiles::rows_of(in.v, b, h, j0, n);
    for (int64_t i0 = 0; i0 < tq; i0 += bq) {
      const int64_t rows = std::min(bq, tq - i0);
      const auto [lo, hi] = visible_keys(in.ranges, b, i0, rows);
      if (j0 + n <= lo || j0 >= hi) continue;  // no row of this block sees these keys: P = 0
      const auto Q = tiles::rows_of(in.q, b, h, i0, rows);
      auto P = s.topLeftCorner(rows, n);
      P.noalias() = Q * K.transpose();
      scale_and_mask(in, b, i0, rows, j0, n, s);
      for (int64_t r = 0; r < rows; ++r) P.row(r) = (P.row(r).array() - L[i0 + r]).exp().matrix();  // e^(−∞) = 0
      dV.middleRows(j0, n).noalias() += P.transpose() * dO.middleRows(i0, rows);
      auto dS = dp.topLeftCorner(rows, n);
      dS.noalias() = dO.middleRows(i0, rows) * V.transpose();  // dP
      for (int64_t r = 0; r < rows; ++r)
        dS.row(r) = (P.row(r).array() * (dS.row(r).array() - D[i0 + r])).matrix();
      dQ.middleRows(i0, rows).noalias() += (dS * K) / in.root;
      dK.middleRows(j0, n).noalias() += (dS.transpose() * Q) / in.root;
      add_overview(in, o, b, h, i0, j0, dp, rows, n);
    }
  }
}

TiledAttentionGrads run(const Tensor& q, const Tensor& k, const Tensor& v, const KeyRanges& ranges, const float* dense,
                        float root, const Tensor& out, const Tensor& dout, int64_t cap, TileSizes tiles) {
  if (q.dim() != 4 || k.dim() != 4 || k.shape() != v.shape() || q.size(0) != k.size(0) || q.size(1) != k.size(1) ||
      q.size(3) != k.size(3) || out.shape() != q.shape() || dout.shape() != q.shape() ||
      ranges.shape() != Shape{q.size(0), q.size(2), k.size(2)} || q.strides()[3] != 1 || k.strides()[3] != 1 ||
      v.strides()[3] != 1 || cap < 1 || tiles.queries < 1 || tiles.keys < 1 || !(root > 0.0f))
    throw ShapeError("attention_tiled_backward: q " + shape_str(q.shape()) + ", k " + shape_str(k.shape()) + ", v " +
                     shape_str(v.shape()) + ", mask " + shape_str(ranges.shape()) + ", out " + shape_str(out.shape()) +
                     ", dout " + shape_str(dout.shape()) + ", root " + std::to_string(root) + " (root > 0)");
  const Tensor oc = out.contiguous(), gc = dout.contiguous();
  const int64_t B = q.size(0), H = q.size(1), tq = q.size(2), tk = k.size(2);
  const int64_t bin_q = overview_bin(tq, cap), bin_k = overview_bin(tk, cap);
  const Inputs in{q, k, v, oc, gc, ranges, dense, root, tiles, bin_q, bin_k};
  Outputs o{Tensor(q.shape(), 0.0f), Tensor(k.shape(), 0.0f), Tensor(v.shape(), 0.0f),
            Tensor({B, H, (tq + bin_q - 1) / bin_q, (tk + bin_k - 1) / bin_k}, 0.0f)};
  const int64_t tasks = B * H;
#pragma omp parallel for schedule(dynamic) if (tasks > 1)
  for (int64_t t = 0; t < tasks; ++t) head_backward(in, o, t / H, t % H);
  return {o.dq, o.dk, o.dv, o.overview};
}

}  // namespace

TiledAttentionGrads attention_tiled_backward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask,
                                             float root, const Tensor& out, const Tensor& dout, int64_t cap,
                                             TileSizes tiles) {
  if (mask.dim() != 3 || !mask.is_contiguous())
    throw ShapeError("attention_tiled_backward: mask " + shape_str(mask.shape()) + " must be (B, Tq, Tk) contiguous");
  bool exact = false;
  const KeyRanges ranges = key_ranges_of(mask, &exact);
  return run(q, k, v, ranges, exact ? nullptr : mask.data(), root, out, dout, cap, tiles);
}

TiledAttentionGrads attention_tiled_backward(const Tensor& q, const Tensor& k, const Tensor& v, const KeyRanges& mask,
                                             float root, const Tensor& out, const Tensor& dout, int64_t cap,
                                             TileSizes tiles) {
  return run(q, k, v, mask, nullptr, root, out, dout, cap, tiles);
}

}  // namespace attnlab::grad
