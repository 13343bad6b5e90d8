// Exercises: their names, the folders and the shipped set they are loaded from (exercise_parse.cpp
// reads one file; exercise_check.cpp checks an answer).
#include "exercises/exercises.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "io/files.h"
#include "shipped_exercises.h"  // generated: sample_inputs/exercises embedded

namespace attnlab {

// ----------------------------------------------------------------------------- names

std::string_view exercise_kind_name(ExerciseKind k) {
  switch (k) {
    case ExerciseKind::PredictShape: return "predict_shape";
    case ExerciseKind::FindBug: return "find_bug";
    case ExerciseKind::FixMask: return "fix_mask";
    case ExerciseKind::FindHead: return "find_head";
  }
  return "?";
}

Lang parse_lang(std::string_view s) {
  if (s == "en") return Lang::En;
  if (s == "zh") return Lang::Zh;
  throw ConfigError(verbatim("--lang: ") + Text(Msg::not_one_of, s, "en, zh"));
}

std::string_view lang_name(Lang l) { return l == Lang::Zh ? "zh" : "en"; }

std::string_view shape_ask_name(ShapeAsk a) {
  switch (a) {
    case ShapeAsk::Shape: return "shape";
    case ShapeAsk::Strides: return "strides";
    case ShapeAsk::Contiguous: return "contiguous";
  }
  return "?";
}

const StepFacts* Exercise::step(std::string_view sid) const {
  for (const auto& s : steps)
    if (s.id == sid) return &s;
  return nullptr;
}

Batch setup_batch(const ExerciseSetup& s) {
  return make_batch(s.texts, s.memory_texts, s.weights ? s.weights->vocab().get() : nullptr);
}

// ----------------------------------------------------------------------------- loading


std::vector<ExerciseSource> read_exercise_folder(const std::string& dir, bool optional,
                                                 std::vector<Text>* problems) {
  namespace fs = std::filesystem;
  std::vector<ExerciseSource> out;
  std::error_code ec;
  const auto st = fs::status(dir, ec);
  if (!fs::is_directory(st)) {
    if (optional && !fs::exists(st)) return out;
    throw ExerciseError(Text(fs::exists(st) ? Msg::ls_folder_not_a_folder : Msg::ls_folder_no_such_folder,
                             printable_name(dir)));
  }
  std::vector<fs::path> files;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code kind;
    if (it->path().extension() == ".json" && !it->is_directory(kind)) files.push_back(it->path());
  }
  if (ec) throw ExerciseError(Text(Msg::ls_cannot_list_folder, printable_name(dir), ec.message()));
  std::sort(files.begin(), files.end());
  for (const auto& p : files) {
    const std::string name = (fs::path(dir) / p.filename()).string();
    try {  // a FIFO, a device or a huge file among them is refused by name, never read
      out.push_back({name, read_regular_file(p.string(), kMaxExerciseFileBytes, Msg::exercise_file)});
    } catch (const DataError& e) {
      if (!problems) throw ExerciseError(e.text());
      problems->push_back(e.text());
    }
  }
  return out;
}

std::vector<ExerciseSource> shipped_exercise_sources() {
  std::vector<ExerciseSource> out;
  for (const auto& [name, text] : kShippedExercises) out.push_back({std::string("sample_inputs/exercises/") + name, text});
  return out;
}

std::vector<Exercise> load_exercises(const std::vector<ExerciseSource>& sources) {
  std::vector<Exercise> all;
  for (const auto& src : sources) {
    Exercise ex = parse_exercise(src.text, src.name);
    if (const Exercise* other = find_exercise(all, ex.id))
      throw ExerciseError(verbatim(src.name + ": ") + Text(Msg::field_prefix, "id") +
                          Text(Msg::ls_id_already_used_by, ex.id, other->file));
    all.push_back(std::move(ex));
  }
  return all;
}

std::vector<Exercise> load_exercises(const std::string& folder) { return load_exercises(read_exercise_folder(folder)); }

std::string user_exercise_folder() {
  if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x) return std::string(x) + "/attnlab/exercises";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.local/share/attnlab/exercises";
  return "";
}

const Exercise* find_exercise(const std::vector<Exercise>& all, std::string_view id) {
  for (const auto& e : all)
    if (e.id == id) return &e;
  return nullptr;
}

}  // namespace attnlab
