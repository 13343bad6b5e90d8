#include "explain/ablation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "explain/needed_step.h"
#include "explain/rerun.h"
#include "explain/stop.h"

namespace attnlab::explain {

namespace {

// log softmax(row)[k] in double.
double log_prob(const float* row, int64_t v, int64_t k) {
  const double top = *std::max_element(row, row + v);
  double sum = 0;
  for (int64_t c = 0; c < v; ++c) sum += std::exp(static_cast<double>(row[c]) - top);
  return static_cast<double>(row[k]) - top - std::log(sum);
}

std::vector<double> ranks(const std::vector<double>& x) {
  std::vector<size_t> order(x.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return x[a] < x[b]; });
  std::vector<double> r(x.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && x[order[j + 1]] == x[order[i]]) ++j;
    for (size_t k = i; k <= j; ++k) r[order[k]] = 0.5 * static_cast<double>(i + j);  // the tie's mean rank
    i = j + 1;
  }
  return r;
}

}  // namespace

std::vector<int64_t> explained_positions(const Batch& batch) {
  const TokenBatch& t = batch.text;  // the queries: the decoder's tokens in an encoder–decoder run
  std::vector<int64_t> out;
  for (int64_t b = 0; b < t.batch(); ++b) {
    const auto& row = t.tokens[static_cast<size_t>(b)];
    const int len = t.lengths[static_cast<size_t>(b)];
    const auto mask = std::find(row.begin(), row.begin() + len, "[MASK]");
    out.push_back(mask != row.begin() + len ? mask - row.begin() : std::max(len - 1, 0));
  }
  return out;
}

namespace {

// mask_without_key on `m` itself (contiguous (B, S, S)). A row the edit leaves empty keeps its own
// key; a row that was empty before (a planted fault's) stays as it was.
void mask_key_in_place(Tensor& m, int64_t b, int64_t j) {
  const int64_t s = m.size(1), k = m.size(2);
  if (j >= k) return;
  float* p = m.data() + b * s * k;
  for (int64_t i = 0; i < s; ++i) {
    if (i == j || p[i * k + j] == 0.0f) continue;  // j's own row: it reaches no other row anyway (ablation.h)
    p[i * k + j] = 0.0f;
    if (i < k && std::all_of(p + i * k, p + (i + 1) * k, [](float x) { return x == 0.0f; })) p[i * k + i] = 1.0f;
  }
}

}  // namespace

Tensor mask_without_key(const Tensor& mask, int64_t b, int64_t j) {
  Tensor m = mask.clone();
  mask_key_in_place(m, b, j);
  return m;
}

namespace {

// Key j of the source masked for every decoder position of sentence b in a cross mask m (B, T, S),
// contiguous. A row left with no key keeps j (a softmax needs one): only a one-token source.
void mask_source_in_place(Tensor& m, int64_t b, int64_t j) {
  const int64_t t = m.size(1), s = m.size(2);
  float* p = m.data() + b * t * s;
  for (int64_t i = 0; i < t; ++i) {
    if (p[i * s + j] == 0.0f) continue;
    p[i * s + j] = 0.0f;
    if (std::all_of(p + i * s, p + (i + 1) * s, [](float x) { return x == 0.0f; })) p[i * s + j] = 1.0f;
  }
}

// The model again with key j masked in every sentence (rerun.h), the explained stack's outputs
// (B, Q, V) or (B, Q, D). An encoder–decoder masks source token j in the encoder's self-attention
// (as an encoder alone) and for every decoder position in each layer's cross-attention, so nothing
// of j reaches the decoder.
Tensor without_key(const ModelConfig& cfg, const Weights& w, const TraceInputs& in, int64_t j) {
  Tensor m = in.mask.clone();
  for (int64_t b = 0; b < m.size(0); ++b) mask_key_in_place(m, b, j);
  Tensor c = cfg.cross ? in.cross_mask.clone() : Tensor();
  for (int64_t b = 0; cfg.cross && b < c.size(0); ++b) mask_source_in_place(c, b, j);
  return in.outputs(cfg, w, m, c);
}

}  // namespace

TokenAblation ablate_tokens(const ModelConfig& cfg, const Weights& w, const Trace& fwd, const std::vector<int64_t>& query,
                            const std::atomic<bool>* stop) {
  const bool trained = w.vocab() != nullptr;
  const TraceInputs in = TraceInputs::of(cfg, fwd);
  const Tensor& seen = cfg.cross ? in.cross_mask : in.mask;  // (B, Q, K): the keys each explained position sees
  // The clean run on the same (untraced CPU) path as the ablated ones, so that no backend's rounding
  // enters the differences.
  const Tensor clean = in.outputs(cfg, w);  // (B, Q, V) or (B, Q, D)
  const int64_t batch = seen.size(0), q_len = seen.size(1), keys = seen.size(2), width = clean.size(2);
  TokenAblation out{.logprob = trained, .effect = Tensor({batch, keys})};
  for (int64_t j = 0; j < keys; ++j) {
    stop_if_asked(stop);
    const Tensor y = without_key(cfg, w, in, j);
    for (int64_t b = 0; b < batch; ++b) {
      const int64_t q = query[static_cast<size_t>(b)];
      if (seen.at({b, q, j}) == 0.0f) continue;  // the query never saw j
      const float* before = clean.data() + (b * q_len + q) * width;
      const float* after = y.data() + (b * q_len + q) * width;
      double e = 0;
      if (trained) {
        const int64_t top = std::max_element(before, before + width) - before;
        e = std::abs(log_prob(after, width, top) - log_prob(before, width, top));
      } else {
        for (int64_t d = 0; d < width; ++d) e += std::pow(static_cast<double>(after[d]) - before[d], 2);
        e = std::sqrt(e);
      }
      out.effect.at({b, j}) = static_cast<float>(e);
    }
  }
  return out;
}

double spearman(const std::vector<double>& a, const std::vector<double>& b) {
  const size_t n = a.size();
  const auto finite = [](const std::vector<double>& v) { return std::all_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); }); };
  if (n < 3 || b.size() != n || !finite(a) || !finite(b)) return std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> ra = ranks(a), rb = ranks(b);
  const double mean = 0.5 * static_cast<double>(n - 1);
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < n; ++i) {
    sab += (ra[i] - mean) * (rb[i] - mean);
    saa += (ra[i] - mean) * (ra[i] - mean);
    sbb += (rb[i] - mean) * (rb[i] - mean);
  }
  if (saa == 0 || sbb == 0) return std::numeric_limits<double>::quiet_NaN();
  return sab / std::sqrt(saa * sbb);
}

}  // namespace attnlab::explain
