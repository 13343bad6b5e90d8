// attnlab exercise: list, show and check the exercises, JSON on stdout. The shipped exercises
// are embedded (core's shipped_exercise_sources, from sample_inputs/exercises); the teachers'
// folder ($XDG_DATA_HOME/attnlab/exercises) and every --folder are added to them.
#include <nlohmann/json.hpp>

#include <iostream>
#include <memory>

#include "cli_common.h"
#include "exercises/exercises.h"
#include "text/errors.h"

namespace attnlab::cli {

namespace {

struct ExerciseArgs {
  bool list = false;
  std::string show, check, solution, answer, lang = "en";
  int attempt = 1;
  std::vector<std::string> folders;
};

std::vector<Exercise> load_all(const ExerciseArgs& a) {
  std::vector<ExerciseSource> sources = shipped_exercise_sources();
  const std::string user = user_exercise_folder();
  if (!user.empty())
    for (auto& s : read_exercise_folder(user, true)) sources.push_back(std::move(s));
  for (const auto& dir : a.folders)
    for (auto& s : read_exercise_folder(dir)) sources.push_back(std::move(s));
  return load_exercises(sources);
}

const Exercise& need(const std::vector<Exercise>& all, const std::string& option, const std::string& id) {
  if (const Exercise* e = find_exercise(all, id)) return *e;
  throw ConfigError(Text(Msg::cli_no_exercise, option, id));
}

template <typename Json>
void print(const Json& j) {
  std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << std::endl;
}

// The options' combination (what can be known without reading an exercise).
void check_exercise(const CLI::App& sub, const ExerciseArgs& a) {
  const int modes = int(a.list) + int(sub.count("--show") > 0) + int(sub.count("--check") > 0) +
                    int(sub.count("--solution") > 0);
  if (modes != 1) throw ConfigError(Text(Msg::cli_exercise_one_mode));
  if (sub.count("--check") && !sub.count("--answer")) throw ConfigError(Text(Msg::cli_check_needs_answer));
  if (!sub.count("--check") && sub.count("--answer")) throw ConfigError(Text(Msg::cli_answer_only_with_check));
  if (sub.count("--attempt") && !sub.count("--check")) throw ConfigError(Text(Msg::cli_attempt_only_with_check));
  parse_lang(a.lang);
}

void run_exercise(const CLI::App& sub, const ExerciseArgs& a) {
  check_exercise(sub, a);
  const Lang lang = parse_lang(a.lang);
  const std::vector<Exercise> all = load_all(a);

  if (a.list) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& e : all)
      out.push_back(
          {{"id", e.id}, {"title", e.title.in(lang)}, {"kind", exercise_kind_name(e.kind)}, {"level", e.level}});
    print(out);
  } else if (sub.count("--show")) {
    print(student_view(need(all, "--show", a.show), lang));
  } else if (sub.count("--check")) {
    const Exercise& e = need(all, "--check", a.check);
    const CheckResult r = check_answer(e, a.answer, a.attempt, lang);
    print(nlohmann::ordered_json{{"id", e.id}, {"correct", r.correct}, {"feedback", r.feedback}});
  } else {
    const Exercise& e = need(all, "--solution", a.solution);
    print(nlohmann::ordered_json{{"id", e.id}, {"answer", solution(e)}});
  }
}

}  // namespace

void add_exercise_command(CLI::App& app, Chosen& chosen) {
  auto args = std::make_shared<ExerciseArgs>();
  CLI::App* sub = app.add_subcommand("exercise", "list, show and check the exercises; prints JSON");
  sub->add_flag("--list", args->list, "every exercise as {id, title, kind, level}");
  sub->add_option("--show", args->show, "the exercise ID as a learner sees it");
  sub->add_option("--check", args->check, "check --answer for the exercise ID: {id, correct, feedback}");
  sub->add_option("--answer", args->answer, "the learner's answer (with --check)");
  sub->add_option("--attempt", args->attempt, "which try this is (with --check; picks the hint, default 1)")
      ->transform(decimal_in(1, 1000000));
  sub->add_option("--solution", args->solution, "for teachers: the computed correct answer of the exercise ID");
  sub->add_option("--lang", args->lang, "en|zh (default en)");
  sub->add_option("--folder", args->folders, "a folder of extra exercise files (*.json); repeat for more");
  sub->callback([sub, args, &chosen] {
    chosen.check = [sub, args] { check_exercise(*sub, *args); };
    chosen.run = [sub, args] { run_exercise(*sub, *args); };
  });
}

}  // namespace attnlab::cli
