// The √d experiment with real gradients (the tutorial's reason for the scaling): the same input
// through the same weights with the scores divided by √Dh (the model), by √D (too much) and not at
// all, each run forward and backward from the same loss. Without the scaling the softmax
// saturates (one weight near 1 per row) once the dot products are large (a wide head), and the
// gradient of a saturated row collapses.
//   B batch, H heads, S tokens, Dh head width.
#pragma once

#include <string>
#include <vector>

#include "backward/loss.h"
#include "forward/model.h"
#include "model/config.h"
#include "model/weights.h"

namespace attnlab {

enum class ScoreScaling { ByHeadWidth, ByModelWidth, None };  // ÷√Dh, ÷√D, ÷1

struct ScalingRun {
  ScoreScaling scaling = ScoreScaling::ByHeadWidth;
  double divisor = 1;       // √Dh, √D or 1
  double saturated = 0;     // the share of real query rows whose largest weight is above 0.99
  double mean_max = 0;      // the mean over real query rows of their largest weight
  double grad_q = 0;        // ‖∂L/∂q‖ of the block (B, H, S, Dh)
  double grad_k = 0;        // ‖∂L/∂k‖
  double grad_scores = 0;   // ‖∂L/∂masked_scores‖: what the softmax lets through
  // The share of real query rows (of every head) whose ∂L/∂scores row has a norm below 1/100 of
  // the run's median row: the rows a saturated softmax starves. The total norms above can still
  // grow without the scaling (the other rows are no longer divided by √Dh); this does not.
  double starved = 0;
};

// One run per scaling, on `block` ("encoder.layers.0.self_attn"; its stack's first layer when
// empty) of the configuration without faults. Throws ConfigError as backward() does.
std::vector<ScalingRun> scaling_experiment(const ModelConfig& cfg, const Weights& w, const Batch& batch,
                                           LossKind loss, const std::string& block);

}  // namespace attnlab
