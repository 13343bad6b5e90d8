#include "pretrained/gpt2.h"

#include <map>

#include "io/files.h"
#include "tensor/ops.h"
#include "text/errors.h"

namespace attnlab::pretrained {

namespace {

constexpr std::string_view kPrefix = "transformer.";

Activation gpt2_activation(const std::string& name, const std::string& origin) {
  if (name == "gelu_new" || name == "gelu_pytorch_tanh") return Activation::GeluTanh;
  if (name == "gelu") return Activation::Gelu;
  if (name == "relu") return Activation::Relu;
  throw DataError(Text(Msg::pt_config_file, printable_name(origin)) + Text(Msg::pt_activation_unsupported, name));
}

// A GPT2Config switch that changes the computation: only its published value runs.
void require(const nlohmann::json& j, const char* key, bool published, const std::string& origin) {
  if (config_bool(j, key, published, origin) != published)
    throw DataError(Text(Msg::pt_config_file, printable_name(origin)) +
                    Text(Msg::pt_option_unsupported, key, published ? "false" : "true", published ? "true" : "false"));
}

// One parameter: the checkpoint's tensor `from` (shape `stored`), transposed when Conv1D stores it.
struct Mapping {
  std::string from, to;
  Shape stored;
  bool transpose = false;
};

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

// The tensors under their names without "transformer." (lm_head.* has none).
std::map<std::string, std::pair<std::string, Tensor>> unprefixed(CheckpointTensors& t, const Text& at) {
  std::map<std::string, std::pair<std::string, Tensor>> out;  // short name → (file's name, tensor)
  for (auto& [name, tensor] : t.tensors) {
    const std::string short_name = name.starts_with(kPrefix) ? name.substr(kPrefix.size()) : name;
    if (out.count(short_name))
      throw DataError(at + Text(Msg::pt_tensor_given_twice, printable_name(short_name), std::string(kPrefix)));
    out.emplace(short_name, std::make_pair(name, std::move(tensor)));
  }
  t.tensors.clear();
  return out;
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
  c.activation = gpt2_activation(config_text(j, "activation_function", "gelu_new", origin), origin);
  s.vocab_size = config_count(j, "vocab_size", 50257, origin);
  s.tied = config_bool(j, "tie_word_embeddings", true, origin);
  require(j, "scale_attn_weights", true, origin);
  require(j, "scale_attn_by_inverse_layer_idx", false, origin);
  require(j, "add_cross_attention", false, origin);
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
  const Text at = Text(Msg::pt_model_folder, printable_name(folder));
  auto by_name = unprefixed(tensors, at);
  Weights w;
  const auto take = [&](const std::string& name, const Shape& stored) {
    const auto it = by_name.find(name);
    if (it == by_name.end()) throw DataError(at + Text(Msg::pt_tensor_missing, std::string(kPrefix) + name));
    Tensor t = std::move(it->second.second);
    if (t.shape() != stored)
      throw DataError(at + Text(Msg::pt_tensor_shape, printable_name(it->second.first), shape_str(t.shape()),
                                shape_str(stored)));
    by_name.erase(it);
    return t;
  };
  for (const auto& m : mappings(shape)) {
    Tensor t = take(m.from, m.stored);
    w.set(m.to, m.transpose ? t.transpose(0, 1).contiguous() : std::move(t));
  }
  // The head: the embedding table itself (tied; a stored copy is checked and set aside), or
  // lm_head.weight when config.json unties them.
  const bool stored = by_name.count("lm_head.weight") > 0;
  if (!shape.tied && !stored) throw DataError(at + Text(Msg::pt_tensor_missing, "lm_head.weight"));
  Tensor head = stored ? take("lm_head.weight", {shape.vocab_size, shape.cfg.d_model}) : Tensor();
  w.set("output_head.weight", shape.tied ? w.get("embedding.weight") : head);
  if (!by_name.empty()) throw DataError(at + Text(Msg::pt_tensor_unknown, printable_name(by_name.begin()->second.first)));
  return w;
}

}  // namespace attnlab::pretrained
