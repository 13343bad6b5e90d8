// Small text tools shared by the exercise reader and the answer checker (core/exercises*.cpp).
// Internal to core: not part of the exercises interface.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "exercises/exercises.h"

namespace attnlab::exercise_text {

std::string lower_ascii(std::string_view s);
// Full-width digits and punctuation (Chinese input methods) → ASCII.
std::string halfwidth(std::string_view s);
// Drops surrounding white space and sentence-final punctuation (ASCII and Chinese).
std::string trim(std::string s);
// A symptom keyword as an answer is compared: full-width folded, lower case, trimmed.
std::string keyword(std::string_view k);
std::string pick(Lang l, std::string en, std::string zh);
// True when `id` ends with ".<part>" ("encoder.layers.0.self_attn.scores" and "self_attn.scores").
bool ends_with_part(const std::string& id, const std::string& part);

}  // namespace attnlab::exercise_text
