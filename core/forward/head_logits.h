// What follows the encoder stack's last layer, as one untraced function: the final LayerNorm
// (ModelConfig::final_norm; GPT-2's ln_f) and a trained model's output head (BERT's transform —
// dense, activation, LayerNorm — first). The logit lens (core/explain/logit_lens.h) sends every
// layer's residual stream through it; the token ablation's re-runs end with it.
#pragma once

#include "backend/backend.h"
#include "model/config.h"
#include "model/weights.h"

namespace attnlab {

// x (B, S, D) → logits (B, S, V). Needs a trained model's head (w.vocab()); without one, x after
// the final LayerNorm (B, S, D).
Tensor head_logits(const ModelConfig& cfg, const Weights& w, const Tensor& x, Backend& be = cpu_backend());

}  // namespace attnlab
