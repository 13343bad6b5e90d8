// The explanation steps (explain.h): each method's tensor from relevance.h, its title, formula and
// the PyTorch (flow: plain Python) code that recomputes it from the steps it binds.
#include "explain/explain.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "explain/ablation.h"
#include "explain/logit_lens.h"
#include "explain/needed_step.h"
#include "explain/relevance.h"
#include "model/comma_list.h"
#include "model/step_builder.h"
#include "text/errors.h"

namespace attnlab {

namespace {

constexpr ExplainMethod kMethods[] = {ExplainMethod::Rollout,  ExplainMethod::Flow,     ExplainMethod::GradAttention,
                                      ExplainMethod::Saliency, ExplainMethod::Ablation, ExplainMethod::Heads,
                                      ExplainMethod::LogitLens};

// The methods that rank the input tokens (the ρ scores' columns): not the ablation itself, the
// heads table or the lens.
bool ranks_tokens(const std::string& step_id) {
  for (ExplainMethod m : {ExplainMethod::Rollout, ExplainMethod::Flow, ExplainMethod::GradAttention, ExplainMethod::Saliency})
    if (step_id == explain_step_id(m)) return true;
  return false;
}

// An attention block's weights step (head_ablation.h names the blocks): "encoder.layers.1.self_attn.weights".
using explain::HeadBlock;
std::string weights_id(int64_t layer, HeadBlock block = HeadBlock::Encoder) {
  return explain::attention_id(block, layer) + ".weights";
}

// (B, S, S) or (B, S) from one sentence's results, as float.
Tensor stack_rows(const std::vector<explain::Mat>& per_sentence, bool vector) {
  const int64_t b = static_cast<int64_t>(per_sentence.size()), s = per_sentence.front().rows(), c = per_sentence.front().cols();
  Tensor out(vector ? Shape{b, s} : Shape{b, s, c});
  float* p = out.data();
  for (const auto& m : per_sentence)
    for (int64_t i = 0; i < m.rows(); ++i)
      for (int64_t j = 0; j < m.cols(); ++j) *p++ = static_cast<float>(m(i, j));
  return out;
}

// A Python tuple of one item per layer, "(w0, w1, w2)" or "((w0, g0), (w1, g1))" (one element keeps
// its comma). item(l): layer l's item.
template <typename Item>
std::string python_tuple(int64_t layers, Item item) {
  std::string out = "(";
  for (int64_t l = 0; l < layers; ++l) out += (l ? ", " : "") + item(std::to_string(l));
  return out + (layers == 1 ? ",)" : ")");
}

// Â_l of every layer, per sentence: a_hat[b][l].
std::vector<std::vector<explain::Mat>> residual_attentions(const Trace& fwd, int64_t layers, int64_t batch) {
  std::vector<std::vector<explain::Mat>> out(static_cast<size_t>(batch));
  for (int64_t l = 0; l < layers; ++l) {
    const Tensor& w = explain::needed_step(fwd, weights_id(l));
    for (int64_t b = 0; b < batch; ++b) out[static_cast<size_t>(b)].push_back(explain::residual_attention(w, b));
  }
  return out;
}

// The code lines that build each layer's Â from w0 … w{L−1} into the list `caps`.
std::string caps_code(int64_t layers) {
  return "caps = [0.5 * w.double().mean(1) + 0.5 * torch.eye(w.shape[-1], dtype=torch.float64) for w in " +
         python_tuple(layers, [](const std::string& l) { return "w" + l; }) + "]\ncaps = [a / a.sum(-1, keepdim=True) for a in caps]\n";
}

StepInfo rollout_info(int64_t layers) {
  return {.title = Text(Msg::st_explain_rollout),
          .formula = formula_parts({maths("Â_l = ½·mean_h(A_l) + ½·I; R = Â_L ⋯ Â_1 (B, S, S)"), Text(Msg::sf_rollout_prose)}),
          .code = caps_code(layers) +
                  "r = torch.eye(w0.shape[-1], dtype=torch.float64).expand(w0.shape[0], -1, -1)\n"
                  "for a in caps:\n    r = a @ r\nrollout = r.float()",
          .result = "rollout"};
}

// Edmonds–Karp in plain Python: a different algorithm from core's Dinic, and slow (docs/cli.md).
StepInfo flow_info(int64_t layers) {
  return {.title = Text(Msg::st_explain_flow),
          .formula = formula_parts({maths("F[i, j] = maxflow((0, j) → (L, i)), capacities Â_l[i, j] (B, S, S)"),
                                    Text(Msg::sf_flow_prose)}),
          .code = caps_code(layers) +
                  "def max_flow(cap, source, sink):  # Edmonds-Karp on {node: {node: residual}}\n"
                  "    total = 0.0\n"
                  "    while True:\n"
                  "        prev, queue = {source: None}, [source]\n"
                  "        for u in queue:\n"
                  "            for v, c in cap[u].items():\n"
                  "                if v not in prev and c > 1e-14:\n"
                  "                    prev[v] = u\n"
                  "                    queue.append(v)\n"
                  "        if sink not in prev:\n"
                  "            return total\n"
                  "        path, v = [], sink\n"
                  "        while v != source:\n"
                  "            path.append((prev[v], v))\n"
                  "            v = prev[v]\n"
                  "        push = min(cap[u][v] for u, v in path)\n"
                  "        for u, v in path:\n"
                  "            cap[u][v] -= push\n"
                  "            cap[v][u] = cap[v].get(u, 0.0) + push\n"
                  "        total += push\n"
                  "B, S, L = caps[0].shape[0], caps[0].shape[1], len(caps)\n"
                  "flow = torch.zeros(B, S, S, dtype=torch.float64)\n"
                  "for b in range(B):\n"
                  "    rows = [a[b].tolist() for a in caps]\n"
                  "    for i in range(S):\n"
                  "        for j in range(S):\n"
                  "            cap = {n: {} for n in range((L + 1) * S)}\n"
                  "            for l in range(L):\n"
                  "                for q in range(S):\n"
                  "                    for k in range(S):\n"
                  "                        if rows[l][q][k] > 0:\n"
                  "                            cap[l * S + k][(l + 1) * S + q] = rows[l][q][k]\n"
                  "            flow[b, i, j] = max_flow(cap, j, L * S + i)\n"
                  "        flow[b, i] /= flow[b, i].sum()\n"
                  "flow = flow.float()",
          .result = "flow"};
}

// Chefer et al. weight A by ∂y_t/∂A, the gradient of the score being explained. A loss is that
// score's opposite — cross-entropy is −log p of the answers, mse the misfit —, so its gradient is
// negated; `sum` is the output's own sum, a score as it is.
double chefer_sign(LossKind k) { return k == LossKind::Sum ? 1.0 : -1.0; }

StepInfo grad_attention_info(int64_t layers, LossKind kind) {
  const bool negate = chefer_sign(kind) < 0;
  return {.title = Text(Msg::st_explain_grad_attention),
          .formula = formula_parts({maths(negate ? "Ā_l = mean_h((−∇A_l ⊙ A_l)⁺); R = I, R ← R + Ā_l·R (B, S, S)"
                                                 : "Ā_l = mean_h((∇A_l ⊙ A_l)⁺); R = I, R ← R + Ā_l·R (B, S, S)"),
                                    Text(Msg::sf_grad_attention_prose, std::string(loss_name(kind)))}),
          .code = "r = torch.eye(w0.shape[-1], dtype=torch.float64).expand(w0.shape[0], -1, -1)\n"
                  "for w, g in " + python_tuple(layers, [](const std::string& l) { return "(w" + l + ", g" + l + ")"; }) + ":\n"
                  "    r = r + (" + (negate ? "-" : "") + "g.double() * w.double()).clamp(min=0).mean(1) @ r\n"
                  "grad_attention = r.float()",
          .result = "grad_attention"};
}

StepInfo saliency_info(const std::string& loss, bool cross) {
  return {.title = Text(Msg::st_explain_saliency),
          .formula = formula_parts({maths("s_i = Σ_d x_{i,d} · ∂L/∂x_{i,d} (B, S)"),
                                    Text(cross ? Msg::sf_saliency_cross_prose : Msg::sf_saliency_prose, loss)}),
          .code = "saliency = (x.double() * g.double()).sum(-1).float()",
          .result = "saliency"};
}

void bind_layers(StepInfo& info, int64_t layers, bool grads) {
  for (int64_t l = 0; l < layers; ++l) info.bindings.push_back(step_var("w" + std::to_string(l), weights_id(l)));
  if (grads)
    for (int64_t l = 0; l < layers; ++l) info.bindings.push_back(step_var("g" + std::to_string(l), weights_id(l) + ".grad"));
}

// An encoder–decoder's bindings: e{l} the encoder's self-attention weights, d{l} the decoder's,
// c{l} its cross-attention's (only the last layer's without gradients); with gradients g{var}.
void bind_encdec(StepInfo& info, int64_t layers, bool grads) {
  const std::pair<const char*, HeadBlock> blocks[] = {{"e", HeadBlock::Encoder}, {"d", HeadBlock::Decoder}, {"c", HeadBlock::Cross}};
  for (const auto& [var, block] : blocks)
    for (int64_t l = grads || var[0] != 'c' ? 0 : layers - 1; l < layers; ++l) {
      const std::string v = var + std::to_string(l);
      info.bindings.push_back(step_var(v, weights_id(l, block)));
      if (grads) info.bindings.push_back(step_var("g" + v, weights_id(l, block) + ".grad"));
    }
  info.bindings.push_back(step_var("ids", "decoder.token_ids"));  // [PAD] (id 0) rows of the cross-attention left out
}

// "(e0, e1)" or, with gradients, "((e0, ge0), (e1, ge1))" of one prefix.
std::string layer_tuple(int64_t layers, const std::string& var, bool grads) {
  return python_tuple(layers, [&](const std::string& l) { return grads ? "(" + var + l + ", g" + var + l + ")" : var + l; });
}

StepInfo rollout_cross_info(int64_t layers) {
  const std::string last = "c" + std::to_string(layers - 1);
  return {.title = Text(Msg::st_explain_rollout),
          .formula = formula_parts({maths("R = R_ttᵀ · mean_h(A_cross) · R_ss, R_xx = Â_L ⋯ Â_1 (B, T, S)"),
                                    Text(Msg::sf_rollout_cross_prose)}),
          .code = "def roll(ws):\n"
                  "    r = torch.eye(ws[0].shape[-1], dtype=torch.float64).expand(ws[0].shape[0], -1, -1)\n"
                  "    for w in ws:\n"
                  "        a = 0.5 * w.double().mean(1) + 0.5 * torch.eye(w.shape[-1], dtype=torch.float64)\n"
                  "        r = (a / a.sum(-1, keepdim=True)) @ r\n"
                  "    return r\n"
                  "real = (ids != 0).double()[..., None]  # the decoder's [PAD] rows left out\n"
                  "rollout = (roll(" + layer_tuple(layers, "d", false) + ").transpose(1, 2) @ (" + last +
                  ".double().mean(1) * real) @ roll(" + layer_tuple(layers, "e", false) + ")).float()",
          .result = "rollout"};
}

StepInfo grad_attention_cross_info(int64_t layers, LossKind kind) {
  const bool negate = chefer_sign(kind) < 0;
  const std::string pairs =  // ((d0, gd0), (c0, gc0)), … per decoder layer
      python_tuple(layers, [](const std::string& l) { return "((d" + l + ", gd" + l + "), (c" + l + ", gc" + l + "))"; });
  return {.title = Text(Msg::st_explain_grad_attention),
          .formula = formula_parts({maths(negate ? "Ā = mean_h((−∇A ⊙ A)⁺); R_ts += R̄_ttᵀ · Ā_cross · R̄_ss (B, T, S)"
                                                 : "Ā = mean_h((∇A ⊙ A)⁺); R_ts += R̄_ttᵀ · Ā_cross · R̄_ss (B, T, S)"),
                                    Text(Msg::sf_grad_attention_cross_prose, std::string(loss_name(kind)))}),
          .code = std::string("def bar(w, g):\n    return (") + (negate ? "-" : "") +
                  "g.double() * w.double()).clamp(min=0).mean(1)\n"
                  "def normalised(h):  # h = R - I, kept as such: R + A @ R is I + (h + A + A @ h)\n"
                  "    s = h.sum(-1, keepdim=True)\n"
                  "    return torch.where(s != 0, h / torch.where(s != 0, s, torch.ones_like(s)), h) + torch.eye(h.shape[-1], dtype=torch.float64)\n"
                  "B, T, S = d0.shape[0], d0.shape[-1], e0.shape[-1]\n"
                  "real = (ids != 0).double()[..., None]  # the decoder's [PAD] rows left out\n"
                  "h_ss = torch.zeros(B, S, S, dtype=torch.float64)\n"
                  "for w, g in " + layer_tuple(layers, "e", true) + ":\n"
                  "    a = bar(w, g)\n"
                  "    h_ss = h_ss + a + a @ h_ss\n"
                  "h_tt = torch.zeros(B, T, T, dtype=torch.float64)\n"
                  "r_ts = torch.zeros(B, T, S, dtype=torch.float64)\n"
                  "for (w, g), (c, gc) in " + pairs + ":\n"
                  "    a = bar(w, g)\n"
                  "    r_ts = r_ts + a @ r_ts\n"
                  "    h_tt = h_tt + a + a @ h_tt\n"
                  "    r_ts = r_ts + normalised(h_tt).transpose(1, 2) @ (bar(c, gc) * real) @ normalised(h_ss)\n"
                  "grad_attention = r_ts.float()",
          .result = "grad_attention"};
}

StepInfo ablation_info(bool logprob, bool cross) {
  return {.title = Text(Msg::st_explain_token_ablation),
          .formula = formula_parts({maths(logprob ? "e_j = |log p(ŷ | x without j) − log p(ŷ | x)| (B, S)"
                                                  : "e_j = ‖h(x without j) − h(x)‖ (B, S)"),
                                    Text(cross     ? Msg::sf_ablation_cross_prose
                                         : logprob ? Msg::sf_ablation_logprob_prose
                                                   : Msg::sf_ablation_output_prose)}),
          .code = "# one untraced forward pass per masked key (core/explain/ablation.cpp); not recomputed here",
          .result = "effect",
          .is_data = true};
}

// Spearman's ρ per sentence of each method's row at the explained position against the ablation
// effect, over the other keys that position attends to.
std::vector<std::pair<std::string, std::vector<double>>> scores(const ModelConfig& cfg, const Trace& fwd,
                                                                const Explanations& ex, const Tensor& effect) {
  const Tensor& mask = explain::needed_step(fwd, cfg.cross ? "decoder.cross_mask" : "encoder.mask");  // (B, Q, K)
  std::vector<std::string> names{"attention"};
  for (const Step& s : ex.steps.steps())
    if (ranks_tokens(s.info.id)) names.push_back(s.info.id.substr(std::string("explain.").size()));
  std::vector<std::pair<std::string, std::vector<double>>> out;
  for (const std::string& name : names) {
    std::vector<double> per_sentence;
    for (int64_t b = 0; b < effect.size(0); ++b) {
      const int64_t q = ex.query[static_cast<size_t>(b)];
      const std::vector<double> row = explained_row(cfg, fwd, ex, name, b);
      std::vector<double> a, e;
      for (int64_t j = 0; j < effect.size(1); ++j)  // the position's own token: see ablation.h (a source has none)
        if ((cfg.cross || j != q) && mask.at({b, q, j}) != 0.0f)  // saliency ranks by size: a negative s_j matters too
          a.push_back(name == "saliency" ? std::abs(row[static_cast<size_t>(j)]) : row[static_cast<size_t>(j)]),
              e.push_back(effect.at({b, j}));
      per_sentence.push_back(explain::spearman(a, e));
    }
    out.emplace_back(name, std::move(per_sentence));
  }
  return out;
}

// R_ts (T, S) per sentence of an encoder–decoder run (relevance.h): the rollout when `bw` is
// null, else Chefer's gradient-weighted rules. The cross-attention's rows of the decoder's [PAD]
// positions (from `lengths`, the decoder's) are zeroed: R_ttᵀ would hand them to real rows.
std::vector<explain::Mat> encdec_rows(const ModelConfig& cfg, const Trace& fwd, const BackwardResult* bw,
                                      const std::vector<int>& lengths) {
  const auto layer_mats = [&](HeadBlock block, int64_t b, int64_t first) {  // layers first … L − 1
    std::vector<explain::Mat> out;
    for (int64_t l = first; l < cfg.layers; ++l) {
      const Tensor& w = explain::needed_step(fwd, weights_id(l, block));
      if (bw)
        out.push_back(explain::grad_weighted(w, explain::needed_step(bw->steps, weights_id(l, block) + ".grad"), b, chefer_sign(bw->kind)));
      else if (block == HeadBlock::Cross)
        out.push_back(explain::head_mean(w, b));
      else
        out.push_back(explain::residual_attention(w, b));
    }
    return out;
  };
  std::vector<explain::Mat> rows;
  for (int64_t b = 0; b < static_cast<int64_t>(lengths.size()); ++b) {
    const auto enc = layer_mats(HeadBlock::Encoder, b, 0), dec = layer_mats(HeadBlock::Decoder, b, 0);
    auto cross = layer_mats(HeadBlock::Cross, b, bw ? 0 : cfg.layers - 1);  // the rollout reads the last layer's only
    const int64_t real = lengths[static_cast<size_t>(b)];
    for (explain::Mat& c : cross) c.bottomRows(c.rows() - real).setZero();
    rows.push_back(bw ? explain::encdec_grad_relevance(enc, dec, cross)
                      : explain::encdec_rollout(explain::rollout(enc), explain::rollout(dec), cross.back()));
  }
  return rows;
}

}  // namespace

bool defined_for(const ModelConfig& cfg, ExplainMethod m) {
  return !cfg.cross || m == ExplainMethod::Rollout || m == ExplainMethod::GradAttention || m == ExplainMethod::Saliency ||
         m == ExplainMethod::Ablation || m == ExplainMethod::Heads;
}

std::string_view explain_name(ExplainMethod m) {
  switch (m) {
    case ExplainMethod::Rollout: return "rollout";
    case ExplainMethod::Flow: return "flow";
    case ExplainMethod::GradAttention: return "grad-attention";
    case ExplainMethod::Saliency: return "saliency";
    case ExplainMethod::Ablation: return "ablation";
    case ExplainMethod::Heads: return "heads";
    case ExplainMethod::LogitLens: return "logit-lens";
  }
  return "";
}

std::string explain_step_id(ExplainMethod m) {
  switch (m) {
    case ExplainMethod::GradAttention: return "explain.grad_attention";
    case ExplainMethod::Ablation: return "explain.token_ablation";
    case ExplainMethod::Heads: return "";
    case ExplainMethod::LogitLens: return "explain.logit_lens";
    default: return "explain." + std::string(explain_name(m));
  }
}

std::vector<ExplainMethod> parse_explain(std::string_view list) {
  std::vector<ExplainMethod> out;
  for (std::string_view word : split_commas(list)) {
    const auto* m = std::find_if(std::begin(kMethods), std::end(kMethods), [&](ExplainMethod k) { return word == explain_name(k); });
    if (m == std::end(kMethods)) throw ConfigError(Text(Msg::ex_not_a_method, std::string(word)));
    if (std::find(out.begin(), out.end(), *m) == out.end()) out.push_back(*m);
  }
  return out;
}

int64_t flow_max_tokens(int64_t layers) {
  const double l = static_cast<double>(std::max<int64_t>(layers, 1));
  int64_t t = static_cast<int64_t>(std::pow(kFlowMaxCost / l, 0.25));  // then exact, whatever pow rounds to
  while (l * std::pow(static_cast<double>(t + 1), 4) <= kFlowMaxCost) ++t;
  while (t > 0 && l * std::pow(static_cast<double>(t), 4) > kFlowMaxCost) --t;
  return t;
}

void check_explain(const ModelConfig& cfg, int64_t seq, const std::vector<ExplainMethod>& methods, bool has_loss,
                   bool has_head) {
  if (methods.empty()) return;
  for (ExplainMethod m : methods)
    if (!defined_for(cfg, m)) throw ConfigError(Text(Msg::ex_cross_method, std::string(explain_name(m))));
  for (ExplainMethod m : methods)
    if (needs_backward(m) && !has_loss) throw ConfigError(Text(Msg::ex_needs_loss, std::string(explain_name(m))));
  const auto asked = [&](ExplainMethod m) { return std::find(methods.begin(), methods.end(), m) != methods.end(); };
  if (asked(ExplainMethod::LogitLens) && !has_head) throw ConfigError(Text(Msg::ex_lens_needs_head));
  const bool reads_weights = std::any_of(methods.begin(), methods.end(), [](ExplainMethod m) { return m != ExplainMethod::LogitLens; });
  for (int64_t l = 0; l < cfg.layers && reads_weights; ++l)
    if (cfg.tiled_layer(l)) throw ConfigError(Text(Msg::ex_needs_weights_step, weights_id(l)));
  if (asked(ExplainMethod::Flow) && seq > flow_max_tokens(cfg.layers))
    throw ConfigError(Text(Msg::ex_flow_too_large, cfg.layers, seq, flow_max_tokens(cfg.layers)));
  if (asked(ExplainMethod::Ablation) && seq > explain::kAblationMaxTokens)
    throw ConfigError(Text(Msg::ex_ablation_too_long, seq, explain::kAblationMaxTokens));
}

std::vector<double> explained_row(const ModelConfig& cfg, const Trace& fwd, const Explanations& ex, const std::string& key,
                                  int64_t b) {
  const int64_t q = ex.query.at(static_cast<size_t>(b));
  if (key == "attention") {  // (B, H, S, S), or the decoder's cross-attention (B, H, T, S)
    const Tensor& last = explain::needed_step(fwd, weights_id(cfg.layers - 1, cfg.cross ? HeadBlock::Cross : HeadBlock::Encoder));
    std::vector<double> row(static_cast<size_t>(last.size(3)), 0.0);
    for (int64_t j = 0; j < last.size(3); ++j) {
      for (int64_t h = 0; h < last.size(1); ++h) row[static_cast<size_t>(j)] += last.at({b, h, q, j});
      row[static_cast<size_t>(j)] /= static_cast<double>(last.size(1));
    }
    return row;
  }
  const Step* s = ex.steps.find("explain." + key);
  if (!s) return {};
  const Tensor& t = s->tensor;  // (B, S, S), (B, T, S) or (B, S)
  const int64_t keys = t.size(t.dim() - 1);
  std::vector<double> row(static_cast<size_t>(keys));
  for (int64_t j = 0; j < keys; ++j) row[static_cast<size_t>(j)] = t.dim() == 3 ? t.at({b, q, j}) : t.at({b, j});
  return row;
}

Explanations compute_explanations(const ModelConfig& cfg, const Weights& w, const Batch& batch, const Trace& fwd,
                                  const ExplainInputs& in, const std::vector<ExplainMethod>& methods) {
  Explanations out;
  out.query = explain::explained_positions(batch);  // the panel reads every method's row there
  const std::vector<int>& lengths = batch.text.lengths;  // the explained (decoder's) sentences
  for (size_t b = 0; b < in.query.size() && b < out.query.size(); ++b)  // a position chosen instead
    if (in.query[b] >= 0 && in.query[b] < lengths[b]) out.query[b] = in.query[b];
  const BackwardResult* bw = in.bw;
  const int64_t layers = cfg.layers;
  const int64_t sentences = batch.encoder_tokens().batch();
  const std::string loss = bw ? std::string(loss_name(bw->kind)) : std::string();
  std::optional<std::vector<std::vector<explain::Mat>>> a_hats;  // Â_l per sentence and layer
  for (ExplainMethod m : methods) {
    if (needs_backward(m) && (!bw || (m == ExplainMethod::Heads && !in.loss)))
      throw ConfigError(Text(Msg::ex_needs_loss, std::string(explain_name(m))));
    if (m == ExplainMethod::Heads) {
      out.heads = explain::head_effects(cfg, w, fwd, *in.loss, in.mode, batch.encoder_tokens().lengths, batch.text.lengths, in.stop);
      out.heads_mode = in.mode;
      out.loss = bw->loss;
      continue;
    }
    if (m == ExplainMethod::LogitLens) {
      explain::record_lens(cfg, w, explain::logit_lens(cfg, w, fwd, in.lens_top, cpu_backend(), in.stop), out.steps);
      continue;
    }
    std::vector<explain::Mat> rows;
    StepInfo info;
    if (cfg.cross && (m == ExplainMethod::Rollout || m == ExplainMethod::GradAttention)) {  // rollout or grad-attention: the decoder's view of the source
      rows = encdec_rows(cfg, fwd, m == ExplainMethod::GradAttention ? bw : nullptr, batch.text.lengths);
      info = m == ExplainMethod::Rollout ? rollout_cross_info(layers) : grad_attention_cross_info(layers, bw->kind);
      bind_encdec(info, layers, m == ExplainMethod::GradAttention);
    } else if (m == ExplainMethod::Rollout || m == ExplainMethod::Flow) {
      if (!a_hats) a_hats = residual_attentions(fwd, layers, sentences);  // once for rollout and flow
      for (const auto& a_hat : *a_hats)
        rows.push_back(m == ExplainMethod::Rollout ? explain::rollout(a_hat) : explain::attention_flow(a_hat));
      info = m == ExplainMethod::Rollout ? rollout_info(layers) : flow_info(layers);
      bind_layers(info, layers, false);
    } else if (m == ExplainMethod::GradAttention) {
      for (int64_t b = 0; b < sentences; ++b) {
        std::vector<explain::Mat> a_bar;
        for (int64_t l = 0; l < layers; ++l)
          a_bar.push_back(explain::grad_weighted(explain::needed_step(fwd, weights_id(l)), explain::needed_step(bw->steps, weights_id(l) + ".grad"), b,
                                                 chefer_sign(bw->kind)));
        rows.push_back(explain::grad_rollout(a_bar));
      }
      info = grad_attention_info(layers, bw->kind);
      bind_layers(info, layers, true);
    } else if (m == ExplainMethod::Saliency) {
      const Tensor& x = explain::needed_step(fwd, "encoder.input");
      const Tensor& g = explain::needed_step(bw->steps, "encoder.input.grad");
      for (int64_t b = 0; b < sentences; ++b) {
        const auto s = explain::saliency(x, g, b);
        rows.push_back(Eigen::Map<const explain::Mat>(s.data(), static_cast<Eigen::Index>(s.size()), 1));
      }
      info = saliency_info(loss, cfg.cross);
      info.bindings = {step_var("x", "encoder.input"), step_var("g", "encoder.input.grad")};
    } else {
      const auto ablation = explain::ablate_tokens(cfg, w, fwd, out.query, in.stop);
      out.logprob = ablation.logprob;
      info = ablation_info(ablation.logprob, cfg.cross);
      info.id = explain_step_id(m);
      out.steps.record(std::move(info), ablation.effect);
      continue;
    }
    info.id = explain_step_id(m);
    out.steps.record(std::move(info), stack_rows(rows, m == ExplainMethod::Saliency));
  }
  if (const Step* effect = out.steps.find(explain_step_id(ExplainMethod::Ablation))) out.spearman = scores(cfg, fwd, out, effect->tensor);
  return out;
}

}  // namespace attnlab
