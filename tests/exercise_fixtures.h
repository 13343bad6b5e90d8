// The shipped exercises as the exercise tests load them (from the source tree), and small helpers.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "exercises/exercises.h"

namespace attnlab::test {

inline const std::string kShipped = std::string(ATTNLAB_TEST_DATA) + "/../sample_inputs/exercises";

inline const std::vector<Exercise>& shipped() {
  static const std::vector<Exercise> all = load_exercises(kShipped);
  return all;
}

inline const Exercise& ex(const char* id) {
  const Exercise* e = find_exercise(shipped(), id);
  if (!e) throw std::runtime_error(std::string("no shipped exercise ") + id);
  return *e;
}

inline bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace attnlab::test
