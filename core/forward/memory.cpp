#include "forward/memory.h"

#include <algorithm>
#include <charconv>

#include "backend/attention_tiled.h"
#include "model/option_range.h"
#include "model/weights.h"
#include "tensor/checked.h"
#include "text/errors.h"
#include "variants/variant_table.h"

namespace attnlab {

namespace {

// Every size below is a Count (checked.h): absurd sizes saturate, "more than any budget", and
// never wrap to a small or negative estimate that would pass the budget.

// One score-sized tensor of an attention block: (B, H, Tq, Tk), or tiled (overview_cap) the
// weights' overview (B, H, R, C).
Count score_tensor_floats(const ModelConfig& c, bool tiled, Count b, int64_t tq, int64_t tk) {
  if (!tiled) return b * c.heads * tq * tk;
  const int64_t bq = overview_bin(tq, c.overview_cap), bk = overview_bin(tk, c.overview_cap);
  return b * c.heads * ((tq + bq - 1) / bq) * ((tk + bk - 1) / bk);
}

// What one attention block records of its scores: qk, scores, masked scores and weights; tiled,
// only the overview.
Count score_floats(const ModelConfig& c, bool tiled, Count b, int64_t tq, int64_t tk) {
  return Count(tiled ? 1 : 4) * score_tensor_floats(c, tiled, b, tq, tk);
}

// Distinct storage of one attention block with tq queries and tk keys (floats).
Count attention_floats(const ModelConfig& c, bool tiled, Count b, int64_t tq, int64_t tk) {
  const Count d = c.d_model;
  Count n = b * tq * d + Count(2) * b * tk * d;  // q/k/v projections (views and transposes share them)
  n += score_floats(c, tiled, b, tq, tk);             // qk, scores, masked scores, weights (or the overview)
  n += b * tq * d;                               // head_out (merge_transpose is a view of it)
  if (c.heads > 1 && tq > 1) n += b * tq * d;    // merge_contiguous copies only when the transpose is strided
  n += b * tq * d;                               // output projection (context is a view)
  return n;
}

Count ffn_floats(const ModelConfig& c, Count b, int64_t t) {
  return c.ffn ? Count(2) * b * t * c.d_ff + b * t * c.d_model : Count(0);
}

Count embed_floats(const ModelConfig& c, Count b, int64_t len) {
  Count n = b * len + b * len * c.d_model;  // ids, embedding
  if (c.positional != Positional::None) n += Count(len) * c.d_model + b * len * c.d_model;  // pe, input
  return n;
}

int64_t bytes(Count floats) { return (floats * 4).value(); }

}  // namespace

int64_t MemoryEstimate::total() const { return (Count(trace_bytes) + weights_bytes + working_bytes).value(); }

MemoryEstimate estimate_memory(const ModelConfig& c, int64_t b_, int64_t s, int64_t t, int64_t vocab, bool trained) {
  const Count b = b_, d = c.d_model;
  Count f = Count(vocab) * d + embed_floats(c, b, s) + b * s * s;  // table, encoder input, mask
  // Each stack's layers: those traced tiled (the overview) and those in full (every score step).
  const int64_t tiled = c.tiled_layers(), full = c.layers - tiled;
  const bool any_full = full > 0;  // the working set holds a full score tensor
  // n layers, each of them tiled or not (n = 0: nothing, and no overview bin of a cap of 0)
  const auto layers = [](int64_t n, const auto& one, bool t) { return n > 0 ? Count(n) * one(t) : Count(0); };
  const auto enc_layer = [&](bool t) {  // 2 norms + 2 residuals
    return attention_floats(c, t, b, s, s) + ffn_floats(c, b, s) + Count(4) * b * s * d;
  };
  f += layers(tiled, enc_layer, true) + layers(full, enc_layer, false);
  Count largest = score_tensor_floats(c, !any_full, b, s, s);
  if (c.cross) {
    f += embed_floats(c, b, t) + b * t * t + b * t * s;
    const auto dec_layer = [&](bool tl) {
      return attention_floats(c, tl, b, t, t) + attention_floats(c, tl, b, t, s) + ffn_floats(c, b, t) +
             Count(6) * b * t * d;
    };
    f += layers(tiled, dec_layer, true) + layers(full, dec_layer, false);
    largest = max(largest, max(score_tensor_floats(c, !any_full, b, t, t), score_tensor_floats(c, !any_full, b, t, s)));
  }
  // Heads of tiled layers kept whole (full_heads): (B, 1, Tq, Tk) in each attention of the layer.
  const Count whole = c.traces_overview() ? Count(static_cast<int64_t>(c.full_heads.size())) : Count(0);
  f += whole * b * s * s + (c.cross ? whole * (b * t * t + b * t * s) : Count(0));
  if (c.final_norm) f += b * s * d + (c.cross ? b * t * d : Count(0));  // {stack}.norm
  if (c.token_types > 0) f += Count(s) * d;                  // encoder.token_type (S, D)
  if (c.embedding_norm) f += b * s * d;                      // the sum before the embedding LayerNorm
  if (c.head_transform && trained) f += Count(3) * b * s * d;  // transform, its activation, its LayerNorm
  if (trained) f += Count(2) * b * (c.cross ? t : s) * vocab;  // logits and probabilities
  if (c.traces_variant()) f += variant_trace_floats(c.variant, b_, s, c.heads, c.d_model);
  MemoryEstimate e;
  e.trace_bytes = bytes(f);
  e.weights_bytes = bytes(Count(2) * (Count(parameter_count(c)) + (trained ? Count(vocab) * (Count(2) * d + 1) : Count(0))));
  e.working_bytes = bytes(max(largest, b * std::max(s, t) * c.d_ff));
  return e;
}

MemoryEstimate estimate_fast_memory(const ModelConfig& c, int64_t b_, int64_t s, FastPathMemory how) {
  const Count b = b_, d = c.d_model;
  const int64_t dh = c.d_model / std::max<int64_t>(c.heads, 1);
  const Count stream = Count(8) * b * s * d;  // input, norm, q, k, v, head outputs, merged, projected
  const Count ffn = Count(2) * b * s * c.d_ff + b * s * d;
  const TileSizes t;  // per thread: a score block, an output block, the running m, l and rescale
  Count scores = how.score_matrix ? b * c.heads * s * s
                                  : Count(how.threads) * (Count(t.queries) * t.keys + Count(t.queries) * dh + Count(3) * t.queries);
  if (how.dense_mask) scores += b * s * s;
  MemoryEstimate e;
  e.weights_bytes = bytes(parameter_count(c));
  e.working_bytes = bytes(max(stream + scores, stream + ffn) + Count(2) * b * s);  // + the ranges
  return e;
}

MemoryEstimate with_loaded_weights(MemoryEstimate e, const Weights& w, LoadedWeightsUse use) {
  Count held = Count(w.held_bytes()) + Count(use.beside);
  if (use.serialised) held += Count(w.f32_bytes());
  if (use.gradients) {
    const Count table = w.head_tied() ? Count(numel_of(w.shape("embedding.weight"))) * 4 : Count(0);
    held += Count(w.f32_bytes()) + table;
  }
  e.weights_bytes = held.value();
  return e;
}

std::string format_mib(int64_t bytes) {
  char buf[32];  // to_chars: a '.' whatever the locale
  const auto r = std::to_chars(buf, buf + sizeof buf, static_cast<double>(bytes) / (1024.0 * 1024.0),
                               std::chars_format::fixed, 1);
  return std::string(buf, r.ptr) + " MiB";
}

void check_memory_budget(const MemoryEstimate& e, int64_t budget_mib, const Text& advice) {
  require_in_range("--memory-budget", budget_mib, 1, kMaxMemoryBudgetMiB);
  const Text option = verbatim("--memory-budget: ");
  if (e.total() <= budget_mib * 1024 * 1024) return;  // at most 2^50: no overflow
  Text t = option + Text(Msg::run_needs_about, format_mib(e.total()));
  if (e.trace_bytes > 0) t += Text(Msg::memory_trace_part, format_mib(e.trace_bytes));
  t += Text(Msg::weights_working, format_mib(e.weights_bytes), format_mib(e.working_bytes));
  throw DataError(std::move(t) + Text(Msg::more_than_budget_mib, budget_mib) + advice + Text(Msg::raise_memory_budget));
}

}  // namespace attnlab
