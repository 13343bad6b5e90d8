// The attention variants lab: one encoder self-attention block's own q, k, v run through another
// kind of attention, recorded step by step right after the block's own steps, and compared with
// its full attention. The model itself goes on with full attention, so nothing after it changes.
//
// Step ids: "{stack}.layers.{i}.variant.{kind}.{name}", e.g.
// "encoder.layers.0.variant.window.weights"; the walk-throughs number their rounds:
// "….variant.kv_cache.t3.k_cache", "….variant.tiled.tile2.m". Every variant ends with
//   head_out (B, H, T, Dh)  its result, in the block's head_out layout
//   error    (B, T)         per query, max over heads and features of |head_out − reference|;
//                           0 for queries whose own key is masked ([PAD] under a padding mask)
// where the reference is the block's own head_out (full attention under the model's mask),
// except for the KV cache, whose reference is full attention under the causal mask (recorded as
// its `reference` step). Every step each kind records, in order and with its shape:
// variant_table.h.
//
// Conventions shared by every variant (docs/cli.md, "Attention variants"):
// - a variant's pattern is intersected with the model's mask (a masked key stays masked);
// - a query row with no visible key gets zero weights (softmax(…).nan_to_num(0)), not NaN;
// - seeded numbers (BigBird's random blocks, Linformer's projection, the relative-bias table)
//   come from rng.h streams named "variant.bigbird", "variant.linformer.row{r}",
//   "variant.relative_bias" and the model's seed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/step_builder.h"
#include "model/trace.h"
#include "model/variant_config.h"
#include "model/weights.h"
#include "tensor/ops.h"
#include "variants/variant_table.h"

namespace attnlab {

// --- patterns (T, T) row-major, 1 = the variant computes this query–key pair ---------------
// Sliding window |i − j| ≤ window, plus the first `globals` tokens as rows and columns.
std::vector<uint8_t> window_pattern(int64_t t, int64_t window, int64_t globals);
// BigBird: blocks of `block` tokens; a query block sees key blocks within ±1, the first
// `globals` blocks (and a global block sees every block), and `random_blocks` other blocks drawn
// for (head, query block) from stream "variant.bigbird" (see variant_config.cpp).
std::vector<uint8_t> bigbird_pattern(int64_t t, const VariantConfig& v, int64_t head, uint64_t seed);
// Axial: tokens laid out row by row on a grid `width` wide; same row (stage 1) or same column.
std::vector<uint8_t> axial_pattern(int64_t t, int64_t width, bool rows);
// Linformer's shared projection E (rank, T): normal(t) of stream "variant.linformer.row{r}",
// divided by √rank, so a position's column does not depend on the text's length.
Tensor linformer_projection(int64_t rank, int64_t t, uint64_t seed);
// The relative-bias table (H, 2·max_distance + 1): standard normals of "variant.relative_bias".
Tensor relative_bias_table(int64_t heads, int64_t max_distance, uint64_t seed);
// ALiBi's slope of head h (0-based): 2^(−8(h + 1)/H).
double alibi_slope(int64_t h, int64_t heads);

// --- recording ------------------------------------------------------------------------------
// What a variant reads: the block's steps, its weights (the KV cache re-projects x) and the mask.
struct VariantInput {
  const VariantConfig& cfg;
  std::string layer_prefix;  // "encoder.layers.0."
  std::string attn_prefix;   // "encoder.layers.0.self_attn."
  Flow x;                    // (B, T, D) the block's input (after norm1 in pre-norm)
  Flow q, k, v;              // (B, H, T, Dh)
  Flow mask;                 // (B, T, T)
  Flow masked_scores;        // (B, H, T, T) the block's scores, −∞ where masked
  Flow reference;            // (B, H, T, Dh) the block's head_out
  const Weights& w;
  bool causal = false;       // the model's mask hides the future
  uint64_t seed = 0;
};

// Records the variant's steps (nothing when the recorder is off). Returns its head_out.
Tensor record_variant(const VariantInput& in, Recorder& rec);

// "encoder.layers.0.variant.window." for a configuration (the ids' common start).
std::string variant_prefix(const VariantConfig& v);

// --- what it costs and how far it is from full attention -------------------------------------
struct Cost {
  double flops = 0;  // 2 per multiply-add of the products (+ one per added bias or exponential kept)
  double bytes = 0;  // the largest attention-sized working set held at once (all heads and sentences)
};
struct VariantSummary {
  VariantKind kind = VariantKind::None;
  std::string prefix;           // variant_prefix
  Cost cost, reference_cost;    // the variant, and full attention (KV cache: decoding without a cache)
  double max_abs = 0;           // max |head_out − reference| over counted queries
  double rel_error = 0;         // ‖head_out − reference‖ / ‖reference‖ over counted queries
  int64_t counted_queries = 0;  // queries whose own key is visible
  // Linear attention: max |O(S) form − quadratic form|; the KV cache and tiling: the largest
  // difference from the reference again (they must agree). −1 where not applicable.
  double agreement = -1;
};
// The summary of a traced run's variant; nullopt when the trace has none.
std::optional<VariantSummary> summarize_variant(const VariantConfig& v, const Trace& trace, int64_t d_model);

// The steps themselves, their count (variant_step_count) and size (variant_trace_floats), and
// which of them are heatmaps: variant_table.h.

}  // namespace attnlab
