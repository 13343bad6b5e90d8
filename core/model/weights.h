// Model parameters, named like a PyTorch state dict:
//   encoder.layers.{i}. + nn.TransformerEncoderLayer keys, decoder.layers.{i}. + nn.TransformerDecoderLayer keys.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/config.h"
#include "model/trained.h"
#include "tensor/tensor.h"

namespace attnlab {

class Weights {
 public:
  void set(const std::string& name, Tensor t);
  bool has(const std::string& name) const { return map_.count(name) != 0; }
  const Tensor& get(const std::string& name) const;  // throws DataError naming the tensor
  // The output head is the embedding table itself (a checkpoint's tied head: one storage, two
  // names), so that a gradient through both uses is one sum.
  bool head_tied() const {
    if (!has("output_head.weight") || !has("embedding.weight")) return false;
    const Tensor &h = get("output_head.weight"), &e = get("embedding.weight");
    return h.data() == e.data() && h.shape() == e.shape();
  }
  const std::vector<std::string>& names() const { return names_; }  // insertion order
  int64_t bytes() const;
  // A trained model's vocabulary (trained.h); null for seeded or layers-only weights, whose
  // embeddings come from the seed.
  const std::shared_ptr<const TrainedVocab>& vocab() const { return vocab_; }
  void set_vocab(std::shared_ptr<const TrainedVocab> v) { vocab_ = std::move(v); }

 private:
  std::shared_ptr<const TrainedVocab> vocab_;
  std::vector<std::string> names_;
  std::unordered_map<std::string, Tensor> map_;
};

// Every parameter the configuration needs, in state-dict order, with its shape.
// With a final norm, {stack}.norm.weight and .bias (D) after the stack's layers.
// With learned positions, {stack}.position_embedding.weight (max_positions, D) before each stack's layers.
// With `vocab_size` > 0 (a trained model) also embedding.weight (V, D), output_head.weight (V, D)
// and output_head.bias (V) unless `head_bias` is false (a head tied to the embedding table).
std::vector<std::pair<std::string, Shape>> expected_parameters(const ModelConfig& cfg, int64_t vocab_size = 0,
                                                               bool head_bias = true);
// The same for a model with `vocab` (null: none).
std::vector<std::pair<std::string, Shape>> model_parameters(const ModelConfig& cfg, const TrainedVocab* vocab);
int64_t parameter_count(const ModelConfig& cfg);
// The learned position table of "encoder" or "decoder".
std::string position_table_name(const std::string& stack);

// Seeded initialisation (documented in docs/cli.md): weight matrices uniform(±√(3/fan_in)),
// biases uniform(±1/√fan_in), LayerNorm weight 1 and bias 0, learned position tables N(0, 1)
// (Box–Muller, as embedding tables); each tensor its own stream
// "param:" + name.
Weights init_weights(const ModelConfig& cfg);

// Names, shapes and finiteness against the configuration (and w's vocabulary); DataError naming
// the tensor at fault.
void check_weights(const ModelConfig& cfg, const Weights& w);

}  // namespace attnlab
