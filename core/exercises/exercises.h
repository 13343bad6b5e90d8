// Exercises: predict a shape, find a planted bug, build a mask, find the head that does
// something. One JSON file per exercise (docs/exercises.md). A file states the question; the
// answer is computed by running the engine on the exercise's setup (the real shape, strides and
// contiguity of a step; the steps a fault changes; the cells a causal or padding mask hides; the
// heads whose measured score reaches the question's threshold), never stored in the file.
//
// Shapes: B batch, S source length, T target length, D d_model, H heads, Dh = D/H, F d_ff; a
// mask exercise is an n × n grid (rows = queries, columns = keys), positions counted from 1.
#pragma once

#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backward/loss.h"
#include "forward/model.h"
#include "model/config.h"
#include "model/faults.h"
#include "tensor/tensor.h"
#include "text/errors.h"
#include "text/message.h"

namespace attnlab {

enum class ExerciseKind { PredictShape, FindBug, FixMask, FindHead };
enum class Lang { En, Zh };

std::string_view exercise_kind_name(ExerciseKind k);  // "predict_shape", "find_bug", "fix_mask", "find_head"
Lang parse_lang(std::string_view s);                   // "en" | "zh"; throws ConfigError
std::string_view lang_name(Lang l);

// A text in both languages.
struct LocalText {
  std::string en, zh;
  const std::string& in(Lang l) const { return l == Lang::Zh ? zh : en; }
};

// The model an exercise runs: sentences and a configuration (faults empty: the correct model).
struct ExerciseSetup {
  std::vector<std::string> texts, memory_texts;  // memory_texts non-empty: cross-attention
  ModelConfig config;
  std::optional<LossKind> loss;  // "loss": "sum": the backward pass's gradient steps too
  // "model": a shipped trained model (io/shipped_models.h) by name; its file gives the
  // configuration, the weights and the vocabulary. Empty: seeded weights from `config`.
  std::string model;
  std::shared_ptr<const Weights> weights;  // the shipped model's, or null
};

enum class ShapeAsk { Shape, Strides, Contiguous };
std::string_view shape_ask_name(ShapeAsk a);  // "shape", "strides", "contiguous"

struct PredictShape {
  std::string step;  // a step id of the setup's trace
  ShapeAsk ask = ShapeAsk::Shape;
};

struct FindBug {
  Fault fault = Fault::NoScaling;
  std::string faulty_step;          // the canonical answer: a step the faulty run marks
  bool accept_block = false;        // naming the step's block ("…self_attn") also counts
  std::vector<std::string> symptoms;  // keywords of both languages, matched case-insensitively
  std::vector<std::string> marked;    // computed: every step the faulty run marks with the fault
  std::vector<std::string> steps;     // computed: the faulty run's step ids (what a learner sees)
};

// One rule of a mask exercise. rows / cols are 0-based (an attnlab-exercise/1 file's 1-based
// positions are read one lower); empty means every row / every column.
struct MaskRule {
  enum class Type { Hide, Show, Causal, Padding, Window, Self } type = Type::Hide;
  std::vector<int> rows, cols;  // Hide, Show
  int length = 0;               // Padding: keys after this position are hidden from every row
  int before = 0, after = 0;    // Window: row i sees keys i − before … i + after only
};

struct FixMask {
  int size = 0;                     // n
  std::vector<std::string> labels;  // n token labels (setup's first sentence, given, or "0"…"n−1")
  std::string start;                // the grid shown first, as "1111/…"
  std::vector<MaskRule> rules;
  bool others_free = false;         // cells no rule names may be 0 or 1 (default: must stay 1)
  // Computed: per cell 0 (must be hidden), 1 (must be visible) or -1 (free); row-major n × n.
  std::vector<int> required;
};

// What a head does, measured on the setup's sentences over real positions i (docs/exercises.md):
//   previous_token  mean weight from i on i − 1 (i ≥ 1)
//   self            mean weight from i on i
//   first_token     mean weight from i on position 0 (i ≥ 1)
//   same_token      the weight from i on earlier positions holding i's token (where there is one)
//   induction       the weight from i on the positions right after an earlier copy of i's token
//                   (where there is one before i)
// A token the model reads as [UNK] matches nothing.
enum class HeadTrait { PreviousToken, Self, FirstToken, SameToken, Induction };
std::string_view head_trait_name(HeadTrait p);

// A head is right when its score reaches at_least; the question is clear when every other
// candidate scores below at_least − margin (checked when the file is read).
struct FindHead {
  HeadTrait pattern = HeadTrait::PreviousToken;
  std::optional<int> layer;  // the question names the layer (0-based); absent: any layer
  double at_least = 0.5, margin = 0.1;
  // Computed: scores[layer][head] over the encoder's self-attention weights; the best head (the
  // solution shown by Reveal).
  std::vector<std::vector<double>> scores;
  int best_layer = 0, best_head = 0;
  bool accepts(int layer_, int head) const;  // a candidate whose score reaches at_least
};

// scores[l][h] of `p` from the trace's encoder.layers.{l}.self_attn.weights (B, H, S, S) over the
// batch's real positions; NaN for a layer where no position qualifies.
std::vector<std::vector<double>> head_trait_scores(const Trace& trace, const Batch& batch, HeadTrait p,
                                                     int64_t layers, const TrainedVocab* vocab);

// What the clean run recorded for one step.
struct StepFacts {
  std::string id;
  Text title;  // the step's title (StepInfo::title)
  Shape shape, strides;
  bool contiguous = true;
  std::vector<std::string> inputs;
};

struct Exercise {
  std::string id, file;  // file: where it was loaded from, as errors name it
  ExerciseKind kind = ExerciseKind::PredictShape;
  int level = 1;         // 1 (easy) … 5 (hard)
  LocalText title, goal, explanation;
  std::vector<LocalText> hints;
  bool has_setup = false;  // always true except for a fix_mask without a model
  ExerciseSetup setup;
  PredictShape predict;
  FindBug bug;
  FixMask mask;
  FindHead head;
  std::vector<StepFacts> steps;  // computed: every step of the setup's clean run, in order

  const StepFacts* step(std::string_view id) const;
};

// A file's problem: "<file>: field \"title.zh\": missing". Exit status 1 on the command line.
struct ExerciseError : DataError {
  using DataError::DataError;
};

// One exercise file's text and the name errors use for it.
struct ExerciseSource {
  std::string name, text;
};

// Parses and validates one exercise (runs the engine on its setup). Throws ExerciseError.
Exercise parse_exercise(std::string_view json_text, const std::string& file);

// Every *.json of a folder, sorted by name; name = dir + "/" + file name. A missing folder gives
// an empty list when optional, otherwise ExerciseError. A file that cannot be read — not a
// regular file (a FIFO, a device), over 1 MiB, unreadable — is an ExerciseError naming it, or,
// given `problems`, that message is appended there and the file skipped (the window lists them).
std::vector<ExerciseSource> read_exercise_folder(const std::string& dir, bool optional = false,
                                                 std::vector<Text>* problems = nullptr);
// The exercises shipped with the program (sample_inputs/exercises, embedded at build time), by
// name "sample_inputs/exercises/<file>", sorted.
std::vector<ExerciseSource> shipped_exercise_sources();
// Parses every source in order; two exercises with one id are refused, naming both files.
std::vector<Exercise> load_exercises(const std::vector<ExerciseSource>& sources);
std::vector<Exercise> load_exercises(const std::string& folder);
// The teachers' drop-in folder: $XDG_DATA_HOME/attnlab/exercises, else
// $HOME/.local/share/attnlab/exercises; empty when neither variable is set.
std::string user_exercise_folder();
const Exercise* find_exercise(const std::vector<Exercise>& all, std::string_view id);

// The setup's batch and configuration, for running it (add a fault to cfg.faults for find_bug).
Batch setup_batch(const ExerciseSetup& s);

struct CheckResult {
  bool correct = false;
  std::string feedback;  // right: the explanation; wrong: what is off, then a hint
  int hint = -1;         // index of the hint shown, -1 when none
};

// attempt: 1 for the first try; a wrong answer shows hint min(attempt, count) − 1.
CheckResult check_answer(const Exercise& ex, std::string_view answer, int attempt, Lang lang);
// The computed correct answer in its plain form ("(2, 4, 6, 8)", "no", "<step> <symptom>",
// "1000/1100/…", "1.2" for layer 1 head 2).
std::string solution(const Exercise& ex);
// The exercise as a learner sees it (no answer, no fault, no explanation, hints only counted):
// id, kind, level, title, goal, hint_count, points, answer_format, setup (with the tokens) and
// task (predict_shape: step, step_title, ask, inputs; find_bug: steps; fix_mask: size, labels,
// start; find_head: pattern, layer, layers, heads, step). docs/exercises.md lists every field.
nlohmann::json student_view(const Exercise& ex, Lang lang);
// Points for a solved exercise: 10 · level, less 2 per wrong attempt before it, at least level.
int exercise_points(int level, int wrong_attempts);

// Lenient readers, exposed for tests and the GUI. read_dims: every integer in the text
// ("(2, 8, 5, 8)", "[2,8,5,8]", "2 8 5 8", "2×8×5×8"); empty when there is none.
std::vector<int64_t> read_dims(std::string_view text);
// yes/no/true/false/y/n/1/0/是/否/连续/不连续/contiguous/not contiguous; -1 when unreadable.
int read_yes_no(std::string_view text);
// Rows of 0/1 ("1100/1110/1111", one row per line, "[[1,1,0],[1,1,1]]"); empty when unreadable.
std::vector<std::string> read_mask_rows(std::string_view text);

}  // namespace attnlab
