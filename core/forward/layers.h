// Encoder and decoder layers exactly as nn.TransformerEncoderLayer / nn.TransformerDecoderLayer
// (batch_first, dropout off), pre- or post-norm.
#pragma once

#include "backend/backend.h"
#include "model/config.h"
#include "model/step_builder.h"
#include "model/weights.h"

namespace attnlab {

// x (B, S, D), mask (B, S, S) → (B, S, D). Steps under "encoder.layers.{i}.". ranges: the mask
// as key ranges for the fast path (mask.t may then be undefined; see AttentionArgs).
Flow encoder_layer(const ModelConfig& cfg, const Weights& w, int64_t i, const Flow& x,
                   const Flow& mask, Recorder& rec, Backend& be = cpu_backend(), const KeyRanges* ranges = nullptr);

// y (B, T, D), self_mask (B, T, T), memory (B, S, D), cross_mask (B, T, S) → (B, T, D).
Flow decoder_layer(const ModelConfig& cfg, const Weights& w, int64_t i, const Flow& y,
                   const Flow& self_mask, const Flow& memory, const Flow& cross_mask, Recorder& rec,
                   Backend& be = cpu_backend());

}  // namespace attnlab
