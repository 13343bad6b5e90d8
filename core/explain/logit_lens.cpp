// The logit lens (logit_lens.h): every layer's residual stream through the model's head, the top K
// of each softmax row kept.
#include "explain/logit_lens.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "explain/needed_step.h"
#include "explain/stop.h"
#include "forward/head_logits.h"
#include "model/step_builder.h"
#include "text/errors.h"

namespace attnlab::explain {

namespace {

// One row of logits (V): log Σ exp, in double.
double log_sum_exp(const float* row, int64_t v) {
  const double top = *std::max_element(row, row + v);
  double sum = 0;
  for (int64_t i = 0; i < v; ++i) sum += std::exp(static_cast<double>(row[i]) - top);
  return top + std::log(sum);
}

// The k largest entries of a row (V), largest first, equal values by the smaller id.
std::vector<int64_t> top_ids(const float* row, int64_t v, int64_t k, std::vector<int64_t>& order) {
  order.resize(static_cast<size_t>(v));
  std::iota(order.begin(), order.end(), int64_t{0});
  std::partial_sort(order.begin(), order.begin() + k, order.end(),
                    [row](int64_t a, int64_t b) { return row[a] > row[b] || (row[a] == row[b] && a < b); });
  return {order.begin(), order.begin() + k};
}

// The PyTorch function `head(h)`: what follows the last layer, then the softmax over V.
std::string head_code(const ModelConfig& cfg, const Weights& w) {
  const std::string d = std::to_string(cfg.d_model), eps = format_double(cfg.eps);
  std::string code = "def head(x):\n";
  if (cfg.final_norm) code += "    x = F.layer_norm(x, (" + d + ",), norm_weight, norm_bias, eps=" + eps + ")\n";
  if (cfg.head_transform) {
    code += "    x = F.linear(x, transform_weight, transform_bias)\n";
    code += cfg.activation == Activation::Relu   ? "    x = F.relu(x)\n"
            : cfg.activation == Activation::Gelu ? "    x = F.gelu(x)\n"
                                                 : "    x = F.gelu(x, approximate=\"tanh\")\n";
    code += "    x = F.layer_norm(x, (" + d + ",), transform_norm_weight, transform_norm_bias, eps=" + eps + ")\n";
  }
  code += w.vocab()->head_bias ? "    return torch.softmax(F.linear(x, output_head_weight, output_head_bias), dim=-1)\n"
                               : "    return torch.softmax(F.linear(x, output_head_weight), dim=-1)\n";
  return code + "hs = (";
}

// "softmax(LN_f(h_l)·W_headᵀ)" as the model has it.
std::string head_maths(const ModelConfig& cfg, const Weights& w) {
  std::string inner = cfg.final_norm ? "LN_f(h_l)" : "h_l";
  if (cfg.head_transform) inner = "LN(act(" + inner + "·W_tᵀ + b_t))";
  return "p_l = softmax(" + inner + "·W_headᵀ" + (w.vocab()->head_bias ? " + b" : "") + ")";
}

void bind_head(StepInfo& info, const ModelConfig& cfg, const Weights& w, int64_t layers) {
  const auto residuals = lens_residual_ids(layers);
  for (size_t l = 0; l < residuals.size(); ++l) info.bindings.push_back(step_var("h" + std::to_string(l), residuals[l]));
  if (cfg.final_norm)
    for (const char* n : {"weight", "bias"}) info.bindings.push_back(weight_var(std::string("norm_") + n, std::string("encoder.norm.") + n));
  if (cfg.head_transform)
    for (const char* n : {"transform.weight", "transform.bias", "transform_norm.weight", "transform_norm.bias"}) {
      std::string var = n;
      std::replace(var.begin(), var.end(), '.', '_');
      info.bindings.push_back(weight_var(var, std::string("output_head.") + n));
    }
  info.bindings.push_back(weight_var("output_head_weight", "output_head.weight"));
  if (w.vocab()->head_bias) info.bindings.push_back(weight_var("output_head_bias", "output_head.bias"));
}

// head() and the tuple hs of every residual stream, h0 … hL.
std::string lens_prelude(const ModelConfig& cfg, const Weights& w) {
  std::string code = head_code(cfg, w);
  for (int64_t l = 0; l <= cfg.layers; ++l) code += "h" + std::to_string(l) + ", ";
  return code + ")\n";
}

}  // namespace

std::vector<std::string> lens_residual_ids(int64_t layers) {
  std::vector<std::string> ids{"encoder.input"};
  for (int64_t l = 0; l < layers; ++l) ids.push_back("encoder.layers." + std::to_string(l) + ".output");
  return ids;
}

LogitLens logit_lens(const ModelConfig& cfg, const Weights& w, const Trace& fwd, int64_t k, Backend& be,
                     const std::atomic<bool>* stop) {
  if (!w.vocab()) throw ConfigError(Text(Msg::ex_lens_needs_head));
  k = std::clamp<int64_t>(k, 1, std::min(kLensTopMax, w.get("output_head.weight").size(0)));  // (V, D)
  const std::vector<std::string> residuals = lens_residual_ids(cfg.layers);
  const Tensor& first = needed_step(fwd, residuals.front());  // (B, S, D)
  const int64_t b_n = first.size(0), s_n = first.size(1), l_n = static_cast<int64_t>(residuals.size());
  LogitLens out{Tensor({b_n, l_n, s_n, k}), Tensor({b_n, l_n, s_n, k}), Tensor({b_n, l_n, s_n})};
  std::vector<int64_t> answer(static_cast<size_t>(b_n * s_n)), order;
  // The last layer first: its top token is the answer every layer's row is read at.
  for (int64_t step = 0; step < l_n; ++step) {
    const int64_t l = step == 0 ? l_n - 1 : step - 1;
    stop_if_asked(stop);
    const Tensor logits = head_logits(cfg, w, needed_step(fwd, residuals[static_cast<size_t>(l)]).contiguous(), be).contiguous();
    const int64_t v = logits.size(2);
    for (int64_t b = 0; b < b_n; ++b)
      for (int64_t s = 0; s < s_n; ++s) {
        const float* row = logits.data() + (b * s_n + s) * v;
        const double lse = log_sum_exp(row, v);
        const std::vector<int64_t> top = top_ids(row, v, k, order);
        int64_t& ans = answer[static_cast<size_t>(b * s_n + s)];
        if (l == l_n - 1) ans = top.front();
        for (int64_t i = 0; i < k; ++i) {
          out.probs.at({b, l, s, i}) = static_cast<float>(std::exp(row[top[static_cast<size_t>(i)]] - lse));
          out.ids.at({b, l, s, i}) = static_cast<float>(top[static_cast<size_t>(i)]);
        }
        out.answer.at({b, l, s}) = static_cast<float>(std::exp(row[ans] - lse));
      }
  }
  return out;
}

void record_lens(const ModelConfig& cfg, const Weights& w, LogitLens lens, Trace& out) {
  const std::string k = std::to_string(lens.probs.size(3)), prelude = lens_prelude(cfg, w);
  StepInfo probs{.id = "explain.logit_lens", .title = Text(Msg::st_explain_logit_lens),
                 .formula = formula_parts({maths(head_maths(cfg, w) + "; top_" + k + "(p_l) (B, L+1, S, " + k + ")"),
                                           Text(Msg::sf_logit_lens_prose, lens.probs.size(3))}),
                 .code = prelude + "logit_lens = torch.stack([head(h).topk(" + k + ", dim=-1).values for h in hs], 1)",
                 .result = "logit_lens"};
  bind_head(probs, cfg, w, cfg.layers);
  // The ids are checked by their probabilities (equal values may come in either order).
  StepInfo ids{.id = "explain.logit_lens_ids", .title = Text(Msg::st_explain_logit_lens_ids),
               .formula = formula_parts({maths("argtop" + k + "(p_l) (B, L+1, S, " + k + ")"), Text(Msg::sf_logit_lens_ids_prose)}),
               .code = prelude +
                       "p = [head(h) for h in hs]\n"
                       "picked = torch.stack([q.gather(-1, ids[:, l].long()) for l, q in enumerate(p)], 1)\n"
                       "top = torch.stack([q.topk(" + k + ", dim=-1).values for q in p], 1)\n"
                       "logit_lens_ids = torch.where(torch.isclose(picked, top, rtol=1e-3, atol=1e-6), ids, "
                       "torch.full_like(ids, -1.0))",
               .result = "logit_lens_ids"};
  bind_head(ids, cfg, w, cfg.layers);
  ids.bindings.push_back(step_var("ids", "explain.logit_lens_ids"));
  StepInfo answer{.id = "explain.logit_lens_answer", .title = Text(Msg::st_explain_logit_lens_answer),
                  .formula = formula_parts({maths("p_l[ŷ], ŷ = argmax p_L (B, L+1, S)"), Text(Msg::sf_logit_lens_answer_prose)}),
                  .code = prelude + "answer = ids[:, -1, :, :1].long()\n"
                          "logit_lens_answer = torch.stack([head(h).gather(-1, answer)[..., 0] for h in hs], 1)",
                  .result = "logit_lens_answer"};
  bind_head(answer, cfg, w, cfg.layers);
  answer.bindings.push_back(step_var("ids", "explain.logit_lens_ids"));
  out.record(std::move(probs), std::move(lens.probs));
  out.record(std::move(ids), std::move(lens.ids));
  out.record(std::move(answer), std::move(lens.answer));
}

}  // namespace attnlab::explain
