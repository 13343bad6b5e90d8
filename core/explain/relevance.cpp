#include "explain/relevance.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attnlab::explain {

namespace {

// The (T, S) block of head h, sentence b, of a contiguous (B, H, T, S) tensor t.
Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> head_block(const Tensor& t, int64_t b,
                                                                                                    int64_t h) {
  const int64_t heads = t.size(1), rows = t.size(2), cols = t.size(3);
  return {t.data() + ((b * heads + h) * rows) * cols, rows, cols};
}

}  // namespace

Mat head_mean(const Tensor& weights, int64_t b) {
  const Tensor w = weights.contiguous();
  Mat mean = Mat::Zero(w.size(2), w.size(3));
  for (int64_t h = 0; h < w.size(1); ++h) mean += head_block(w, b, h).cast<double>();
  return mean / static_cast<double>(w.size(1));
}

Mat residual_attention(const Tensor& weights, int64_t b) {
  const int64_t s = weights.size(2);
  Mat a = 0.5 * head_mean(weights, b) + 0.5 * Mat::Identity(s, s);
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
  const int64_t heads = w.size(1);
  Mat out = Mat::Zero(w.size(2), w.size(3));
  for (int64_t h = 0; h < heads; ++h)
    out += (sign * head_block(g, b, h).cast<double>().array() * head_block(w, b, h).cast<double>().array())
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

Mat residual_normalised(const Mat& r_hat) {
  const int64_t n = r_hat.rows();
  Mat out = r_hat;
  for (int64_t i = 0; i < n; ++i) {
    const double sum = out.row(i).sum();
    if (sum != 0.0) out.row(i) /= sum;
  }
  return out + Mat::Identity(n, n);
}

Mat encdec_rollout(const Mat& r_ss, const Mat& r_tt, const Mat& cross) { return r_tt.transpose() * cross * r_ss; }

Mat encdec_grad_relevance(const std::vector<Mat>& encoder, const std::vector<Mat>& decoder_self,
                          const std::vector<Mat>& cross) {
  // R̂ = R − I kept for R_ss and R_tt (relevance.h): R̂ ← R̂ + Ā·(I + R̂) is R ← R + Ā·R.
  const int64_t s = encoder.front().rows(), t = decoder_self.front().rows();
  Mat h_ss = Mat::Zero(s, s);
  for (const Mat& a : encoder) h_ss += a + a * h_ss;  // rule 6
  const Mat r_ss_bar = residual_normalised(h_ss);
  Mat h_tt = Mat::Zero(t, t), r_ts = Mat::Zero(t, s);
  for (size_t l = 0; l < decoder_self.size(); ++l) {
    const Mat& a = decoder_self[l];
    r_ts += a * r_ts;      // rule 7 (before R_tt changes: both read this layer's input relevance)
    h_tt += a + a * h_tt;  // rule 6
    r_ts += residual_normalised(h_tt).transpose() * cross[l] * r_ss_bar;  // rule 10
  }
  return r_ts;
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
