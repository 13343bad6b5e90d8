// A recorded training run (`attnlab train --snapshots DIR`, docs/cli.md "attnlab train"): DIR
// holds run.json — the task, the steps, every logged point of the curves, the snapshots' steps and
// files — and one weights file per snapshot. The window replays it without training; the shipped
// induction run (sample_inputs/runs/induction) is one.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "training/trainer.h"

namespace attnlab {

// One logged moment of a run: the step's batch loss and the held-out evaluation after it.
struct CurvePoint {
  int64_t step = 0;
  double loss = 0, lr = 0, grad_norm = 0;  // the step's batch: loss before the update, learning rate, norm before clipping
  Evaluation eval;
};

struct RunRecord {
  TrainTask task = TrainTask::Induction;
  uint64_t seed = 0;
  int64_t steps = 0, steps_done = 0, batch = 0;
  int64_t phase_change = -1;  // −1: none
  std::vector<CurvePoint> curves;
  std::vector<std::pair<int64_t, std::string>> snapshots;  // step, file name in the folder
  // resume_file_name(steps_done) when the folder holds the run's resume point (training/resume.h:
  // the weights and the optimiser's state at steps_done, so that training can go on); "" otherwise.
  std::string resume;
};

// "resume-NNNNNNNN.safetensors" (the step, 8 digits or more): a resumed run writes its new point
// beside the old one, then run.json, then removes the old one, so the folder is whole at every
// moment.
std::string resume_file_name(int64_t step);

// A record for a run of this setup (task, seed, steps, batch), nothing recorded yet.
RunRecord run_record_of(const TrainSetup& s);

// One progress line of `attnlab train` (step, loss, lr, held-out figures, heads, …; seconds when
// ≥ 0) and the run.json text.
std::string curve_point_json(const CurvePoint& p, double seconds = -1);
std::string run_record_json(const RunRecord& r, const TrainSetup& s);

// run.json's text → the record; DataError naming `origin` and the field: not JSON, another
// format, a missing or mistyped field, steps out of order, a snapshot file name that is not
// "step-NNNNNNNN.safetensors" (nothing outside the folder is ever named).
RunRecord parse_run_record(const std::string& text, const std::string& origin);
// DIR/run.json read under the file rules (a regular file of at most 64 MiB).
RunRecord read_run_record(const std::string& dir);

}  // namespace attnlab
