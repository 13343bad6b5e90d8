#include "tensor/ops_naive.h"

#include <cmath>
#include <limits>

namespace attnlab::naive {

Tensor linear(const Tensor& x, const Tensor& w, const Tensor& b) {
  const int64_t in = w.size(1), out_f = w.size(0), rows = x.numel() / in;
  Shape s = x.shape();
  s.back() = out_f;
  Tensor out(s);
  const auto xv = x.to_vector(), wv = w.to_vector(), bv = b.to_vector();
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t o = 0; o < out_f; ++o) {
      double acc = bv[o];
      for (int64_t i = 0; i < in; ++i) acc += double(xv[r * in + i]) * wv[o * in + i];
      out.data()[r * out_f + o] = static_cast<float>(acc);
    }
  return out;
}

Tensor layer_norm(const Tensor& x, const Tensor& w, const Tensor& b, double eps) {
  const int64_t d = x.size(-1), rows = x.numel() / d;
  Tensor out(x.shape());
  const auto xv = x.to_vector();
  for (int64_t r = 0; r < rows; ++r) {
    double mean = 0, var = 0;
    for (int64_t c = 0; c < d; ++c) mean += xv[r * d + c];
    mean /= d;
    for (int64_t c = 0; c < d; ++c) var += (xv[r * d + c] - mean) * (xv[r * d + c] - mean);
    var /= d;
    for (int64_t c = 0; c < d; ++c)
      out.data()[r * d + c] =
          static_cast<float>((xv[r * d + c] - mean) / std::sqrt(var + eps) * w.data()[c] + b.data()[c]);
  }
  return out;
}

Tensor softmax_lastdim(const Tensor& x) {
  const int64_t n = x.size(-1), rows = x.numel() / n;
  Tensor out(x.shape());
  const auto xv = x.to_vector();
  for (int64_t r = 0; r < rows; ++r) {
    double mx = -std::numeric_limits<double>::infinity(), sum = 0;
    for (int64_t c = 0; c < n; ++c) mx = std::max<double>(mx, xv[r * n + c]);
    for (int64_t c = 0; c < n; ++c) sum += std::exp(xv[r * n + c] - mx);
    for (int64_t c = 0; c < n; ++c) out.data()[r * n + c] = static_cast<float>(std::exp(xv[r * n + c] - mx) / sum);
  }
  return out;
}

Tensor gelu(const Tensor& x) {
  auto v = x.to_vector();
  for (auto& e : v) e = static_cast<float>(0.5 * e * (1.0 + std::erf(e / std::sqrt(2.0))));
  return Tensor::from(x.shape(), std::move(v));
}

Tensor gelu_tanh(const Tensor& x) {
  auto v = x.to_vector();
  const double pi = std::acos(-1.0);
  for (auto& e : v) {
    const double u = e;
    e = static_cast<float>(0.5 * u * (1.0 + std::tanh(std::sqrt(2.0 / pi) * (u + 0.044715 * std::pow(u, 3)))));
  }
  return Tensor::from(x.shape(), std::move(v));
}

Tensor relu(const Tensor& x) {
  auto v = x.to_vector();
  for (auto& e : v) e = e > 0 ? e : 0.0f;
  return Tensor::from(x.shape(), std::move(v));
}

Tensor matmul(const Tensor& a, const Tensor& b) {
  const Tensor ac = a.contiguous(), bc = b.contiguous();
  const int64_t m = a.size(-2), k = a.size(-1), n = b.size(-1), batches = a.numel() / (m * k);
  Shape s = a.shape();
  s.back() = n;
  Tensor out(s);
  for (int64_t p = 0; p < batches; ++p)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t t = 0; t < k; ++t) acc += double(ac.data()[p * m * k + i * k + t]) * bc.data()[p * k * n + t * n + j];
        out.data()[p * m * n + i * n + j] = static_cast<float>(acc);
      }
  return out;
}

void attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, Tensor& weights, Tensor& out) {
  const int64_t sq = q.size(0), sk = k.size(0), dh = q.size(1);
  weights = Tensor({sq, sk});
  out = Tensor({sq, dh});
  for (int64_t i = 0; i < sq; ++i) {
    std::vector<double> s(static_cast<size_t>(sk));
    double mx = -std::numeric_limits<double>::infinity();
    for (int64_t j = 0; j < sk; ++j) {
      double dot = 0;
      for (int64_t t = 0; t < dh; ++t) dot += double(q.at({i, t})) * k.at({j, t});
      s[j] = mask.at({i, j}) == 0.0f ? -std::numeric_limits<double>::infinity() : dot / std::sqrt(double(dh));
      mx = std::max(mx, s[j]);
    }
    double sum = 0;
    for (int64_t j = 0; j < sk; ++j) sum += std::exp(s[j] - mx);
    for (int64_t j = 0; j < sk; ++j) weights.at({i, j}) = static_cast<float>(std::exp(s[j] - mx) / sum);
    for (int64_t t = 0; t < dh; ++t) {
      double acc = 0;
      for (int64_t j = 0; j < sk; ++j) acc += double(weights.at({i, j})) * v.at({j, t});
      out.at({i, t}) = static_cast<float>(acc);
    }
  }
}

}  // namespace attnlab::naive
