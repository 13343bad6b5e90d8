// Naive twins of the backward ops (grad_ops.h): plain loops over any scalar type, each beside the
// forward it differentiates. The unit tests check every backward here against central differences
// of its forward in double, and hold the fast float path to these. Rows are tokens (row-major).
//   N rows, In / Out features, D normalised features, Tq queries, Tk keys, Dh head features.
#pragma once

#include <cmath>
#include <limits>
#include <utility>

#include <Eigen/Core>

namespace attnlab::grad::naive {

template <typename T>
using M = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// --- forwards --------------------------------------------------------------------------------

// y (N, Out) = x (N, In) · wᵀ (In, Out) + b (1, Out)
template <typename T>
M<T> linear(const M<T>& x, const M<T>& w, const M<T>& b) {
  M<T> y(x.rows(), w.rows());
  for (int n = 0; n < x.rows(); ++n)
    for (int o = 0; o < w.rows(); ++o) {
      T s = b(0, o);
      for (int i = 0; i < x.cols(); ++i) s += x(n, i) * w(o, i);
      y(n, o) = s;
    }
  return y;
}

// Row n's mean and 1 / √(var + eps), var biased (LayerNorm's statistics).
template <typename T>
std::pair<T, T> row_moments(const M<T>& x, int n, double eps) {
  const T d = T(x.cols());
  T mean = 0, var = 0;
  for (int j = 0; j < x.cols(); ++j) mean += x(n, j);
  mean /= d;
  for (int j = 0; j < x.cols(); ++j) var += (x(n, j) - mean) * (x(n, j) - mean);
  return {mean, T(1) / std::sqrt(var / d + T(eps))};
}

// Each row (x − mean) / √(var + eps) · g + b, var biased; g, b (1, D).
template <typename T>
M<T> layer_norm(const M<T>& x, const M<T>& g, const M<T>& b, double eps) {
  M<T> y(x.rows(), x.cols());
  for (int n = 0; n < x.rows(); ++n) {
    const auto [mean, rstd] = row_moments(x, n, eps);
    for (int j = 0; j < x.cols(); ++j) y(n, j) = (x(n, j) - mean) * rstd * g(0, j) + b(0, j);
  }
  return y;
}

template <typename T>
T gelu(T x) {
  return T(0.5) * x * (T(1) + std::erf(x / std::sqrt(T(2))));
}

template <typename T>
T gelu_tanh(T x) {
  const T beta = std::sqrt(T(2) / T(M_PI));
  return T(0.5) * x * (T(1) + std::tanh(beta * (x + T(0.044715) * x * x * x)));
}

// Softmax of each row; −∞ entries get weight 0 (a row of only −∞ is all 0, the nan_to_num rule).
template <typename T>
M<T> softmax_rows(const M<T>& s) {
  M<T> p = M<T>::Zero(s.rows(), s.cols());
  for (int r = 0; r < s.rows(); ++r) {
    T mx = -std::numeric_limits<T>::infinity();
    for (int c = 0; c < s.cols(); ++c) mx = std::max(mx, s(r, c));
    if (std::isinf(mx)) continue;
    T sum = 0;
    for (int c = 0; c < s.cols(); ++c) sum += (p(r, c) = std::isinf(s(r, c)) ? T(0) : std::exp(s(r, c) - mx));
    for (int c = 0; c < s.cols(); ++c) p(r, c) /= sum;
  }
  return p;
}

// One head's scores (Tq, Tk): q kᵀ · scale, −∞ where mask (Tq, Tk) is 0.
template <typename T>
M<T> head_scores(const M<T>& q, const M<T>& k, const M<T>& mask, T scale) {
  M<T> s(q.rows(), k.rows());
  for (int i = 0; i < q.rows(); ++i)
    for (int j = 0; j < k.rows(); ++j) {
      T dot = 0;
      for (int e = 0; e < q.cols(); ++e) dot += q(i, e) * k(j, e);
      s(i, j) = mask(i, j) == T(0) ? -std::numeric_limits<T>::infinity() : dot * scale;
    }
  return s;
}

// One head: out (Tq, Dh) = softmax(head_scores) · v.
template <typename T>
M<T> attention_head(const M<T>& q, const M<T>& k, const M<T>& v, const M<T>& mask, T scale) {
  const M<T> p = softmax_rows(head_scores(q, k, mask, scale));
  M<T> out = M<T>::Zero(q.rows(), v.cols());
  for (int i = 0; i < q.rows(); ++i)
    for (int j = 0; j < k.rows(); ++j)
      for (int e = 0; e < v.cols(); ++e) out(i, e) += p(i, j) * v(j, e);
  return out;
}

// --- backwards -------------------------------------------------------------------------------

template <typename T>
struct LinearGrads {
  M<T> dx, dw, db;  // (N, In), (Out, In), (1, Out)
};
// dy (N, Out) → dx = dy·w, dw = dyᵀ·x, db = Σₙ dy.
template <typename T>
LinearGrads<T> linear_backward(const M<T>& x, const M<T>& w, const M<T>& dy) {
  LinearGrads<T> g{M<T>::Zero(x.rows(), x.cols()), M<T>::Zero(w.rows(), w.cols()), M<T>::Zero(1, w.rows())};
  for (int n = 0; n < x.rows(); ++n)
    for (int o = 0; o < w.rows(); ++o) {
      g.db(0, o) += dy(n, o);
      for (int i = 0; i < x.cols(); ++i) {
        g.dx(n, i) += dy(n, o) * w(o, i);
        g.dw(o, i) += dy(n, o) * x(n, i);
      }
    }
  return g;
}

template <typename T>
struct NormGrads {
  M<T> dx, dg, db;  // (N, D), (1, D), (1, D)
};
// x̂ = (x − mean)·rstd; dx = rstd·(dx̂ − mean(dx̂) − x̂·mean(dx̂·x̂)) with dx̂ = dy·g; dg = Σ dy·x̂; db = Σ dy.
template <typename T>
NormGrads<T> layer_norm_backward(const M<T>& x, const M<T>& g, const M<T>& dy, double eps) {
  NormGrads<T> r{M<T>::Zero(x.rows(), x.cols()), M<T>::Zero(1, x.cols()), M<T>::Zero(1, x.cols())};
  const T d = T(x.cols());
  for (int n = 0; n < x.rows(); ++n) {
    const auto [mean, rstd] = row_moments(x, n, eps);
    T m1 = 0, m2 = 0;  // mean(dx̂), mean(dx̂·x̂)
    for (int j = 0; j < x.cols(); ++j) {
      const T xh = (x(n, j) - mean) * rstd, dxh = dy(n, j) * g(0, j);
      m1 += dxh;
      m2 += dxh * xh;
      r.dg(0, j) += dy(n, j) * xh;
      r.db(0, j) += dy(n, j);
    }
    m1 /= d;
    m2 /= d;
    for (int j = 0; j < x.cols(); ++j) {
      const T xh = (x(n, j) - mean) * rstd;
      r.dx(n, j) = rstd * (dy(n, j) * g(0, j) - m1 - xh * m2);
    }
  }
  return r;
}

// ReLU passes dy where x > 0 (0 at x = 0, as PyTorch); GELU: dy·(Φ(x) + x·φ(x)).
template <typename T>
M<T> relu_backward(const M<T>& x, const M<T>& dy) {
  M<T> dx(x.rows(), x.cols());
  for (int n = 0; n < x.rows(); ++n)
    for (int j = 0; j < x.cols(); ++j) dx(n, j) = x(n, j) > T(0) ? dy(n, j) : T(0);
  return dx;
}
template <typename T>
M<T> gelu_backward(const M<T>& x, const M<T>& dy) {
  M<T> dx(x.rows(), x.cols());
  const T inv_sqrt2 = T(1) / std::sqrt(T(2)), inv_sqrt2pi = T(1) / std::sqrt(T(2) * T(M_PI));
  for (int n = 0; n < x.rows(); ++n)
    for (int j = 0; j < x.cols(); ++j) {
      const T v = x(n, j);
      const T cdf = T(0.5) * (T(1) + std::erf(v * inv_sqrt2)), pdf = std::exp(T(-0.5) * v * v) * inv_sqrt2pi;
      dx(n, j) = dy(n, j) * (cdf + v * pdf);
    }
  return dx;
}

// d/dx of ½x(1 + t), t = tanh(β(x + κx³)): ½(1 + t) + ½x(1 − t²)·β(1 + 3κx²).
template <typename T>
M<T> gelu_tanh_backward(const M<T>& x, const M<T>& dy) {
  M<T> dx(x.rows(), x.cols());
  const T beta = std::sqrt(T(2) / T(M_PI)), kappa = T(0.044715);
  for (int n = 0; n < x.rows(); ++n)
    for (int j = 0; j < x.cols(); ++j) {
      const T v = x(n, j), t = std::tanh(beta * (v + kappa * v * v * v));
      dx(n, j) = dy(n, j) * (T(0.5) * (T(1) + t) + T(0.5) * v * (T(1) - t * t) * beta * (T(1) + T(3) * kappa * v * v));
    }
  return dx;
}

// p = softmax_rows(s): ds = p·(dp − Σⱼ dp·p) per row; a key with p = 0 (masked) gets exactly 0.
template <typename T>
M<T> softmax_backward(const M<T>& p, const M<T>& dp) {
  M<T> ds(p.rows(), p.cols());
  for (int r = 0; r < p.rows(); ++r) {
    T dot = 0;
    for (int c = 0; c < p.cols(); ++c) dot += dp(r, c) * p(r, c);
    for (int c = 0; c < p.cols(); ++c) ds(r, c) = p(r, c) * (dp(r, c) - dot);
  }
  return ds;
}

template <typename T>
struct HeadGrads {
  M<T> dq, dk, dv;  // (Tq, Dh), (Tk, Dh), (Tk, Dh)
};
// The head's backward from dout (Tq, Dh): dv = pᵀ·dout, dp = dout·vᵀ, ds = softmax_backward,
// dq = ds·k·scale, dk = dsᵀ·q·scale (p recomputed, as FlashAttention-2 does).
template <typename T>
HeadGrads<T> attention_head_backward(const M<T>& q, const M<T>& k, const M<T>& v, const M<T>& mask, T scale,
                                     const M<T>& dout) {
  const M<T> p = softmax_rows(head_scores(q, k, mask, scale));
  M<T> dp = M<T>::Zero(q.rows(), k.rows());
  HeadGrads<T> g{M<T>::Zero(q.rows(), q.cols()), M<T>::Zero(k.rows(), k.cols()), M<T>::Zero(v.rows(), v.cols())};
  for (int i = 0; i < q.rows(); ++i)
    for (int j = 0; j < k.rows(); ++j)
      for (int e = 0; e < v.cols(); ++e) {
        g.dv(j, e) += p(i, j) * dout(i, e);
        dp(i, j) += dout(i, e) * v(j, e);
      }
  const M<T> ds = softmax_backward(p, dp);
  for (int i = 0; i < q.rows(); ++i)
    for (int j = 0; j < k.rows(); ++j)
      for (int e = 0; e < q.cols(); ++e) {
        g.dq(i, e) += ds(i, j) * k(j, e) * scale;
        g.dk(j, e) += ds(i, j) * q(i, e) * scale;
      }
  return g;
}

}  // namespace attnlab::grad::naive
