// The tensor of a step an explanation reads, or a ConfigError naming it (a run that did not record
// it: a tiled layer keeps only an overview of its weights).
#pragma once

#include <string>

#include "model/trace.h"
#include "text/errors.h"

namespace attnlab::explain {

inline const Tensor& needed_step(const Trace& t, const std::string& id) {
  const Step* s = t.find(id);
  if (!s) throw ConfigError(Text(Msg::ex_needs_weights_step, id));
  return s->tensor;
}

}  // namespace attnlab::explain
