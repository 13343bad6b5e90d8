#include "backend/attention_tiled.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "backend/tile_rows.h"
#include "tensor/eigen_types.h"
#include "tensor/gemm.h"
#include "tensor/parallel.h"
#include "tensor/row_kernels.h"
#include "text/errors.h"

namespace attnlab {

namespace {

using tiles::row_keys;
using tiles::RowKeys;
using tiles::visible_keys;

constexpr float kMaskedScore = -std::numeric_limits<float>::infinity();  // a hidden key

// What one task reads: the inputs, the mask's ranges and (for hand-drawn masks) the dense mask.
struct Inputs {
  const Tensor &q, &k, &v;
  const KeyRanges& ranges;
  const float* dense;  // (B, Tq, Tk) or null when the ranges are the whole mask
  float root;
  TileSizes tiles;
  float* overview = nullptr;  // (B, H, R, C) zeroed, or null: no overview
  int64_t bin_q = 1, bin_k = 1;
  bool merged = false;  // the output in (B, Tq, H, Dh) storage (the fast path; run())
};

// The overview's share of one query block: each row's weights summed per key bin (rescaled
// with the running maximum like the output), normalised by the row's sum, averaged into the
// row's query bin. Rows are added under an atomic: query bins may span tasks.
class OverviewRows {
 public:
  OverviewRows(const Inputs& in, int64_t rows)
      : in_(in), cols_((in.k.size(2) + in.bin_k - 1) / in.bin_k), sums_(Mat::Zero(in.overview ? rows : 0, cols_)) {}
  bool on() const { return in_.overview != nullptr; }
  void rescale(int64_t r, float f) { sums_.row(r) *= f; }
  // Row r's weights w[j · stride] of the keys j0 + a … j0 + e.
  void add(int64_t r, const float* w, int64_t stride, int64_t j0, int64_t a, int64_t e) {
    for (int64_t j = a; j < e; ++j) sums_(r, (j0 + j) / in_.bin_k) += w[j * stride];
  }
  void finish(int64_t b, int64_t h, int64_t i0, const Vec& l) {
    const int64_t tq = in_.q.size(2), H = in_.q.size(1), R = (tq + in_.bin_q - 1) / in_.bin_q;
    for (int64_t r = 0; r < sums_.rows(); ++r) {
      if (!(l[r] > 0)) continue;  // a query that sees no key adds nothing
      const int64_t i = i0 + r, bin = i / in_.bin_q;
      const int64_t in_bin = std::min(in_.bin_q, tq - bin * in_.bin_q);
      float* dst = in_.overview + ((b * H + h) * R + bin) * cols_;
      const float f = 1.0f / (l[r] * static_cast<float>(in_bin));
      for (int64_t c = 0; c < cols_; ++c) {
#pragma omp atomic
        dst[c] += sums_(r, c) * f;
      }
    }
  }

 private:
  const Inputs& in_;
  int64_t cols_;
  Mat sums_;
};

// Each row's visible keys [a, e) of the block j0 … j0 + n, always written (the overview reads
// them); returns whether some row sees less than the whole block (false: the kernel is given no
// ranges). And −∞ in st (n, rows: key j, query row r at j · rows + r) where a hand-drawn mask hides
// a key inside a row's range.
bool visible_ranges(const Inputs& in, int64_t b, int64_t i0, int64_t rows, int64_t j0, int64_t n, float* st,
                    int32_t* a, int32_t* e) {
  bool partial = false;
  for (int64_t r = 0; r < rows; ++r) {
    const RowKeys keys = row_keys(in.ranges, in.dense, b, i0 + r, j0, n);
    a[r] = static_cast<int32_t>(keys.a);
    e[r] = static_cast<int32_t>(keys.e);
    partial = partial || keys.a > 0 || keys.e < n;
    if (keys.mask)
      for (int64_t j = keys.a; j < keys.e; ++j)
        if (keys.mask[j] == 0.0f) st[j * rows + r] = kMaskedScore;
  }
  return partial;
}

// One (b, h, query block): the online softmax over the visible key blocks → out rows. Each key
// block's scores are made as Sᵀ = K · Qᵀ (n, rows), one column per query row, so that the softmax's
// step (row_kernels.h, online_softmax_columns) runs its vectors across rows; P̃ · V then reads Sᵀ
// transposed.
// out: the block's output rows, (rows, Dh) with row stride out_ld.
void query_block(const Inputs& in, int64_t b, int64_t h, int64_t i0, int64_t rows, float* out, int64_t out_ld) {
  const int64_t tk = in.k.size(2), dh = in.q.size(3), bk = in.tiles.keys;
  const ConstStridedMap Q = tiles::rows_of(in.q, b, h, i0, rows);
  Mat o = Mat::Zero(rows, dh);
  Vec m = Vec::Constant(rows, kMaskedScore), l = Vec::Zero(rows), rescale(rows);
  Mat st(bk, rows);
  std::vector<int32_t> a(static_cast<size_t>(rows)), e(static_cast<size_t>(rows));
  OverviewRows overview(in, rows);
  const Isa isa = best_isa();
  const auto [lo, hi] = visible_keys(in.ranges, b, i0, rows);
  for (int64_t j0 = lo - lo % bk; j0 < hi; j0 += bk) {
    const int64_t n = std::min(bk, tk - j0);
    const ConstStridedMap K = tiles::rows_of(in.k, b, h, j0, n), V = tiles::rows_of(in.v, b, h, j0, n);
    // Sᵀ (n, rows) = K · Qᵀ on the GEMM engine (inside this parallel loop: one thread's call).
    sgemm(n, rows, dh, {K.data(), false, K.outerStride()}, {Q.data(), true, Q.outerStride()}, st.data(), rows);
    const bool partial = visible_ranges(in, b, i0, rows, j0, n, st.data(), a.data(), e.data());
    online_softmax_columns(isa, {st.data(), n, rows, partial ? a.data() : nullptr, partial ? e.data() : nullptr,
                                 m.data(), l.data(), rescale.data()}, in.root);
    for (int64_t r = 0; r < rows; ++r) {
      if (rescale[r] != 1.0f) o.row(r) *= rescale[r];
      if (overview.on()) {
        if (rescale[r] != 1.0f) overview.rescale(r, rescale[r]);
        overview.add(r, st.data() + r, rows, j0, a[static_cast<size_t>(r)], e[static_cast<size_t>(r)]);
      }
    }
    sgemm(rows, dh, n, {st.data(), true, rows}, {V.data(), false, V.outerStride()}, o.data(), dh, true);  // o += P̃ · V
  }
  if (overview.on()) overview.finish(b, h, i0, l);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int64_t r = 0; r < rows; ++r) {
    float* dst = out + r * out_ld;
    if (l[r] > 0)
      for (int64_t d = 0; d < dh; ++d) dst[d] = o(r, d) / l[r];
    else
      std::fill(dst, dst + dh, nan);  // every key masked: 0/0, as the softmax of an all −∞ row
  }
}

// Whether every query row sees the same number of keys (no mask, or padding that leaves every
// sequence as long): then every task costs the same.
bool equal_work(const KeyRanges& r) {
  for (size_t i = 1; i < r.lo.size(); ++i)
    if (r.hi[i] - r.lo[i] != r.hi[0] - r.lo[0]) return false;
  return true;
}

Tensor run(const Inputs& in) {
  const Tensor &q = in.q, &k = in.k, &v = in.v;
  if (q.dim() != 4 || k.dim() != 4 || k.shape() != v.shape() || q.size(0) != k.size(0) || q.size(1) != k.size(1) ||
      q.size(3) != k.size(3) || in.ranges.shape() != Shape{q.size(0), q.size(2), k.size(2)} ||
      q.strides()[3] != 1 || k.strides()[3] != 1 || v.strides()[3] != 1 || in.tiles.queries < 1 || in.tiles.keys < 1 ||
      !(in.root > 0.0f))
    throw ShapeError("attention_tiled: q " + shape_str(q.shape()) + ", k " + shape_str(k.shape()) + ", v " +
                     shape_str(v.shape()) + ", mask " + shape_str(in.ranges.shape()) +
                     ", root " + std::to_string(in.root) +
                     " (q, k, v (B, H, T, Dh) with unit last stride; mask (B, Tq, Tk); root > 0)");
  const int64_t B = q.size(0), H = q.size(1), tq = q.size(2), dh = q.size(3);
  const int threads = parallel_threads();
  const bool equal = equal_work(in.ranges);
  int64_t bq = tiled_query_rows(in.tiles, B * H, tq, threads);
  if (in.merged && equal) bq = whole_block_rows(bq, B, tq, threads);
  const int64_t blocks = (tq + bq - 1) / bq, tasks = B * H * blocks;
  // The fast path (in.merged) writes the rows where the heads' merge puts them: storage
  // (B, Tq, H, Dh), returned as its (B, H, Tq, Dh) view, so merging is a view, not a copy. The
  // traced run keeps PyTorch's C-order (B, H, Tq, Dh), whose strides the window shows.
  const bool merged = in.merged;
  Tensor out = Tensor::empty(merged ? Shape{B, tq, H, dh} : Shape{B, H, tq, dh});
  // Task t: batch b, then query block, then head — consecutive tasks share their query rows.
  const auto task = [&](int64_t t) {
    const int64_t b = t / (blocks * H), i0 = t / H % blocks * bq, h = t % H;
    float* rows = merged ? out.data() + ((b * tq + i0) * H + h) * dh : out.data() + ((b * H + h) * tq + i0) * dh;
    query_block(in, b, h, i0, std::min(bq, tq - i0), rows, merged ? H * dh : dh);
  };
  if (equal) {
    // Every row sees as many keys: each thread takes a run of consecutive tasks — on the fast path
    // whole query blocks (whole_block_rows), every head of the rows the output projection's cut by
    // rows then gives the same thread (gemm.h).
#pragma omp parallel for schedule(static) if (tasks > 1)
    for (int64_t t = 0; t < tasks; ++t) task(t);
  } else {
#pragma omp parallel for schedule(dynamic) if (tasks > 1)
    for (int64_t t = 0; t < tasks; ++t) task(t);  // a causal mask: later rows see more keys
  }
  return merged ? out.transpose(1, 2) : out;
}

}  // namespace

int64_t tiled_query_rows(TileSizes tiles, int64_t batch_heads, int64_t tq, int threads) {
  int64_t bq = tiles.queries;
  const auto tasks = [&](int64_t rows) { return batch_heads * ((tq + rows - 1) / rows); };
  while (bq > 64 && tasks(bq) < 2 * int64_t{threads}) bq = std::max<int64_t>(64, bq / 2);
  return bq;
}

int64_t whole_block_rows(int64_t bq, int64_t batch, int64_t tq, int threads) {
  const auto blocks = [&](int64_t rows) { return batch * ((tq + rows - 1) / rows); };
  while (bq > 16 && blocks(bq) < int64_t{threads}) bq = std::max<int64_t>(16, (bq / 2 + 15) / 16 * 16);
  return bq;
}

Tensor attention_tiled(const Tensor& q, const Tensor& k, const Tensor& v, const KeyRanges& mask, float root,
                       TileSizes tiles) {
  return run({q, k, v, mask, nullptr, root, tiles, nullptr, 1, 1, true});
}

namespace {
KeyRanges ranges_of_dense(const Tensor& mask, bool* exact) {
  if (mask.dim() != 3 || !mask.is_contiguous())
    throw ShapeError("attention_tiled: mask " + shape_str(mask.shape()) + " must be (B, Tq, Tk) contiguous");
  return key_ranges_of(mask, exact);
}
}  // namespace

Tensor attention_tiled(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, float root,
                       TileSizes tiles) {
  bool exact = false;
  const KeyRanges ranges = ranges_of_dense(mask, &exact);
  return run({q, k, v, ranges, exact ? nullptr : mask.data(), root, tiles, nullptr, 1, 1, true});
}

namespace {
TiledAttention with_overview(const Tensor& q, const Tensor& k, const Tensor& v, const KeyRanges& ranges,
                             const float* dense, float root, int64_t cap, TileSizes tiles) {
  if (cap < 1 || q.dim() != 4 || k.dim() != 4)
    throw ShapeError("attention_tiled_overview: q " + shape_str(q.shape()) + ", k " + shape_str(k.shape()) +
                     ", cap " + std::to_string(cap));
  const int64_t bq = overview_bin(q.size(2), cap), bk = overview_bin(k.size(2), cap);
  Tensor overview({q.size(0), q.size(1), (q.size(2) + bq - 1) / bq, (k.size(2) + bk - 1) / bk}, 0.0f);
  Tensor out = run({q, k, v, ranges, dense, root, tiles, overview.data(), bq, bk});
  return {out, overview};
}
}  // namespace

TiledAttention attention_tiled_overview(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask,
                                        float root, int64_t cap, TileSizes tiles) {
  bool exact = false;
  const KeyRanges ranges = ranges_of_dense(mask, &exact);
  return with_overview(q, k, v, ranges, exact ? nullptr : mask.data(), root, cap, tiles);
}

TiledAttention attention_tiled_overview(const Tensor& q, const Tensor& k, const Tensor& v, const KeyRanges& mask,
                                        float root, int64_t cap, TileSizes tiles) {
  return with_overview(q, k, v, mask, nullptr, root, cap, tiles);
}

}  // namespace attnlab
