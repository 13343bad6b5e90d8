// What each attention head does, measured on a batch while a model trains: the scores that show a
// previous-token head and an induction head forming.
//   B batch, H heads, S positions.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "tensor/tensor.h"
#include "training/tasks.h"

namespace attnlab {

struct HeadScore {
  double previous = 0;  // mean weight from position i on i − 1 (real positions i ≥ 1)
  double self = 0;      // mean weight from position i on i
  double entropy = 0;   // mean over real rows of −Σ_j w·ln w (nats)
  // Induction sequences only: in the repeated run, the mean weight from the second occurrence of
  // a letter on the position right after its first occurrence.
  std::optional<double> induction;
};

// weights (B, H, S, S) of one layer for `batch`'s rows (their lengths give the real positions).
std::vector<HeadScore> head_scores(const Tensor& weights, const ExampleBatch& batch);

// The naive twin: the same definitions, one element at a time in double, for the tests.
std::vector<HeadScore> head_scores_naive(const Tensor& weights, const ExampleBatch& batch);

}  // namespace attnlab
