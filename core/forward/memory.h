// What a traced run will hold in memory, known before it starts.
#pragma once

#include <cstdint>
#include <string>

#include "model/config.h"
#include "text/message.h"

namespace attnlab {

struct MemoryEstimate {
  int64_t trace_bytes = 0;    // every recorded tensor (views counted once)
  int64_t weights_bytes = 0;  // parameters, plus their serialised copy when exporting
  int64_t working_bytes = 0;  // transient buffers (one attention-sized tensor)
  int64_t total() const;  // saturates at INT64_MAX, as every field may (absurd sizes never wrap)
};

// b batch, s encoder length, t decoder length (0 unless cfg.cross), vocab the rows of the
// embedding table (distinct tokens + 1, or a trained model's vocabulary). `trained`: the model
// has an output head (its weights, logits and probabilities over the vocabulary are counted).
MemoryEstimate estimate_memory(const ModelConfig& cfg, int64_t b, int64_t s, int64_t t, int64_t vocab,
                               bool trained = false);

// The fast path (no trace) of an encoder stack, B b, S s, its mask given as key ranges: the
// weights once, and the largest working set of one layer: the stream and its projections,
// the FFN's hidden activations, and the attention's: the (B, H, S, S) scores (score_matrix;
// otherwise one tile per thread) and the (B, S, S) mask when the backend needs it dense.
struct FastPathMemory {
  bool score_matrix = true;
  bool dense_mask = true;
  int threads = 1;
};
MemoryEstimate estimate_fast_memory(const ModelConfig& cfg, int64_t b, int64_t s, FastPathMemory how);

// The estimate of a run on weights already loaded (a checkpoint, a trained file): e's weights
// part replaced by their parameters as held (Weights::held_bytes: a 16-bit checkpoint at 2 bytes
// a value, its kept widenings, a tied table once) instead of estimate_memory's 4 bytes a
// parameter twice; `serialised`: plus the F32 copy an export writes its bundle from (a tied table once,
// as the file holds it); `gradients`: plus one F32 gradient per parameter name (the backward gives
// a tied head its own copy of the table's sum); `beside`: bytes held next to the weights (the
// imported file the window keeps, knocked-out heads' copies: explain::ablation_copy_bytes). The
// trace and working parts are e's: a run with a backward applies with_gradients first (its
// tripled trace), then this, which replaces with_gradients' doubled weights.
struct LoadedWeightsUse {
  bool serialised = false;
  bool gradients = false;
  int64_t beside = 0;
};
class Weights;
MemoryEstimate with_loaded_weights(MemoryEstimate e, const Weights& w, LoadedWeightsUse use);

inline constexpr int64_t kMaxMemoryBudgetMiB = int64_t{1} << 30;  // --memory-budget 1 … 2^30 MiB

// Throws DataError when the estimate exceeds budget_mib, with both numbers and what to do.
// `advice`: what to do instead (the default, "shorten the text, use fewer layers or a smaller
// d_model", suits a traced run of typed text).
void check_memory_budget(const MemoryEstimate& e, int64_t budget_mib,
                         const Text& advice = Text(Msg::shorten_text_use_fewer_layers_smaller_d_model));

std::string format_mib(int64_t bytes);  // "12.3 MiB"

}  // namespace attnlab
