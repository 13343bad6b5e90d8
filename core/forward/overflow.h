// Finite weights can still overflow float32 in the forward pass (a weight of 1e38 times a few
// inputs is ∞, and ∞ − ∞ is NaN). Such a run must not show a page of NaN as if it were a result:
// this finds the step where it started and says so.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/trace.h"
#include "model/weights.h"

namespace attnlab {

struct Overflow {
  std::string step;                  // the id of the first step that made ∞ or NaN of finite inputs
  Text title;                        // its title
  std::vector<std::string> weights;  // the weights that step reads
};

// The first step (in recorded order) holding ∞ or NaN while every step it reads is finite.
// Expected non-finite numbers are not overflows: −∞ in a masked-scores step (masked_fill), and
// whatever follows from them (a row whose every key is masked has NaN weights, as in PyTorch).
std::optional<Overflow> first_overflow(const Trace& trace);

// Throws DataError naming the step, the weights it reads and their largest magnitude, when the
// traced run overflowed; nothing otherwise. Callers skip it for a run with planted faults, whose
// NaN (a softmax over the wrong axis, a mask after the softmax) is what the lesson shows.
void check_no_overflow(const Trace& trace, const Weights& w);

}  // namespace attnlab
