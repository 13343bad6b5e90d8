#include "training/optimizer.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>

#include "text/errors.h"

namespace attnlab {

std::string_view optimizer_name(OptimizerKind k) { return k == OptimizerKind::AdamW ? "adamw" : "sgd"; }

OptimizerKind parse_optimizer(std::string_view s) {
  if (s == "adamw") return OptimizerKind::AdamW;
  if (s == "sgd") return OptimizerKind::Sgd;
  throw ConfigError(Text(Msg::tr_unknown_optimizer, std::string(s)));
}

double lr_at(const OptimizerConfig& c, int64_t t, int64_t total) {
  if (t < c.warmup) return c.lr * static_cast<double>(t + 1) / static_cast<double>(c.warmup);
  const double x = static_cast<double>(t - c.warmup) / static_cast<double>(std::max<int64_t>(1, total - c.warmup));
  return c.lr * (c.floor + (1.0 - c.floor) * 0.5 * (1.0 + std::cos(std::numbers::pi * std::min(1.0, x))));
}

double clip_gradients(std::vector<Tensor>& grads, double clip) {
  double sum = 0;
  for (const Tensor& g : grads) {
    // Each tensor's norm in float as torch.norm computes it, then the norm of the norms.
    double s = 0;
    for (int64_t i = 0, n = g.numel(); i < n; ++i) s += static_cast<double>(g.data()[i]) * g.data()[i];
    const float norm = static_cast<float>(std::sqrt(s));
    sum += static_cast<double>(norm) * norm;
  }
  const double total = std::sqrt(sum);
  if (clip > 0) {
    const float coef = static_cast<float>(std::min(1.0, clip / (static_cast<double>(static_cast<float>(total)) + 1e-6)));
    for (Tensor& g : grads)
      for (int64_t i = 0, n = g.numel(); i < n; ++i) g.data()[i] *= coef;
  }
  return total;
}

Optimizer::Optimizer(OptimizerConfig c, std::vector<std::string> params) : c_(c), names_(std::move(params)) {}

void Optimizer::step(Weights& w, const std::vector<Tensor>& grads, double lr) {
  if (grads.size() != names_.size()) throw ShapeError("Optimizer::step: " + std::to_string(grads.size()) + " gradients for " + std::to_string(names_.size()) + " parameters");
  w.widen_all();  // a 16-bit parameter would be updated in a widened copy, then lost: F32 first
  const bool first = t_ == 0;
  ++t_;
  if (first) {
    for (const Tensor& g : grads) {
      m_.emplace_back(g.shape(), 0.0f);
      if (c_.kind == OptimizerKind::AdamW) v_.emplace_back(g.shape(), 0.0f);
    }
  }
  const double bc1 = 1.0 - std::pow(c_.beta1, static_cast<double>(t_));
  const double bc2_sqrt = std::sqrt(1.0 - std::pow(c_.beta2, static_cast<double>(t_)));
  for (size_t k = 0; k < names_.size(); ++k) {
    Tensor p = w.get(names_[k]);  // shares the parameter's storage: updated in place
    const Tensor g = grads[k].contiguous();
    if (p.shape() != g.shape()) throw ShapeError("Optimizer::step: " + names_[k] + " and its gradient differ in shape");
    float* pd = p.data();
    const float* gd = g.data();
    float* m = m_[k].data();
    const int64_t n = p.numel();
    if (c_.kind == OptimizerKind::AdamW) {
      // torch.optim.AdamW, single-tensor loop: decay, the two moments, the bias-corrected step.
      float* v = v_[k].data();
      const auto decay = static_cast<float>(1.0 - lr * c_.weight_decay);
      const auto b1 = static_cast<float>(c_.beta1), b2 = static_cast<float>(c_.beta2);
      const auto a1 = static_cast<float>(1.0 - c_.beta1), a2 = static_cast<float>(1.0 - c_.beta2);
      const auto step_size = static_cast<float>(lr / bc1);
      const auto bc2s = static_cast<float>(bc2_sqrt), eps = static_cast<float>(c_.eps);
      for (int64_t i = 0; i < n; ++i) {
        pd[i] *= decay;
        m[i] = m[i] * b1 + gd[i] * a1;
        v[i] = v[i] * b2 + gd[i] * gd[i] * a2;
        const float denom = std::sqrt(v[i]) / bc2s + eps;
        pd[i] += -step_size * (m[i] / denom);
      }
    } else {
      // torch.optim.SGD with momentum (dampening 0, not Nesterov): d = g + λp; buf = μ·buf + d
      // (buf = d at the first step); p ← p − lr·buf.
      const auto wd = static_cast<float>(c_.weight_decay), mu = static_cast<float>(c_.momentum);
      const auto rate = static_cast<float>(lr);
      for (int64_t i = 0; i < n; ++i) {
        const float d = gd[i] + wd * pd[i];
        m[i] = first ? d : m[i] * mu + d;
        pd[i] += -rate * m[i];
      }
    }
  }
}

std::vector<std::pair<std::string, Tensor>> Optimizer::state() const {
  std::vector<std::pair<std::string, Tensor>> out;
  for (size_t k = 0; k < m_.size(); ++k) {
    if (c_.kind == OptimizerKind::AdamW) {
      out.emplace_back("exp_avg/" + names_[k], m_[k]);
      out.emplace_back("exp_avg_sq/" + names_[k], v_[k]);
    } else {
      out.emplace_back("momentum_buffer/" + names_[k], m_[k]);
    }
  }
  return out;
}

void Optimizer::restore(const std::vector<std::pair<std::string, Tensor>>& state, int64_t steps, const Weights& w,
                        const std::string& origin) {
  std::map<std::string, Tensor> by_name(state.begin(), state.end());
  auto refuse = [&](const std::string& entry) { throw DataError(Text(Msg::tr_resume_state_bad, origin, entry)); };
  std::vector<Tensor> m, v;
  if (steps > 0) {
    for (const std::string& name : names_) {
      const Tensor& p = w.get(name);
      auto take = [&](const std::string& entry, std::vector<Tensor>& into) {
        const auto it = by_name.find(entry);
        if (it == by_name.end() || it->second.shape() != p.shape()) refuse(entry);
        into.push_back(it->second.contiguous().clone());
        by_name.erase(it);
      };
      if (c_.kind == OptimizerKind::AdamW) {
        take("exp_avg/" + name, m);
        take("exp_avg_sq/" + name, v);
      } else {
        take("momentum_buffer/" + name, m);
      }
    }
  }
  if (!by_name.empty()) refuse(by_name.begin()->first);
  m_ = std::move(m), v_ = std::move(v);
  t_ = steps;
}

}  // namespace attnlab
