// Real traces for the widget tests: small models (d_model 16, 4 heads, d_ff 32) computed by core.
#pragma once

#include <string>
#include <vector>

#include "forward/model.h"
#include "model/weights.h"
#include "window/traceresult.h"

namespace attnlab::ui::test {

// Encoder only by default; with memory sentences an encoder–decoder (cross-attention).
inline TraceResultPtr makeResult(const std::vector<std::string>& texts = {"the cat sat on the mat", "a dog ran"},
                                 int layers = 1, MaskKind mask = MaskKind::Padding,
                                 const std::vector<std::string>& memory = {}, int64_t overview_cap = 0) {
  auto r = std::make_shared<TraceResult>();
  r->cfg.overview_cap = overview_cap;
  r->cfg.d_model = 16;
  r->cfg.heads = 4;
  r->cfg.d_ff = 32;
  r->cfg.layers = layers;
  r->cfg.mask = mask;
  r->cfg.cross = !memory.empty();
  r->cfg.validate();
  r->batch = make_batch(texts, memory);
  forward(r->cfg, init_weights(r->cfg), r->batch, r->trace);
  return r;
}

}  // namespace attnlab::ui::test
