// The variants that keep the softmax over keys but change which pairs count, or add a bias:
// sliding window + globals, BigBird blocks, dynamic top-k, relative bias and ALiBi, axial.
#include <algorithm>
#include <cmath>
#include <limits>

#include "variants/variant_steps.h"

namespace attnlab::variant_detail {

namespace {

const char* kSparseSoftmax = "torch.softmax((q @ k.transpose(-2, -1) / ";
const char* kSparseTail = ").masked_fill(pattern == 0, float('-inf')), dim=-1).nan_to_num(0.0)";

std::vector<StepInfo::Binding> qk_pattern(const Ctx& c, const std::string& pattern_id) {
  return {step_var("q", c.in.q.id), step_var("k", c.in.k.id), step_var("pattern", pattern_id)};
}

// weights, head_out and error of a pattern already recorded under `pattern_id`.
Tensor pattern_weights(const Ctx& c, const Tensor& pattern, const std::string& pattern_id) {
  const Sparse s = sparse_attention(c.in.q.t, c.in.k.t, c.in.v.t, pattern, c.root_f());
  return record_weights_out_error(
      c, s, "weights", Text(Msg::st_v_softmax_over_patterns_keys),
      formula_parts({Text(Msg::sf_v_softmax_qk_dh_over_patterns_keys), Text(Msg::sf_v_only_those_pairs_are_computed),
                     Text(Msg::sf_v_row_none_0)}),
      "weights = " + std::string(kSparseSoftmax) + c.root() + kSparseTail, qk_pattern(c, pattern_id));
}

std::string record_pattern(const Ctx& c, const std::string& name, const Tensor& p, StepInfo info) {
  return record_step(c.rec, c.id(name), p, [&] { return info; });
}

// The (T, T) pattern code intersected with the mask, repeated over heads.
std::string pattern_code(const Ctx& c, const std::string& var, const std::string& p) {
  return "i = torch.arange(" + std::to_string(c.t) + "); p = " + p + "; " + var +
         " = (p & (mask.unsqueeze(1) > 0)).float().repeat(1, " + std::to_string(c.h) + ", 1, 1)";
}

}  // namespace

Tensor record_window(const Ctx& c) {
  const VariantConfig& v = c.in.cfg;
  const Tensor p = pattern_tensor(std::vector(static_cast<size_t>(c.h), window_pattern(c.t, v.window, v.globals)), c.in.mask.t);
  const std::string w = std::to_string(v.window), g = std::to_string(v.globals);
  const std::string id = record_pattern(
      c, "pattern", p,
      StepInfo{.title = Text(Msg::st_v_sliding_window_pattern),
               .formula = Text(Msg::sf_v_keep_i_j_1_plus_first, w, g),
               .code = pattern_code(c, "pattern", "((i[:, None] - i[None, :]).abs() <= " + w + ") | (i[:, None] < " + g +
                                                     ") | (i[None, :] < " + g + ")"),
               .result = "pattern",
               .bindings = {step_var("mask", c.in.mask.id)}});
  return pattern_weights(c, p, id);
}

Tensor record_bigbird(const Ctx& c) {
  const VariantConfig& v = c.in.cfg;
  std::vector<std::vector<uint8_t>> heads;
  for (int64_t h = 0; h < c.h; ++h) heads.push_back(bigbird_pattern(c.t, v, h, c.in.seed));
  const Tensor p = pattern_tensor(heads, c.in.mask.t);
  const std::string id = record_pattern(
      c, "pattern", p,
      StepInfo{.title = Text(Msg::st_v_bigbird_block_pattern),
               .formula = Text(Msg::sf_v_blocks_1_tokens_own_block_1, v.block, v.globals, v.random_blocks),
               .code = "# seeded: stream 'variant.bigbird' (docs/cli.md, Attention variants), intersected with the mask",
               .result = "pattern",
               .is_data = true});
  return pattern_weights(c, p, id);
}

// Keeps, per query row, every visible key scoring at least the k-th largest visible score.
Tensor record_topk(const Ctx& c) {
  const int64_t k = std::min(c.in.cfg.top_k, c.t);
  const Tensor& ms = c.in.masked_scores.t;
  Tensor p({c.b, c.h, c.t, c.t});
  std::vector<float> row;
  for (int64_t r = 0; r < c.b * c.h * c.t; ++r) {
    const float* s = ms.data() + r * c.t;
    row.assign(s, s + c.t);
    std::nth_element(row.begin(), row.begin() + (k - 1), row.end(), std::greater<float>());
    const float kth = row[static_cast<size_t>(k - 1)];
    for (int64_t j = 0; j < c.t; ++j)
      p.data()[r * c.t + j] = s[j] >= kth && s[j] > -std::numeric_limits<float>::infinity() ? 1.0f : 0.0f;
  }
  const std::string id = record_pattern(
      c, "pattern", p,
      StepInfo{.title = Text(Msg::st_v_top_k_pattern),
               .formula = formula_parts({Text(Msg::sf_v_per_query_keep_keys_scoring_least, k),
                                         Text(Msg::sf_v_chosen_from_scores_so_changes_input)}),
               .code = "kth = masked.topk(" + std::to_string(k) +
                       ", dim=-1).values[..., -1:]; pattern = ((masked >= kth) & (masked > float('-inf'))).float()",
               .result = "pattern",
               .bindings = {step_var("masked", c.in.masked_scores.id)}});
  return pattern_weights(c, p, id);
}

// Relative bias (a learned table per head and clipped offset) or ALiBi (−slope_h · |i − j|),
// added to every score; the mask is the model's.
Tensor record_bias(const Ctx& c) {
  const bool alibi = c.in.cfg.kind == VariantKind::Alibi;
  const int64_t m = c.in.cfg.max_distance, t = c.t, H = c.h;
  Tensor bias({H, t, t});
  std::string table_id;
  if (alibi) {
    for (int64_t h = 0; h < H; ++h)
      for (int64_t i = 0; i < t; ++i)
        for (int64_t j = 0; j < t; ++j)
          bias.data()[(h * t + i) * t + j] = -static_cast<float>(alibi_slope(h, H)) * static_cast<float>(std::abs(j - i));
  } else {
    const Tensor table = relative_bias_table(H, m, c.in.seed);
    table_id = record_step(c.rec, c.id("table"), table, [&] {
      return StepInfo{.title = Text(Msg::st_v_relative_bias_table),
                      .formula = Text(Msg::sf_v_number_per_head_offset_j_i, m, 2 * m + 1),
                      .code = "# seeded: stream 'variant.relative_bias' (docs/cli.md, Attention variants)",
                      .result = "table",
                      .is_data = true};
    });
    for (int64_t h = 0; h < H; ++h)
      for (int64_t i = 0; i < t; ++i)
        for (int64_t j = 0; j < t; ++j)
          bias.data()[(h * t + i) * t + j] = table.data()[h * (2 * m + 1) + std::clamp(j - i, -m, m) + m];
  }
  const std::string ts = std::to_string(t), ms = std::to_string(m), hs = std::to_string(H);
  const std::string bias_id = record_step(c.rec, c.id("bias"), bias, [&] {
    if (alibi)
      return StepInfo{.title = Text(Msg::st_v_alibi_bias),
                      .formula = Text(Msg::sf_v_m_h_i_j_slopes_m),
                      .code = "i = torch.arange(" + ts + "); slopes = 2.0 ** (-8.0 * torch.arange(1, " + hs +
                              " + 1) / " + hs + "); bias = -slopes[:, None, None] * (i[None, :] - i[:, None]).abs()",
                      .result = "bias"};
    return StepInfo{.title = Text(Msg::st_v_relative_position_bias),
                    .formula = maths("bias[h, i, j] = table[h, clip(j − i, −" + ms + ", " + ms + ")]"),
                    .code = "i = torch.arange(" + ts + "); bias = table[:, (i[None, :] - i[:, None]).clamp(-" + ms +
                            ", " + ms + ") + " + ms + "]",
                    .result = "bias",
                    .bindings = {step_var("table", table_id)}};
  });
  const Tensor pattern = pattern_tensor(std::vector(static_cast<size_t>(H), std::vector<uint8_t>(static_cast<size_t>(t * t), 1)), c.in.mask.t);
  const Sparse s = sparse_attention(c.in.q.t, c.in.k.t, c.in.v.t, pattern, c.root_f(), &bias);
  return record_weights_out_error(
      c, s, "weights", Text(Msg::st_v_softmax_biased_scores), Text(Msg::sf_v_softmax_qk_dh_bias_where_masked),
      "weights = torch.softmax((q @ k.transpose(-2, -1) / " + c.root() +
          " + bias).masked_fill(mask.unsqueeze(1) == 0, float('-inf')), dim=-1).nan_to_num(0.0)",
      {step_var("q", c.in.q.id), step_var("k", c.in.k.id), step_var("bias", bias_id), step_var("mask", c.in.mask.id)});
}

// Two stages on a grid `width` tokens wide: attention within each row, then within each column
// over the row stage's outputs. In two hops query i reaches key j through the token in j's row
// and i's column (every key, when the grid is full).
Tensor record_axial(const Ctx& c) {
  const int64_t w = c.in.cfg.grid_width;
  const std::string ws = std::to_string(w);
  Flow out{c.in.v};
  Tensor first_weights;
  std::string first_id;
  for (int stage = 0; stage < 2; ++stage) {
    const bool rows = stage == 0;
    const std::string n = rows ? "row" : "col";
    const Tensor p = pattern_tensor(std::vector(static_cast<size_t>(c.h), axial_pattern(c.t, w, rows)), c.in.mask.t);
    const std::string p_id = record_pattern(
        c, n + "_pattern", p,
        StepInfo{.title = Text(rows ? Msg::st_v_axial_pattern_same_grid_row : Msg::st_v_axial_pattern_same_grid_column),
                 .formula = formula_parts({Text(Msg::sf_v_tokens_laid_out_1_per_row, ws),
                                           Text(rows ? Msg::sf_v_keep_keys_querys_row : Msg::sf_v_keep_keys_querys_column)}),
                 .code = pattern_code(c, n + "_pattern", rows ? "i[:, None] // " + ws + " == i[None, :] // " + ws
                                                                  : "i[:, None] % " + ws + " == i[None, :] % " + ws),
                 .result = n + "_pattern",
                 .bindings = {step_var("mask", c.in.mask.id)}});
    // The column stage mixes the row stage's outputs, not v.
    const Sparse s = sparse_attention(c.in.q.t, c.in.k.t, out.t, p, c.root_f());
    const std::string w_id = record_step(c.rec, c.id(n + "_weights"), s.weights, [&] {
      return StepInfo{.title = Text(rows ? Msg::st_v_axial_softmax_within_row : Msg::st_v_axial_softmax_within_column),
                      .formula = Text(rows ? Msg::sf_v_softmax_qk_dh_over_rows_keys : Msg::sf_v_softmax_qk_dh_over_columns_keys),
                      .code = n + "_weights = " + kSparseSoftmax + c.root() +
                              ").masked_fill(" + n + "_pattern == 0, float('-inf')), dim=-1).nan_to_num(0.0)",
                      .result = n + "_weights",
                      .bindings = {step_var("q", c.in.q.id), step_var("k", c.in.k.id), step_var(n + "_pattern", p_id)}};
    });
    const std::string o_name = rows ? "row_out" : "head_out";
    const std::string o_id = record_step(c.rec, c.id(o_name), s.out, [&] {
      return StepInfo{.title = Text(rows ? Msg::st_v_axial_row_outputs : Msg::st_v_axial_column_outputs_result),
                      .formula = rows ? maths("A_row·V") : Text(Msg::sf_v_col_row_v_two_hops_query),
                      .code = o_name + " = " + n + "_weights @ " + (rows ? "v" : "row_out"),
                      .result = o_name,
                      .bindings = {step_var(n + "_weights", w_id), step_var(rows ? "v" : "row_out", out.id)}};
    });
    if (rows) {
      first_weights = s.weights;
      first_id = w_id;
    } else {
      record_step(c.rec, c.id("effective"), batched_matmul(s.weights, first_weights), [&] {
        return StepInfo{.title = Text(Msg::st_v_axial_effective_weights),
                        .formula = Text(Msg::sf_v_col_row_how_much_each_key),
                        .code = "effective = col_weights @ row_weights",
                        .result = "effective",
                        .bindings = {step_var("col_weights", w_id), step_var("row_weights", first_id)}};
      });
      record_error(c, {s.out, o_id}, c.in.reference);
    }
    out = {s.out, o_id};
  }
  return out.t;
}

}  // namespace attnlab::variant_detail
