#include "model/weights.h"

#include <cmath>

#include "tensor/parallel.h"
#include "tensor/rng.h"
#include "text/errors.h"

namespace attnlab {

void Weights::set(const std::string& name, Tensor t) {
  if (!map_.count(name)) names_.push_back(name);
  map_[name] = std::move(t);
}

const Tensor& Weights::get(const std::string& name) const {
  auto it = map_.find(name);
  if (it == map_.end()) throw DataError(Text(Msg::ls_weights_prefix) + Text(Msg::tensor_missing, name));
  return it->second;
}

int64_t Weights::bytes() const {
  int64_t total = 0;
  for (const auto& [name, t] : map_) total += t.numel() * 4;
  return total;
}

namespace {

void add_attention(std::vector<std::pair<std::string, Shape>>& out, const std::string& p, int64_t d) {
  out.push_back({p + "in_proj_weight", {3 * d, d}});
  out.push_back({p + "in_proj_bias", {3 * d}});
  out.push_back({p + "out_proj.weight", {d, d}});
  out.push_back({p + "out_proj.bias", {d}});
}

// The feed-forward sub-layer's linears (unless attention-only) and the layer's LayerNorms, one per
// sub-layer (`norms` of them with the feed-forward one, which attention-only layers lack).
void add_ffn_and_norms(std::vector<std::pair<std::string, Shape>>& out, const std::string& p,
                       int64_t d, int64_t f, int norms, bool ffn) {
  if (ffn) {
    out.push_back({p + "linear1.weight", {f, d}});
    out.push_back({p + "linear1.bias", {f}});
    out.push_back({p + "linear2.weight", {d, f}});
    out.push_back({p + "linear2.bias", {d}});
  }
  for (int k = 1; k <= norms - (ffn ? 0 : 1); ++k) {
    out.push_back({p + "norm" + std::to_string(k) + ".weight", {d}});
    out.push_back({p + "norm" + std::to_string(k) + ".bias", {d}});
  }
}

void add_final_norm(std::vector<std::pair<std::string, Shape>>& out, const std::string& stack, int64_t d) {
  out.push_back({stack + ".norm.weight", {d}});
  out.push_back({stack + ".norm.bias", {d}});
}

}  // namespace

std::vector<std::pair<std::string, Shape>> expected_parameters(const ModelConfig& cfg, int64_t vocab_size,
                                                               bool head_bias) {
  std::vector<std::pair<std::string, Shape>> out;
  const int64_t d = cfg.d_model, f = cfg.d_ff;
  if (vocab_size > 0) out.push_back({"embedding.weight", {vocab_size, d}});
  const bool learned = cfg.positional == Positional::Learned;
  if (learned) out.push_back({position_table_name("encoder"), {cfg.max_positions, d}});
  if (cfg.token_types > 0) out.push_back({"encoder.token_type_embedding.weight", {cfg.token_types, d}});
  if (cfg.embedding_norm) {
    out.push_back({"encoder.embedding_norm.weight", {d}});
    out.push_back({"encoder.embedding_norm.bias", {d}});
  }
  for (int64_t i = 0; i < cfg.layers; ++i) {
    const std::string p = "encoder.layers." + std::to_string(i) + ".";
    add_attention(out, p + "self_attn.", d);
    add_ffn_and_norms(out, p, d, f, 2, cfg.ffn);
  }
  if (cfg.final_norm) add_final_norm(out, "encoder", d);
  if (cfg.cross && learned) out.push_back({position_table_name("decoder"), {cfg.max_positions, d}});
  if (cfg.cross)
    for (int64_t i = 0; i < cfg.layers; ++i) {
      const std::string p = "decoder.layers." + std::to_string(i) + ".";
      add_attention(out, p + "self_attn.", d);
      add_attention(out, p + "multihead_attn.", d);
      add_ffn_and_norms(out, p, d, f, 3, cfg.ffn);
    }
  if (cfg.cross && cfg.final_norm) add_final_norm(out, "decoder", d);
  if (vocab_size > 0 && cfg.head_transform) {
    out.push_back({"output_head.transform.weight", {d, d}});
    out.push_back({"output_head.transform.bias", {d}});
    out.push_back({"output_head.transform_norm.weight", {d}});
    out.push_back({"output_head.transform_norm.bias", {d}});
  }
  if (vocab_size > 0) {
    out.push_back({"output_head.weight", {vocab_size, d}});
    if (head_bias) out.push_back({"output_head.bias", {vocab_size}});
  }
  return out;
}

std::vector<std::pair<std::string, Shape>> model_parameters(const ModelConfig& cfg, const TrainedVocab* vocab) {
  return vocab ? expected_parameters(cfg, vocab->size(), vocab->head_bias) : expected_parameters(cfg);
}

std::string position_table_name(const std::string& stack) { return stack + ".position_embedding.weight"; }

int64_t parameter_count(const ModelConfig& cfg) {
  int64_t n = 0;
  for (const auto& [name, shape] : expected_parameters(cfg)) n += numel_of(shape);
  return n;
}

Weights init_weights(const ModelConfig& cfg) {
  Weights w;
  for (const auto& [name, shape] : expected_parameters(cfg)) {
    Tensor t(shape);
    const bool is_norm = name.find("norm") != std::string::npos;  // norm1, norm, embedding_norm, transform_norm
    const bool is_bias = name.ends_with("bias");
    if (name.ends_with("_embedding.weight")) {  // position and token-type tables: N(0, 1), as nn.Embedding starts
      const Stream s("param:" + name, cfg.seed);
      float* p = t.data();
      const int64_t n = t.numel();
#pragma omp parallel for schedule(static) if (n >= kParallelElements)
      for (int64_t i = 0; i < n; ++i) p[i] = static_cast<float>(s.normal(static_cast<uint64_t>(i)));
    } else if (is_norm) {
      if (!is_bias) std::fill_n(t.data(), t.numel(), 1.0f);
    } else {
      // fan_in: the input width of the layer the tensor belongs to.
      const int64_t fan_in = name.find("linear2") != std::string::npos ? cfg.d_ff : cfg.d_model;
      const double a = is_bias ? 1.0 / std::sqrt(double(fan_in)) : std::sqrt(3.0 / double(fan_in));
      const Stream s("param:" + name, cfg.seed);
      float* p = t.data();
      const int64_t n = t.numel();
#pragma omp parallel for schedule(static) if (n >= kParallelElements)
      for (int64_t i = 0; i < n; ++i) p[i] = static_cast<float>(a * (2.0 * s.uniform(static_cast<uint64_t>(i)) - 1.0));
    }
    w.set(name, std::move(t));
  }
  return w;
}

void check_weights(const ModelConfig& cfg, const Weights& w) {
  for (const auto& [name, shape] : model_parameters(cfg, w.vocab().get())) {
    const Tensor& t = w.get(name);
    if (t.shape() != shape)
      throw DataError(Text(Msg::ls_weights_prefix) + Text(Msg::tensor_has_shape_but_configuration_needs, name,
                                                          shape_str(t.shape()), shape_str(shape)));
    const float* p = t.data();
    for (int64_t i = 0; i < t.numel(); ++i)
      if (!std::isfinite(p[i]))
        throw DataError(Text(Msg::ls_weights_prefix) + Text(Msg::tensor_holds_non_finite_value_nan_element, name, i));
  }
}

}  // namespace attnlab
