#include "forward/bert_parts.h"

#include <algorithm>

#include "tensor/ops.h"

namespace attnlab {

Flow token_type_step(const ModelConfig& cfg, const Weights& w, int64_t s, Recorder& rec) {
  const std::string name = "encoder.token_type_embedding.weight";
  const Tensor table = w.get(name).contiguous();  // (token_types, D)
  const int64_t d = cfg.d_model;
  Tensor tt = Tensor::empty({s, d});
  for (int64_t i = 0; i < s; ++i) std::copy_n(table.data(), d, tt.data() + i * d);
  auto id = record_step(rec, "encoder.token_type", tt, [&] {
    const std::string S = std::to_string(s);
    return StepInfo{.title = Text(Msg::st_token_type_embeddings),
                    .formula = formula_parts({maths("T[0] (" + S + ", D)"), Text(Msg::sf_token_type_row_zero, cfg.token_types)}),
                    .code = "tt = encoder_token_type_embedding_weight[torch.zeros(" + S + ", dtype=torch.long)]",
                    .result = "tt", .bindings = {weight_var("encoder_token_type_embedding_weight", name)}};
  });
  return {tt, id};
}

Flow embedding_norm_step(const ModelConfig& cfg, const Weights& w, const Flow& embeddings, Recorder& rec) {
  const std::string wn = "encoder.embedding_norm.weight", bn = "encoder.embedding_norm.bias";
  Tensor x = layer_norm(embeddings.t, w.get(wn), w.get(bn), cfg.eps);
  auto id = record_step(rec, "encoder.input", x, [&] {
    return StepInfo{.title = Text(Msg::st_embedding_layernorm),
                    .formula = formula_parts({Text(Msg::sf_x_mean_var_over_d_biased), Text(Msg::sf_embedding_layernorm)}),
                    .code = "x = F.layer_norm(embeddings, (" + std::to_string(cfg.d_model) +
                            ",), embedding_norm_weight, embedding_norm_bias, eps=" + format_double(cfg.eps) + ")",
                    .result = "x",
                    .bindings = {step_var("embeddings", embeddings.id), weight_var("embedding_norm_weight", wn),
                                 weight_var("embedding_norm_bias", bn)}};
  });
  return {x, id};
}

namespace {

const char* activation_code(Activation a) {
  switch (a) {
    case Activation::Relu: return "F.relu(transform)";
    case Activation::Gelu: return "F.gelu(transform)";
    case Activation::GeluTanh: return "F.gelu(transform, approximate=\"tanh\")";
  }
  return "?";
}

const char* activation_label(Activation a) {
  return a == Activation::Relu ? "ReLU" : a == Activation::Gelu ? "GELU" : "GELU (tanh)";
}

}  // namespace

Flow head_transform(const ModelConfig& cfg, const Weights& w, const std::string& stack, const Flow& x, Recorder& rec,
                    Backend& be) {
  if (!cfg.head_transform) return x;
  const std::string p = stack + ".output_head.";
  const std::string wn = "output_head.transform.weight", bn = "output_head.transform.bias";
  Flow dense{be.linear(x.t, w.get(wn), w.get(bn)), p + "transform"};
  record_step(rec, dense.id, dense.t, [&] {
    return StepInfo{.title = Text(Msg::st_head_transform_dense), .formula = Text(Msg::sf_head_transform_dense),
                    .code = "transform = F.linear(x, transform_weight, transform_bias)", .result = "transform",
                    .bindings = {step_var("x", x.id), weight_var("transform_weight", wn),
                                 weight_var("transform_bias", bn)}};
  });
  Flow act{be.activate(dense.t, cfg.activation), p + "transform_act"};
  record_step(rec, act.id, act.t, [&] {
    return StepInfo{.title = Text(Msg::st_head_transform_activation, activation_label(cfg.activation)),
                    .formula = maths("h = " + std::string(activation_label(cfg.activation)) + "(x·Wᵀ + b)"),
                    .code = std::string("transform_act = ") + activation_code(cfg.activation), .result = "transform_act",
                    .bindings = {step_var("transform", dense.id)}};
  });
  const std::string nw = "output_head.transform_norm.weight", nb = "output_head.transform_norm.bias";
  Flow norm{layer_norm(act.t, w.get(nw), w.get(nb), cfg.eps), p + "transform_norm"};
  record_step(rec, norm.id, norm.t, [&] {
    return StepInfo{.title = Text(Msg::st_head_transform_layernorm),
                    .formula = formula_parts({Text(Msg::sf_x_mean_var_over_d_biased), Text(Msg::sf_head_transform_norm)}),
                    .code = "transform_norm = F.layer_norm(transform_act, (" + std::to_string(cfg.d_model) +
                            ",), transform_norm_weight, transform_norm_bias, eps=" + format_double(cfg.eps) + ")",
                    .result = "transform_norm",
                    .bindings = {step_var("transform_act", act.id), weight_var("transform_norm_weight", nw),
                                 weight_var("transform_norm_bias", nb)}};
  });
  return norm;
}

}  // namespace attnlab
