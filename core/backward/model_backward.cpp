#include "backward/model_backward.h"

#include <cmath>
#include <limits>
#include <unordered_map>

#include "backward/grad_ops.h"
#include "backward/grad_texts.h"
#include "backward/tiled_grad.h"
#include "model/step_builder.h"
#include "text/errors.h"

namespace attnlab {

namespace {

// A step id taken apart: "decoder.layers.1.multihead_attn.q_proj" → prefix "decoder.layers.1.",
// block "multihead_attn", name "q_proj"; "encoder.input" → stack "encoder", name "input".
struct Place {
  std::string stack, prefix, block, name;
};

Place place_of(const std::string& id) {
  Place p;
  const size_t dot = id.find('.');
  p.stack = id.substr(0, dot);
  std::string rest = id.substr(dot + 1);
  if (rest.starts_with("layers.")) {
    const size_t end = rest.find('.', 7);
    p.prefix = p.stack + "." + rest.substr(0, end + 1);
    rest = rest.substr(end + 1);
  }
  for (const char* b : {"self_attn", "multihead_attn", "ffn", "output_head", "variant"})
    if (rest.starts_with(std::string(b) + ".")) {
      p.block = b;
      rest = rest.substr(std::string(b).size() + 1);
    }
  p.name = rest;
  return p;
}

class Walk {
 public:
  Walk(const ModelConfig& cfg, const Weights& w, const Trace& fwd, const KeyRanges* ranges)
      : cfg_(cfg), w_(w), fwd_(fwd), ranges_(ranges) {
    for (const auto& [name, shape] : model_parameters(cfg, w.vocab().get()))
      params_.emplace_back(name, Tensor(shape, 0.0f));
  }

  void seed(const std::string& id, Tensor g, Text formula) {
    grads_[id] = std::move(g);
    uses_[id].push_back(std::move(formula));
  }

  // Every step from the last to the first: those the gradient reached pass it on to their inputs.
  void run(Trace& out) {
    const auto& steps = fwd_.steps();
    for (size_t i = steps.size(); i-- > 0;) {
      const Step& s = steps[i];
      const auto it = grads_.find(s.info.id);
      if (it == grads_.end()) continue;
      const Tensor g = it->second;
      out.record(s.info.id.ends_with(".weights_overview") ? overview_info(s) : grad_step_info(s, uses_[s.info.id]), g);
      propagate(s, g);
      grads_.erase(it);  // a step's gradient is complete once every later step has been walked
    }
    tie_head();
    for (auto& [name, t] : params_) out.record(param_grad_info(name), t);
  }

 private:
  const Step& step(const std::string& id) const {
    const Step* s = fwd_.find(id);
    if (!s) throw ConfigError(Text(Msg::bw_step_missing, id));
    return *s;
  }
  const Step& input(const Step& s, const std::string& var) const {
    for (const auto& b : s.info.bindings)
      if (!b.weight && b.var == var) return step(b.source);
    throw ConfigError(Text(Msg::bw_step_missing, s.info.id + " (" + var + ")"));
  }
  bool has_input(const Step& s, const std::string& var) const {
    for (const auto& b : s.info.bindings)
      if (!b.weight && b.var == var) return true;
    return false;
  }
  bool has_weight(const Step& s, const std::string& suffix) const {
    for (const auto& b : s.info.bindings)
      if (b.weight && b.var.ends_with(suffix)) return true;
    return false;
  }
  // The parameter bound as `<var>` ending in "weight" / "bias".
  std::string weight_name(const Step& s, const std::string& suffix) const {
    for (const auto& b : s.info.bindings)
      if (b.weight && b.var.ends_with(suffix)) return b.source;
    throw ConfigError(Text(Msg::bw_step_missing, s.info.id + " (" + suffix + ")"));
  }
  // The tiled path's ∂L/∂scores overview, binned as the forward's overview of this block's q and k.
  StepInfo overview_info(const Step& s) const {
    return overview_grad_info(s, overview_bin(input(s, "q").tensor.size(2), cfg_.overview_cap),
                              overview_bin(input(s, "k").tensor.size(2), cfg_.overview_cap));
  }
  Tensor& param(const std::string& name) {
    for (auto& [n, t] : params_)
      if (n == name) return t;
    throw ConfigError(Text(Msg::bw_step_missing, name));
  }
  // param[row0 : row0 + rows] += g (rows of a matrix, or entries of a vector).
  void add_param(const std::string& name, const Tensor& g, int64_t row0 = 0) {
    Tensor& p = param(name);
    const int64_t per_row = p.dim() == 2 ? p.size(1) : 1;
    float* dst = p.data() + row0 * per_row;
    const Tensor c = g.contiguous();
    for (int64_t i = 0, n = c.numel(); i < n; ++i) dst[i] += c.data()[i];
  }
  // to's gradient += g, a share that `use` of `from` sends back.
  void send(const Step& to, const Tensor& g, GradUse use, const Step& from, const std::string& detail = "") {
    grad::accumulate(grads_[to.info.id], g);
    uses_[to.info.id].push_back(grad_formula(use, from, to, detail));
  }

  // A head tied to the embedding table (GPT-2's, BERT's decoder: output_head.weight shares the
  // table's storage) is one parameter used twice: its gradient is the sum of both uses, and both
  // names report it (as PyTorch's lm_head.weight.grad is wte.weight.grad).
  void tie_head() {
    if (!w_.head_tied()) return;
    Tensor& gh = param("output_head.weight");
    Tensor& gt = param("embedding.weight");
    for (int64_t i = 0, n = gt.numel(); i < n; ++i) gt.data()[i] += gh.data()[i];
    gh = gt.clone();
  }

  void propagate(const Step& s, const Tensor& g);
  void projection(const Step& s, const Place& p, const Tensor& g);
  // y = x·W[row0 …]ᵀ + b, x bound as `var`: dW and db into the parameters, dx on to x.
  void linear(const Step& s, const std::string& var, const Tensor& g, int64_t row0 = 0);
  // y = LayerNorm(x), x bound as `var`: dγ and dβ into the parameters, dx on to x.
  void layer_norm(const Step& s, const std::string& var, const Tensor& g);
  void attention_step(const Step& s, const Place& p, const Tensor& g);
  // head_out of the tiled path (bound to q, k, v and the mask, not to weights): FlashAttention-2's
  // backward; ∂L/∂scores binned goes to the forward's weights overview, to be shown there.
  void tiled_attention(const Step& s, const Place& p, const Tensor& g);

  const ModelConfig& cfg_;
  const Weights& w_;
  const Trace& fwd_;
  const KeyRanges* ranges_;  // the encoder's mask when the trace holds no mask step (benchmarks)
  std::unordered_map<std::string, Tensor> grads_;
  std::unordered_map<std::string, std::vector<Text>> uses_;  // how each gradient was made, per use
  std::vector<std::pair<std::string, Tensor>> params_;       // state-dict order
};

void Walk::projection(const Step& s, const Place& p, const Tensor& g) {
  // q_proj / k_proj / v_proj: rows [row0, row0 + D) of the fused in_proj (K and V read the Q rows
  // under SharedQkvProjection).
  const int64_t d = cfg_.d_model;
  const bool shared = p.name != "q_proj" && cfg_.has(Fault::SharedQkvProjection);
  const int64_t row0 = shared ? 0 : (p.name == "q_proj" ? 0 : p.name == "k_proj" ? d : 2 * d);
  linear(s, "x", g, row0);
}

void Walk::layer_norm(const Step& s, const std::string& var, const Tensor& g) {
  const Step& x = input(s, var);
  const std::string wn = weight_name(s, "weight"), bn = weight_name(s, "bias");
  const auto ng = grad::layer_norm_backward(x.tensor, w_.get(wn), g, cfg_.eps);
  add_param(wn, ng.dgamma);
  add_param(bn, ng.dbeta);
  send(x, ng.dx, GradUse::Norm, s);
}

void Walk::linear(const Step& s, const std::string& var, const Tensor& g, int64_t row0) {
  const Step& x = input(s, var);
  const std::string wn = weight_name(s, "weight");
  const auto lg = grad::linear_backward(x.tensor, w_.get(wn), g, row0);
  add_param(wn, lg.dw, row0);
  if (has_weight(s, "bias")) add_param(weight_name(s, "bias"), lg.db, row0);  // GPT-2's tied head binds none
  send(x, lg.dx, GradUse::LinearInput, s);
}

void Walk::attention_step(const Step& s, const Place& p, const Tensor& g) {
  const std::string& n = p.name;
  if (n == "q_proj" || n == "k_proj" || n == "v_proj") return projection(s, p, g);
  if (n.ends_with("_view")) {  // (B, T, H, Dh) ← view of (B, T, D)
    const Step& src = input(s, n.substr(0, 1) + "_proj");
    return send(src, grad::reshaped(g, src.tensor.shape()), GradUse::ViewBack, s);
  }
  if (n == "q" || n == "k" || n == "v") {
    if (has_input(s, n + "_view")) return send(input(s, n + "_view"), grad::transposed(g, 1, 2), GradUse::TransposeBack, s, "1, 2");
    const Step& src = input(s, n + "_proj");  // SplitWithoutTranspose: one view
    return send(src, grad::reshaped(g, src.tensor.shape()), GradUse::ViewBack, s);
  }
  if (n == "k_t") return send(input(s, "k"), grad::transposed(g, 2, 3), GradUse::TransposeBack, s, "-2, -1");
  if (n == "qk") {
    const Step &q = input(s, "q"), &kt = input(s, "k_t");
    const auto mg = grad::matmul_backward(q.tensor, kt.tensor, g);
    send(q, mg.da, GradUse::ProductLeft, s);
    return send(kt, mg.db, GradUse::ProductRight, s);
  }
  if (n == "scores") {
    const bool none = cfg_.has(Fault::NoScaling), by_d = !none && cfg_.has(Fault::ScaleByDModel);
    const float r = none ? 1.0f : static_cast<float>(std::sqrt(static_cast<double>(by_d ? cfg_.d_model : cfg_.d_model / cfg_.heads)));
    return send(input(s, "qk"), scale(g, 1.0f / r), GradUse::Scale, s, format_double(r));
  }
  if (n == "masked_scores") {
    return send(input(s, "scores"), grad::masked_backward(g, input(s, "mask").tensor), GradUse::Masked, s);
  }
  const int dim = cfg_.has(Fault::SoftmaxOverQueries) ? -2 : -1;
  if (n == "weights" && has_input(s, "unmasked_weights"))  // MaskAfterSoftmax: weights = softmax(…)·mask
    return send(input(s, "unmasked_weights"), grad::masked_backward(g, input(s, "mask").tensor),
                GradUse::Masked, s);
  if (n == "weights" || n == "unmasked_weights") {
    const Step& src = input(s, n == "weights" ? "masked" : "scores");
    return send(src, grad::softmax_backward(s.tensor, g, dim), GradUse::Softmax, s);
  }
  if (n == "head_out" && !has_input(s, "weights")) return tiled_attention(s, p, g);
  if (n == "weights_overview") return;  // the picture of the weights: ∂L/∂scores binned, nothing flows on
  if (n == "head_out") {
    const Step &a = input(s, "weights"), &v = input(s, "v");
    const auto mg = grad::matmul_backward(a.tensor, v.tensor, g);
    send(a, mg.da, GradUse::ProductLeft, s);
    return send(v, mg.db, GradUse::ProductRight, s);
  }
  if (n == "merge_transpose") return send(input(s, "head_out"), grad::transposed(g, 1, 2), GradUse::TransposeBack, s, "1, 2");
  if (n == "merge_contiguous") return send(input(s, "merged"), g, GradUse::Same, s);
  if (n == "context") {
    const Step& src = input(s, has_input(s, "merged_c") ? "merged_c" : "head_out");
    return send(src, grad::reshaped(g, src.tensor.shape()), GradUse::ViewBack, s);
  }
  if (n == "out") return linear(s, "context", g);
  if (n == "detached") return;  // DetachAttentionOutput: the graph is broken here, nothing flows on
  throw ConfigError(Text(Msg::bw_step_missing, s.info.id));
}

void Walk::tiled_attention(const Step& s, const Place& p, const Tensor& g) {
  const Step &q = input(s, "q"), &k = input(s, "k"), &v = input(s, "v");
  const int64_t dh = cfg_.d_model / cfg_.heads;
  const float root = static_cast<float>(std::sqrt(static_cast<double>(dh)));
  const bool given = ranges_ && p.stack == "encoder";
  const auto tg = given ? grad::attention_tiled_backward(q.tensor, k.tensor, v.tensor, *ranges_, root, s.tensor, g,
                                                         cfg_.overview_cap)
                        : grad::attention_tiled_backward(q.tensor, k.tensor, v.tensor, input(s, "mask").tensor.contiguous(),
                                                         root, s.tensor, g, cfg_.overview_cap);
  grads_[p.prefix + p.block + ".weights_overview"] = tg.ds_overview;
  send(q, tg.dq, GradUse::TiledQuery, s, std::to_string(dh));
  send(k, tg.dk, GradUse::TiledKey, s, std::to_string(dh));
  send(v, tg.dv, GradUse::TiledValue, s);
}

void Walk::propagate(const Step& s, const Tensor& g) {
  const Place p = place_of(s.info.id);
  if (p.block == "self_attn" || p.block == "multihead_attn") return attention_step(s, p, g);
  const std::string& n = p.name;
  if (n == "output") return send(input(s, "last"), g, GradUse::Same, s);
  if (n.starts_with("residual")) {
    send(input(s, "x"), g, GradUse::Residual, s);
    return send(input(s, "sub"), g, GradUse::Residual, s);
  }
  if (n.starts_with("norm")) return layer_norm(s, "x", g);
  if (n == "linear1" || n == "out" || n == "logits")  // ffn.linear1, ffn.out, output_head.logits
    return linear(s, n == "out" ? "hidden" : "x", g);
  if (n == "hidden" || n == "transform_act") {  // ffn.hidden, BERT's output_head.transform_act
    const Step& x = input(s, n == "hidden" ? "linear1" : "transform");
    return send(x, grad::activation_backward(x.tensor, g, cfg_.activation), GradUse::Activation, s);
  }
  if (n == "transform") return linear(s, "x", g);                        // BERT's head transform: dense
  if (n == "transform_norm") return layer_norm(s, "transform_act", g);  // … and its LayerNorm
  if (n == "positional") return add_param(weight_name(s, "weight"), g);  // rows [0, S) of the learned table
  if (n == "token_type") {  // every position read row 0: its gradient is the sum over the positions
    const Tensor gc = g.contiguous();  // (S, D)
    Tensor row({1, gc.size(1)}, 0.0f);
    for (int64_t i = 0; i < gc.size(0); ++i)
      for (int64_t j = 0; j < gc.size(1); ++j) row.data()[j] += gc.data()[i * gc.size(1) + j];
    return add_param(weight_name(s, "weight"), row);
  }
  if (n == "input" && has_input(s, "embeddings")) return layer_norm(s, "embeddings", g);  // BERT's embedding LayerNorm
  if (n == "input" || n == "embeddings") {  // E[ids] (+ PE) (+ T[0]): on to the learned tables and a trained model's embedding
    if (cfg_.positional == Positional::Learned && has_input(s, "pe"))  // (a benchmark's input has none)
      send(input(s, "pe"), grad::batch_sum(g), GradUse::BatchSum, s);
    if (has_input(s, "tt")) send(input(s, "tt"), grad::batch_sum(g), GradUse::BatchSum, s);
    if (!w_.vocab()) return;
    const Step& emb = input(s, "emb");
    const Step& ids = input(emb, "ids");
    Tensor& table = param("embedding.weight");
    const int64_t d = cfg_.d_model;
    const Tensor gc = g.contiguous(), idc = ids.tensor.contiguous();
    for (int64_t i = 0, rows = idc.numel(); i < rows; ++i) {
      const auto v = static_cast<int64_t>(idc.data()[i]);
      for (int64_t j = 0; j < d; ++j) table.data()[v * d + j] += gc.data()[i * d + j];
    }
    return;
  }
  throw ConfigError(Text(Msg::bw_step_missing, s.info.id));
}

}  // namespace

MemoryEstimate with_gradients(MemoryEstimate e) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  e.trace_bytes = e.trace_bytes > kMax / 3 ? kMax : 3 * e.trace_bytes;
  e.weights_bytes = e.weights_bytes > kMax / 2 ? kMax : 2 * e.weights_bytes;
  return e;
}

std::string loss_input_step(const ModelConfig& cfg, LossKind kind) {
  const std::string stack = cfg.cross ? "decoder" : "encoder";
  if (kind == LossKind::NextToken || kind == LossKind::PerPosition) return stack + ".output_head.logits";
  if (cfg.final_norm) return stack + ".norm";
  return stack + ".layers." + std::to_string(cfg.layers - 1) + ".output";
}

namespace {

// Position i's target is token i + 1 of its own sentence; padding targets and the last position
// are ignored (−1). ids (B, S) as the trace's token_ids step holds them (floats). Padding: past
// `lengths[r]` when given (a checkpoint's [PAD] reads a real piece's row), else an id equal to `pad`.
std::vector<std::vector<int64_t>> next_token_targets(const Tensor& ids_in, const std::vector<int>& lengths, int pad) {
  const Tensor ids = ids_in.contiguous();
  const int64_t b = ids.size(0), s = ids.size(1);
  if (!lengths.empty() && static_cast<int64_t>(lengths.size()) != b)
    throw ShapeError("next_token_targets: " + std::to_string(lengths.size()) + " lengths for ids " + shape_str(ids.shape()));
  std::vector<std::vector<int64_t>> t(static_cast<size_t>(b), std::vector<int64_t>(static_cast<size_t>(s), -1));
  for (int64_t r = 0; r < b; ++r)
    for (int64_t i = 0; i + 1 < s; ++i) {
      const auto next = static_cast<int64_t>(ids.data()[r * s + i + 1]);
      const bool padding = lengths.empty() ? next == pad : i + 1 >= lengths[static_cast<size_t>(r)];
      if (!padding) t[static_cast<size_t>(r)][static_cast<size_t>(i)] = next;
    }
  return t;
}

}  // namespace

void check_backward(bool trained, LossKind kind) {
  const bool ce = kind == LossKind::NextToken || kind == LossKind::PerPosition;
  if (ce && !trained) throw ConfigError(Text(Msg::bw_loss_needs_trained_head, std::string(loss_name(kind))));
}

LossValue evaluate_loss(const ModelConfig& cfg, const Weights& w, const Trace& fwd, const LossSpec& loss, const Tensor& input) {
  check_backward(w.vocab() != nullptr, loss.kind);
  if (loss.kind == LossKind::Mse) return mse_loss(input, loss.target);
  if (loss.kind == LossKind::Sum) return sum_loss(input);
  const std::string ids = std::string(cfg.cross ? "decoder" : "encoder") + ".token_ids";
  const Step* id_step = fwd.find(ids);
  if (!id_step) throw ConfigError(Text(Msg::bw_step_missing, ids));
  if (loss.kind == LossKind::PerPosition && !loss.target.defined()) throw ConfigError(Text(Msg::bw_per_position_needs_answers));
  const TrainedVocab& v = *w.vocab();  // a checkpoint's row 0 is a real piece, its [PAD] any row
  return cross_entropy_loss(input, loss.kind == LossKind::NextToken
                                       ? next_token_targets(id_step->tensor, loss.lengths, v.pad_id)
                                       : answer_targets(loss.target, id_step->tensor.shape(), input.size(2), !v.pretrained));
}

BackwardResult backward(const ModelConfig& cfg, const Weights& w, const Trace& fwd, const LossSpec& loss,
                        const KeyRanges* ranges) {
  check_backward(w.vocab() != nullptr, loss.kind);
  BackwardResult r;
  r.kind = loss.kind;
  r.output = loss_input_step(cfg, loss.kind);
  const Step* out = fwd.find(r.output);
  if (!out) throw ConfigError(Text(Msg::bw_step_missing, r.output));
  const LossValue lv = evaluate_loss(cfg, w, fwd, loss, out->tensor);
  r.loss = lv.value;
  if (loss.kind == LossKind::Mse || loss.kind == LossKind::PerPosition) r.target = loss.target;
  Walk walk(cfg, w, fwd, ranges);
  walk.seed(r.output, lv.grad, loss_formula(loss.kind));
  walk.run(r.steps);
  return r;
}

}  // namespace attnlab
