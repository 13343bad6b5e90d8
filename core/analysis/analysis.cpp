#include "analysis/analysis.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "model/config.h"
#include "text/errors.h"

namespace attnlab {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A (B, H, Tq, Tk) tensor read as rows of Tk floats (a C-order copy only when it is strided).
struct Rows {
  Tensor t;  // contiguous
  int64_t heads = 0, tq = 0, tk = 0;
  explicit Rows(const Tensor& x) : t(x.contiguous()) {
    if (x.dim() != 4) throw ShapeError("analysis: expected a (B, H, Tq, Tk) tensor, got " + shape_str(x.shape()));
    heads = x.size(1);
    tq = x.size(2);
    tk = x.size(3);
  }
  const float* row(int64_t b, int64_t h, int64_t i) const { return t.data() + ((b * heads + h) * tq + i) * tk; }
};

void check_same_shape(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape())
    throw ShapeError("analysis: shapes differ, " + shape_str(a.shape()) + " vs " + shape_str(b.shape()));
}

int64_t rows_to_count(int64_t query_rows, int64_t tq) { return query_rows < 0 ? tq : std::min(query_rows, tq); }

// Unmasked keys of one row: finite masked score, or (without scores) a non-zero weight.
int unmasked_count(const float* w, const float* masked, int64_t tk) {
  int n = 0;
  for (int64_t j = 0; j < tk; ++j) n += masked ? std::isfinite(masked[j]) : w[j] != 0.0f;
  return n;
}

bool has_nan(const float* w, int64_t tk) {
  return std::any_of(w, w + tk, [](float v) { return std::isnan(v); });
}

}  // namespace

std::vector<double> softmax_with_temperature(const float* logits, int n, double temperature) {
  if (!(temperature > 0) || !std::isfinite(temperature))
    throw ConfigError(Text(Msg::en_softmax_temperature_must_positive, format_double(temperature)));
  double mx = -std::numeric_limits<double>::infinity();
  for (int j = 0; j < n; ++j) mx = std::max<double>(mx, logits[j]);
  std::vector<double> w(static_cast<size_t>(n), kNaN);
  if (std::isinf(mx) && mx < 0) return w;  // every entry −∞
  double sum = 0;
  for (int j = 0; j < n; ++j) sum += w[j] = std::exp((logits[j] - mx) / temperature);  // exp(−∞) = 0
  for (auto& v : w) v /= sum;
  return w;
}

template <typename T>
static double entropy_of(const T* p, int n) {
  double h = 0;
  for (int j = 0; j < n; ++j) {
    if (std::isnan(p[j])) return kNaN;
    if (p[j] > 0) h -= p[j] * std::log(static_cast<double>(p[j]));
  }
  return h;
}

double entropy(const float* probs, int n) { return entropy_of(probs, n); }
double entropy(const double* probs, int n) { return entropy_of(probs, n); }
double max_entropy(int n_unmasked) { return n_unmasked > 1 ? std::log(static_cast<double>(n_unmasked)) : 0.0; }

std::string_view head_pattern_name(HeadPattern p) {
  switch (p) {
    case HeadPattern::Uniform: return "uniform";
    case HeadPattern::Diagonal: return "diagonal";
    case HeadPattern::PreviousToken: return "previous token";
    case HeadPattern::Focused: return "focused";
    case HeadPattern::Mixed: return "mixed";
  }
  return "mixed";
}

HeadPattern classify_head(const HeadStats& s) {
  if (s.rows == 0) return HeadPattern::Mixed;
  if (s.entropy > kDeadEntropy) return HeadPattern::Uniform;
  const double positional = std::max(s.diagonal, s.previous);
  if (positional >= kPositionShare) return s.diagonal >= s.previous ? HeadPattern::Diagonal : HeadPattern::PreviousToken;
  if (s.mean_max >= kFocusShare) return HeadPattern::Focused;
  return HeadPattern::Mixed;
}

HeadStats head_stats(const Tensor& weights, const Tensor* masked_scores, int64_t b, int64_t h, int64_t query_rows) {
  const Rows w(weights);
  std::optional<Rows> m;
  if (masked_scores) {
    check_same_shape(weights, *masked_scores);
    m.emplace(*masked_scores);
  }
  HeadStats s;
  double ent = 0, diag = 0, prev = 0, mx = 0;
  int ent_rows = 0, diag_rows = 0, prev_rows = 0;
  for (int64_t i = 0; i < rows_to_count(query_rows, w.tq); ++i) {
    const float* row = w.row(b, h, i);
    if (has_nan(row, w.tk)) continue;
    ++s.rows;
    const int n = unmasked_count(row, m ? m->row(b, h, i) : nullptr, w.tk);
    if (n >= 2) ent += entropy(row, static_cast<int>(w.tk)) / max_entropy(n), ++ent_rows;
    if (i < w.tk) diag += row[i], ++diag_rows;
    if (i >= 1 && i - 1 < w.tk) prev += row[i - 1], ++prev_rows;
    const float row_max = *std::max_element(row, row + w.tk);
    mx += row_max;
    s.max_weight = std::max<double>(s.max_weight, row_max);
  }
  s.entropy = ent_rows ? ent / ent_rows : 0.0;
  s.diagonal = diag_rows ? diag / diag_rows : 0.0;
  s.previous = prev_rows ? prev / prev_rows : 0.0;
  s.mean_max = s.rows ? mx / s.rows : 0.0;
  s.pattern = classify_head(s);
  s.dead = s.rows > 0 && s.entropy > kDeadEntropy;
  return s;
}

std::vector<HeadStats> head_diagnostics(const Tensor& weights, const Tensor* masked_scores, int64_t b,
                                        int64_t query_rows) {
  std::vector<HeadStats> out;
  for (int64_t h = 0; h < weights.size(1); ++h) out.push_back(head_stats(weights, masked_scores, b, h, query_rows));
  return out;
}

AttentionRow attention_row(const Tensor& weights, const Tensor& masked_scores, int64_t b, int64_t h, int64_t i,
                           double temperature) {
  check_same_shape(weights, masked_scores);
  const Rows w(weights), m(masked_scores);
  const float* wr = w.row(b, h, i);
  const float* mr = m.row(b, h, i);
  AttentionRow row{{wr, wr + w.tk}, {}, {}};
  for (int64_t j = 0; j < w.tk; ++j) row.masked.push_back(std::isinf(mr[j]) && mr[j] < 0);
  row.tempered = temperature == 1.0 ? row.weights : softmax_with_temperature(mr, static_cast<int>(w.tk), temperature);
  return row;
}

std::vector<int64_t> histogram(const float* values, int64_t n, int bins, double lo, double hi) {
  if (bins < 1 || !(hi > lo)) throw ConfigError(Text(Msg::en_histogram_needs_bin_hi_above_lo));
  std::vector<int64_t> counts(static_cast<size_t>(bins), 0);
  const double width = (hi - lo) / bins;
  for (int64_t k = 0; k < n; ++k) {
    if (!std::isfinite(values[k])) continue;
    const double at = std::floor((values[k] - lo) / width);
    ++counts[static_cast<size_t>(std::clamp<double>(at, 0, bins - 1))];
  }
  return counts;
}

namespace {

bool saturated(const float* logits, int64_t tk, double temperature) {
  const auto w = softmax_with_temperature(logits, static_cast<int>(tk), temperature);
  return *std::max_element(w.begin(), w.end()) > kSaturated;
}

}  // namespace

LogitStats logit_stats(const Tensor& qk, const Tensor& masked_scores, int64_t b, int64_t h, double temperature,
                       int64_t query_rows) {
  check_same_shape(qk, masked_scores);
  const Rows raw(qk), scaled(masked_scores);
  LogitStats s;
  int sat_raw = 0, sat_scaled = 0;
  std::vector<float> masked_raw(static_cast<size_t>(raw.tk));  // qk (Tk) with −∞ where masked
  const int64_t h0 = h < 0 ? 0 : h, h1 = h < 0 ? raw.heads : h + 1;
  for (int64_t hh = h0; hh < h1; ++hh) {
    for (int64_t i = 0; i < rows_to_count(query_rows, raw.tq); ++i) {
      const float* r = raw.row(b, hh, i);
      const float* sc = scaled.row(b, hh, i);
      int n = 0;
      for (int64_t j = 0; j < raw.tk; ++j) {
        const bool keep = std::isfinite(sc[j]) && std::isfinite(r[j]);
        masked_raw[j] = keep ? r[j] : -std::numeric_limits<float>::infinity();
        if (!keep) continue;
        s.unscaled.push_back(r[j]);
        s.scaled.push_back(sc[j]);
        ++n;
      }
      if (n < 2) continue;
      ++s.rows;
      sat_raw += saturated(masked_raw.data(), raw.tk, temperature);
      sat_scaled += saturated(sc, raw.tk, temperature);
    }
  }
  s.saturated_unscaled = s.rows ? static_cast<double>(sat_raw) / s.rows : 0.0;
  s.saturated_scaled = s.rows ? static_cast<double>(sat_scaled) / s.rows : 0.0;
  return s;
}

}  // namespace attnlab
