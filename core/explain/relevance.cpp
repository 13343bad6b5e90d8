#include "explain/relevance.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attnlab::explain {

namespace {

// The (S, S) block of head h, sentence b, of a contiguous (B, H, S, S) tensor.
Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> head_block(const float* p, int64_t b,
                                                                                                    int64_t h, int64_t heads,
                                                                                                    int64_t s) {
  return {p + ((b * heads + h) * s) * s, s, s};
}

}  // namespace

Mat residual_attention(const Tensor& weights, int64_t b) {
  const Tensor w = weights.contiguous();
  const int64_t heads = w.size(1), s = w.size(2);
  Mat mean = Mat::Zero(s, s);
  for (int64_t h = 0; h < heads; ++h) mean += head_block(w.data(), b, h, heads, s).cast<double>();
  Mat a = 0.5 * mean / static_cast<double>(heads) + 0.5 * Mat::Identity(s, s);
  const Eigen::VectorXd sums = a.rowwise().sum();
  for (int64_t i = 0; i < s; ++i) a.row(i) /= sums(i);
  return a;
}

Mat rollout(const std::vector<Mat>& a_hat) {
  Mat r = a_hat.front();
  for (size_t l = 1; l < a_hat.size(); ++l) r = a_hat[l] * r;
  return r;
}

Mat grad_weighted(const Tensor& weights, const Tensor& grad, int64_t b, double sign) {
  const Tensor w = weights.contiguous(), g = grad.contiguous();
  const int64_t heads = w.size(1), s = w.size(2);
  Mat out = Mat::Zero(s, s);
  for (int64_t h = 0; h < heads; ++h)
    out += (sign * head_block(g.data(), b, h, heads, s).cast<double>().array() *
            head_block(w.data(), b, h, heads, s).cast<double>().array())
               .max(0.0)
               .matrix();
  return out / static_cast<double>(heads);
}

Mat grad_rollout(const std::vector<Mat>& a_bar) {
  const int64_t s = a_bar.front().rows();
  Mat r = Mat::Identity(s, s);
  for (const Mat& a : a_bar) r += a * r;
  return r;
}

std::vector<double> saliency(const Tensor& x, const Tensor& g, int64_t b) {
  const Tensor xc = x.contiguous(), gc = g.contiguous();
  const int64_t s = xc.size(1), d = xc.size(2);
  std::vector<double> out(static_cast<size_t>(s));
  for (int64_t i = 0; i < s; ++i) {
    const float* xr = xc.data() + (b * s + i) * d;
    const float* gr = gc.data() + (b * s + i) * d;
    double acc = 0;
    for (int64_t k = 0; k < d; ++k) acc += static_cast<double>(xr[k]) * gr[k];
    out[static_cast<size_t>(i)] = acc;
  }
  return out;
}

}  // namespace attnlab::explain
