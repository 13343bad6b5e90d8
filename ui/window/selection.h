// What the views are looking at, shared by every view so they stay in sync: the step on show,
// the sentence, and the attention block, head and query row in focus.
#pragma once

#include <string>

#include "window/traceresult.h"

namespace attnlab::ui {

struct ViewSelection {
  TraceResultPtr result;
  int stepIndex = -1;  // into result->trace.steps()
  int batch = 0;       // sentence of the batch
  // The attention block in focus, e.g. "encoder.layers.0.self_attn": the step's own block when it
  // is inside one, otherwise the first self-attention block of the step's layer (or of the model).
  std::string block;
  int head = 0;
  int query = 0;  // a query row (token position) for the row-based views

  bool valid() const { return result && stepIndex >= 0 && !block.empty(); }
  // Step ids of the focused block: blockStep("weights") → "encoder.layers.0.self_attn.weights".
  std::string blockStep(const std::string& name) const { return block + "." + name; }
};

// The block in focus for a step id (see ViewSelection::block); "" when the trace has none.
std::string focusBlock(const Trace& trace, const std::string& step_id);

}  // namespace attnlab::ui
