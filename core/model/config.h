// The model's configuration: everything a learner can turn, with its limits.
#pragma once

#include <algorithm>
#include <compare>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/faults.h"
#include "model/variant_config.h"
#include "tensor/ops.h"

namespace attnlab {

enum class Norm { Pre, Post };
// Learned: a trained table of max_positions rows per stack (`{stack}.position_embedding.weight`),
// GPT-2's and BERT's; a text longer than the table is refused.
enum class Positional { Sinusoidal, None, Learned };

struct Limits {
  static constexpr int64_t kMaxDModel = 16384;
  static constexpr int64_t kMaxDff = 65536;
  static constexpr int64_t kMaxLayers = 64;
  static constexpr int64_t kMaxBatch = 4096;
  static constexpr int64_t kMaxPositions = 65536;
};

// The tiled path's overview as the window and `export --attention tiled` record it: at most
// 256 × 256 cells per head (ModelConfig::overview_cap).
inline constexpr int64_t kOverviewCap = 256;

struct ModelConfig {
  int64_t d_model = 64;
  int64_t heads = 8;
  int64_t d_ff = 256;  // 4 · d_model unless set
  int64_t layers = 1;
  MaskKind mask = MaskKind::Padding;  // encoder self-attention, or decoder self-attention in cross mode
  Norm norm = Norm::Pre;
  Activation activation = Activation::Relu;
  Positional positional = Positional::Sinusoidal;
  // Rows of the learned position table (Positional::Learned only): the longest text it reads.
  // GPT-2's context, 1024, unless set.
  int64_t max_positions = 1024;
  // false: attention-only layers (no feed-forward sub-layer, its linear1/linear2 and LayerNorm
  // gone; the weights file's `ffn: none`), as the training lab's induction models.
  bool ffn = true;
  // A LayerNorm after each stack's last layer ({stack}.norm, parameters {stack}.norm.weight/bias),
  // as nn.TransformerEncoder(norm=…) and nn.Transformer have, and GPT-2's ln_f. Pre-norm stacks
  // usually have one: their last residual is otherwise never normalised.
  bool final_norm = false;
  // BERT's embedding block (a checkpoint's; encoder-only models): a token-type table of this many
  // rows whose row 0 every piece adds (encoder.token_type_embedding.weight (rows, D); 0: none),
  // and a LayerNorm over the sum before the first layer (encoder.embedding_norm.weight/bias), the
  // step encoder.input then being that LayerNorm and encoder.embeddings the sum.
  int64_t token_types = 0;
  bool embedding_norm = false;
  // BERT's masked-LM head: dense (D, D), the activation and a LayerNorm before the logits
  // (output_head.transform.weight/bias, output_head.transform_norm.weight/bias).
  bool head_transform = false;
  double eps = 1e-5;
  uint64_t seed = 0;
  bool cross = false;  // encoder–decoder with cross-attention
  FaultSet faults;     // injected bugs (faults.h); empty = the correct model
  // Traced runs only: 0 records every score tensor; N > 0 computes attention tiled (no
  // (B, H, Tq, Tk) tensor) and records an overview of the weights, at most N × N per head
  // (attention_tiled.h), for texts whose score tensors would not fit. Ignored with faults.
  int64_t overview_cap = 0;
  // With the overview: the layers (their index, in every stack) still traced in full — every
  // score step, (B, H, Tq, Tk) — while the others run tiled, so that one layer's heads are seen
  // cell by cell in a text whose whole trace would not fit (GPT-2 small at S 1024: 3.4 GB in
  // full, one layer's scores 192 MiB). Ascending, each in [0, layers).
  std::vector<int64_t> full_layers;
  // With the overview: single heads of the tiled layers (layer and head, in every stack) whose
  // weights are still kept whole, each as one more step "<A>.weights_head_<h>" (B, 1, Tq, Tk),
  // while the layer's other heads stay tiled (GPT-2 small at S 1024: 4 MiB a head against
  // 192 MiB for a layer's score steps). Ascending (layer, then head), each once, none in a
  // full layer.
  struct LayerHead {
    int64_t layer = 0, head = 0;
    auto operator<=>(const LayerHead&) const = default;
  };
  std::vector<LayerHead> full_heads;
  // Traced runs only: an attention variant run beside one encoder self-attention block
  // (variants.h). Skipped with faults or the overview, which have no full score tensors.
  VariantConfig variant;

  bool has(Fault f) const { return faults.count(f) > 0; }
  // Whether a traced run computes attention tiled and records the overview (see overview_cap).
  bool traces_overview() const { return overview_cap > 0 && faults.empty(); }
  // Whether layer `i` of a stack is traced tiled: the overview on and `i` not in full_layers.
  bool tiled_layer(int64_t i) const {
    return traces_overview() && !std::binary_search(full_layers.begin(), full_layers.end(), i);
  }
  // How many layers of a stack run tiled in a traced run.
  int64_t tiled_layers() const;
  // The heads of layer `i` whose weights a traced tiled run keeps whole (full_heads), ascending;
  // none when the layer is not traced tiled.
  std::vector<int64_t> full_heads_of(int64_t i) const;
  // Whether a traced run records the variant's steps.
  bool traces_variant() const { return variant.on() && faults.empty() && !traces_overview(); }
  // The encoder's self-attention mask (cross mode: padding; `mask` is then the decoder's).
  MaskKind encoder_mask() const { return cross ? MaskKind::Padding : mask; }
  // Whether the model has any of BERT's parts (token types, the embedding LayerNorm, the head transform).
  bool bert_parts() const { return token_types > 0 || embedding_norm || head_transform; }

  int64_t d_head() const { return d_model / heads; }
  // Throws ConfigError naming the option and the rule (e.g. heads not dividing d_model, which
  // Fault::IndivisibleHeads lets through to fail in the forward pass as PyTorch's view would).
  void validate() const;
};

// "0.3,1.0" → {{0, 3}, {1, 0}} (--full-heads); a ConfigError naming the piece for anything but
// whole numbers joined by '.' and ','. The range and order are validate()'s.
std::vector<ModelConfig::LayerHead> parse_full_heads(std::string_view text);
// The inverse: "0.3,1.0".
std::string full_heads_text(const std::vector<ModelConfig::LayerHead>& heads);

std::string_view norm_name(Norm n);
Norm parse_norm(std::string_view s);
std::string_view positional_name(Positional p);
Positional parse_positional(std::string_view s);

// Shortest text that reads back as the same double ("1e-05"), for code lines and JSON.
std::string format_double(double v);

}  // namespace attnlab
