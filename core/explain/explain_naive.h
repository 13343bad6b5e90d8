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

// a · b
inline Matrix product(const Matrix& a, const Matrix& b) {
  const size_t s = a.size();
  Matrix out(s, std::vector<double>(s, 0.0));
  for (size_t i = 0; i < s; ++i)
    for (size_t j = 0; j < s; ++j)
      for (size_t k = 0; k < s; ++k) out[i][j] += a[i][k] * b[k][j];
  return out;
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
