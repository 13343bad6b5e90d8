// A lesson saved to disk (`.attnlab`, JSON): the sentences, the model configuration, the step on
// show and the window's computation settings. Seeded weights are not stored: they follow from the
// configuration and its seed (weights.h), so a session reproduces the same trace bit for bit.
// Imported weights (.safetensors) are either referenced by path or embedded (base64).
// Format and rules: docs/sessions.md. Qt-free, so that the reader can be fuzzed.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "backend/backend.h"
#include "model/config.h"

namespace attnlab {

constexpr int kSessionVersion = 2;                // the newest this build reads; it writes 2 only with weights
constexpr size_t kMaxSessionBytes = 16u << 20;    // a session is small; anything larger is refused

// A lesson's words, for the sample gallery: English and Simplified Chinese ("" = none).
struct LessonText {
  std::string en, zh;
  bool empty() const { return en.empty() && zh.empty(); }
};

// Weights imported from a .safetensors file: referenced (`file`, relative to the session's folder
// or absolute) or embedded (`bytes`, the whole file). Neither: seeded weights.
struct SessionWeights {
  std::string name;   // the file's name, for people
  std::string file;
  std::string bytes;
  // A checkpoint folder in Hugging Face's layout (core/pretrained), relative to the session's folder
  // or absolute; then neither `file` nor `bytes`.
  std::string model_folder;
  bool prepend_bos = false;  // with model_folder: GPT-2's <|endoftext|> before each text (pretrained_batch)
  bool empty() const { return file.empty() && bytes.empty() && model_folder.empty(); }
};

// The Training panel's run (docs/sessions.md "training"): the recorded run it replays — the
// shipped induction run (kShippedRun) or a recorded-run folder, relative to the session's folder
// or absolute (a live run is saved as such a folder beside the session) — and the timeline's step.
// The Training panel's ranges: its spin boxes' and what a session's knobs must keep to.
struct KnobRange {
  int64_t lo, hi;
};
inline constexpr KnobRange kKnobLayers{1, 4}, kKnobDModel{8, 512}, kKnobHeads{1, 16}, kKnobBatch{1, 512},
    kKnobSteps{1, 1000000}, kKnobSeed{0, 1000000};
inline constexpr double kKnobLrMin = 1e-4, kKnobLrMax = 0.1;

// The Training panel's knobs (docs/sessions.md "training.knobs"), each within the panel's range.
struct SessionKnobs {
  std::string task;  // a training task's name ("induction", …); "" = not saved
  int64_t layers = 2, d_model = 128, heads = 4, batch = 32, steps = 1000, seed = 0;
  std::string norm = "pre";  // "pre" | "post"
  bool attention_only = false, scaling = true;
  double lr = 1e-3;
  std::string text_file;  // the text task's file as picked ("" = none)
  bool empty() const { return task.empty(); }
  bool operator==(const SessionKnobs&) const = default;
};

// The Predictions panel's "append and continue" controls (docs/sessions.md "view.sampling"), each
// within the panel's range: temperature 0 … 100, top-k 0 (all) … 10⁶, top-p 0.01 … 1, seed 0 … 10⁶.
inline constexpr KnobRange kSamplingTopK{0, 1000000}, kSamplingSeed{0, 1000000};
inline constexpr double kSamplingTemperatureMax = 100, kSamplingTopPMin = 0.01;
struct SessionSampling {
  double temperature = 1, top_p = 1;
  int64_t top_k = 0, seed = 0;
  bool operator==(const SessionSampling&) const = default;
};

struct SessionTraining {
  std::string run;    // "" = the panel had no run
  int64_t step = -1;  // the timeline's step (the latest snapshot at or before it); −1 = the last
  SessionKnobs knobs;
  std::string kept;   // the run kept for comparison, written as `run` is ("" = none)
  bool empty() const { return run.empty() && knobs.empty() && kept.empty(); }
};
inline constexpr std::string_view kShippedRun = "shipped:induction";

constexpr size_t kMaxEmbeddedWeightsBytes = 8u << 20;  // larger files are referenced instead

struct Session {
  std::vector<std::string> texts;         // the batch, one sentence each
  std::vector<std::string> memory_texts;  // cross-attention sources (empty: encoder only)
  ModelConfig cfg;                        // faults are not saved (an exercise plants them)
  std::string step;                       // step id on show ("" = the first)
  BackendKind backend = BackendKind::Cpu;
  int64_t memory_budget_mib = 4096;
  std::string view_tab;                   // the step panel's tab: values, lines, model, neuron, masks, charts, gradients ("" = values)
  int64_t sentence = 0, head = 0;         // the sentence and head on show (0-based; clamped when shown)
  std::string loss;                       // the backward pass's loss (loss.h names: "sum", "next-token", …), "" = none
  std::vector<std::string> answers;       // loss "per-position": one answer per sentence
  std::string ablate;  // heads knocked out, "1.3,cross.0.1" (explain/head_ablation.h parse_heads); "" = none
  std::string ablate_mode;  // how: "zero" or "mean" (explain::AblateMode); "" = zero
  SessionSampling sampling;  // written only when it is not the defaults
  SessionWeights weights;
  SessionTraining training;
  LessonText title, description;          // lessons in sample_inputs/lessons have them
};

std::string session_json(const Session& s);  // pretty-printed UTF-8 JSON

// Throws DataError naming `origin` (the file) and what is wrong: not JSON, not a session, a
// session from a newer version, a missing or mistyped field, a configuration that cannot run.
Session parse_session(std::string_view text, const std::string& origin);

}  // namespace attnlab
