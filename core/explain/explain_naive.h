// The explanation methods as the papers write them, in plain loops over double: the references
// the unit tests hold relevance.h's fast paths to. Flow here is Edmonds–Karp (shortest augmenting
// paths by breadth-first search on a dense capacity matrix), a different algorithm from the fast
// path's Dinic. A layer's weights: w[h][i][j] (H, S, S), rows = queries.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace attnlab::explain::naive {

using Matrix = std::vector<std::vector<double>>;  // (S, S)
using Heads = std::vector<Matrix>;                // (H, S, S)

inline Matrix identity(size_t s) {
  Matrix m(s, std::vector<double>(s, 0.0));
  for (size_t i = 0; i < s; ++i) m[i][i] = 1.0;
  return m;
}

// a · b, (n, m) · (m, p)
inline Matrix product(const Matrix& a, const Matrix& b) {
  const size_t n = a.size(), m = b.size(), p = b.empty() ? 0 : b.front().size();
  Matrix out(n, std::vector<double>(p, 0.0));
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < p; ++j)
      for (size_t k = 0; k < m; ++k) out[i][j] += a[i][k] * b[k][j];
  return out;
}

inline Matrix transpose(const Matrix& a) {
  Matrix out(a.front().size(), std::vector<double>(a.size()));
  for (size_t i = 0; i < a.size(); ++i)
    for (size_t j = 0; j < a[i].size(); ++j) out[j][i] = a[i][j];
  return out;
}

inline void add_to(Matrix& r, const Matrix& x) {
  for (size_t i = 0; i < r.size(); ++i)
    for (size_t j = 0; j < r[i].size(); ++j) r[i][j] += x[i][j];
}

// Â = ½·mean_h(A) + ½·I, rows renormalised.
inline Matrix residual_attention(const Heads& w) {
  const size_t s = w.front().size();
  Matrix a = identity(s);
  for (size_t i = 0; i < s; ++i) {
    double sum = 0;
    for (size_t j = 0; j < s; ++j) {
      double mean = 0;
      for (const auto& head : w) mean += head[i][j];
      a[i][j] = 0.5 * mean / static_cast<double>(w.size()) + 0.5 * a[i][j];
      sum += a[i][j];
    }
    for (size_t j = 0; j < s; ++j) a[i][j] /= sum;
  }
  return a;
}

// R = Â_L ⋯ Â_1
inline Matrix rollout(const std::vector<Heads>& layers) {
  Matrix r = identity(layers.front().front().size());
  for (const auto& w : layers) r = product(residual_attention(w), r);
  return r;
}

// Edmonds–Karp: the maximum flow from `source` to `sink` of a dense capacity matrix (modified).
inline double max_flow(Matrix c, size_t source, size_t sink) {
  const size_t n = c.size();
  double total = 0;
  for (;;) {
    std::vector<size_t> prev(n, n), queue{source};
    prev[source] = source;
    for (size_t q = 0; q < queue.size(); ++q)
      for (size_t v = 0; v < n; ++v)
        if (prev[v] == n && c[queue[q]][v] > 1e-14) prev[v] = queue[q], queue.push_back(v);
    if (prev[sink] == n) return total;
    double push = 1e300;
    for (size_t v = sink; v != source; v = prev[v]) push = std::min(push, c[prev[v]][v]);
    for (size_t v = sink; v != source; v = prev[v]) c[prev[v]][v] -= push, c[v][prev[v]] += push;
    total += push;
  }
}

// F[i][j] = max-flow from input token j to position i after the last layer, rows normalised.
inline Matrix attention_flow(const std::vector<Heads>& layers) {
  const size_t s = layers.front().front().size(), n = (layers.size() + 1) * s;
  Matrix cap(n, std::vector<double>(n, 0.0));
  for (size_t l = 0; l < layers.size(); ++l) {
    const Matrix a = residual_attention(layers[l]);
    for (size_t i = 0; i < s; ++i)
      for (size_t j = 0; j < s; ++j) cap[l * s + j][(l + 1) * s + i] = a[i][j];
  }
  Matrix f(s, std::vector<double>(s, 0.0));
  for (size_t i = 0; i < s; ++i) {
    double sum = 0;
    for (size_t j = 0; j < s; ++j) sum += f[i][j] = max_flow(cap, j, layers.size() * s + i);
    for (size_t j = 0; j < s; ++j) f[i][j] /= sum;
  }
  return f;
}

// R = I; R ← R + mean_h((∇A ⊙ A)⁺)·R, first layer first.
inline Matrix grad_rollout(const std::vector<Heads>& weights, const std::vector<Heads>& grads) {
  const size_t s = weights.front().front().size();
  Matrix r = identity(s);
  for (size_t l = 0; l < weights.size(); ++l) {
    Matrix a(s, std::vector<double>(s, 0.0));
    for (size_t h = 0; h < weights[l].size(); ++h)
      for (size_t i = 0; i < s; ++i)
        for (size_t j = 0; j < s; ++j)
          a[i][j] += std::max(0.0, grads[l][h][i][j] * weights[l][h][i][j]) / static_cast<double>(weights[l].size());
    const Matrix ar = product(a, r);
    for (size_t i = 0; i < s; ++i)
      for (size_t j = 0; j < s; ++j) r[i][j] += ar[i][j];
  }
  return r;
}

// mean_h((sign·∇A ⊙ A)⁺) of one layer, (T, S); without g: mean_h(A). Rows from `rows` on stay 0
// (a decoder's [PAD] positions in a cross-attention).
inline Matrix weighted_mean(const Heads& w, const Heads* g, double sign = 1.0, size_t rows = size_t(-1)) {
  Matrix a(w.front().size(), std::vector<double>(w.front().front().size(), 0.0));
  for (size_t h = 0; h < w.size(); ++h)
    for (size_t i = 0; i < a.size() && i < rows; ++i)
      for (size_t j = 0; j < a[i].size(); ++j)
        a[i][j] += (g ? std::max(0.0, sign * (*g)[h][i][j] * w[h][i][j]) : w[h][i][j]) / static_cast<double>(w.size());
  return a;
}

// Chefer et al. 2021, eq. 8–9, from R̂ = R − I: its rows divided by their sums (a zero sum: left
// at 0), + I.
inline Matrix residual_normalised(Matrix r) {
  for (size_t i = 0; i < r.size(); ++i) {
    double sum = 0;
    for (double x : r[i]) sum += x;
    for (double& x : r[i]) x = sum != 0.0 ? x / sum : x;
    r[i][i] += 1.0;
  }
  return r;
}

// An encoder–decoder's source relevance R_ts (T, S), Chefer et al. 2021. Rollout (their baseline):
// R_ttᵀ · mean_h(A_cross of the last decoder layer) · R_ss. Gradient-weighted (their eq. 6–10):
// R_ss = I + Σ, R_tt = I, R_ts = 0, per decoder layer R_tt += Ā_self R_tt, R_ts += Ā_self R_ts,
// R_ts += R̄_ttᵀ Ā_cross R̄_ss — R_ss and R_tt kept as R̂ = R − I (R̂ += Ā·(I + R̂)), as relevance.h
// says why. The cross-attention's rows from `real` on (the decoder's [PAD] positions) are left out.
inline Matrix encdec_rollout(const std::vector<Heads>& encoder, const std::vector<Heads>& decoder_self,
                             const Heads& last_cross, size_t real = size_t(-1)) {
  return product(product(transpose(rollout(decoder_self)), weighted_mean(last_cross, nullptr, 1.0, real)), rollout(encoder));
}

inline Matrix encdec_grad_relevance(const std::vector<Heads>& enc_w, const std::vector<Heads>& enc_g,
                                    const std::vector<Heads>& self_w, const std::vector<Heads>& self_g,
                                    const std::vector<Heads>& cross_w, const std::vector<Heads>& cross_g,
                                    double sign = 1.0, size_t real = size_t(-1)) {
  const size_t s = enc_w.front().front().size(), t = self_w.front().front().size();
  Matrix h_ss(s, std::vector<double>(s, 0.0));
  for (size_t l = 0; l < enc_w.size(); ++l) {
    const Matrix a = weighted_mean(enc_w[l], &enc_g[l], sign), ah = product(a, h_ss);
    add_to(h_ss, a);
    add_to(h_ss, ah);
  }
  const Matrix r_ss_bar = residual_normalised(h_ss);
  Matrix h_tt(t, std::vector<double>(t, 0.0)), r_ts(t, std::vector<double>(s, 0.0));
  for (size_t l = 0; l < self_w.size(); ++l) {
    const Matrix a = weighted_mean(self_w[l], &self_g[l], sign);
    const Matrix ts = product(a, r_ts), ah = product(a, h_tt);
    add_to(r_ts, ts);
    add_to(h_tt, a);
    add_to(h_tt, ah);
    add_to(r_ts, product(product(transpose(residual_normalised(h_tt)), weighted_mean(cross_w[l], &cross_g[l], sign, real)), r_ss_bar));
  }
  return r_ts;
}

// The logit lens at one position (logit_lens.h): the residual h (D) through the LayerNorm
// (gamma, beta) when `norm`, then the head's rows head[v] (V × D) and bias (V), softmax over V.
inline std::vector<double> lens_probabilities(std::vector<double> h, bool norm, const std::vector<double>& gamma,
                                              const std::vector<double>& beta, double eps, const Matrix& head,
                                              const std::vector<double>& bias) {
  const double d = static_cast<double>(h.size());
  if (norm) {
    double mean = 0, var = 0;
    for (double x : h) mean += x / d;
    for (double x : h) var += (x - mean) * (x - mean) / d;
    for (size_t i = 0; i < h.size(); ++i) h[i] = (h[i] - mean) / std::sqrt(var + eps) * gamma[i] + beta[i];
  }
  std::vector<double> p(head.size());
  double top = -1e300, sum = 0;
  for (size_t v = 0; v < head.size(); ++v) {
    p[v] = bias.empty() ? 0.0 : bias[v];
    for (size_t i = 0; i < h.size(); ++i) p[v] += head[v][i] * h[i];
    top = std::max(top, p[v]);
  }
  for (double& x : p) sum += x = std::exp(x - top);
  for (double& x : p) x /= sum;
  return p;
}

}  // namespace attnlab::explain::naive
