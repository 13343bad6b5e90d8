// The variants' names, limits and patterns: everything about a variant that is not arithmetic.
#include <cmath>

#include "errors.h"
#include "rng.h"
#include "variants.h"

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

std::string variant_prefix(const VariantConfig& v) {
  return "encoder.layers." + std::to_string(v.layer) + ".variant." + std::string(variant_name(v.kind)) + ".";
}

std::vector<uint8_t> window_pattern(int64_t t, int64_t window, int64_t globals) {
  std::vector<uint8_t> p(static_cast<size_t>(t * t), 0);
  for (int64_t i = 0; i < t; ++i)
    for (int64_t j = 0; j < t; ++j)
      p[static_cast<size_t>(i * t + j)] = std::abs(i - j) <= window || i < globals || j < globals;
  return p;
}

// Random blocks: for query block qb of head h, draw i (0 ≤ i < random_blocks) picks the
// (u64(n) mod remaining)-th of the blocks not yet seen by qb (in block order), where
// n = (h · blocks + qb) · random_blocks + i; fewer when fewer remain.
std::vector<uint8_t> bigbird_pattern(int64_t t, const VariantConfig& v, int64_t head, uint64_t seed) {
  const int64_t nb = (t + v.block - 1) / v.block;
  std::vector<uint8_t> seen(static_cast<size_t>(nb * nb), 0);  // (query block, key block)
  const Stream rnd("variant.bigbird", seed);
  for (int64_t qb = 0; qb < nb; ++qb) {
    uint8_t* row = &seen[static_cast<size_t>(qb * nb)];
    for (int64_t kb = 0; kb < nb; ++kb) row[kb] = std::abs(qb - kb) <= 1 || qb < v.globals || kb < v.globals;
    for (int64_t i = 0; i < v.random_blocks; ++i) {
      std::vector<int64_t> rest;
      for (int64_t kb = 0; kb < nb; ++kb)
        if (!row[kb]) rest.push_back(kb);
      if (rest.empty()) break;
      const uint64_t n = static_cast<uint64_t>((head * nb + qb) * v.random_blocks + i);
      row[rest[static_cast<size_t>(rnd.u64(n) % rest.size())]] = 1;
    }
  }
  std::vector<uint8_t> p(static_cast<size_t>(t * t));
  for (int64_t i = 0; i < t; ++i)
    for (int64_t j = 0; j < t; ++j) p[static_cast<size_t>(i * t + j)] = seen[static_cast<size_t>((i / v.block) * nb + j / v.block)];
  return p;
}

std::vector<uint8_t> axial_pattern(int64_t t, int64_t width, bool rows) {
  std::vector<uint8_t> p(static_cast<size_t>(t * t));
  for (int64_t i = 0; i < t; ++i)
    for (int64_t j = 0; j < t; ++j)
      p[static_cast<size_t>(i * t + j)] = rows ? i / width == j / width : i % width == j % width;
  return p;
}

Tensor linformer_projection(int64_t rank, int64_t t, uint64_t seed) {
  Tensor e = Tensor::empty({rank, t});
  const double scale = 1.0 / std::sqrt(static_cast<double>(rank));
  for (int64_t r = 0; r < rank; ++r) {
    const Stream s("variant.linformer.row" + std::to_string(r), seed);
    for (int64_t j = 0; j < t; ++j) e.data()[r * t + j] = static_cast<float>(s.normal(static_cast<uint64_t>(j)) * scale);
  }
  return e;
}

Tensor relative_bias_table(int64_t heads, int64_t max_distance, uint64_t seed) {
  const int64_t n = 2 * max_distance + 1;
  Tensor table = Tensor::empty({heads, n});
  const Stream s("variant.relative_bias", seed);
  for (int64_t i = 0; i < heads * n; ++i) table.data()[i] = static_cast<float>(s.normal(static_cast<uint64_t>(i)));
  return table;
}

double alibi_slope(int64_t h, int64_t heads) {
  return std::exp2(-8.0 * static_cast<double>(h + 1) / static_cast<double>(heads));
}

}  // namespace attnlab
