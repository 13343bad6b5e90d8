#include "backward/scaling.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "backward/grad_ops.h"
#include "backward/model_backward.h"

namespace attnlab {

namespace {

double norm_of(const Trace& t, const std::string& id) {
  const Step* s = t.find(id);
  return s ? grad::l2_norm(s->tensor) : 0;
}

// Every real query row (one with some visible key in mask (B, Tq, Tk)) of every head of t
// (B, H, Tq, Tk): row(pointer to its Tk values).
template <typename Row>
void for_real_rows(const Tensor& t, const Tensor& mask, Row row) {
  const Tensor c = t.contiguous(), m = mask.contiguous();
  const int64_t b = c.size(0), h = c.size(1), tq = c.size(2), tk = c.size(3);
  for (int64_t bi = 0; bi < b; ++bi)
    for (int64_t i = 0; i < tq; ++i) {
      const float* visible = m.data() + (bi * tq + i) * tk;
      if (std::none_of(visible, visible + tk, [](float v) { return v != 0.0f; })) continue;
      for (int64_t hi = 0; hi < h; ++hi) row(c.data() + ((bi * h + hi) * tq + i) * tk, tk);
    }
}

// The share of real query rows whose largest weight is above 0.99, and the mean of those largest
// weights. weights (B, H, Tq, Tk), mask (B, Tq, Tk).
void saturation(const Tensor& weights, const Tensor& mask, ScalingRun& out) {
  int64_t rows = 0, sat = 0;
  double sum = 0;
  for_real_rows(weights, mask, [&](const float* row, int64_t tk) {
    const float mx = *std::max_element(row, row + tk);
    ++rows;
    sat += mx > 0.99f;
    sum += mx;
  });
  out.saturated = rows ? double(sat) / double(rows) : 0;
  out.mean_max = rows ? sum / double(rows) : 0;
}

// The share of real query rows whose gradient row (of dscores (B, H, Tq, Tk)) is below 1/100 of
// the median row's norm.
double starved_rows(const Tensor& dscores, const Tensor& mask) {
  std::vector<double> norms;
  for_real_rows(dscores, mask, [&](const float* row, int64_t tk) {
    double sq = 0;
    for (int64_t j = 0; j < tk; ++j) sq += double(row[j]) * row[j];
    norms.push_back(std::sqrt(sq));
  });
  if (norms.empty()) return 0;
  std::vector<double> sorted = norms;
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<long>(sorted.size() / 2), sorted.end());
  const double median = sorted[sorted.size() / 2];
  int64_t low = 0;
  for (double n : norms) low += n < 0.01 * median;
  return double(low) / double(norms.size());
}

}  // namespace

std::vector<ScalingRun> scaling_experiment(const ModelConfig& base, const Weights& w, const Batch& batch, LossKind loss,
                                           const std::string& block_in) {
  const std::string stack = base.cross ? "decoder" : "encoder";
  const std::string block = block_in.empty() ? stack + ".layers.0.self_attn" : block_in;
  std::vector<ScalingRun> out;
  for (ScoreScaling s : {ScoreScaling::ByHeadWidth, ScoreScaling::ByModelWidth, ScoreScaling::None}) {
    ModelConfig cfg = base;
    cfg.faults.clear();
    cfg.variant = {};
    if (s == ScoreScaling::ByModelWidth) cfg.faults.insert(Fault::ScaleByDModel);
    if (s == ScoreScaling::None) cfg.faults.insert(Fault::NoScaling);
    Trace fwd;
    forward(cfg, w, batch, fwd);
    const BackwardResult back = backward(cfg, w, fwd, LossSpec{.kind = loss});
    ScalingRun r{.scaling = s};
    r.divisor = s == ScoreScaling::None ? 1.0
                : std::sqrt(double(s == ScoreScaling::ByModelWidth ? cfg.d_model : cfg.d_model / cfg.heads));
    const Step* weights = fwd.find(block + ".weights");
    const Step* masked = fwd.find(block + ".masked_scores");
    const Step* mask = masked ? fwd.find(masked->info.inputs().back()) : nullptr;  // bound as `mask`
    if (weights && mask) saturation(weights->tensor, mask->tensor, r);
    r.grad_q = norm_of(back.steps, block + ".q.grad");
    r.grad_k = norm_of(back.steps, block + ".k.grad");
    r.grad_scores = norm_of(back.steps, block + ".masked_scores.grad");
    if (const Step* ds = back.steps.find(block + ".masked_scores.grad"); ds && mask) r.starved = starved_rows(ds->tensor, mask->tensor);
    out.push_back(r);
  }
  return out;
}

}  // namespace attnlab
