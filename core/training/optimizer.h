// The optimisers of the training lab, as PyTorch 1.13 computes them (torch.optim.AdamW, SGD with
// momentum, nn.utils.clip_grad_norm_), and the learning-rate schedule: linear warm-up, then a
// cosine decay to a floor. Every parameter is updated in place, in float as PyTorch's
// single-tensor loop does; the scalars (bias corrections, step sizes) in double.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/weights.h"
#include "tensor/tensor.h"

namespace attnlab {

enum class OptimizerKind { AdamW, Sgd };
std::string_view optimizer_name(OptimizerKind k);   // "adamw", "sgd"
OptimizerKind parse_optimizer(std::string_view s);  // throws ConfigError listing the names

struct OptimizerConfig {
  OptimizerKind kind = OptimizerKind::AdamW;
  double lr = 1e-3;            // the peak learning rate
  double beta1 = 0.9, beta2 = 0.98, eps = 1e-8;  // AdamW
  double momentum = 0.9;       // SGD
  double weight_decay = 0.01;  // AdamW: decoupled (p ← p − lr·λ·p); SGD: added to the gradient (λ·p)
  double clip = 1.0;           // the gradients' global 2-norm is scaled down to this; 0 = no clipping
  int64_t warmup = 100;        // steps of linear warm-up
  double floor = 0.1;          // the cosine decays to floor · lr
};

// Step t (from 0) of `total`: lr·(t + 1)/warmup during the warm-up, then
// lr·(floor + (1 − floor)·½(1 + cos(π·(t − warmup)/max(1, total − warmup)))).
double lr_at(const OptimizerConfig& c, int64_t t, int64_t total);

// clip_grad_norm_: n = √Σ‖g‖² over every gradient; when clip > 0, every g is multiplied by
// min(1, clip / (n + 1e-6)). Returns n (before clipping).
double clip_gradients(std::vector<Tensor>& grads, double clip);

class Optimizer {
 public:
  // `params`: the names in the order their gradients will come (state-dict order).
  Optimizer(OptimizerConfig c, std::vector<std::string> params);

  // One update of every parameter of `w` with its gradient (same order as the names) at `lr`.
  void step(Weights& w, const std::vector<Tensor>& grads, double lr);

  const OptimizerConfig& config() const { return c_; }
  int64_t steps() const { return t_; }
  // The state (AdamW's two moments, SGD's momentum buffer) by parameter name: "exp_avg/<name>",
  // "exp_avg_sq/<name>", "momentum_buffer/<name>"; for a saved run.
  std::vector<std::pair<std::string, Tensor>> state() const;
  // Takes up where a saved optimiser stopped: `steps` updates done, `state` as state() gave it
  // (empty when steps is 0), each entry shaped like its parameter in `w`. DataError naming
  // `origin` and the first entry missing, extra or misshapen; nothing changes then.
  void restore(const std::vector<std::pair<std::string, Tensor>>& state, int64_t steps, const Weights& w,
               const std::string& origin);

 private:
  OptimizerConfig c_;
  std::vector<std::string> names_;
  std::vector<Tensor> m_, v_;  // AdamW: exp_avg, exp_avg_sq; SGD: m_ the momentum buffer
  int64_t t_ = 0;
};

}  // namespace attnlab
