// A training run's resume point: everything that training needs to go on from step t exactly as
// if it had never stopped — the setup (task, seed, every model knob, the optimiser's settings,
// batch, steps), the weights and the optimiser's state at t. Batches are drawn by step number
// (tasks.h), so a run resumed at t and trained to N gives the weights of an uninterrupted run of
// N steps bit for bit (the learning-rate schedule depends on N: a run given more steps when
// resumed follows the longer schedule from t on).
//
// The file (docs/cli.md "attnlab train", resume-NNNNNNNN.safetensors in a recorded-run folder): a
// safetensors file, F32, holding the parameters under their names, the optimiser's state as
// "exp_avg/<name>", "exp_avg_sq/<name>" (AdamW) or "momentum_buffer/<name>" (SGD), and in
// __metadata__ a whole weights file's fields (the model and its vocabulary) plus
// "training_resume": JSON {format "attnlab-training-resume/1", task, seed, steps, steps_done,
// batch, eval_count, optimizer {kind, lr, beta1, beta2, eps, momentum, weight_decay, clip, warmup,
// floor}, faults [ids], overview_cap, and for the text task text {vocab_size, max_len,
// fingerprint}}.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "model/weights.h"
#include "training/trainer.h"

namespace attnlab {

struct ResumePoint {
  TrainSetup setup;   // without the text corpus (the caller reads the text again)
  int64_t steps_done = 0;
  Weights weights;    // with the vocabulary
  std::vector<std::pair<std::string, Tensor>> optimizer;  // Optimizer::state(); empty at step 0
  // The text task's corpus: how it was built and its fingerprint (tasks.h); 0 and "" otherwise.
  int64_t text_vocab_size = 0, text_max_len = 0;
  std::string text_fingerprint;
};

// The file's bytes.
std::string serialize_resume(const ResumePoint& r);
// A resume point from the file's bytes; DataError naming `origin` and the field or tensor at
// fault (the weights checked as a weights file is).
ResumePoint parse_resume(const std::string& bytes, const std::string& origin);
// The file at `path`, read under the rules for every file (a regular file of at most 3 × the
// weights files' limit: the weights and two moments).
ResumePoint read_resume_file(const std::string& path);

// DIR's resume point, the file run.json names: DataError when it names none (Msg::tr_resume_none),
// or when the file's step is not run.json's steps_done.
ResumePoint read_run_resume(const std::string& dir);

}  // namespace attnlab
