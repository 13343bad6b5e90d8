// GPT-2 in Hugging Face's layout (GPT2LMHeadModel), mapped onto the model Attention Lab already
// runs: a causal, pre-norm encoder stack with learned positions, tanh-GELU and a final LayerNorm,
// whose head is the embedding table itself. Each tensor becomes the nn.TransformerEncoderLayer
// parameter it is:
//   h.{i}.ln_1 / ln_2            → encoder.layers.{i}.norm1 / norm2
//   h.{i}.attn.c_attn (D, 3D)    → self_attn.in_proj_weight (3D, D): Conv1D stores xW, so transposed
//   h.{i}.attn.c_proj (D, D)     → self_attn.out_proj (transposed)
//   h.{i}.mlp.c_fc (D, F)        → linear1 (F, D);  h.{i}.mlp.c_proj (F, D) → linear2 (D, F)
//   wte (V, D) → embedding.weight and output_head.weight (tied, no bias); wpe (P, D) →
//   encoder.position_embedding.weight; ln_f → encoder.norm.
// Names with or without the "transformer." prefix; the buffers attn.bias and attn.masked_bias are
// ignored; lm_head.weight is the head only when config.json says tie_word_embeddings: false.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

#include "model/config.h"
#include "model/weights.h"
#include "pretrained/hf_folder.h"

namespace attnlab::pretrained {

struct Gpt2Shape {
  ModelConfig cfg;
  int64_t vocab_size = 50257;
  // tie_word_embeddings (true unless set): the head is wte itself, as Hugging Face ties it when it
  // loads (a stored lm_head.weight then ignored); false: lm_head.weight is required.
  bool tied = true;
};

// config.json (GPT2Config; absent keys take its published defaults: 12 layers, 12 heads, n_embd
// 768, n_positions 1024, vocab 50257, gelu_new, ε 1e-5). DataError naming `origin` and the key
// for a value Attention Lab cannot run.
Gpt2Shape gpt2_config(const nlohmann::json& j, const std::string& origin);

// Whether a tensor is a buffer, not a parameter (skipped when the files are read).
bool gpt2_buffer(std::string_view name);

// The parameters under Attention Lab's names (without vocabulary: the caller sets it), each name,
// shape and value checked; DataError naming the folder and the checkpoint's tensor.
Weights gpt2_weights(const Gpt2Shape& shape, CheckpointTensors tensors, const std::string& folder);

}  // namespace attnlab::pretrained
