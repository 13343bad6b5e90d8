// The one list of what each attention variant records (variants_*.cpp record it): per kind, its
// steps in order, how often each is recorded, the tensor each holds and what the window does with
// it. The step count (count_steps), the exact trace estimate (memory.h), the variant panel's
// weights map and the step panel's heatmaps are all read from it; test_variants checks it against
// real traced runs.
//
// A step's id is variant_prefix(cfg) + round_prefix(round, i) + name:
//   "encoder.layers.0.variant.window.weights"      Once
//   "encoder.layers.0.variant.kv_cache.t3.k_cache"  EveryToken, token 3
//   "encoder.layers.0.variant.tiled.tile2.m"        EveryTile, key block 2
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/variant_config.h"
#include "tensor/tensor.h"

namespace attnlab {

// How often a step is recorded over T tokens.
enum class StepRound {
  Once,
  EveryToken,         // the KV cache: rounds 0 … T − 1, "t{i}."
  EveryTile,          // the tiled walk-through: key blocks 0 … ⌈T / tile⌉ − 1, "tile{j}."
  EveryTileButFirst,  // the same blocks from 1 on (the rescale: nothing to rescale after the first)
};

// What the window does with a step's tensor.
enum class StepRole {
  Values,   // a values view (a table or a colour map of a slice)
  Matrix,   // a (B, H, T, T) attention matrix, shown as per-head heatmaps
  Weights,  // the Matrix that stands for the variant's weights (the variant panel's right map)
};

// The sizes a step's tensor depends on: B sentences of T tokens, H heads, D = d_model.
struct StepSizes {
  int64_t b, t, h, d;
  const VariantConfig& cfg;
  int64_t dh() const { return d / h; }
};

struct VariantStep {
  std::string_view name;                              // the id's last part: "weights", "k_cache", "m"
  StepRound round;
  Shape (*shape)(const StepSizes& z, int64_t round);  // the tensor it holds in that round (0 for Once)
  StepRole role = StepRole::Values;
  bool matrix() const { return role != StepRole::Values; }
};

// The table: the steps `k` records, in the order it records them (a walk-through's rounds run
// round by round over its consecutive repeated steps). Empty for None.
std::span<const VariantStep> variant_steps(VariantKind k);

// "" (Once), "t" (EveryToken), "tile" (either tile kind): the word before a round's number.
std::string_view round_word(StepRound r);
// "" (Once), "t3." (EveryToken), "tile2." (either tile kind): the round's part of an id.
std::string round_prefix(StepRound r, int64_t i);
// The rounds [first, end) a step is recorded in over t tokens ([0, 1) for Once).
struct Rounds {
  int64_t first = 0, end = 1;
};
Rounds rounds_of(const VariantStep& s, const VariantConfig& v, int64_t t);

// Every step a run over t tokens records, in order: its id after variant_prefix, entry, round.
struct PlannedStep {
  std::string name;  // "weights", "t3.k_cache", "tile2.m"
  const VariantStep* step;
  int64_t round;
};
std::vector<PlannedStep> variant_plan(const VariantConfig& v, int64_t t);

// The entry (and round) a recorded step id belongs to: "….variant.{kind}.{round}{name}";
// nullopt for any other id.
struct StepMatch {
  VariantKind kind;
  const VariantStep* step;
  int64_t round;
};
std::optional<StepMatch> variant_step_of(std::string_view id);

// The name of the step whose (B, H, T, T) matrix stands for k's weights ("weights", "effective",
// "quadratic"); "" when none does (the KV cache's is assembled from its rows; tiled: none).
std::string_view variant_weights_step(VariantKind k);

// How many steps a variant records over t tokens.
int64_t variant_step_count(const VariantConfig& v, int64_t t);

// The floats a traced run's variant records (memory.h's exact estimate): b sentences of t tokens.
// Saturates (checked.h) instead of wrapping.
int64_t variant_trace_floats(const VariantConfig& v, int64_t b, int64_t t, int64_t heads, int64_t d_model);

// --- which steps are attention matrices -----------------------------------------------------
// Whether a recorded step is a (B, H, Tq, Tk) attention matrix, shown as per-head heatmaps
// (always 4-D). Two readings, one per place that asks:
enum class MatrixSteps {
  // A traced run's step on show (the step panel): the block's own qk, scores, masked_scores,
  // weights and weights_overview (forward/attention.cpp), and a variant's steps marked Matrix or
  // Weights in the table above (not its walk-throughs' partial blocks).
  Traced,
  // A faulty run beside the correct one (the run comparison): the block's qk, scores,
  // masked_scores, unmasked_weights (the mask_after_softmax fault's) and weights, by the id's end
  // alone. No variant runs beside a planted bug, so no variant step is ever compared.
  FaultPair,
};
bool is_attention_matrix(std::string_view id, const Tensor& t, MatrixSteps which);

}  // namespace attnlab
