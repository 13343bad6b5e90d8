// Small text tools shared by the exercise reader and the answer checker (core/exercises*.cpp).
// Internal to core: not part of the exercises interface.
#pragma once

#include <cstdint>
#include <optional>
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

// find_head (exercise_heads.cpp): a pattern by its file name; the names, comma-separated; a head
// as the learner names it ("1.2": layer 1, head 2, both from 0); a score with two decimals.
std::optional<HeadTrait> parse_head_trait(std::string_view s);
std::string head_trait_list();
std::string head_name(int layer, int head);
std::string score_text(double x);
// The candidate heads (the question's layer, or every layer), best score first.
struct RankedHead {
  int layer = 0, head = 0;
  double score = 0;
};
std::vector<RankedHead> ranked_heads(const FindHead& f);
// What is wrong with a learner's head, before the hint ("" and ok when right).
std::string check_head(const Exercise& ex, std::string_view answer, Lang l, bool& ok);
// After a right answer: every head that reaches at_least, with its score ("1.1 (0.71), …").
std::string head_summary(const FindHead& f, Lang l);

}  // namespace attnlab::exercise_text
