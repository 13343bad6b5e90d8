// The training lab's engine: a trained-model-shaped encoder stack (embedding, positions, the
// layers under a causal mask, an output head over the task's vocabulary) trained step by step —
// a traced forward pass, the backward pass (backward/model_backward.h) from the per-position
// cross-entropy over the task's counted positions, clipping, the optimiser — with held-out
// evaluations and head scores. Deterministic from the seed.
//   B batch, S positions, D d_model, H heads, V vocabulary.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/config.h"
#include "model/weights.h"
#include "training/head_scores.h"
#include "training/optimizer.h"
#include "training/tasks.h"

namespace attnlab {

struct TrainSetup {
  TrainTask task = TrainTask::Induction;
  uint64_t seed = 0;   // the batches, the held-out set and the initial weights (model.seed = seed)
  ModelConfig model;   // every knob; mask causal unless set otherwise
  OptimizerConfig opt;
  int64_t steps = 1000;
  int64_t batch = 32;
  int64_t eval_count = 256;  // held-out sequences per evaluation
  std::shared_ptr<const TextCorpus> corpus;  // the text task's
};

// The per-task defaults (docs/cli.md "attnlab train"): model, optimiser, steps and batch.
TrainSetup default_setup(TrainTask task);

// The model's initial weights: the layers as init_weights (model/weights.h), embedding.weight
// (V, D) the normals of stream "param:embedding.weight" row by row with row 0 ([PAD]) zeros,
// output_head.weight (V, D) uniform(±√(3/D)) and output_head.bias (V) uniform(±1/√D) from their
// own "param:" streams.
Weights init_trained_weights(const ModelConfig& cfg, int64_t vocab_size);

struct ResumePoint;  // resume.h

struct StepStats {
  int64_t step = 0;      // steps done after this one (1 for the first)
  double loss = 0;       // the batch's loss before the update
  double grad_norm = 0;  // the gradients' global 2-norm before clipping
  double lr = 0;         // the learning rate the update used
};

struct Evaluation {
  int64_t step = 0;
  double loss = 0;               // held-out cross-entropy over the counted positions
  double accuracy = 0;           // scored positions (Example::scored) whose most probable token is the answer
  double sequence_accuracy = 0;  // sequences with every scored position right
  std::vector<std::vector<HeadScore>> heads;  // [layer][head]; empty for a tiled run
  // The best induction score of the last layer's heads … of every layer but the first (where an
  // induction head can be), and the best previous-token score of every layer; −1 when none.
  double best_induction() const;
  double best_previous() const;
  // Head scores were measured and include the induction score (the induction task, whole attention).
  bool has_induction() const { return !heads.empty() && !heads[0].empty() && heads[0][0].induction.has_value(); }
  // The phase change has happened by this evaluation: the best induction score passes 0.5.
  bool past_phase_change() const { return has_induction() && best_induction() > kPhaseChangeScore; }
  static constexpr double kPhaseChangeScore = 0.5;
};

class Trainer {
 public:
  explicit Trainer(TrainSetup s);
  // Continues from given weights (a snapshot, or a file with the task's vocabulary).
  Trainer(TrainSetup s, const Weights& start);
  // Goes on from a resume point (resume.h) as if training had never stopped, to `steps` in all
  // (−1: the run's own). `corpus`: the text task's, built again from the same text with the
  // point's text_vocab_size and text_max_len. ConfigError when steps is fewer than the steps done
  // or the corpus is another text's; DataError when the optimiser's state does not fit.
  Trainer(const ResumePoint& r, std::shared_ptr<const TextCorpus> corpus, int64_t steps = -1);

  StepStats step();
  Evaluation evaluate() const;
  bool done() const { return steps_done_ >= setup_.steps; }
  int64_t steps_done() const { return steps_done_; }

  const TrainSetup& setup() const { return setup_; }
  const ModelConfig& config() const { return setup_.model; }
  const TaskSource& source() const { return source_; }
  // The live weights (updated in place by step()); copy() for anything kept.
  const Weights& weights() const { return weights_; }
  // A deep copy of the weights with the vocabulary (task, mask, training_task set).
  Weights copy() const;
  // Where training stands now, as a resume point (deep copies). `corpus` of the setup is left out.
  ResumePoint resume_point() const;

 private:
  TrainSetup setup_;
  TaskSource source_;
  std::shared_ptr<const TrainedVocab> vocab_;
  Weights weights_;
  std::vector<std::string> names_;
  Optimizer opt_;
  int64_t steps_done_ = 0;
};

// A deep copy of w (fresh storage for every tensor), the vocabulary shared.
Weights clone_weights(const Weights& w);

}  // namespace attnlab
