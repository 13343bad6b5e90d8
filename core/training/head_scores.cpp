#include "training/head_scores.h"

#include <cmath>

#include "text/errors.h"

namespace attnlab {

namespace {

struct Sums {
  double previous = 0, self = 0, entropy = 0, induction = 0;
  int64_t n_previous = 0, n_rows = 0, n_induction = 0;
};

void check(const Tensor& w, const ExampleBatch& batch) {
  if (w.dim() != 4 || w.size(0) != static_cast<int64_t>(batch.rows.size()) || w.size(2) != w.size(3) ||
      w.size(2) < batch.seq())
    throw ShapeError("head_scores: weights " + shape_str(w.shape()) + " for " + std::to_string(batch.rows.size()) +
                     " sequences of up to " + std::to_string(batch.seq()) + " tokens");
}

HeadScore finish(const Sums& s, bool has_induction) {
  HeadScore h;
  h.previous = s.n_previous ? s.previous / static_cast<double>(s.n_previous) : 0;
  h.self = s.n_rows ? s.self / static_cast<double>(s.n_rows) : 0;
  h.entropy = s.n_rows ? s.entropy / static_cast<double>(s.n_rows) : 0;
  if (has_induction) h.induction = s.n_induction ? s.induction / static_cast<double>(s.n_induction) : 0;
  return h;
}

bool any_induction(const ExampleBatch& batch) {
  for (const auto& r : batch.rows)
    if (r.run_start >= 0) return true;
  return false;
}

}  // namespace

std::vector<HeadScore> head_scores(const Tensor& weights, const ExampleBatch& batch) {
  check(weights, batch);
  const Tensor w = weights.contiguous();
  const int64_t b = w.size(0), h = w.size(1), s = w.size(2);
  std::vector<HeadScore> out;
  for (int64_t hi = 0; hi < h; ++hi) {
    Sums sum;
    for (int64_t bi = 0; bi < b; ++bi) {
      const Example& e = batch.rows[static_cast<size_t>(bi)];
      const auto len = static_cast<int64_t>(e.ids.size());
      const float* m = w.data() + (bi * h + hi) * s * s;  // (S, S) of this head and row
      for (int64_t i = 0; i < len; ++i) {
        const float* row = m + i * s;
        sum.self += row[i];
        if (i >= 1) {
          sum.previous += row[i - 1];
          ++sum.n_previous;
        }
        double ent = 0;
        for (int64_t j = 0; j < s; ++j)
          if (row[j] > 0) ent -= static_cast<double>(row[j]) * std::log(static_cast<double>(row[j]));
        sum.entropy += ent;
        ++sum.n_rows;
      }
      for (int t = 0; e.run_start >= 0 && t < e.run_len; ++t) {
        const int64_t q = e.run_start + e.run_len + t, k = e.run_start + t + 1;
        sum.induction += m[q * s + k];
        ++sum.n_induction;
      }
    }
    out.push_back(finish(sum, any_induction(batch)));
  }
  return out;
}

std::vector<HeadScore> head_scores_naive(const Tensor& w, const ExampleBatch& batch) {
  check(w, batch);
  const int64_t h = w.size(1);
  std::vector<HeadScore> out;
  for (int64_t hi = 0; hi < h; ++hi) {
    Sums sum;
    for (size_t bi = 0; bi < batch.rows.size(); ++bi) {
      const Example& e = batch.rows[bi];
      const auto b = static_cast<int64_t>(bi);
      for (int64_t i = 0; i < static_cast<int64_t>(e.ids.size()); ++i) {
        sum.self += w.at({b, hi, i, i});
        if (i > 0) sum.previous += w.at({b, hi, i, i - 1}), ++sum.n_previous;
        for (int64_t j = 0; j < w.size(3); ++j) {
          const double p = w.at({b, hi, i, j});
          if (p > 0) sum.entropy -= p * std::log(p);
        }
        ++sum.n_rows;
      }
      if (e.run_start < 0) continue;
      // The second copy's t-th letter is the first copy's t-th; the position after that one.
      for (int t = 0; t < e.run_len; ++t)
        sum.induction += w.at({b, hi, e.run_start + e.run_len + t, e.run_start + t + 1}), ++sum.n_induction;
    }
    out.push_back(finish(sum, any_induction(batch)));
  }
  return out;
}

}  // namespace attnlab
