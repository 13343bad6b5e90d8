#include "pretrained/gpt2.h"

#include "io/files.h"
#include "pretrained/checkpoint_names.h"
#include "tensor/ops.h"
#include "text/errors.h"

namespace attnlab::pretrained {

namespace {

constexpr std::string_view kPrefix = "transformer.";

std::vector<Mapping> mappings(const Gpt2Shape& s) {
  const int64_t d = s.cfg.d_model, f = s.cfg.d_ff, v = s.vocab_size, p = s.cfg.max_positions;
  std::vector<Mapping> m = {{"wte.weight", "embedding.weight", {v, d}},
                            {"wpe.weight", "encoder.position_embedding.weight", {p, d}}};
  for (int64_t i = 0; i < s.cfg.layers; ++i) {
    const std::string h = "h." + std::to_string(i) + ".", e = "encoder.layers." + std::to_string(i) + ".";
    m.push_back({h + "ln_1.weight", e + "norm1.weight", {d}});
    m.push_back({h + "ln_1.bias", e + "norm1.bias", {d}});
    m.push_back({h + "attn.c_attn.weight", e + "self_attn.in_proj_weight", {d, 3 * d}, true});
    m.push_back({h + "attn.c_attn.bias", e + "self_attn.in_proj_bias", {3 * d}});
    m.push_back({h + "attn.c_proj.weight", e + "self_attn.out_proj.weight", {d, d}, true});
    m.push_back({h + "attn.c_proj.bias", e + "self_attn.out_proj.bias", {d}});
    m.push_back({h + "ln_2.weight", e + "norm2.weight", {d}});
    m.push_back({h + "ln_2.bias", e + "norm2.bias", {d}});
    m.push_back({h + "mlp.c_fc.weight", e + "linear1.weight", {d, f}, true});
    m.push_back({h + "mlp.c_fc.bias", e + "linear1.bias", {f}});
    m.push_back({h + "mlp.c_proj.weight", e + "linear2.weight", {f, d}, true});
    m.push_back({h + "mlp.c_proj.bias", e + "linear2.bias", {d}});
  }
  m.push_back({"ln_f.weight", "encoder.norm.weight", {d}});
  m.push_back({"ln_f.bias", "encoder.norm.bias", {d}});
  return m;
}

}  // namespace

Gpt2Shape gpt2_config(const nlohmann::json& j, const std::string& origin) {
  Gpt2Shape s;
  ModelConfig& c = s.cfg;
  c.d_model = config_count(j, "n_embd", 768, origin);
  c.heads = config_count(j, "n_head", 12, origin);
  c.layers = config_count(j, "n_layer", 12, origin);
  // 4 · n_embd unless set (an n_embd past the limit, refused below, must not overflow here)
  c.d_ff = config_count(j, "n_inner", c.d_model <= Limits::kMaxDModel ? 4 * c.d_model : 1, origin);
  c.max_positions = config_count(j, "n_positions", 1024, origin);
  c.eps = config_positive(j, "layer_norm_epsilon", 1e-5, origin);
  c.activation = config_activation(j, "activation_function", "gelu_new", origin);
  s.vocab_size = config_count(j, "vocab_size", 50257, origin);
  s.tied = config_bool(j, "tie_word_embeddings", true, origin);
  config_require(j, "scale_attn_weights", true, "GPT-2", origin);
  config_require(j, "scale_attn_by_inverse_layer_idx", false, "GPT-2", origin);
  config_require(j, "add_cross_attention", false, "GPT-2", origin);
  config_bool(j, "reorder_and_upcast_attn", false, origin);  // float32 already: no difference here
  c.mask = MaskKind::Causal;  // right padding: a [PAD] key is always in a real query's future
  c.norm = Norm::Pre;
  c.positional = Positional::Learned;
  c.final_norm = true;
  try {
    c.validate();
  } catch (const ConfigError& e) {
    throw DataError(Text(Msg::pt_config_file, printable_name(origin)) + Text(Msg::pt_config_invalid) + e.text());
  }
  return s;
}

bool gpt2_buffer(std::string_view name) {
  return name.ends_with(".attn.bias") || name.ends_with(".attn.masked_bias");
}

Weights gpt2_weights(const Gpt2Shape& shape, CheckpointTensors tensors, const std::string& folder) {
  CheckpointNames names(std::move(tensors), std::string(kPrefix), folder, "GPT-2");
  Weights w;
  names.apply(mappings(shape), w);
  // The head: the embedding table itself (tied; a stored copy is checked and set aside), or
  // lm_head.weight when config.json unties them.
  const bool stored = names.has("lm_head.weight");
  if (!shape.tied && !stored) throw DataError(names.at() + Text(Msg::pt_tensor_missing, "lm_head.weight"));
  const StoredTensor head =
      stored ? names.take_stored("lm_head.weight", {shape.vocab_size, shape.cfg.d_model}) : StoredTensor{};
  if (shape.tied)
    tie_head(w);
  else
    head.set_into(w, "output_head.weight");
  names.finish();
  return w;
}

}  // namespace attnlab::pretrained
