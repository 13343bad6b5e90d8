// Encoder and decoder layers exactly as nn.TransformerEncoderLayer / nn.TransformerDecoderLayer
// (batch_first, dropout off), pre- or post-norm.
#pragma once

#include "backend/backend.h"
#include "model/config.h"
#include "model/step_builder.h"
#include "model/weights.h"

namespace attnlab {

// LayerNorm over x's last dim with the parameters `prefix + n + ".weight"` / `".bias"`, recorded as
// step `prefix + n` (code `n = F.layer_norm(x, …)`): a layer's norm1…3, and a stack's final norm.
Flow layer_norm_step(const ModelConfig& cfg, const Weights& w, Recorder& rec, const std::string& prefix,
                     const std::string& n, const Flow& x, Text title, Text formula);

// x (B, S, D), mask (B, S, S) → (B, S, D). Steps under "encoder.layers.{i}.". ranges: the mask
// as key ranges for the fast path (mask.t may then be undefined; see AttentionArgs).
Flow encoder_layer(const ModelConfig& cfg, const Weights& w, int64_t i, const Flow& x,
                   const Flow& mask, Recorder& rec, Backend& be = cpu_backend(), const KeyRanges* ranges = nullptr);

// y (B, T, D), self_mask (B, T, T), memory (B, S, D), cross_mask (B, T, S) → (B, T, D).
Flow decoder_layer(const ModelConfig& cfg, const Weights& w, int64_t i, const Flow& y,
                   const Flow& self_mask, const Flow& memory, const Flow& cross_mask, Recorder& rec,
                   Backend& be = cpu_backend());

}  // namespace attnlab
