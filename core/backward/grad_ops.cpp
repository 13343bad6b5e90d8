#include "backward/grad_ops.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "tensor/eigen_types.h"
#include "tensor/gemm.h"
#include "tensor/parallel.h"
#include "text/errors.h"

namespace attnlab::grad {

namespace {

void require(bool ok, const char* op, const std::string& what) {
  if (!ok) throw ShapeError(std::string(op) + ": " + what);
}

// t itself when its strides are C order's, else a C-order copy: a gradient is shown with
// PyTorch's strides, and a tensor contiguous only through a size-1 axis (a (B, T, 1, Dh) view)
// keeps odd ones.
Tensor c_order(const Tensor& t) { return t.strides() == contiguous_strides(t.shape()) ? t : t.clone(); }

// The rows of the last dim of a contiguous tensor as a (N, cols) matrix.
ConstMatMap rows_of(const Tensor& t) { return ConstMatMap(t.data(), t.numel() / t.size(-1), t.size(-1)); }
MatMap rows_of(Tensor& t) { return MatMap(t.data(), t.numel() / t.size(-1), t.size(-1)); }

}  // namespace

LinearGrads linear_backward(const Tensor& x_in, const Tensor& w, const Tensor& dy_in, int64_t row0) {
  const Tensor x = x_in.contiguous(), dy = dy_in.contiguous();
  const int64_t rows = dy.size(-1), in = x.size(-1);
  require(w.dim() == 2 && w.is_contiguous() && w.size(1) == in && row0 >= 0 && row0 + rows <= w.size(0) &&
              x.numel() / in == dy.numel() / rows,
          "linear_backward", "x " + shape_str(x.shape()) + ", weight " + shape_str(w.shape()) + ", dy " +
                                 shape_str(dy.shape()));
  LinearGrads g{Tensor::empty(x.shape()), Tensor::empty({rows, in}), Tensor::empty({rows})};
  const int64_t n = x.numel() / in;
  sgemm(n, in, rows, {dy.data(), false, rows}, {w.data() + row0 * in, false, in}, g.dx.data(), in);  // (N, rows)·(rows, In)
  sgemm(rows, in, n, {dy.data(), true, rows}, {x.data(), false, in}, g.dw.data(), in);              // (rows, N)·(N, In)
  Eigen::Map<Vec>(g.db.data(), rows) = rows_of(dy).colwise().sum();
  return g;
}

namespace {

constexpr int64_t kNormChunk = 64;  // rows per partial sum of dγ, dβ: the same chunks on any thread count

// Rows [r0, r0 + n) of LayerNorm's backward: dx written, their dγ and dβ added into dg and db (double).
void layer_norm_rows(ConstMatMap xs, ConstMatMap dys, const float* gm, double eps, MatMap dx, int64_t r0, int64_t n,
                     double* dg, double* db) {
  const int64_t d = xs.cols();
  for (int64_t r = r0; r < r0 + n; ++r) {
    double mean = 0, var = 0;
    for (int64_t j = 0; j < d; ++j) mean += xs(r, j);
    mean /= static_cast<double>(d);
    for (int64_t j = 0; j < d; ++j) var += (xs(r, j) - mean) * (xs(r, j) - mean);
    const double rstd = 1.0 / std::sqrt(var / static_cast<double>(d) + eps);
    double m1 = 0, m2 = 0;  // mean(dx̂), mean(dx̂·x̂)
    for (int64_t j = 0; j < d; ++j) {
      const double xh = (xs(r, j) - mean) * rstd, dxh = static_cast<double>(dys(r, j)) * gm[j];
      m1 += dxh;
      m2 += dxh * xh;
      dg[j] += dys(r, j) * xh;
      db[j] += dys(r, j);
    }
    m1 /= static_cast<double>(d);
    m2 /= static_cast<double>(d);
    for (int64_t j = 0; j < d; ++j) {
      const double xh = (xs(r, j) - mean) * rstd;
      dx(r, j) = static_cast<float>(rstd * (static_cast<double>(dys(r, j)) * gm[j] - m1 - xh * m2));
    }
  }
}

}  // namespace

NormGrads layer_norm_backward(const Tensor& x_in, const Tensor& gamma, const Tensor& dy_in, double eps) {
  const Tensor x = x_in.contiguous(), dy = dy_in.contiguous();
  const int64_t d = x.size(-1);
  require(gamma.numel() == d && dy.shape() == x.shape(), "layer_norm_backward",
          "x " + shape_str(x.shape()) + ", weight " + shape_str(gamma.shape()) + ", dy " + shape_str(dy.shape()));
  NormGrads g{Tensor::empty(x.shape()), Tensor({d}), Tensor({d})};
  const auto xs = rows_of(x), dys = rows_of(dy);
  const int64_t rows = xs.rows(), chunks = (rows + kNormChunk - 1) / kNormChunk;
  // (chunks, 2, D): each chunk's dγ and dβ, summed in chunk order after, so the bits do not depend
  // on how the chunks were shared between threads.
  std::vector<double> part(static_cast<size_t>(chunks * 2 * d), 0.0);
  const MatMap dx = rows_of(g.dx);
#pragma omp parallel for schedule(static) if (rows * d >= kParallelElements)
  for (int64_t c = 0; c < chunks; ++c) {
    double* dg = part.data() + c * 2 * d;
    layer_norm_rows(xs, dys, gamma.data(), eps, dx, c * kNormChunk, std::min(kNormChunk, rows - c * kNormChunk), dg, dg + d);
  }
  for (int64_t j = 0; j < d; ++j) {
    double dg = 0, db = 0;
    for (int64_t c = 0; c < chunks; ++c) {
      dg += part[static_cast<size_t>(c * 2 * d + j)];
      db += part[static_cast<size_t>(c * 2 * d + d + j)];
    }
    g.dgamma.data()[j] = static_cast<float>(dg);
    g.dbeta.data()[j] = static_cast<float>(db);
  }
  return g;
}

namespace {

// dx[i] for i in [i0, i0 + n): ReLU, GELU (tanh) or exact GELU's derivative times dy.
void activation_range(const float* xv, const float* g, float* o, int64_t i0, int64_t n, Activation a) {
  if (a == Activation::Relu) {
    for (int64_t i = i0; i < i0 + n; ++i) o[i] = xv[i] > 0.0f ? g[i] : 0.0f;
    return;
  }
  if (a == Activation::GeluTanh) {  // ½(1 + t) + ½x(1 − t²)·β(1 + 3κx²), t = tanh(β(x + κx³))
    const double beta = std::sqrt(2.0 / std::numbers::pi), kappa = 0.044715;
    for (int64_t i = i0; i < i0 + n; ++i) {
      const double v = xv[i], t = std::tanh(beta * (v + kappa * v * v * v));
      o[i] = static_cast<float>(g[i] * (0.5 * (1.0 + t) + 0.5 * v * (1.0 - t * t) * beta * (1.0 + 3.0 * kappa * v * v)));
    }
    return;
  }
  const double inv_sqrt2 = 1.0 / std::numbers::sqrt2, inv_sqrt2pi = 1.0 / std::sqrt(2.0 * std::numbers::pi);
  for (int64_t i = i0; i < i0 + n; ++i) {
    const double v = xv[i];
    const double cdf = 0.5 * (1.0 + std::erf(v * inv_sqrt2)), pdf = std::exp(-0.5 * v * v) * inv_sqrt2pi;
    o[i] = static_cast<float>(g[i] * (cdf + v * pdf));
  }
}

}  // namespace

Tensor activation_backward(const Tensor& x_in, const Tensor& dy_in, Activation a) {
  const Tensor x = x_in.contiguous(), dy = dy_in.contiguous();
  require(x.shape() == dy.shape(), "activation_backward", shape_str(x.shape()) + " vs " + shape_str(dy.shape()));
  Tensor dx = Tensor::empty(x.shape());
  const int64_t cols = x.dim() > 0 ? x.size(-1) : 1;  // elementwise: rows only split the work
  row_blocks(x.numel() / std::max<int64_t>(cols, 1), cols, [&](int64_t r0, int64_t n) {
    activation_range(x.data(), dy.data(), dx.data(), r0 * cols, n * cols, a);
  });
  return dx;
}

Tensor softmax_backward(const Tensor& p_in, const Tensor& dp_in, int dim) {
  require(dim == -1 || dim == -2, "softmax_backward", "dim must be -1 or -2");
  require(p_in.shape() == dp_in.shape(), "softmax_backward", shape_str(p_in.shape()) + " vs " + shape_str(dp_in.shape()));
  if (dim == -2) {  // over the queries: the same along the other axis
    const int64_t last = p_in.dim() - 1;
    return transposed(softmax_backward(p_in.transpose(last - 1, last).contiguous(),
                                       dp_in.transpose(last - 1, last).contiguous(), -1),
                      last - 1, last);
  }
  const Tensor p = p_in.contiguous(), dp = dp_in.contiguous();
  Tensor ds = Tensor::empty(p.shape());
  const auto ps = rows_of(p), dps = rows_of(dp);
  auto out = rows_of(ds);
  row_blocks(ps.rows(), ps.cols(), [&](int64_t r0, int64_t n) {
    for (int64_t r = r0; r < r0 + n; ++r) {
      const float dot = ps.row(r).dot(dps.row(r));
      out.row(r) = ps.row(r).cwiseProduct((dps.row(r).array() - dot).matrix());
    }
  });
  return ds;
}

MatmulGrads matmul_backward(const Tensor& a, const Tensor& b, const Tensor& dc) {
  require(a.dim() >= 2 && a.dim() == b.dim() && dc.dim() == a.dim() && a.size(-1) == b.size(-2) &&
              dc.size(-2) == a.size(-2) && dc.size(-1) == b.size(-1),
          "matmul_backward", shape_str(a.shape()) + " · " + shape_str(b.shape()) + ", dc " + shape_str(dc.shape()));
  const int64_t last = a.dim() - 1;
  return {matmul(dc, b.transpose(last - 1, last)), matmul(a.transpose(last - 1, last), dc)};
}

Tensor masked_backward(const Tensor& dy, const Tensor& mask) { return masked_fill_or_same(dy, mask, 0.0f); }  // checks the shapes

Tensor reshaped(const Tensor& a, const Shape& shape) {
  require(numel_of(shape) == a.numel(), "reshape", shape_str(a.shape()) + " → " + shape_str(shape));
  return c_order(a).view(shape);
}

Tensor transposed(const Tensor& dy, int64_t d0, int64_t d1) { return dy.transpose(d0, d1).contiguous(); }

Tensor batch_sum(const Tensor& dy) {
  const Tensor c = dy.contiguous();
  const Shape rest(c.shape().begin() + 1, c.shape().end());
  const int64_t b = c.size(0), n = numel_of(rest);
  Tensor out = Tensor::empty(rest);
  for (int64_t i = 0; i < n; ++i) {
    double acc = 0;
    for (int64_t r = 0; r < b; ++r) acc += c.data()[r * n + i];
    out.data()[i] = static_cast<float>(acc);
  }
  return out;
}

double l2_norm(const Tensor& t) {
  const Tensor c = t.contiguous();
  double sq = 0;
  for (int64_t i = 0, n = c.numel(); i < n; ++i) sq += double(c.data()[i]) * c.data()[i];
  return std::sqrt(sq);
}

void accumulate(Tensor& a, const Tensor& b) {
  if (!a.defined()) {
    a = c_order(b);
    return;
  }
  require(a.shape() == b.shape(), "accumulate", shape_str(a.shape()) + " += " + shape_str(b.shape()));
  a = add(a, b);
}

}  // namespace attnlab::grad
