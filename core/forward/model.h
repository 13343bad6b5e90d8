// One forward pass: tokens → embeddings + positions → encoder layers (→ decoder layers with
// cross-attention), every step offered to a Recorder.
#pragma once

#include <string>
#include <vector>

#include "backend/backend.h"
#include "model/config.h"
#include "model/trace.h"
#include "model/trained.h"
#include "model/weights.h"
#include "text/tokenizer.h"

namespace attnlab {

// The prepared input. In cross-attention mode the encoder reads `memory`, the decoder `text`.
struct Batch {
  TokenBatch text;    // (B, S) encoder-only, or (B, T) decoder input
  TokenBatch memory;  // (B, S) encoder input in cross mode; empty otherwise
  Vocabulary vocab;   // ids of every token of both
  bool cross() const { return memory.batch() > 0; }
  const TokenBatch& encoder_tokens() const { return cross() ? memory : text; }
};

// Tokenises and pads. memory_texts: empty (encoder only), one (shared by every sentence) or one
// per sentence; anything else is a ConfigError. With a trained model's vocabulary the batch's
// vocabulary is the model's (its ids index the model's embedding table); otherwise it is the
// batch's own distinct tokens.
Batch make_batch(const std::vector<std::string>& texts, const std::vector<std::string>& memory_texts,
                 const TrainedVocab* trained = nullptr);

// A pretrained checkpoint's batch (core/pretrained): each text already cut by its tokenizer into a
// row of pieces, padded on the right with [PAD]; the vocabulary is the model's; `shown`, when
// given, how each piece is shown (one per piece). ConfigError for an empty batch or row, or more
// rows than a batch holds.
Batch make_piece_batch(std::vector<std::vector<std::string>> rows, const TrainedVocab& trained,
                       std::vector<std::vector<std::string>> shown = {});

// The attention axes below show TokenBatch::shown_row (a pretrained piece as a chip spells it).

// Query and key tokens of batch row b for any step under an attention block
// ("decoder.layers.0.multihead_attn.weights" → decoder tokens × memory tokens).
struct AxisTokens {
  std::vector<std::string> query, key;
};
AxisTokens attention_tokens(const Batch& batch, const std::string& step_id, int64_t b);
// The axis labels of a weights overview (attention_tiled.h) with bins of `bin` tokens: each
// bin's first and last token, "first…last" (the token itself for bins of one).
std::vector<std::string> bin_labels(const std::vector<std::string>& tokens, int64_t bin);

// The built-in sample: two English sentences of different lengths (padding) and a Chinese one.
std::vector<std::string> builtin_sample();

// table (V, D): row 0 ([PAD]) zeros; row v the first D normals of stream "tok:" + word.
Tensor embedding_table(const Vocabulary& vocab, int64_t d, uint64_t seed);

// Runs the model; returns the last layer's output ((B,S,D) encoder-only, (B,T,D) cross mode).
// The products, softmax and activations run on `be`; everything else on the CPU.
Tensor forward(const ModelConfig& cfg, const Weights& w, const Batch& batch, Recorder& rec,
               Backend& be = cpu_backend());

// How many steps a traced forward pass with this configuration records (whatever the text):
// the model run at the smallest sizes (D = heads, one token) with a counting recorder. With a
// fault that stops the run (indivisible heads), the steps before it. A variant's walk-throughs
// depend on the length: encoder_tokens is the encoder's padded sequence length.
int64_t count_steps(const ModelConfig& cfg, int64_t encoder_tokens = 1);

// The steps a trained model's output head records after those (count_steps runs seeded weights,
// which have no head): the logits and their probabilities, and before them BERT's head transform
// (dense, activation, LayerNorm).
int64_t output_head_steps(const ModelConfig& cfg);

// An encoder stack over a ready input (for benchmarks): x (B,S,D), mask (B,S,S).
Tensor encoder_stack(const ModelConfig& cfg, const Weights& w, const Tensor& x, const Tensor& mask, Recorder& rec,
                     Backend& be = cpu_backend());
// The same with the mask as key ranges: the fast path (no trace, no faults) and a traced tiled run
// (cfg.overview_cap, its steps binding "encoder.mask" without a step of that id: the backward is
// then given the ranges) never make the (B, S, S) mask on the CPU; another traced run makes it
// and records as above.
Tensor encoder_stack(const ModelConfig& cfg, const Weights& w, const Tensor& x, const KeyRanges& mask, Recorder& rec,
                     Backend& be = cpu_backend());

// The encoder stack from a ready input x (B, S, D) under a dense mask (B, S, S), then the final
// LayerNorm (cfg.final_norm) and a trained model's output head, untraced: the logits (B, S, V), or
// without a head the stack's output (B, S, D). The explanations' token ablation runs it once per
// masked key (core/explain/ablation.h).
Tensor encoder_outputs(const ModelConfig& cfg, const Weights& w, const Tensor& x, const Tensor& mask,
                       Backend& be = cpu_backend());

// The same for an encoder–decoder (cfg.cross): the encoder over x (B, S, D) under enc_mask
// (B, S, S) and its final LayerNorm, then the decoder over y (B, T, D) under self_mask (B, T, T)
// and cross_mask (B, T, S), its final LayerNorm and a trained head, untraced: (B, T, V) or the
// decoder's output (B, T, D). Token ablation of a source token runs it once per token.
Tensor encdec_outputs(const ModelConfig& cfg, const Weights& w, const Tensor& x, const Tensor& enc_mask,
                      const Tensor& y, const Tensor& self_mask, const Tensor& cross_mask, Backend& be = cpu_backend());

}  // namespace attnlab
