#include "forward/attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "backend/attention_tiled.h"
#include "model/comma_list.h"
#include "tensor/parallel.h"
#include "text/errors.h"
#include "variants/variants.h"

namespace attnlab {

namespace {

const char* kQkv[3] = {"q", "k", "v"};
const char* kQkvUpper[3] = {"Q", "K", "V"};
const char* kMaskedFillZero = "mask.unsqueeze(1) == 0, 0.0)";

// A title with " (fault)" after it: the step a fault changed.
Text faulty(Text title) { return Text(Msg::st_with_fault, std::move(title)); }

struct Ctx {
  const AttentionArgs& a;
  const Weights& w;
  Recorder& rec;
  int64_t b, tq, tk, d, h, dh;
  std::string id(const std::string& s) const { return a.prefix + s; }
  bool has(Fault f) const { return a.faults && a.faults->count(f) > 0; }
  Backend& be() const { return a.backend ? *a.backend : cpu_backend(); }
};

// The sequence axes by the letters the shape diagram under a formula gives them (the window's
// StepNames::axisNames, docs/cli.md): S in the encoder, T in the decoder; cross-attention's keys
// and values come from the encoder, so they run along S.
std::string query_axis(const Ctx& c) { return c.a.prefix.starts_with("decoder.") ? "T" : "S"; }
std::string key_axis(const Ctx& c) {
  return c.a.prefix.find(".multihead_attn.") != std::string::npos ? "S" : query_axis(c);
}

// StepInfo::fault: the ids of those of `faults` that are on, joined by ','; "" when none is.
std::string marks(const Ctx& c, std::initializer_list<Fault> faults) {
  std::string out;
  for (Fault f : faults)
    if (c.has(f)) {
      if (!out.empty()) out += ',';
      out += fault_info(f).id;
    }
  return out;
}

// Q/K/V projection: rows [i·D, (i+1)·D) of the fused in_proj. (B, T, D) → (B, T, D)
// SharedQkvProjection: K and V use the Q rows [0, D) too.
Flow project(const Ctx& c, int i) {
  const Flow& src = i == 0 ? *c.a.query : *c.a.memory;
  const auto& W = c.w.get(c.a.prefix + "in_proj_weight");
  const auto& bias = c.w.get(c.a.prefix + "in_proj_bias");
  const bool shared = i > 0 && c.has(Fault::SharedQkvProjection);
  const int64_t row0 = shared ? 0 : i * c.d;
  Tensor t = c.be().linear_rows(src.t, W, bias, row0, c.d);
  const std::string name = std::string(kQkv[i]) + "_proj";
  auto id = record_step(c.rec, c.id(name), t, [&] {
    const std::string lo = std::to_string(row0), hi = std::to_string(row0 + c.d);
    const std::string x = kQkvUpper[i], p = shared ? "Q" : x;
    return StepInfo{.title = shared ? faulty(Text(Msg::st_projection_with_w_q, x)) : Text(Msg::st_projection, x),
                    .formula = shared ? Text(Msg::sf_1_x_w_q_b_q, x, x) : maths(x + " = x·W_" + p + "ᵀ + b_" + p),
                    .code = name + " = F.linear(x, in_proj_weight[" + lo + ":" + hi + "], in_proj_bias[" + lo + ":" + hi + "])",
                    .result = name,
                    .bindings = {step_var("x", src.id), weight_var("in_proj_weight", c.a.prefix + "in_proj_weight"),
                                 weight_var("in_proj_bias", c.a.prefix + "in_proj_bias")},
                    .fault = shared ? marks(c, {Fault::SharedQkvProjection}) : ""};
  });
  return {t, id};
}

// Head split as two moves: view (B,T,D) → (B,T,H,Dh), then transpose → (B,H,T,Dh).
// SplitWithoutTranspose: one view straight to (B,H,T,Dh); head h reads T·Dh consecutive numbers.
Flow split_heads(const Ctx& c, int i, const Flow& proj) {
  const int64_t t_len = i == 0 ? c.tq : c.tk;
  const std::string n = kQkv[i];
  const std::string T = i == 0 ? query_axis(c) : key_axis(c);
  if (c.has(Fault::SplitWithoutTranspose)) {
    Tensor v = proj.t.view({c.b, c.h, t_len, c.dh});
    auto id = record_step(c.rec, c.id(n), v, [&] {
      return StepInfo{.title = faulty(Text(Msg::st_split_heads_view_1_straight_b, kQkvUpper[i], T)),
                      .formula = Text(Msg::sf_b_t_d_b_h_t, T),
                      .code = n + " = " + n + "_proj.view(" + dims_csv(v.shape()) + ")",
                      .result = n,
                      .bindings = {step_var(n + "_proj", proj.id)},
                      .fault = marks(c, {Fault::SplitWithoutTranspose})};
    });
    return {v, id};
  }
  Tensor v = proj.t.view({c.b, t_len, c.h, c.dh});
  auto view_id = record_step(c.rec, c.id(n + "_view"), v, [&] {
    return StepInfo{.title = Text(Msg::st_split_heads_view_1, kQkvUpper[i]),
                    .formula = maths("(B, " + T + ", D) → (B, " + T + ", H, Dh)"),
                    .code = n + "_view = " + n + "_proj.view(" + dims_csv(v.shape()) + ")",
                    .result = n + "_view",
                    .bindings = {step_var(n + "_proj", proj.id)}};
  });
  Tensor tr = v.transpose(1, 2);
  auto tr_id = record_step(c.rec, c.id(n), tr, [&] {
    return StepInfo{.title = Text(Msg::st_split_heads_transpose_1, kQkvUpper[i]),
                    .formula = maths("(B, " + T + ", H, Dh) → (B, H, " + T + ", Dh)"),
                    .code = n + " = " + n + "_view.transpose(1, 2)",
                    .result = n,
                    .bindings = {step_var(n + "_view", view_id)}};
  });
  return {tr, tr_id};
}

// dst[i] = src[i] / r (src may be dst). The arguments by value: a loop inside a lambda that
// captured r by reference reloads it after every store and is not vectorised.
void divide(const float* src, float* dst, int64_t n, float r) {
  for (int64_t i = 0; i < n; ++i) dst[i] = src[i] / r;
}

// QKᵀ / √Dh (B,H,Tq,Tk). ScaleByDModel divides by √D, NoScaling (which wins) not at all.
Flow scale_scores(const Ctx& c, const Flow& qk) {
  const bool keep = c.rec.enabled();
  const bool none = c.has(Fault::NoScaling), by_d = !none && c.has(Fault::ScaleByDModel);
  const double root = std::sqrt(static_cast<double>(by_d ? c.d : c.dh));
  Tensor scores = keep ? Tensor::empty(qk.t.shape()) : qk.t;  // in place on the fast path
  {
    const float r = none ? 1.0f : static_cast<float>(root);
    const float* src = qk.t.data();
    float* dst = scores.data();
    const int64_t tk = qk.t.size(-1);
    row_blocks(qk.t.numel() / std::max<int64_t>(tk, 1), tk,
               [&](int64_t r0, int64_t n) { divide(src + r0 * tk, dst + r0 * tk, n * tk, r); });
  }
  auto id = record_step(c.rec, c.id("scores"), scores, [&] {
    const std::string right = format_double(std::sqrt(static_cast<double>(c.dh)));  // √Dh
    if (none)
      return StepInfo{.title = faulty(Text(Msg::st_no_scaling)), .formula = Text(Msg::sf_s_qk_division_dh_missing_dh, right),
                      .code = "scores = qk", .result = "scores", .bindings = {step_var("qk", qk.id)},
                      .fault = marks(c, {Fault::NoScaling})};
    if (by_d)
      return StepInfo{.title = faulty(Text(Msg::st_scale_d_model)),
                      .formula = Text(Msg::sf_qk_d_d_1_should_dh, format_double(root), right),
                      .code = "scores = qk / math.sqrt(" + std::to_string(c.d) + ")", .result = "scores",
                      .bindings = {step_var("qk", qk.id)}, .fault = marks(c, {Fault::ScaleByDModel})};
    return StepInfo{.title = Text(Msg::st_scale_d_head), .formula = maths("QKᵀ / √Dh, √Dh = " + format_double(root)),
                    .code = "scores = qk / math.sqrt(" + std::to_string(c.dh) + ")", .result = "scores",
                    .bindings = {step_var("qk", qk.id)}};
  });
  return {scores, id};
}

// t with `fill` where the mask is 0: a new tensor on a traced run (t is a step of its own), else
// t itself, filled in place.
Tensor masked_step(const Ctx& c, Tensor t, float fill) {
  if (c.rec.enabled()) return masked_fill(t, c.a.mask->t, fill);
  masked_fill_inplace(t, c.a.mask->t, fill);
  return t;
}

// −∞ where the mask is 0 (MaskFillZero: 0 instead).
Flow mask_scores(const Ctx& c, const Flow& scores) {
  const bool zero = c.has(Fault::MaskFillZero);
  const Tensor masked = masked_step(c, scores.t, zero ? 0.0f : -std::numeric_limits<float>::infinity());
  auto id = record_step(c.rec, c.id("masked_scores"), masked, [&] {
    if (zero)
      return StepInfo{.title = faulty(Text(Msg::st_apply_mask_0_not)),
                      .formula = Text(Msg::sf_scores_0_where_mask_0_masked),
                      .code = std::string("masked = scores.masked_fill(") + kMaskedFillZero, .result = "masked",
                      .bindings = {step_var("scores", scores.id), step_var("mask", c.a.mask->id)},
                      .fault = marks(c, {Fault::MaskFillZero})};
    return StepInfo{.title = Text(Msg::st_apply_mask), .formula = Text(Msg::sf_scores_where_mask_0),
                    .code = "masked = scores.masked_fill(mask.unsqueeze(1) == 0, float('-inf'))",
                    .result = "masked", .bindings = {step_var("scores", scores.id), step_var("mask", c.a.mask->id)}};
  });
  return {masked, id};
}

// Softmax over the keys (dim −1), or over the queries (dim −2) with SoftmaxOverQueries. The
// result is a fresh C-order tensor, except on the fast path's dim −1, which works in place.
Tensor softmax_of(const Ctx& c, const Tensor& in) {
  if (c.has(Fault::SoftmaxOverQueries)) {
    Tensor cols = in.transpose(-2, -1).clone();  // (B, H, Tk, Tq): a query column per row
    c.be().softmax_lastdim_inplace(cols);
    return cols.transpose(-2, -1).clone();
  }
  if (c.rec.enabled()) return c.be().softmax_lastdim(in);  // the trace keeps the masked scores
  Tensor w = in;
  c.be().softmax_lastdim_inplace(w);
  return w;
}

std::string softmax_code(const Ctx& c, const std::string& result, const std::string& input) {
  return result + " = torch.softmax(" + input + ", dim=" + (c.has(Fault::SoftmaxOverQueries) ? "-2" : "-1") + ")";
}

// MaskAfterSoftmax: softmax of the unmasked scores, then 0 where masked (rows sum to < 1).
Flow mask_after_softmax(const Ctx& c, const Flow& scores) {
  const bool over_queries = c.has(Fault::SoftmaxOverQueries);
  Tensor raw = softmax_of(c, scores.t);
  auto raw_id = record_step(c.rec, c.id("unmasked_weights"), raw, [&] {
    return StepInfo{.title = over_queries ? Text(Msg::st_softmax_before_mask_fault_over_queries)
                                          : faulty(Text(Msg::st_softmax_before_mask)),
                    .formula = Text(Msg::sf_softmax_scores_dim_1_unmasked_scores, over_queries ? "−2" : "−1"),
                    .code = softmax_code(c, "unmasked_weights", "scores"), .result = "unmasked_weights",
                    .bindings = {step_var("scores", scores.id)},
                    .fault = marks(c, {Fault::SoftmaxOverQueries, Fault::MaskAfterSoftmax})};
  });
  const Tensor weights = masked_step(c, raw, 0.0f);
  auto w_id = record_step(c.rec, c.id("weights"), weights, [&] {
    return StepInfo{.title = faulty(Text(Msg::st_mask_after_softmax)),
                    .formula = Text(Msg::sf_softmax_s_then_0_where_mask),
                    .code = std::string("weights = unmasked_weights.masked_fill(") + kMaskedFillZero, .result = "weights",
                    .bindings = {step_var("unmasked_weights", raw_id), step_var("mask", c.a.mask->id)},
                    .fault = marks(c, {Fault::MaskAfterSoftmax})};
  });
  return {weights, w_id};
}

// Scores: QKᵀ (B,H,Tq,Tk), then / √Dh, then −∞ where masked, then softmax over keys. The masked
// scores are handed out through `masked_out` when asked (the variants' top-k reads them).
Flow attention_weights(const Ctx& c, const Flow& q, const Flow& k, Flow* masked_out = nullptr) {
  Tensor kt = k.t.transpose(-2, -1);
  auto kt_id = record_step(c.rec, c.id("k_t"), kt, [&] {
    const std::string Tk = key_axis(c);
    return StepInfo{.title = Text(Msg::st_transpose_k), .formula = maths("Kᵀ: (B, H, " + Tk + ", Dh) → (B, H, Dh, " + Tk + ")"),
                    .code = "k_t = k.transpose(-2, -1)", .result = "k_t", .bindings = {step_var("k", k.id)}};
  });
  Tensor qk = c.be().matmul(q.t, kt);
  auto qk_id = record_step(c.rec, c.id("qk"), qk, [&] {
    return StepInfo{.title = Text(Msg::st_dot_products_qk),
                    .formula = maths("QKᵀ (B, H, " + query_axis(c) + ", " + key_axis(c) + ")"), .code = "qk = q @ k_t",
                    .result = "qk", .bindings = {step_var("q", q.id), step_var("k_t", kt_id)}};
  });
  const Flow scores = scale_scores(c, {qk, qk_id});
  if (c.has(Fault::MaskAfterSoftmax)) return mask_after_softmax(c, scores);
  const Flow masked = mask_scores(c, scores);
  if (masked_out) *masked_out = masked;
  Tensor weights = softmax_of(c, masked.t);
  auto w_id = record_step(c.rec, c.id("weights"), weights, [&] {
    if (c.has(Fault::SoftmaxOverQueries))
      return StepInfo{.title = faulty(Text(Msg::st_softmax_over_queries)),
                      .formula = Text(Msg::sf_softmax_scores_dim_2_each_column),
                      .code = softmax_code(c, "weights", "masked"), .result = "weights",
                      .bindings = {step_var("masked", masked.id)}, .fault = marks(c, {Fault::SoftmaxOverQueries})};
    return StepInfo{.title = Text(Msg::st_softmax_over_keys),
                    .formula = formula_parts({maths("A = softmax(scores, dim = −1)"), Text(Msg::sf_each_row_sums_1)}),
                    .code = "weights = torch.softmax(masked, dim=-1)", .result = "weights",
                    .bindings = {step_var("masked", masked.id)}};
  });
  return {weights, w_id};
}

// Weighted sum: A·V (B,H,Tq,Dh).
Flow head_outputs(const Ctx& c, const Flow& weights, const Flow& v) {
  Tensor ho = c.be().matmul(weights.t, v.t);
  auto ho_id = record_step(c.rec, c.id("head_out"), ho, [&] {
    return StepInfo{.title = Text(Msg::st_weighted_sum_values), .formula = maths("A·V (B, H, " + query_axis(c) + ", Dh)"),
                    .code = "head_out = weights @ v", .result = "head_out",
                    .bindings = {step_var("weights", weights.id), step_var("v", v.id)}};
  });
  return {ho, ho_id};
}

// Head h of a (B, H, T, Dh) tensor as a C-order (B, 1, T, Dh) copy: t[:, h:h+1].
Tensor head_slice(const Tensor& t, int64_t h) {
  const int64_t b = t.size(0), n = t.size(2), dh = t.size(3);
  const Shape& st = t.strides();
  Tensor out = Tensor::empty({b, 1, n, dh});
  float* dst = out.data();
  const float* src = t.data();
  for (int64_t bb = 0; bb < b; ++bb)
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < dh; ++j) *dst++ = src[bb * st[0] + h * st[1] + i * st[2] + j * st[3]];
  return out;
}

// One head of a tiled layer kept whole (ModelConfig::full_heads): its weights (B, 1, Tq, Tk)
// computed as the full path computes every head's — QₕKₕᵀ, / √Dh, −∞ where masked, softmax
// over the keys — with only this head's (Tq, Tk) matrix ever made. `mask`: the block's (B, Tq, Tk),
// contiguous.
void whole_head_weights(const Ctx& c, const Flow& q, const Flow& k, const Tensor& mask, int64_t h) {
  Tensor w = c.be().matmul(head_slice(q.t, h), head_slice(k.t, h).transpose(-2, -1));
  const float r = static_cast<float>(std::sqrt(static_cast<double>(c.dh)));
  float* p = w.data();
  for (int64_t i = 0, n = w.numel(); i < n; ++i) p[i] = p[i] / r;
  masked_fill_neg_inf_inplace(w, mask);
  c.be().softmax_lastdim_inplace(w);
  const std::string n = std::to_string(h), slice = "[:, " + n + ":" + std::to_string(h + 1) + "]";
  record_step(c.rec, c.id("weights_head_" + n), w, [&] {
    return StepInfo{.title = Text(Msg::st_head_weights_cell_by_cell, h),
                    .formula = formula_parts({maths("Aₕ = softmax(QₕKₕᵀ / √Dh), h = " + n),
                                              Text(Msg::sf_only_this_head_kept, query_axis(c), key_axis(c))}),
                    .code = "weights_head_" + n + " = torch.softmax((q" + slice + " @ k" + slice +
                            ".transpose(-2, -1) / math.sqrt(" + std::to_string(c.dh) +
                            ")).masked_fill(mask.unsqueeze(1) == 0, float('-inf')), dim=-1)",
                    .result = "weights_head_" + n,
                    .bindings = {step_var("q", q.id), step_var("k", k.id), step_var("mask", c.a.mask->id)}};
  });
}

// The traced run's tiled attention (ModelConfig::overview_cap): no score tensor; the overview
// of the weights (B, H, R, C) and the head outputs (B, H, Tq, Dh), both from the tiles.
Flow tiled_head_outputs(const Ctx& c, const Flow& q, const Flow& k, const Flow& v) {
  const std::string root = std::to_string(c.dh);
  const std::string softmax = "torch.softmax((q @ k.transpose(-2, -1) / math.sqrt(" + root +
                              ")).masked_fill(mask.unsqueeze(1) == 0, float('-inf')), dim=-1)";
  const auto bindings = std::vector<StepInfo::Binding>{step_var("q", q.id), step_var("k", k.id),
                                                       step_var("mask", c.a.mask->id)};
  const float r = static_cast<float>(std::sqrt(static_cast<double>(c.dh)));
  const TiledAttention t = c.a.ranges ? attention_tiled_overview(q.t, k.t, v.t, *c.a.ranges, r, c.a.overview_cap)
                                      : attention_tiled_overview(q.t, k.t, v.t, c.a.mask->t, r, c.a.overview_cap);
  const int64_t bq = overview_bin(c.tq, c.a.overview_cap), bk = overview_bin(c.tk, c.a.overview_cap);
  record_step(c.rec, c.id("weights_overview"), t.overview, [&] {
    const std::string rows = "torch.arange(" + std::to_string(c.tq) + ") // " + std::to_string(bq);
    const std::string cols = "torch.arange(" + std::to_string(c.tk) + ") // " + std::to_string(bk);
    return StepInfo{
        .title = Text(Msg::st_attention_weights_tiled_overview),
        .formula = formula_parts({Text(Msg::sf_block_block_never_whole), Text(Msg::sf_cell_1_queries_mean_weight_2, bq, bk)}),
        .code = "a = " + softmax + ".nan_to_num(0.0); r = " + rows + "; a = torch.zeros(a.shape[0], a.shape[1], " +
                "int(r.max()) + 1, a.shape[3]).index_add_(2, r, a) / torch.bincount(r).view(-1, 1); " +
                "weights_overview = torch.zeros(*a.shape[:3], int((" + cols + ").max()) + 1).index_add_(3, " + cols +
                ", a)",
        .result = "weights_overview",
        .bindings = bindings};
  });
  if (!c.a.full_heads.empty()) {  // the dense mask once for the block's kept heads (the ranges make none)
    const Tensor mask = c.a.ranges ? c.a.ranges->dense() : c.a.mask->t.contiguous();
    for (int64_t h : c.a.full_heads) whole_head_weights(c, q, k, mask, h);
  }
  auto ho_id = record_step(c.rec, c.id("head_out"), t.out, [&] {
    auto b = bindings;
    b.push_back(step_var("v", v.id));
    return StepInfo{.title = Text(Msg::st_weighted_sum_values_tiled),
                    .formula = formula_parts({Text(Msg::sf_v_online_softmax_over_blocks_keys),
                                              Text(Msg::sf_no_tq_tk_matrix_kept, query_axis(c), key_axis(c))}),
                    .code = "head_out = " + softmax + " @ v", .result = "head_out", .bindings = b};
  });
  return {t.out, ho_id};
}

// Head merge: (B,H,Tq,Dh) → transpose → contiguous → view (B,Tq,D).
// MergeWithoutTranspose: one view straight from (B,H,Tq,Dh) to (B,Tq,D).
Flow merge_heads(const Ctx& c, const Flow& head_out) {
  const Tensor& ho = head_out.t;
  const std::string& ho_id = head_out.id;
  if (c.has(Fault::MergeWithoutTranspose)) {
    Tensor ctx = ho.view({c.b, c.tq, c.d});
    auto ctx_id = record_step(c.rec, c.id("context"), ctx, [&] {
      return StepInfo{.title = faulty(Text(Msg::st_merge_heads_view_without_transpose_contiguous)),
                      .formula = Text(Msg::sf_b_h_tq_dh_b_tq, query_axis(c)),
                      .code = "context = head_out.view(" + dims_csv(ctx.shape()) + ")", .result = "context",
                      .bindings = {step_var("head_out", ho_id)}, .fault = marks(c, {Fault::MergeWithoutTranspose})};
    });
    return {ctx, ctx_id};
  }
  Tensor mt = ho.transpose(1, 2);
  auto mt_id = record_step(c.rec, c.id("merge_transpose"), mt, [&] {
    const std::string Tq = query_axis(c);
    return StepInfo{.title = Text(Msg::st_merge_heads_transpose),
                    .formula = maths("(B, H, " + Tq + ", Dh) → (B, " + Tq + ", H, Dh)"),
                    .code = "merged = head_out.transpose(1, 2)", .result = "merged",
                    .bindings = {step_var("head_out", ho_id)}};
  });
  Tensor mc = mt.contiguous();
  auto mc_id = record_step(c.rec, c.id("merge_contiguous"), mc, [&] {
    return StepInfo{.title = Text(Msg::st_merge_heads_contiguous), .formula = Text(Msg::sf_copy_into_c_order_so_view),
                    .code = "merged_c = merged.contiguous()", .result = "merged_c",
                    .bindings = {step_var("merged", mt_id)}};
  });
  Tensor ctx = mc.view({c.b, c.tq, c.d});
  auto ctx_id = record_step(c.rec, c.id("context"), ctx, [&] {
    const std::string Tq = query_axis(c);
    return StepInfo{.title = Text(Msg::st_merge_heads_view), .formula = maths("(B, " + Tq + ", H, Dh) → (B, " + Tq + ", D)"),
                    .code = "context = merged_c.view(" + dims_csv(ctx.shape()) + ")", .result = "context",
                    .bindings = {step_var("merged_c", mc_id)}};
  });
  return {ctx, ctx_id};
}

// IndivisibleHeads with H not dividing D: the Q projection runs (and is recorded), then its head
// split fails as PyTorch's view does with Dh = D // H. Throws ShapeError naming both shapes.
[[noreturn]] void fail_indivisible(const Ctx& c) {
  const Flow q = project(c, 0);
  const bool straight = c.has(Fault::SplitWithoutTranspose);
  const Shape want = straight ? Shape{c.b, c.h, c.tq, c.dh} : Shape{c.b, c.tq, c.h, c.dh};
  const std::string var = straight ? "q" : "q_view", H = std::to_string(c.h), D = std::to_string(c.d);
  throw ShapeError(c.id(var) + ": " + var + " = q_proj.view(" + dims_csv(want) + ") fails: shape '[" +
                   dims_csv(want) + "]' is invalid for input of size " + std::to_string(q.t.numel()) + " (q_proj " +
                   shape_str(q.t.shape()) + " holds " + std::to_string(q.t.numel()) + " numbers, " + shape_str(want) +
                   " would hold " + std::to_string(numel_of(want)) + ": " + H + " heads do not divide d_model " + D +
                   ", and d_head = " + D + " // " + H + " = " + std::to_string(c.dh) + ") [fault " +
                   std::string(fault_info(Fault::IndivisibleHeads).id) + "]");
}

// DetachAttentionOutput: out.detach(), the same tensor with no gradient path back (model_backward
// sends nothing on from this step). (B, T, D) → (B, T, D)
Flow detached(const Ctx& c, const Flow& out) {
  auto id = record_step(c.rec, c.id("detached"), out.t, [&] {
    return StepInfo{.title = faulty(Text(Msg::st_output_detached)), .formula = Text(Msg::sf_detached_no_gradient),
                    .code = "detached = out.detach()", .result = "detached", .bindings = {step_var("out", out.id)},
                    .fault = marks(c, {Fault::DetachAttentionOutput})};
  });
  return {out.t, id};
}

}  // namespace

int64_t kept_head(std::string_view step_id) {
  constexpr std::string_view mark = ".weights_head_";
  const size_t at = step_id.rfind(mark);
  if (at == std::string_view::npos) return -1;
  int64_t h = -1;
  return parse_index(step_id.substr(at + mark.size()), h) ? h : -1;
}

Flow multi_head_attention(const AttentionArgs& a, const Weights& w, Recorder& rec) {
  const Shape& qs = a.query->t.shape();
  const Shape& ks = a.memory->t.shape();
  const bool forced = a.faults && a.faults->count(Fault::IndivisibleHeads) > 0;
  if (qs.size() != 3 || ks.size() != 3 || qs[0] != ks[0] || qs[2] != ks[2] || a.heads < 1 ||
      (qs[2] % a.heads != 0 && !forced))
    throw ShapeError("attention: query " + shape_str(qs) + " and memory " + shape_str(ks) +
                     " must be (B, T, D) with D divisible by " + std::to_string(a.heads) + " heads");
  const Shape want_mask{qs[0], qs[1], ks[1]};
  const Shape mask_shape = a.ranges ? a.ranges->shape() : a.mask->t.shape();
  if (mask_shape != want_mask)
    throw ShapeError("attention: mask " + shape_str(mask_shape) + " should be " + shape_str(want_mask));
  const bool fast = !rec.enabled() && (!a.faults || a.faults->empty());
  if (a.residual && !fast)
    throw std::logic_error("attention: only the untraced, fault-free path adds the residual itself");
  if (a.ranges && !fast && a.overview_cap == 0)  // the tiled trace reads the ranges (no (S, S) mask at all)
    throw ShapeError("attention: a traced or faulty run needs the dense mask");
  const Ctx c{a, w, rec, qs[0], qs[1], ks[1], qs[2], a.heads, qs[2] / a.heads};
  if (c.d % c.h != 0) fail_indivisible(c);

  Flow heads[3];
  for (int i = 0; i < 3; ++i) heads[i] = split_heads(c, i, project(c, i));
  Flow ho, masked;
  if (fast) {
    // The fast path records nothing: QKᵀ, the scaling, the mask, the softmax and A·V in one
    // backend call (fused on Vulkan and tiled on the CPU: no score matrix at all).
    const float root = static_cast<float>(std::sqrt(static_cast<double>(c.dh)));
    ho.t = a.ranges ? c.be().attention(heads[0].t, heads[1].t, heads[2].t, *a.ranges, root)
                    : c.be().attention(heads[0].t, heads[1].t, heads[2].t, a.mask->t, root);
  } else if (a.overview_cap > 0) {
    ho = tiled_head_outputs(c, heads[0], heads[1], heads[2]);
  } else {
    ho = head_outputs(c, attention_weights(c, heads[0], heads[1], &masked), heads[2]);
  }
  const Flow ctx = merge_heads(c, ho);

  const Tensor w_o = w.get(a.prefix + "out_proj.weight"), b_o = w.get(a.prefix + "out_proj.bias");
  Tensor out = a.residual ? c.be().linear_add(ctx.t, w_o, b_o, *a.residual) : c.be().linear(ctx.t, w_o, b_o);
  auto out_id = record_step(rec, c.id("out"), out, [&] {
    return StepInfo{.title = Text(Msg::st_output_projection), .formula = maths("out = context·W_Oᵀ + b_O"),
                    .code = "out = F.linear(context, out_proj_weight, out_proj_bias)", .result = "out",
                    .bindings = {step_var("context", ctx.id), weight_var("out_proj_weight", a.prefix + "out_proj.weight"),
                                 weight_var("out_proj_bias", a.prefix + "out_proj.bias")}};
  });
  const Flow result = c.has(Fault::DetachAttentionOutput) ? detached(c, {out, out_id}) : Flow{out, out_id};
  // A variant beside this block (traced, full path only): recorded after the block's own steps.
  if (a.variant && a.variant->on() && rec.enabled() && masked.t.defined())
    record_variant({.cfg = *a.variant, .layer_prefix = a.prefix.substr(0, a.prefix.size() - std::string("self_attn.").size()),
                    .attn_prefix = a.prefix, .x = *a.query, .q = heads[0], .k = heads[1], .v = heads[2],
                    .mask = *a.mask, .masked_scores = masked, .reference = ho, .w = w, .causal = a.causal,
                    .seed = a.seed},
                   rec);
  return result;
}

}  // namespace attnlab
