// libFuzzer target for the exercise loader: any bytes must either load or raise ExerciseError
// naming the file (never crash, hang or read out of bounds); whatever loads must be solvable (its
// computed answer checks as correct) and must survive any answer, in both languages.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "exercises/exercises.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace attnlab;
  const std::string text(reinterpret_cast<const char*>(data), size);
  Exercise ex;
  try {
    ex = parse_exercise(text, "fuzz.json");
  } catch (const ExerciseError& e) {
    if (std::string(e.what()).rfind("fuzz.json: ", 0) != 0) std::abort();
    return 0;
  }
  if (!check_answer(ex, solution(ex), 1, Lang::En).correct) std::abort();
  for (Lang l : {Lang::En, Lang::Zh}) {
    check_answer(ex, text.substr(0, 256), 2, l);  // the input itself as a (mostly wrong) answer
    check_answer(ex, "", 100, l);
    (void)student_view(ex, l).dump(-1, ' ', false, nlohmann::json::error_handler_t::strict);
  }
  return 0;
}
