// BERT's parts of the model, each its own recorded step (ModelConfig::token_types,
// embedding_norm, head_transform): the token-type embedding every piece adds, the LayerNorm over
// the summed embeddings, and the masked-LM head's transform before the tied decoder.
#pragma once

#include "backend/backend.h"
#include "model/config.h"
#include "model/step_builder.h"
#include "model/weights.h"

namespace attnlab {

// encoder.token_type: row 0 of encoder.token_type_embedding.weight for each of the s positions
// (s, D), every piece being in segment A (token_type_ids all 0, as for one text).
Flow token_type_step(const ModelConfig& cfg, const Weights& w, int64_t s, Recorder& rec);

// encoder.input = LayerNorm(embeddings) with encoder.embedding_norm.weight/bias (B, S, D).
Flow embedding_norm_step(const ModelConfig& cfg, const Weights& w, const Flow& embeddings, Recorder& rec);

// {stack}.output_head.transform → .transform_act → .transform_norm: dense (D, D), the model's
// activation, a LayerNorm, (B, S, D) each; x itself when the model has no transform.
Flow head_transform(const ModelConfig& cfg, const Weights& w, const std::string& stack, const Flow& x, Recorder& rec,
                    Backend& be);

}  // namespace attnlab
