#include "pretrained/bert.h"

#include <algorithm>

#include "io/files.h"
#include "pretrained/checkpoint_names.h"
#include "text/errors.h"

namespace attnlab::pretrained {

namespace {

// The names one architecture gives a layer's parts (after "<layers>{i}.").
struct LayerNames {
  const char *layers, *q, *k, *v, *out, *norm1, *linear1, *linear2, *norm2;
};
constexpr LayerNames kBert{"encoder.layer.",        "attention.self.query",    "attention.self.key",
                           "attention.self.value",  "attention.output.dense",  "attention.output.LayerNorm",
                           "intermediate.dense",    "output.dense",            "output.LayerNorm"};
constexpr LayerNames kDistil{"transformer.layer.", "attention.q_lin", "attention.k_lin", "attention.v_lin",
                             "attention.out_lin",  "sa_layer_norm",   "ffn.lin1",        "ffn.lin2",
                             "output_layer_norm"};

std::vector<Mapping> layer_mappings(const BertShape& s, const LayerNames& n, int64_t i) {
  const int64_t d = s.cfg.d_model, f = s.cfg.d_ff;
  const std::string h = n.layers + std::to_string(i) + ".", e = "encoder.layers." + std::to_string(i) + ".";
  const auto pair = [&](const char* from, const std::string& to, Shape w, Shape b) {
    return std::vector<Mapping>{{h + from + ".weight", e + to + ".weight", std::move(w)},
                                {h + from + ".bias", e + to + ".bias", std::move(b)}};
  };
  std::vector<Mapping> m;
  for (auto part : {pair(n.out, "self_attn.out_proj", {d, d}, {d}), pair(n.norm1, "norm1", {d}, {d}),
                    pair(n.linear1, "linear1", {f, d}, {f}), pair(n.linear2, "linear2", {d, f}, {d}),
                    pair(n.norm2, "norm2", {d}, {d})})
    m.insert(m.end(), part.begin(), part.end());
  return m;
}

// rows [0, D), [D, 2D), [2D, 3D) of in_proj_weight (3D, D) / in_proj_bias (3D): the query, key and
// value projections, as nn.MultiheadAttention fuses them.
void fuse_qkv(CheckpointNames& names, const BertShape& s, const LayerNames& n, int64_t i, Weights& w) {
  const int64_t d = s.cfg.d_model;
  const std::string h = n.layers + std::to_string(i) + ".", e = "encoder.layers." + std::to_string(i) + ".";
  std::vector<StoredTensor> weights, biases;
  for (const char* part : {n.q, n.k, n.v}) {
    weights.push_back(names.take_stored(h + part + ".weight", {d, d}));
    biases.push_back(names.take_stored(h + part + ".bias", {d}));
  }
  stack_rows(weights).set_into(w, e + "self_attn.in_proj_weight");
  stack_rows(biases).set_into(w, e + "self_attn.in_proj_bias");
}

std::vector<Mapping> embedding_mappings(const BertShape& s) {
  const int64_t d = s.cfg.d_model;
  std::vector<Mapping> m = {{"embeddings.word_embeddings.weight", "embedding.weight", {s.vocab_size, d}},
                            {"embeddings.position_embeddings.weight", "encoder.position_embedding.weight",
                             {s.cfg.max_positions, d}}};
  if (s.cfg.token_types > 0)
    m.push_back({"embeddings.token_type_embeddings.weight", "encoder.token_type_embedding.weight",
                 {s.cfg.token_types, d}});
  m.push_back({"embeddings.LayerNorm.weight", "encoder.embedding_norm.weight", {d}});
  m.push_back({"embeddings.LayerNorm.bias", "encoder.embedding_norm.bias", {d}});
  return m;
}

std::vector<Mapping> head_mappings(const BertShape& s) {
  const int64_t d = s.cfg.d_model;
  const std::string dense = s.distil ? "vocab_transform" : "cls.predictions.transform.dense";
  const std::string norm = s.distil ? "vocab_layer_norm" : "cls.predictions.transform.LayerNorm";
  return {{dense + ".weight", "output_head.transform.weight", {d, d}, false, false},
          {dense + ".bias", "output_head.transform.bias", {d}, false, false},
          {norm + ".weight", "output_head.transform_norm.weight", {d}, false, false},
          {norm + ".bias", "output_head.transform_norm.bias", {d}, false, false},
          {s.distil ? "vocab_projector.bias" : "cls.predictions.bias", "output_head.bias", {s.vocab_size}, false, false}};
}

}  // namespace

BertShape bert_config(const nlohmann::json& j, const std::string& origin, bool distil) {
  BertShape s;
  s.distil = distil;
  ModelConfig& c = s.cfg;
  const char* arch = distil ? "DistilBERT" : "BERT";
  c.d_model = config_count(j, distil ? "dim" : "hidden_size", 768, origin);
  c.heads = config_count(j, distil ? "n_heads" : "num_attention_heads", 12, origin);
  c.layers = config_count(j, distil ? "n_layers" : "num_hidden_layers", distil ? 6 : 12, origin);
  c.d_ff = config_count(j, distil ? "hidden_dim" : "intermediate_size", 3072, origin);
  c.max_positions = config_count(j, "max_position_embeddings", 512, origin);
  c.activation = config_activation(j, distil ? "activation" : "hidden_act", "gelu", origin);
  s.vocab_size = config_count(j, "vocab_size", 30522, origin);
  s.tied = config_bool(j, "tie_word_embeddings", true, origin);
  if (distil) {
    c.eps = 1e-12;  // DistilBERT's LayerNorms: fixed, not in its config
    // sinusoidal_pos_embds only decides how the stored table was first filled: it is read as stored
    config_bool(j, "sinusoidal_pos_embds", false, origin);
  } else {
    c.eps = config_positive(j, "layer_norm_eps", 1e-12, origin);
    c.token_types = config_count(j, "type_vocab_size", 2, origin);
    const std::string position = config_text(j, "position_embedding_type", "absolute", origin);
    if (position != "absolute")
      throw DataError(Text(Msg::pt_config_file, printable_name(origin)) +
                      Text(Msg::pt_position_type_unsupported, printable_name(position)));
    config_require(j, "is_decoder", false, arch, origin);
    config_require(j, "add_cross_attention", false, arch, origin);
  }
  c.mask = MaskKind::Padding;  // bidirectional: every piece sees every real piece
  c.norm = Norm::Post;
  c.positional = Positional::Learned;
  c.embedding_norm = true;
  c.head_transform = true;
  try {
    c.validate();
  } catch (const ConfigError& e) {
    throw DataError(Text(Msg::pt_config_file, printable_name(origin)) + Text(Msg::pt_config_invalid) + e.text());
  }
  return s;
}

bool bert_unused(std::string_view name) {
  for (std::string_view part : {"embeddings.position_ids", "embeddings.token_type_ids", "pooler.dense.",
                                "cls.seq_relationship."})
    if (name.find(part) != std::string_view::npos) return true;
  return false;
}

Weights bert_weights(const BertShape& shape, CheckpointTensors tensors, const std::string& folder) {
  const LayerNames& n = shape.distil ? kDistil : kBert;
  CheckpointNames names(std::move(tensors), shape.distil ? "distilbert." : "bert.", folder,
                        shape.distil ? "DistilBERT" : "BERT");
  Weights w;
  names.apply(embedding_mappings(shape), w);
  for (int64_t i = 0; i < shape.cfg.layers; ++i) {
    fuse_qkv(names, shape, n, i, w);
    names.apply(layer_mappings(shape, n, i), w);
  }
  names.apply(head_mappings(shape), w);
  // The decoder: the word embedding table itself (tied; a stored copy is set aside), or its own
  // weight when config.json unties them. BERT may store the decoder's bias a second time.
  const std::string decoder = shape.distil ? "vocab_projector" : "cls.predictions.decoder";
  const bool stored = names.has(decoder + ".weight");
  if (!shape.tied && !stored) throw DataError(names.at() + Text(Msg::pt_tensor_missing, decoder + ".weight"));
  const StoredTensor head =
      stored ? names.take_stored(decoder + ".weight", {shape.vocab_size, shape.cfg.d_model}, false) : StoredTensor{};
  if (shape.tied)
    tie_head(w);
  else
    head.set_into(w, "output_head.weight");
  if (!shape.distil && names.has(decoder + ".bias")) {  // the head's bias stored a second time: the same values
    const Tensor again = names.take(decoder + ".bias", {shape.vocab_size}, false).contiguous();
    const Tensor bias = w.get("output_head.bias");
    if (!std::equal(again.data(), again.data() + again.numel(), bias.contiguous().data()))
      throw DataError(names.at() + Text(Msg::pt_tensor_differs, decoder + ".bias", "cls.predictions.bias"));
  }
  names.finish();
  return w;
}

}  // namespace attnlab::pretrained
