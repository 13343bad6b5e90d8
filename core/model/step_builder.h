// Helpers the model uses to describe its steps. Strings are only built when a recorder wants
// them (the fast path pays nothing).
#pragma once

#include <initializer_list>
#include <string>
#include <utility>

#include "model/trace.h"
#include "tensor/tensor.h"

namespace attnlab {

// A tensor flowing through the model together with the step id that produced it.
struct Flow {
  Tensor t;
  std::string id;
};

// Records make() under prefix + suffix when the recorder is enabled. Returns the full id.
template <typename MakeInfo>
std::string record_step(Recorder& rec, const std::string& full_id, const Tensor& t, MakeInfo make) {
  if (rec.enabled()) {
    StepInfo info = make();
    info.id = full_id;
    rec.record(std::move(info), t);
  }
  return full_id;
}

inline StepInfo::Binding step_var(std::string var, std::string id) { return {std::move(var), std::move(id), false}; }
inline StepInfo::Binding weight_var(std::string var, std::string name) { return {std::move(var), std::move(name), true}; }

// A formula's maths, shown as it is in every language ("QKᵀ (B, H, Tq, Tk)"). Prose is never
// maths: it is a catalogue message (text/messages/steps.h).
inline Text maths(std::string s) { return verbatim(std::move(s)); }
// A formula of several parts, joined by "; " (Msg::sf_separator, "；" in Chinese).
Text formula_parts(std::initializer_list<Text> parts);

// "(2, 5, 8, 8)" without the parentheses, for code such as .view(2, 5, 8, 8).
std::string dims_csv(const Shape& s);

}  // namespace attnlab
