#include "window/selection.h"

#include "backward/model_backward.h"

namespace attnlab::ui {

std::string focusBlock(const Trace& trace, const std::string& step_id) {
  const std::string id = forward_id_of(step_id);  // a gradient: the block of what it differentiates
  for (const char* kind : {".self_attn.", ".multihead_attn."}) {
    const size_t at = id.find(kind);
    if (at != std::string::npos) return id.substr(0, at + std::string(kind).size() - 1);
  }
  // A layer step ("encoder.layers.1.norm2"): that layer's self-attention.
  const size_t layers = id.find(".layers.");
  if (layers != std::string::npos) {
    const size_t dot = id.find('.', layers + 8);
    const std::string candidate = id.substr(0, dot) + ".self_attn";
    if (trace.find(candidate + ".weights")) return candidate;
  }
  // A stack step (input, masks): the first attention block of the model.
  for (const auto& s : trace.steps())
    if (s.info.id.ends_with(".weights")) return s.info.id.substr(0, s.info.id.size() - 8);
  return {};
}

}  // namespace attnlab::ui
