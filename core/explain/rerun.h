// The untraced re-runs token and head ablation compare with a traced run: the model again from the
// trace's own inputs (encoder.input; an encoder–decoder's decoder.input too) under its masks, with
// a mask or the weights changed. B batch, S tokens, T decoder tokens, D width, V vocabulary.
#pragma once

#include "explain/needed_step.h"
#include "forward/model.h"
#include "model/config.h"
#include "model/trace.h"
#include "model/weights.h"

namespace attnlab::explain {

struct TraceInputs {
  Tensor x, mask;                    // encoder.input (B, S, D), encoder.mask (B, S, S), contiguous
  Tensor y, self_mask, cross_mask;   // an encoder–decoder's decoder.input (B, T, D), decoder.self_mask
                                     // (B, T, T), decoder.cross_mask (B, T, S, contiguous); else empty

  // ConfigError (needed_step) when the trace lacks one of them.
  static TraceInputs of(const ModelConfig& cfg, const Trace& fwd) {
    TraceInputs in{.x = needed_step(fwd, "encoder.input"), .mask = needed_step(fwd, "encoder.mask").contiguous()};
    if (!cfg.cross) return in;
    in.y = needed_step(fwd, "decoder.input");
    in.self_mask = needed_step(fwd, "decoder.self_mask");
    in.cross_mask = needed_step(fwd, "decoder.cross_mask").contiguous();
    return in;
  }

  // The explained stack's outputs under these masks (the encoder's self-attention mask and an
  // encoder–decoder's cross mask): encoder_outputs or encdec_outputs, contiguous —
  // (B, S | T, V) with a trained head, else (B, S | T, D).
  Tensor outputs(const ModelConfig& cfg, const Weights& w, const Tensor& enc_mask, const Tensor& cross) const {
    return (cfg.cross ? encdec_outputs(cfg, w, x, enc_mask, y, self_mask, cross) : encoder_outputs(cfg, w, x, enc_mask))
        .contiguous();
  }
  Tensor outputs(const ModelConfig& cfg, const Weights& w) const { return outputs(cfg, w, mask, cross_mask); }
};

}  // namespace attnlab::explain
