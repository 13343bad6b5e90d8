// The refusal of a command-line option's value outside its range, shared by the model's and the
// variants' settings.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "text/errors.h"

namespace attnlab {

// Throws ConfigError "<opt>: <v> is outside <lo> … <hi>" unless lo <= v <= hi. why: a
// parenthesised note after the range (e.g. Msg::layers_count_from_0); empty for none.
inline void require_in_range(std::string_view opt, int64_t v, int64_t lo, int64_t hi, Text why = {}) {
  if (v >= lo && v <= hi) return;
  Text msg = verbatim(std::string(opt) + ": ") + Text(Msg::outside, v, lo, hi);
  if (!why.empty()) msg += verbatim(" ") + std::move(why);
  throw ConfigError(std::move(msg));
}

}  // namespace attnlab
