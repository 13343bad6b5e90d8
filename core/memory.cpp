#include "memory.h"

#include <algorithm>
#include <cstdio>

#include "attention_tiled.h"
#include "errors.h"
#include "variants.h"
#include "weights.h"

namespace attnlab {

namespace {

// One score-sized tensor of an attention block: (B, H, Tq, Tk), or tiled (overview_cap) the
// weights' overview (B, H, R, C).
int64_t score_tensor_floats(const ModelConfig& c, int64_t b, int64_t tq, int64_t tk) {
  if (!c.traces_overview()) return b * c.heads * tq * tk;
  const int64_t bq = overview_bin(tq, c.overview_cap), bk = overview_bin(tk, c.overview_cap);
  return b * c.heads * ((tq + bq - 1) / bq) * ((tk + bk - 1) / bk);
}

// What one attention block records of its scores: qk, scores, masked scores and weights; tiled,
// only the overview.
int64_t score_floats(const ModelConfig& c, int64_t b, int64_t tq, int64_t tk) {
  return (c.traces_overview() ? 1 : 4) * score_tensor_floats(c, b, tq, tk);
}

// Distinct storage of one attention block with tq queries and tk keys (floats).
int64_t attention_floats(const ModelConfig& c, int64_t b, int64_t tq, int64_t tk) {
  const int64_t d = c.d_model, h = c.heads;
  int64_t n = b * tq * d + 2 * b * tk * d;  // q/k/v projections (views and transposes share them)
  n += score_floats(c, b, tq, tk);          // qk, scores, masked scores, weights (or the overview)
  n += b * tq * d;                          // head_out (merge_transpose is a view of it)
  if (h > 1 && tq > 1) n += b * tq * d;     // merge_contiguous copies only when the transpose is strided
  n += b * tq * d;                          // output projection (context is a view)
  return n;
}

int64_t ffn_floats(const ModelConfig& c, int64_t b, int64_t t) { return 2 * b * t * c.d_ff + b * t * c.d_model; }

int64_t embed_floats(const ModelConfig& c, int64_t b, int64_t len) {
  int64_t n = b * len + b * len * c.d_model;  // ids, embedding
  if (c.positional == Positional::Sinusoidal) n += len * c.d_model + b * len * c.d_model;  // pe, input
  return n;
}

}  // namespace

MemoryEstimate estimate_memory(const ModelConfig& c, int64_t b, int64_t s, int64_t t, int64_t vocab, bool trained) {
  const int64_t d = c.d_model;
  int64_t f = vocab * d + embed_floats(c, b, s) + b * s * s;  // table, encoder input, mask
  const int64_t enc_layer = attention_floats(c, b, s, s) + ffn_floats(c, b, s) + 4 * b * s * d;  // 2 norms + 2 residuals
  f += c.layers * enc_layer;
  int64_t largest = score_tensor_floats(c, b, s, s);
  if (c.cross) {
    f += embed_floats(c, b, t) + b * t * t + b * t * s;
    const int64_t dec_layer =
        attention_floats(c, b, t, t) + attention_floats(c, b, t, s) + ffn_floats(c, b, t) + 6 * b * t * d;
    f += c.layers * dec_layer;
    largest = std::max({largest, score_tensor_floats(c, b, t, t), score_tensor_floats(c, b, t, s)});
  }
  if (trained) f += 2 * b * (c.cross ? t : s) * vocab;  // logits and probabilities
  if (c.traces_variant()) f += variant_trace_floats(c.variant, b, s, c.heads, d);
  MemoryEstimate e;
  e.trace_bytes = f * 4;
  e.weights_bytes = 2 * (parameter_count(c) + (trained ? vocab * (2 * d + 1) : 0)) * 4;
  e.working_bytes = std::max(largest, b * std::max(s, t) * c.d_ff) * 4;
  return e;
}

MemoryEstimate estimate_fast_memory(const ModelConfig& c, int64_t b, int64_t s, FastPathMemory how) {
  const int64_t d = c.d_model, h = c.heads, dh = d / std::max<int64_t>(h, 1);
  const int64_t stream = 8 * b * s * d;  // input, norm, q, k, v, head outputs, merged, projected
  const int64_t ffn = 2 * b * s * c.d_ff + b * s * d;
  const TileSizes t;  // per thread: a score block, an output block, the running m, l and rescale
  int64_t scores = how.score_matrix ? b * h * s * s
                                    : int64_t{how.threads} * (t.queries * t.keys + t.queries * dh + 3 * t.queries);
  if (how.dense_mask) scores += b * s * s;
  MemoryEstimate e;
  e.weights_bytes = parameter_count(c) * 4;
  e.working_bytes = (std::max(stream + scores, stream + ffn) + 2 * b * s) * 4;  // + the ranges
  return e;
}

std::string format_mib(int64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return buf;
}

void check_memory_budget(const MemoryEstimate& e, int64_t budget_mib, const std::string& advice) {
  if (e.total() <= budget_mib * 1024 * 1024) return;
  std::string parts = e.trace_bytes > 0 ? "trace " + format_mib(e.trace_bytes) + ", " : "";
  parts += "weights " + format_mib(e.weights_bytes) + ", working " + format_mib(e.working_bytes);
  throw DataError("--memory-budget: this run needs about " + format_mib(e.total()) + " (" + parts +
                  "), more than the budget of " + std::to_string(budget_mib) + " MiB; " + advice +
                  ", or raise --memory-budget");
}

}  // namespace attnlab
