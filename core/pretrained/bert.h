// BERT and DistilBERT in Hugging Face's layout (BertForMaskedLM / BertForPreTraining,
// DistilBertForMaskedLM), mapped onto the model Attention Lab runs: a post-norm encoder stack with
// padding mask, learned positions, BERT's token types (ModelConfig::token_types), the LayerNorm over
// the summed embeddings (embedding_norm), exact GELU, and the masked-LM head's transform
// (head_transform) before the decoder tied to the embedding table, with its own bias.
//   BERT (names with or without "bert."):
//     embeddings.word_embeddings (V, D) → embedding.weight (and the tied head)
//     embeddings.position_embeddings (P, D) → encoder.position_embedding.weight
//     embeddings.token_type_embeddings (T, D) → encoder.token_type_embedding.weight
//     embeddings.LayerNorm → encoder.embedding_norm
//     encoder.layer.{i}.attention.self.query / key / value → self_attn.in_proj_weight/bias (rows
//       [0, D), [D, 2D), [2D, 3D)); attention.output.dense → out_proj; attention.output.LayerNorm
//       → norm1; intermediate.dense → linear1; output.dense → linear2; output.LayerNorm → norm2
//     cls.predictions.transform.dense / .LayerNorm → output_head.transform / .transform_norm;
//       cls.predictions.bias (V) → output_head.bias
//   DistilBERT ("distilbert."): the same with transformer.layer.{i}.attention.q_lin / k_lin /
//     v_lin / out_lin, sa_layer_norm, ffn.lin1 / lin2, output_layer_norm, no token types; the head
//     vocab_transform, vocab_layer_norm, vocab_projector.bias.
// A stored copy of the tied decoder weight (shape checked) is set aside, as Hugging Face ties it; a
// stored copy of the decoder's bias must equal cls.predictions.bias; the pooler and the
// next-sentence head (pre-training only) and the buffers position_ids / token_type_ids are skipped.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

#include "model/config.h"
#include "model/weights.h"
#include "pretrained/hf_folder.h"

namespace attnlab::pretrained {

struct BertShape {
  ModelConfig cfg;
  int64_t vocab_size = 30522;
  bool tied = true;     // tie_word_embeddings (true unless set): the decoder is the word embedding table
  bool distil = false;  // DistilBERT's names and config keys
};

// config.json (BertConfig or DistilBertConfig; absent keys take the published defaults: BERT base's
// 12 layers, 12 heads, hidden 768, intermediate 3072, 512 positions, 2 token types, vocab 30522,
// gelu, ε 1e-12; DistilBERT's 6 layers). DataError naming `origin` and the key.
BertShape bert_config(const nlohmann::json& j, const std::string& origin, bool distil);

// Whether a tensor is a buffer or a part the masked-word model does not use (skipped when read).
bool bert_unused(std::string_view name);

// The parameters under Attention Lab's names, each name, shape and value checked; DataError
// naming the folder and the checkpoint's tensor.
Weights bert_weights(const BertShape& shape, CheckpointTensors tensors, const std::string& folder);

}  // namespace attnlab::pretrained
