// The variants' recorded steps as one table (variant_table.h), and everything read from it: the
// plan of a run, the step count, the exact trace estimate, the weights map, the heatmap steps.
#include "variants/variant_table.h"

#include <algorithm>
#include <charconv>
#include <initializer_list>

#include "tensor/checked.h"

namespace attnlab {

namespace {

// Not StepRole too: its Weights would make the class Weights ambiguous in the files after this one
// in a unity batch (docs/ARCHITECTURE.md, "Build units").
using enum StepRound;

// --- the tensors, by what they hold (round: the token or key block; 0 for Once) ------------
Shape all_pairs(const StepSizes& z, int64_t) { return {z.b, z.h, z.t, z.t}; }    // (B, H, T, T)
Shape per_head(const StepSizes& z, int64_t) { return {z.b, z.h, z.t, z.dh()}; }  // (B, H, T, Dh)
Shape per_query(const StepSizes& z, int64_t) { return {z.b, z.t}; }              // (B, T) the error
Shape bias(const StepSizes& z, int64_t) { return {z.h, z.t, z.t}; }              // (H, T, T)
Shape bias_table(const StepSizes& z, int64_t) { return {z.h, 2 * z.cfg.max_distance + 1}; }  // (H, 2m + 1)
Shape projection(const StepSizes& z, int64_t) { return {z.cfg.rank, z.t}; }                 // E (rank, T)
Shape low_rank(const StepSizes& z, int64_t) { return {z.b, z.h, z.cfg.rank, z.dh()}; }      // (B, H, rank, Dh)
Shape low_weights(const StepSizes& z, int64_t) { return {z.b, z.h, z.t, z.cfg.rank}; }      // (B, H, T, rank)
Shape dh_by_dh(const StepSizes& z, int64_t) { return {z.b, z.h, z.dh(), z.dh()}; }          // (B, H, Dh, Dh)
Shape key_sum(const StepSizes& z, int64_t) { return {z.b, z.h, z.dh()}; }                   // (B, H, Dh)
Shape cache(const StepSizes& z, int64_t r) { return {z.b, z.h, r + 1, z.dh()}; }            // (B, H, r + 1, Dh)
Shape new_weights(const StepSizes& z, int64_t r) { return {z.b, z.h, 1, r + 1}; }           // (B, H, 1, r + 1)
Shape new_out(const StepSizes& z, int64_t) { return {z.b, z.h, 1, z.dh()}; }                // (B, H, 1, Dh)
Shape running(const StepSizes& z, int64_t) { return {z.b, z.h, z.t, 1}; }                   // (B, H, T, 1)
Shape tile_scores(const StepSizes& z, int64_t r) {  // (B, H, T, keys of block r)
  return {z.b, z.h, z.t, std::min(z.cfg.tile, z.t - r * z.cfg.tile)};
}

// --- the table: each kind's steps in the order variants_*.cpp record them -------------------
// window, bigbird, topk (variants_sparse.cpp: record_pattern, then record_weights_out_error)
constexpr VariantStep kPattern[] = {
    {"pattern", Once, all_pairs, StepRole::Matrix},
    {"weights", Once, all_pairs, StepRole::Weights},
    {"head_out", Once, per_head},
    {"error", Once, per_query},
};
constexpr VariantStep kRelative[] = {
    {"table", Once, bias_table},
    {"bias", Once, bias},
    {"weights", Once, all_pairs, StepRole::Weights},
    {"head_out", Once, per_head},
    {"error", Once, per_query},
};
constexpr VariantStep kAlibi[] = {
    {"bias", Once, bias},
    {"weights", Once, all_pairs, StepRole::Weights},
    {"head_out", Once, per_head},
    {"error", Once, per_query},
};
constexpr VariantStep kAxial[] = {
    {"row_pattern", Once, all_pairs, StepRole::Matrix}, {"row_weights", Once, all_pairs, StepRole::Matrix}, {"row_out", Once, per_head},
    {"col_pattern", Once, all_pairs, StepRole::Matrix}, {"col_weights", Once, all_pairs, StepRole::Matrix}, {"head_out", Once, per_head},
    {"effective", Once, all_pairs, StepRole::Weights},  {"error", Once, per_query},
};
// variants_lowrank.cpp
constexpr VariantStep kLinformer[] = {
    {"projection", Once, projection},    {"k_low", Once, low_rank},  {"v_low", Once, low_rank},
    {"low_weights", Once, low_weights},  {"head_out", Once, per_head},
    {"effective", Once, all_pairs, StepRole::Weights}, {"error", Once, per_query},
};
constexpr VariantStep kLinear[] = {
    {"phi_q", Once, per_head},  {"phi_k", Once, per_head},  {"kv", Once, dh_by_dh},
    {"k_sum", Once, key_sum},   {"head_out", Once, per_head}, {"quadratic", Once, all_pairs, StepRole::Weights},
    {"quadratic_out", Once, per_head}, {"error", Once, per_query},
};
// variants_walk.cpp
constexpr VariantStep kKvCache[] = {
    {"k_cache", EveryToken, cache}, {"v_cache", EveryToken, cache}, {"attn", EveryToken, new_weights},
    {"out", EveryToken, new_out},   {"head_out", Once, per_head},   {"reference", Once, per_head},
    {"error", Once, per_query},
};
constexpr VariantStep kTiled[] = {
    {"scores", EveryTile, tile_scores}, {"m", EveryTile, running}, {"rescale", EveryTileButFirst, running},
    {"l", EveryTile, running},          {"o", EveryTile, per_head},
    {"head_out", Once, per_head},       {"error", Once, per_query},
};

// The walk a round counts: 0 none, 1 tokens, 2 key blocks.
int walk_of(StepRound r) { return r == Once ? 0 : r == EveryToken ? 1 : 2; }

// A product of sizes that saturates instead of wrapping.
Count floats_of(const Shape& s) {
  Count n = 1;
  for (int64_t d : s) n = n * d;
  return n;
}

// The kind named `name` ("kv_cache"), if any.
std::optional<VariantKind> kind_named(std::string_view name) {
  for (VariantKind k : all_variants())
    if (variant_name(k) == name) return k;
  return std::nullopt;
}

// The round in which `rest` ("t3.k_cache", "weights") names step s; nullopt when it does not.
std::optional<int64_t> round_in(std::string_view rest, const VariantStep& s) {
  if (!rest.ends_with(s.name)) return std::nullopt;
  const std::string_view head = rest.substr(0, rest.size() - s.name.size());  // "t3." or ""
  if (s.round == Once) return head.empty() ? std::optional<int64_t>(0) : std::nullopt;
  const std::string_view word = round_word(s.round);
  if (head.size() < word.size() + 2 || !head.starts_with(word) || !head.ends_with('.')) return std::nullopt;
  const char* first = head.data() + word.size();
  const char* last = head.data() + head.size() - 1;
  int64_t r = 0;
  const auto [end, ec] = std::from_chars(first, last, r);
  if (ec != std::errc() || end != last || r < (s.round == EveryTileButFirst ? 1 : 0)) return std::nullopt;
  return r;
}

bool ends_with_any(std::string_view id, std::initializer_list<std::string_view> ends) {
  return std::any_of(ends.begin(), ends.end(), [&](std::string_view e) { return id.ends_with(e); });
}

}  // namespace

std::span<const VariantStep> variant_steps(VariantKind k) {
  switch (k) {
    case VariantKind::Window:
    case VariantKind::BigBird:
    case VariantKind::TopK: return kPattern;
    case VariantKind::RelativeBias: return kRelative;
    case VariantKind::Alibi: return kAlibi;
    case VariantKind::Axial: return kAxial;
    case VariantKind::Linformer: return kLinformer;
    case VariantKind::Linear: return kLinear;
    case VariantKind::KvCache: return kKvCache;
    case VariantKind::Tiled: return kTiled;
    case VariantKind::None: break;
  }
  return {};
}

std::string_view round_word(StepRound r) { return r == Once ? "" : r == EveryToken ? "t" : "tile"; }

std::string round_prefix(StepRound r, int64_t i) {
  if (r == Once) return {};
  std::string out(round_word(r));  // appended piecewise: GCC 12 warns falsely on "t" + string&&
  out += std::to_string(i);
  out += '.';
  return out;
}

Rounds rounds_of(const VariantStep& s, const VariantConfig& v, int64_t t) {
  const int64_t tiles = v.tile > 0 ? (t + v.tile - 1) / v.tile : 0;
  switch (s.round) {
    case Once: return {0, 1};
    case EveryToken: return {0, std::max<int64_t>(t, 0)};
    case EveryTile: return {0, tiles};
    case EveryTileButFirst: return {1, std::max<int64_t>(tiles, 1)};
  }
  return {0, 0};
}

std::vector<PlannedStep> variant_plan(const VariantConfig& v, int64_t t) {
  const std::span<const VariantStep> steps = variant_steps(v.kind);
  std::vector<PlannedStep> out;
  for (size_t a = 0; a < steps.size();) {
    size_t e = a + 1;  // [a, e): one Once step, or the steps repeated over one walk, round by round
    if (steps[a].round != Once)
      while (e < steps.size() && walk_of(steps[e].round) == walk_of(steps[a].round)) ++e;
    int64_t end = 0;
    for (size_t i = a; i < e; ++i) end = std::max(end, rounds_of(steps[i], v, t).end);
    for (int64_t r = 0; r < end; ++r)
      for (size_t i = a; i < e; ++i)
        if (const Rounds rr = rounds_of(steps[i], v, t); r >= rr.first && r < rr.end)
          out.push_back({round_prefix(steps[i].round, r) + std::string(steps[i].name), &steps[i], r});
    a = e;
  }
  return out;
}

std::optional<StepMatch> variant_step_of(std::string_view id) {
  constexpr std::string_view kMark = ".variant.";
  const size_t at = id.find(kMark);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = id.substr(at + kMark.size());  // "kv_cache.t3.k_cache"
  const size_t dot = rest.find('.');
  const std::optional<VariantKind> kind = dot == std::string_view::npos ? std::nullopt : kind_named(rest.substr(0, dot));
  if (!kind) return std::nullopt;
  rest.remove_prefix(dot + 1);
  for (const VariantStep& s : variant_steps(*kind))
    if (const std::optional<int64_t> r = round_in(rest, s)) return StepMatch{*kind, &s, *r};
  return std::nullopt;
}

std::string_view variant_weights_step(VariantKind k) {
  for (const VariantStep& s : variant_steps(k))
    if (s.role == StepRole::Weights) return s.name;
  return {};
}

int64_t variant_step_count(const VariantConfig& v, int64_t t) {
  int64_t n = 0;
  for (const VariantStep& s : variant_steps(v.kind)) {
    const Rounds r = rounds_of(s, v, t);
    n += std::max<int64_t>(r.end - r.first, 0);
  }
  return n;
}

int64_t variant_trace_floats(const VariantConfig& v, int64_t b, int64_t t, int64_t heads, int64_t d_model) {
  const StepSizes z{b, t, heads, d_model, v};
  Count n = 0;
  for (const VariantStep& s : variant_steps(v.kind))
    for (Rounds r = rounds_of(s, v, t); r.first < r.end; ++r.first) n += floats_of(s.shape(z, r.first));
  return n.value();
}

bool is_attention_matrix(std::string_view id, const Tensor& t, MatrixSteps which) {
  if (t.dim() != 4) return false;
  if (which == MatrixSteps::FaultPair)
    return ends_with_any(id, {".qk", ".scores", ".masked_scores", ".unmasked_weights", ".weights"});
  if (id.find(".variant.") != std::string_view::npos) {
    const std::optional<StepMatch> m = variant_step_of(id);
    return m && m->step->matrix();
  }
  // a head of a tiled layer kept whole: "<A>.weights_head_<h>", (B, 1, Tq, Tk)
  if (id.find(".weights_head_") != std::string_view::npos && !id.ends_with(".grad")) return true;
  // and their gradients (core/backward: "<id>.grad", the same shape)
  return ends_with_any(id, {".qk", ".scores", ".masked_scores", ".weights", ".weights_overview", ".qk.grad",
                            ".scores.grad", ".masked_scores.grad", ".unmasked_weights.grad", ".weights.grad",
                            ".weights_overview.grad"});
}

}  // namespace attnlab
