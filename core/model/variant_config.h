// A variant's configuration: which attention runs beside the chosen block, and its knobs
// (variants.h has the rest). Kept apart so that config.h can hold one without the recording.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "tensor/ops.h"

namespace attnlab {

enum class VariantKind { None, Window, BigBird, TopK, Linformer, Linear, RelativeBias, Alibi, Axial, KvCache, Tiled };

struct VariantConfig {
  VariantKind kind = VariantKind::None;
  int64_t layer = 0;         // the encoder layer (0-based) whose self-attention it runs beside
  int64_t window = 2;        // Window: keys within ±window positions of the query
  int64_t globals = 1;       // Window: the first `globals` tokens; BigBird: the first `globals` blocks
  int64_t block = 2;         // BigBird: tokens per block
  int64_t random_blocks = 1; // BigBird: random key blocks per query block and head
  int64_t top_k = 4;         // TopK: keys kept per query row
  int64_t rank = 4;          // Linformer: keys and values projected to this many rows
  int64_t max_distance = 4;  // RelativeBias: offsets clipped to ±max_distance
  int64_t grid_width = 4;    // Axial: tokens per grid row
  int64_t tile = 4;          // Tiled: keys per block
  bool on() const { return kind != VariantKind::None; }
  bool operator==(const VariantConfig&) const = default;
};

struct VariantLimits {
  static constexpr int64_t kMaxParam = 4096;
  static constexpr int64_t kMaxWalkRounds = 128;  // KV cache: tokens; tiled: key blocks
};

// "none", "window", "bigbird", "topk", "linformer", "linear", "relative", "alibi", "axial",
// "kv_cache", "tiled" (the names of --variant and of the step ids).
std::string_view variant_name(VariantKind k);
VariantKind parse_variant(std::string_view s);  // throws ConfigError listing the names
std::vector<VariantKind> all_variants();        // every kind but None, in the order above

// The walk-throughs record a few steps per round: at most kMaxWalkRounds tokens (KV cache) or key
// blocks (tiled) over t tokens, else ConfigError naming the limit and the way out.
void check_walk_length(const VariantConfig& v, int64_t t);

// One knob of a kind: its JSON and session name, its command-line option, the field, its floor.
struct VariantParam {
  const char* name;    // "window"
  const char* option;  // "--variant-window"
  int64_t VariantConfig::*field;
  int64_t min;
};
std::vector<VariantParam> variant_params(VariantKind k);  // the knobs that kind reads, in order

// Throws ConfigError naming the option (--variant-window, …) and the rule. `layers` bounds
// --variant-layer; Linformer refuses a causal mask (its projection mixes every key).
void validate_variant(const VariantConfig& v, int64_t layers, MaskKind mask);

}  // namespace attnlab
