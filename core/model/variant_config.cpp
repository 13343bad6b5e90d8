// The variants' names, knobs and limits (variants/patterns.cpp draws their patterns).
#include "model/variant_config.h"

#include <string>

#include "model/option_range.h"
#include "text/errors.h"

namespace attnlab {

namespace {

struct VariantName {
  VariantKind kind;
  const char* name;
};
constexpr VariantName kNames[] = {
    {VariantKind::None, "none"},          {VariantKind::Window, "window"},     {VariantKind::BigBird, "bigbird"},
    {VariantKind::TopK, "topk"},          {VariantKind::Linformer, "linformer"}, {VariantKind::Linear, "linear"},
    {VariantKind::RelativeBias, "relative"}, {VariantKind::Alibi, "alibi"},  {VariantKind::Axial, "axial"},
    {VariantKind::KvCache, "kv_cache"},   {VariantKind::Tiled, "tiled"},
};

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
  throw ConfigError(verbatim("--variant: ") + Text(Msg::not_one_of, s, all));
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
    for (const auto& p : variant_params(k)) require_in_range(p.option, v.*p.field, p.min, VariantLimits::kMaxParam);
  require_in_range("--variant-layer", v.layer, 0, v.on() ? layers - 1 : VariantLimits::kMaxParam,
                   Text(Msg::layers_count_from_0));
  if (!v.on()) return;
  if (v.kind == VariantKind::Linformer && (mask == MaskKind::Causal || mask == MaskKind::PaddingCausal))
    throw ConfigError(verbatim("--variant linformer: ") + Text(Msg::causal_mask_cannot_kept_because_projection_mixes));
}

void check_walk_length(const VariantConfig& v, int64_t t) {
  const int64_t most = VariantLimits::kMaxWalkRounds;
  if (v.kind == VariantKind::KvCache && t > most)
    throw ConfigError(verbatim("--variant kv_cache: ") +
                      Text(Msg::walk_through_records_steps_per_token_tokens, t, 4 * t + 3, most));
  if (v.kind == VariantKind::Tiled && (t + v.tile - 1) / v.tile > most)
    throw ConfigError(verbatim("--variant-tile: ") + Text(Msg::tokens_blocks_keys_make_rounds_walk_through, t, v.tile,
                                                          (t + v.tile - 1) / v.tile, (t + most - 1) / most, most));
}

}  // namespace attnlab
