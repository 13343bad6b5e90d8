#include "forward/layers.h"

#include <functional>
#include <stdexcept>

#include "forward/attention.h"

namespace attnlab {

namespace {

struct LayerCtx {
  const ModelConfig& cfg;
  const Weights& w;
  Recorder& rec;
  std::string prefix;  // "encoder.layers.0."
  Backend& be;
  int64_t index = 0;   // the layer's place in its stack
  // Nothing recorded and no fault: each sub-layer's last product adds the residual in its own
  // pass, and linear1 applies ReLU in its (Backend::linear_add, linear_relu): the same numbers.
  bool fused() const { return !rec.enabled() && cfg.faults.empty(); }
};

using SubLayer = std::function<Flow(const Flow& in, const Tensor* residual)>;

Flow norm(const LayerCtx& c, int k, const Flow& x) {
  return layer_norm_step(c.cfg, c.w, c.rec, c.prefix, "norm" + std::to_string(k), x, Text(Msg::st_layernorm_1, k),
                         Text(Msg::sf_x_mean_var_over_d_biased));
}

Flow residual(const LayerCtx& c, int k, const Flow& x, const Flow& sub) {
  const std::string n = "residual" + std::to_string(k);
  Tensor t = add(x.t, sub.t);
  auto id = record_step(c.rec, c.prefix + n, t, [&] {
    return StepInfo{.title = Text(Msg::st_residual_connection_1, k), .formula = maths("x + sublayer(x)"),
                    .code = n + " = x + sub", .result = n,
                    .bindings = {step_var("x", x.id), step_var("sub", sub.id)}};
  });
  return {t, id};
}

// linear1 → activation → linear2: (B, T, D) → (B, T, F) → (B, T, D), with T written as the shape
// diagram names the stack's sequence axis: S in the encoder, T in the decoder.
Flow feed_forward(const LayerCtx& c, const Flow& x, const Tensor* residual) {
  const std::string p = c.prefix + "ffn.";
  const std::string T = c.prefix.starts_with("decoder.") ? "T" : "S";
  const Tensor w1 = c.w.get(c.prefix + "linear1.weight"), b1 = c.w.get(c.prefix + "linear1.bias");
  const Tensor w2 = c.w.get(c.prefix + "linear2.weight"), b2 = c.w.get(c.prefix + "linear2.bias");
  if (c.fused()) {  // nothing to record: ReLU in linear1's pass, the residual in linear2's
    const Activation a = c.cfg.activation;
    const Tensor act =
        a == Activation::Relu ? c.be.linear_relu(x.t, w1, b1) : c.be.activate(c.be.linear(x.t, w1, b1), a);
    return {residual ? c.be.linear_add(act, w2, b2, *residual) : c.be.linear(act, w2, b2), p + "out"};
  }
  if (residual) throw std::logic_error("feed_forward: only the untraced, fault-free path adds the residual itself");
  Tensor h1 = c.be.linear(x.t, w1, b1);
  auto h1_id = record_step(c.rec, p + "linear1", h1, [&] {
    return StepInfo{.title = Text(Msg::st_ffn_expand_d_ff), .formula = maths("x·W₁ᵀ + b₁ (B, " + T + ", F)"),
                    .code = "linear1 = F.linear(x, linear1_weight, linear1_bias)", .result = "linear1",
                    .bindings = {step_var("x", x.id), weight_var("linear1_weight", c.prefix + "linear1.weight"),
                                 weight_var("linear1_bias", c.prefix + "linear1.bias")}};
  });
  Tensor act = c.be.activate(h1, c.cfg.activation);
  auto act_id = record_step(c.rec, p + "hidden", act, [&] {
    const Activation a = c.cfg.activation;
    return StepInfo{.title = Text(Msg::st_ffn_1, a == Activation::Relu ? "ReLU" : a == Activation::Gelu ? "GELU" : "GELU (tanh)"),
                    .formula = maths(a == Activation::Relu   ? "ReLU(x) = max(0, x)"
                                     : a == Activation::Gelu ? "GELU(x) = x·Φ(x) = ½x(1 + erf(x/√2))"
                                                             : "GELU(x) ≈ ½x(1 + tanh(√(2/π)·(x + 0.044715·x³)))"),
                    .code = a == Activation::Relu   ? "hidden = F.relu(linear1)"
                            : a == Activation::Gelu ? "hidden = F.gelu(linear1)"
                                                    : "hidden = F.gelu(linear1, approximate=\"tanh\")",
                    .result = "hidden",
                    .bindings = {step_var("linear1", h1_id)}};
  });
  Tensor out = c.be.linear(act, w2, b2);
  auto out_id = record_step(c.rec, p + "out", out, [&] {
    return StepInfo{.title = Text(Msg::st_ffn_back_d_model), .formula = maths("hidden·W₂ᵀ + b₂ (B, " + T + ", D)"),
                    .code = "ffn_out = F.linear(hidden, linear2_weight, linear2_bias)", .result = "ffn_out",
                    .bindings = {step_var("hidden", act_id), weight_var("linear2_weight", c.prefix + "linear2.weight"),
                                 weight_var("linear2_bias", c.prefix + "linear2.bias")}};
  });
  return {out, out_id};
}

// One residual sub-layer. Pre-norm: x + f(norm_k(x)). Post-norm: norm_k(x + f(x)). Fused, f adds
// x itself (its residual argument; otherwise null).
Flow sublayer(const LayerCtx& c, int k, const Flow& x, const SubLayer& f) {
  if (c.fused()) {
    const Flow sum{f(c.cfg.norm == Norm::Pre ? norm(c, k, x) : x, &x.t).t, c.prefix + "residual" + std::to_string(k)};
    return c.cfg.norm == Norm::Pre ? sum : norm(c, k, sum);
  }
  if (c.cfg.norm == Norm::Pre) return residual(c, k, x, f(norm(c, k, x), nullptr));
  return norm(c, k, residual(c, k, x, f(x, nullptr)));
}

Flow layer_output(const LayerCtx& c, const Flow& last) {
  auto id = record_step(c.rec, c.prefix + "output", last.t, [&] {
    return StepInfo{.title = Text(Msg::st_layer_output), .formula = Text(Msg::sf_stream_leaving_layer),
                    .code = "output = last", .result = "output", .bindings = {step_var("last", last.id)}};
  });
  return {last.t, id};
}

Flow attention(const LayerCtx& c, const std::string& name, const Flow& x, const Flow& memory, const Flow& mask,
               const Tensor* residual, const KeyRanges* ranges = nullptr, const VariantConfig* variant = nullptr) {
  const MaskKind m = c.cfg.encoder_mask();
  AttentionArgs a{c.prefix + name, &x, &memory, &mask, c.cfg.heads, &c.cfg.faults, &c.be, ranges,
                  c.cfg.tiled_layer(c.index) ? c.cfg.overview_cap : 0, variant, c.cfg.seed,
                  m == MaskKind::Causal || m == MaskKind::PaddingCausal, c.cfg.full_heads_of(c.index)};
  a.residual = residual;
  return multi_head_attention(a, c.w, c.rec);
}

Flow self_attention(const LayerCtx& c, const Flow& x, const Flow& mask, const Tensor* residual,
                    const KeyRanges* ranges = nullptr, const VariantConfig* variant = nullptr) {
  return attention(c, "self_attn.", x, x, mask, residual, ranges, variant);
}

}  // namespace

Flow layer_norm_step(const ModelConfig& cfg, const Weights& w, Recorder& rec, const std::string& prefix,
                     const std::string& n, const Flow& x, Text title, Text formula) {
  Tensor t = layer_norm(x.t, w.get(prefix + n + ".weight"), w.get(prefix + n + ".bias"), cfg.eps);
  auto id = record_step(rec, prefix + n, t, [&] {
    return StepInfo{.title = std::move(title), .formula = std::move(formula),
                    .code = n + " = F.layer_norm(x, (" + std::to_string(cfg.d_model) + ",), " + n + "_weight, " + n +
                            "_bias, eps=" + format_double(cfg.eps) + ")",
                    .result = n,
                    .bindings = {step_var("x", x.id), weight_var(n + "_weight", prefix + n + ".weight"),
                                 weight_var(n + "_bias", prefix + n + ".bias")}};
  });
  return {t, id};
}

Flow encoder_layer(const ModelConfig& cfg, const Weights& w, int64_t i, const Flow& x,
                   const Flow& mask, Recorder& rec, Backend& be, const KeyRanges* ranges) {
  const LayerCtx c{cfg, w, rec, "encoder.layers." + std::to_string(i) + ".", be, i};
  const bool variant = c.rec.enabled() && cfg.traces_variant() && cfg.variant.layer == i;
  Flow s = sublayer(c, 1, x, [&](const Flow& in, const Tensor* res) {
    return self_attention(c, in, mask, res, ranges, variant ? &cfg.variant : nullptr);
  });
  if (cfg.ffn) s = sublayer(c, 2, s, [&](const Flow& in, const Tensor* res) { return feed_forward(c, in, res); });
  return layer_output(c, s);
}

Flow decoder_layer(const ModelConfig& cfg, const Weights& w, int64_t i, const Flow& y,
                   const Flow& self_mask, const Flow& memory, const Flow& cross_mask, Recorder& rec,
                   Backend& be) {
  const LayerCtx c{cfg, w, rec, "decoder.layers." + std::to_string(i) + ".", be, i};
  Flow s = sublayer(c, 1, y, [&](const Flow& in, const Tensor* res) { return self_attention(c, in, self_mask, res); });
  s = sublayer(c, 2, s, [&](const Flow& in, const Tensor* res) {
    return attention(c, "multihead_attn.", in, memory, cross_mask, res);
  });
  if (cfg.ffn) s = sublayer(c, 3, s, [&](const Flow& in, const Tensor* res) { return feed_forward(c, in, res); });
  return layer_output(c, s);
}

}  // namespace attnlab
