// The variants' names, knobs and limits (variants/patterns.cpp draws their patterns).
#include "model/variant_config.h"

#include <string>

#include "text/errors.h"

namespace attnlab {

namespace {

struct Named {
  VariantKind kind;
  const char* name;
};
constexpr Named kNames[] = {
    {VariantKind::None, "none"},          {VariantKind::Window, "window"},     {VariantKind::BigBird, "bigbird"},
    {VariantKind::TopK, "topk"},          {VariantKind::Linformer, "linformer"}, {VariantKind::Linear, "linear"},
    {VariantKind::RelativeBias, "relative"}, {VariantKind::Alibi, "alibi"},  {VariantKind::Axial, "axial"},
    {VariantKind::KvCache, "kv_cache"},   {VariantKind::Tiled, "tiled"},
};

void in_range(std::string_view opt, int64_t v, int64_t lo, int64_t hi, std::string_view why = {}) {
  if (v >= lo && v <= hi) return;
  throw ConfigError(std::string(opt) + ": " + std::to_string(v) + " is outside " + std::to_string(lo) + " … " +
                    std::to_string(hi) + (why.empty() ? "" : " (" + std::string(why) + ")"));
}

}  // namespace

std::string_view variant_name(VariantKind k) {
  for (const auto& n : kNames)
    if (n.kind == k) return n.name;
  return "none";
}

VariantKind parse_variant(std::string_view s) {
  std::string all;
  for (const auto& n : kNames) {
    if (s == n.name) return n.kind;
    all += (all.empty() ? "" : ", ") + std::string(n.name);
  }
  throw ConfigError("--variant: '" + std::string(s) + "' is not one of " + all);
}

std::vector<VariantKind> all_variants() {
  std::vector<VariantKind> out;
  for (const auto& n : kNames)
    if (n.kind != VariantKind::None) out.push_back(n.kind);
  return out;
}

std::vector<VariantParam> variant_params(VariantKind k) {
  using V = VariantConfig;
  const VariantParam window{"window", "--variant-window", &V::window, 0}, globals{"globals", "--variant-globals", &V::globals, 0},
      block{"block", "--variant-block", &V::block, 1}, random{"random_blocks", "--variant-random", &V::random_blocks, 0},
      top_k{"top_k", "--variant-top-k", &V::top_k, 1}, rank{"rank", "--variant-rank", &V::rank, 1},
      dist{"max_distance", "--variant-max-distance", &V::max_distance, 0},
      width{"grid_width", "--variant-grid-width", &V::grid_width, 1}, tile{"tile", "--variant-tile", &V::tile, 1};
  switch (k) {
    case VariantKind::Window: return {window, globals};
    case VariantKind::BigBird: return {block, globals, random};
    case VariantKind::TopK: return {top_k};
    case VariantKind::Linformer: return {rank};
    case VariantKind::RelativeBias: return {dist};
    case VariantKind::Axial: return {width};
    case VariantKind::Tiled: return {tile};
    default: return {};
  }
}

void validate_variant(const VariantConfig& v, int64_t layers, MaskKind mask) {
  for (VariantKind k : all_variants())  // every knob, whether or not the chosen kind reads it
    for (const auto& p : variant_params(k)) in_range(p.option, v.*p.field, p.min, VariantLimits::kMaxParam);
  in_range("--variant-layer", v.layer, 0, v.on() ? layers - 1 : VariantLimits::kMaxParam, "layers count from 0");
  if (!v.on()) return;
  if (v.kind == VariantKind::Linformer && (mask == MaskKind::Causal || mask == MaskKind::PaddingCausal))
    throw ConfigError("--variant linformer: a causal mask cannot be kept, because the projection mixes every "
                      "position's key, the future included; use --mask padding or none");
}

void check_walk_length(const VariantConfig& v, int64_t t) {
  const int64_t most = VariantLimits::kMaxWalkRounds;
  if (v.kind == VariantKind::KvCache && t > most)
    throw ConfigError("--variant kv_cache: the walk-through records 4 steps per token, and " + std::to_string(t) +
                      " tokens would make " + std::to_string(4 * t + 3) + " of them; use at most " +
                      std::to_string(most) + " tokens, or another variant");
  if (v.kind == VariantKind::Tiled && (t + v.tile - 1) / v.tile > most)
    throw ConfigError("--variant-tile: " + std::to_string(t) + " tokens in blocks of " + std::to_string(v.tile) +
                      " keys make " + std::to_string((t + v.tile - 1) / v.tile) + " rounds of the walk-through; raise it to at least " +
                      std::to_string((t + most - 1) / most) + " (at most " + std::to_string(most) + " rounds)");
}

}  // namespace attnlab
