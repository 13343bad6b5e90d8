#include "forward/overflow.h"

#include <cmath>
#include <charconv>
#include <unordered_set>

#include "text/errors.h"

namespace attnlab {

namespace {

// −∞ is what masked_fill writes: expected in the masked scores (and a variant's own masked steps).
bool masks_with_minus_infinity(const std::string& id) {
  return id.ends_with(".masked_scores") || id.find(".variant.") != std::string::npos;
}

// Whether t holds a value that is not finite; −∞ does not count when allowed.
bool has_nonfinite(const Tensor& t, bool allow_minus_inf) {
  const auto bad = [allow_minus_inf](float v) { return !std::isfinite(v) && !(allow_minus_inf && v == -INFINITY); };
  if (t.is_contiguous()) {
    const float* p = t.data();
    for (int64_t i = 0, n = t.numel(); i < n; ++i)
      if (bad(p[i])) return true;
    return false;
  }
  for (float v : t.to_vector())
    if (bad(v)) return true;
  return false;
}

std::string largest_magnitude(const Weights& w, const std::string& name) {
  if (!w.has(name)) return "";
  float m = 0;
  for (float v : w.get(name).to_vector()) m = std::max(m, std::fabs(v));
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, m, std::chars_format::general, 3);
  return std::string(buf, r.ptr);
}

}  // namespace

std::optional<Overflow> first_overflow(const Trace& trace) {
  std::unordered_set<std::string> nonfinite;  // steps holding a value that is not finite
  for (const Step& s : trace.steps()) {
    bool from_inputs = false;
    for (const auto& in : s.info.inputs()) from_inputs = from_inputs || nonfinite.count(in) > 0;
    const bool allow = masks_with_minus_infinity(s.info.id);
    // A view of a finite input is finite: only its own storage needs scanning.
    bool views_input = false;
    for (const auto& in : s.info.inputs())
      if (const Step* src = trace.find(in); src && src->tensor.shares_storage(s.tensor)) views_input = true;
    const bool bad = from_inputs || (!views_input && has_nonfinite(s.tensor, allow)) ||
                     (views_input && !s.tensor.is_contiguous() && has_nonfinite(s.tensor, allow));
    if (!bad) continue;
    nonfinite.insert(s.info.id);
    if (from_inputs) continue;  // a consequence, not where it started
    Overflow o{s.info.id, s.info.title, {}};
    for (const auto& b : s.info.bindings)
      if (b.weight) o.weights.push_back(b.source);
    return o;
  }
  return std::nullopt;
}

void check_no_overflow(const Trace& trace, const Weights& w) {
  const auto o = first_overflow(trace);
  if (!o) return;
  Text reads;
  for (const auto& name : o->weights) {
    const std::string m = largest_magnitude(w, name);
    if (!reads.empty()) reads += verbatim(", ");
    reads += verbatim("'" + name + "'");
    if (!m.empty()) reads += Text(Msg::largest_value, m);
  }
  Text t(Msg::forward_pass_overflowed_float32_step_made_nan, o->step, o->title);
  if (!reads.empty()) t += Text(Msg::reads) + std::move(reads);
  throw DataError(std::move(t) + Text(Msg::weights_are_too_large_input_check_weights));
}

}  // namespace attnlab
