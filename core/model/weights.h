// Model parameters, named like a PyTorch state dict:
//   encoder.layers.{i}. + nn.TransformerEncoderLayer keys, decoder.layers.{i}. + nn.TransformerDecoderLayer keys.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/config.h"
#include "model/half_tensor.h"
#include "model/trained.h"
#include "tensor/tensor.h"

namespace attnlab {

// A parameter is an F32 tensor or, read from a 16-bit checkpoint, a HalfTensor that get() widens
// (half_tensor.h). Widenings are kept within the widen budget: seven eighths for the first ones
// asked for (the embedding table, the first layers: hits on every pass), an eighth for the most
// recent others (a layer's in_proj is asked for once each for Q, K and V); the rest are made on
// every use and freed after it. A model in 16 bits costs its own size plus the budget, not twice
// its size. Copies share the kept tensors (keyed by the 16-bit storage, which never changes).
class Weights {
 public:
  static constexpr int64_t kDefaultWidenBudget = int64_t(256) << 20;

  void set(const std::string& name, Tensor t);
  void set(const std::string& name, HalfTensor t);
  bool has(const std::string& name) const { return map_.count(name) != 0 || halves_.count(name) != 0; }
  // The parameter in F32 (a 16-bit one widened, or a kept widening); throws DataError naming it.
  // const: never write through it (a kept widening is shared by every copy of these weights);
  // code that updates parameters in place calls widen_all() first.
  const Tensor get(const std::string& name) const;
  Shape shape(const std::string& name) const;
  // Rows `which` of a 2-D parameter as a (which.size(), cols) F32 tensor, the values get() holds
  // there: an embedding lookup of a few ids widens those rows of a 16-bit table (or copies them
  // from a kept widening), not the whole table. Throws DataError naming a missing parameter,
  // std::logic_error for a row outside it.
  Tensor rows(const std::string& name, const std::vector<int64_t>& which) const;
  // The 16-bit parameter, or null where it is F32 (or absent).
  const HalfTensor* half(const std::string& name) const;
  bool has_half() const { return !halves_.empty(); }
  // Every 16-bit parameter replaced by its F32 widening (a tied pair stays one storage): for code
  // that updates parameters in place (the optimizer).
  void widen_all();
  void set_widen_budget(int64_t bytes);
  int64_t widened_kept_bytes() const;  // what the kept widenings hold now
  // The output head is the embedding table itself (a checkpoint's tied head: one storage, two
  // names), so that a gradient through both uses is one sum.
  bool head_tied() const;
  const std::vector<std::string>& names() const { return names_; }  // insertion order
  int64_t bytes() const;  // as stored: 4 bytes a float, 2 a 16-bit one; a tied table once
  // Every parameter as F32 (4 bytes a value), a tied table once: the gradients, a bundle's
  // weights file (io/weights_file.h writes a tied table once).
  int64_t f32_bytes() const;
  // The most these weights hold while a pass uses them: bytes(), and for 16-bit parameters the
  // kept widenings (at most the widen budget) and the largest one widened beside them.
  int64_t held_bytes() const;
  // A trained model's vocabulary (trained.h); null for seeded or layers-only weights, whose
  // embeddings come from the seed.
  const std::shared_ptr<const TrainedVocab>& vocab() const { return vocab_; }
  void set_vocab(std::shared_ptr<const TrainedVocab> v) { vocab_ = std::move(v); }

 private:
  struct WidenCache;
  std::shared_ptr<const TrainedVocab> vocab_;
  std::vector<std::string> names_;
  std::unordered_map<std::string, Tensor> map_;
  std::unordered_map<std::string, HalfTensor> halves_;
  std::shared_ptr<WidenCache> cache_;  // made with the first 16-bit parameter
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
