// The maths behind the charts ("seeing attention"): softmax at a temperature, entropy, per-head
// diagnostics with a pattern name, histograms, and what the √Dh scaling does to the logits.
// Everything is computed in double from the trace's floats; each function has an obvious
// formulation (written beside it) that the tests recompute by hand.
//
// Shapes: B batch, H heads, Tq query length, Tk key length, Dh = D / H.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "tensor/tensor.h"

namespace attnlab {

// softmax(logits / T) over n entries: w_j = exp(x_j / T) / Σ_k exp(x_k / T), computed with the
// row maximum subtracted. −∞ entries get weight exactly 0; a row of only −∞ is all NaN (as
// PyTorch). T → ∞ tends to uniform over the finite entries, T → 0 to the argmax (ties share).
// Throws ConfigError unless T > 0 and finite.
std::vector<double> softmax_with_temperature(const float* logits, int n, double temperature);

// Shannon entropy −Σ p_j log p_j in nats, with 0 · log 0 = 0. NaN when any entry is NaN.
double entropy(const float* probs, int n);
double entropy(const double* probs, int n);
// The entropy of the uniform distribution over n unmasked keys: log n (0 for n ≤ 1).
double max_entropy(int n_unmasked);

// What one head does, by the rows' shape. Thresholds (checked in this order):
//   Uniform        mean normalised entropy > kDeadEntropy (0.95): the head barely chooses ("dead")
//   Diagonal       mean weight on the key at the query's own position ≥ kPositionShare (0.5)
//   PreviousToken  mean weight on the key one position before the query ≥ kPositionShare
//   Focused        mean row maximum ≥ kFocusShare (0.5): one key wins, but not by position
//   Mixed          anything else
enum class HeadPattern { Uniform, Diagonal, PreviousToken, Focused, Mixed };
std::string_view head_pattern_name(HeadPattern p);  // "uniform", "diagonal", …

inline constexpr double kDeadEntropy = 0.95;
inline constexpr double kPositionShare = 0.5;
inline constexpr double kFocusShare = 0.5;

// Per-head numbers for one sentence. Rows counted: query rows i < query_rows whose weights are
// not NaN (a fully masked row is NaN). Entropy only averages rows with ≥ 2 unmasked keys, where
// log(n) > 0.
struct HeadStats {
  double entropy = 0;   // mean over rows of H(row) / log(n_unmasked(row)), in [0, 1]
  double diagonal = 0;  // mean over rows i (i < Tk) of w[i][i]
  double previous = 0;  // mean over rows i ≥ 1 (i − 1 < Tk) of w[i][i − 1]
  double mean_max = 0;  // mean over rows of max_j w[i][j]
  double max_weight = 0;  // largest single weight of the head
  int rows = 0;           // rows counted
  HeadPattern pattern = HeadPattern::Mixed;
  bool dead = false;  // entropy > kDeadEntropy
};

HeadPattern classify_head(const HeadStats& s);

// weights (B, H, Tq, Tk); masked_scores (B, H, Tq, Tk) or nullptr. A key is masked where
// masked_scores is −∞; without masked_scores, where its weight is exactly 0. query_rows < 0
// counts every row (pass the real, unpadded query length to leave [PAD] queries out).
HeadStats head_stats(const Tensor& weights, const Tensor* masked_scores, int64_t b, int64_t h,
                     int64_t query_rows = -1);
// head_stats for every head h = 0 … H−1.
std::vector<HeadStats> head_diagnostics(const Tensor& weights, const Tensor* masked_scores, int64_t b,
                                        int64_t query_rows = -1);

// Row i of head h, sentence b, as the charts draw it. weights, masked_scores: (B, H, Tq, Tk).
struct AttentionRow {
  std::vector<double> weights;   // (Tk) the trace's own softmax (temperature 1), exactly
  std::vector<double> tempered;  // (Tk) softmax_with_temperature(masked_scores row, T); = weights at T = 1
  std::vector<char> masked;      // (Tk) 1 where masked_scores is −∞
};
AttentionRow attention_row(const Tensor& weights, const Tensor& masked_scores, int64_t b, int64_t h, int64_t i,
                           double temperature);

// Counts of the finite values in `bins` equal bins over [lo, hi]; values outside go to the end
// bins, NaN and ±∞ are ignored, so the counts sum to the number of finite values. hi > lo.
std::vector<int64_t> histogram(const float* values, int64_t n, int bins, double lo, double hi);

// The logits of one head (or every head, h < 0) of one sentence, before and after ÷√Dh, over the
// unmasked entries only (masked_scores finite) of query rows < query_rows (all when < 0).
//   unscaled[k] = qk[b, h, i, j],   scaled[k] = masked_scores[b, h, i, j] = qk / √Dh
// A row is saturated when its softmax at `temperature` puts more than kSaturated on one key;
// rows with fewer than 2 unmasked keys are left out (their one weight is always 1).
inline constexpr double kSaturated = 0.99;
struct LogitStats {
  std::vector<float> unscaled, scaled;  // same entries, same order
  double saturated_unscaled = 0;        // fraction of rows, in [0, 1]
  double saturated_scaled = 0;
  int rows = 0;  // rows that could saturate
};
// qk, masked_scores: (B, H, Tq, Tk).
LogitStats logit_stats(const Tensor& qk, const Tensor& masked_scores, int64_t b, int64_t h, double temperature,
                       int64_t query_rows = -1);

}  // namespace attnlab
