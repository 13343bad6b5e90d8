#include "attention.h"

#include <cmath>

#include "errors.h"

namespace attnlab {

namespace {

const char* kQkv[3] = {"q", "k", "v"};
const char* kQkvUpper[3] = {"Q", "K", "V"};

struct Ctx {
  const AttentionArgs& a;
  const Weights& w;
  Recorder& rec;
  int64_t b, tq, tk, d, h, dh;
  std::string id(const std::string& s) const { return a.prefix + s; }
};

// Q/K/V projection: rows [i·D, (i+1)·D) of the fused in_proj. (B, T, D) → (B, T, D)
Flow project(const Ctx& c, int i) {
  const Flow& src = i == 0 ? *c.a.query : *c.a.memory;
  const auto& W = c.w.get(c.a.prefix + "in_proj_weight");
  const auto& bias = c.w.get(c.a.prefix + "in_proj_bias");
  Tensor t = linear_rows(src.t, W, bias, i * c.d, c.d);
  const std::string name = std::string(kQkv[i]) + "_proj";
  auto id = record_step(c.rec, c.id(name), t, [&] {
    const std::string lo = std::to_string(i * c.d), hi = std::to_string((i + 1) * c.d);
    return StepInfo{.title = std::string(kQkvUpper[i]) + " projection",
                    .formula = std::string(kQkvUpper[i]) + " = x·W_" + kQkvUpper[i] + "ᵀ + b_" + kQkvUpper[i],
                    .code = name + " = F.linear(x, in_proj_weight[" + lo + ":" + hi + "], in_proj_bias[" + lo + ":" + hi + "])",
                    .result = name,
                    .bindings = {step_var("x", src.id), weight_var("in_proj_weight", c.a.prefix + "in_proj_weight"),
                                 weight_var("in_proj_bias", c.a.prefix + "in_proj_bias")}};
  });
  return {t, id};
}

// Head split as two moves: view (B,T,D) → (B,T,H,Dh), then transpose → (B,H,T,Dh).
Flow split_heads(const Ctx& c, int i, const Flow& proj) {
  const int64_t t_len = i == 0 ? c.tq : c.tk;
  const std::string n = kQkv[i];
  Tensor v = proj.t.view({c.b, t_len, c.h, c.dh});
  auto view_id = record_step(c.rec, c.id(n + "_view"), v, [&] {
    return StepInfo{.title = "Split heads: view " + std::string(kQkvUpper[i]),
                    .formula = "(B, T, D) → (B, T, H, Dh)",
                    .code = n + "_view = " + n + "_proj.view(" + dims_csv(v.shape()) + ")",
                    .result = n + "_view",
                    .bindings = {step_var(n + "_proj", proj.id)}};
  });
  Tensor tr = v.transpose(1, 2);
  auto tr_id = record_step(c.rec, c.id(n), tr, [&] {
    return StepInfo{.title = "Split heads: transpose " + std::string(kQkvUpper[i]),
                    .formula = "(B, T, H, Dh) → (B, H, T, Dh)",
                    .code = n + " = " + n + "_view.transpose(1, 2)",
                    .result = n,
                    .bindings = {step_var(n + "_view", view_id)}};
  });
  return {tr, tr_id};
}

// Scores: QKᵀ (B,H,Tq,Tk), then / √Dh, then −∞ where masked, then softmax over keys.
Flow attention_weights(const Ctx& c, const Flow& q, const Flow& k) {
  const bool keep = c.rec.enabled();
  Tensor kt = k.t.transpose(-2, -1);
  auto kt_id = record_step(c.rec, c.id("k_t"), kt, [&] {
    return StepInfo{.title = "Transpose K", .formula = "Kᵀ: (B, H, Tk, Dh) → (B, H, Dh, Tk)",
                    .code = "k_t = k.transpose(-2, -1)", .result = "k_t", .bindings = {step_var("k", k.id)}};
  });
  Tensor qk = matmul(q.t, kt);
  auto qk_id = record_step(c.rec, c.id("qk"), qk, [&] {
    return StepInfo{.title = "Dot products QKᵀ", .formula = "QKᵀ (B, H, Tq, Tk)", .code = "qk = q @ k_t",
                    .result = "qk", .bindings = {step_var("q", q.id), step_var("k_t", kt_id)}};
  });
  const double root = std::sqrt(static_cast<double>(c.dh));
  Tensor scores = keep ? Tensor::empty(qk.shape()) : qk;  // in place on the fast path
  {
    const float r = static_cast<float>(root);
    const float* src = qk.data();
    float* dst = scores.data();
    const int64_t n = qk.numel();
    for (int64_t i = 0; i < n; ++i) dst[i] = src[i] / r;
  }
  auto sc_id = record_step(c.rec, c.id("scores"), scores, [&] {
    return StepInfo{.title = "Scale by √d_head", .formula = "QKᵀ / √Dh, √Dh = " + format_double(root),
                    .code = "scores = qk / math.sqrt(" + std::to_string(c.dh) + ")", .result = "scores",
                    .bindings = {step_var("qk", qk_id)}};
  });
  Tensor masked = keep ? scores.clone() : scores;
  masked_fill_neg_inf_inplace(masked, c.a.mask->t);
  auto m_id = record_step(c.rec, c.id("masked_scores"), masked, [&] {
    return StepInfo{.title = "Apply the mask", .formula = "scores + (−∞ where mask = 0)",
                    .code = "masked = scores.masked_fill(mask.unsqueeze(1) == 0, float('-inf'))",
                    .result = "masked", .bindings = {step_var("scores", sc_id), step_var("mask", c.a.mask->id)}};
  });
  Tensor weights = keep ? masked.clone() : masked;
  softmax_lastdim_inplace(weights);
  auto w_id = record_step(c.rec, c.id("weights"), weights, [&] {
    return StepInfo{.title = "Softmax over the keys", .formula = "A = softmax(scores, dim = −1); each row sums to 1",
                    .code = "weights = torch.softmax(masked, dim=-1)", .result = "weights",
                    .bindings = {step_var("masked", m_id)}};
  });
  return {weights, w_id};
}

// Weighted sum and head merge: A·V (B,H,Tq,Dh) → transpose → contiguous → view (B,Tq,D).
Flow merge_heads(const Ctx& c, const Flow& weights, const Flow& v) {
  Tensor ho = matmul(weights.t, v.t);
  auto ho_id = record_step(c.rec, c.id("head_out"), ho, [&] {
    return StepInfo{.title = "Weighted sum of values", .formula = "A·V (B, H, Tq, Dh)",
                    .code = "head_out = weights @ v", .result = "head_out",
                    .bindings = {step_var("weights", weights.id), step_var("v", v.id)}};
  });
  Tensor mt = ho.transpose(1, 2);
  auto mt_id = record_step(c.rec, c.id("merge_transpose"), mt, [&] {
    return StepInfo{.title = "Merge heads: transpose", .formula = "(B, H, Tq, Dh) → (B, Tq, H, Dh)",
                    .code = "merged = head_out.transpose(1, 2)", .result = "merged",
                    .bindings = {step_var("head_out", ho_id)}};
  });
  Tensor mc = mt.contiguous();
  auto mc_id = record_step(c.rec, c.id("merge_contiguous"), mc, [&] {
    return StepInfo{.title = "Merge heads: contiguous", .formula = "copy into C order so that view() can work",
                    .code = "merged_c = merged.contiguous()", .result = "merged_c",
                    .bindings = {step_var("merged", mt_id)}};
  });
  Tensor ctx = mc.view({c.b, c.tq, c.d});
  auto ctx_id = record_step(c.rec, c.id("context"), ctx, [&] {
    return StepInfo{.title = "Merge heads: view", .formula = "(B, Tq, H, Dh) → (B, Tq, D)",
                    .code = "context = merged_c.view(" + dims_csv(ctx.shape()) + ")", .result = "context",
                    .bindings = {step_var("merged_c", mc_id)}};
  });
  return {ctx, ctx_id};
}

}  // namespace

Flow multi_head_attention(const AttentionArgs& a, const Weights& w, Recorder& rec) {
  const Shape& qs = a.query->t.shape();
  const Shape& ks = a.memory->t.shape();
  if (qs.size() != 3 || ks.size() != 3 || qs[0] != ks[0] || qs[2] != ks[2] || qs[2] % a.heads != 0)
    throw ShapeError("attention: query " + shape_str(qs) + " and memory " + shape_str(ks) +
                     " must be (B, T, D) with D divisible by " + std::to_string(a.heads) + " heads");
  const Shape want_mask{qs[0], qs[1], ks[1]};
  if (a.mask->t.shape() != want_mask)
    throw ShapeError("attention: mask " + shape_str(a.mask->t.shape()) + " should be " + shape_str(want_mask));
  const Ctx c{a, w, rec, qs[0], qs[1], ks[1], qs[2], a.heads, qs[2] / a.heads};

  Flow heads[3];
  for (int i = 0; i < 3; ++i) heads[i] = split_heads(c, i, project(c, i));
  const Flow weights = attention_weights(c, heads[0], heads[1]);
  const Flow ctx = merge_heads(c, weights, heads[2]);

  Tensor out = linear(ctx.t, w.get(a.prefix + "out_proj.weight"), w.get(a.prefix + "out_proj.bias"));
  auto out_id = record_step(rec, c.id("out"), out, [&] {
    return StepInfo{.title = "Output projection", .formula = "out = context·W_Oᵀ + b_O",
                    .code = "out = F.linear(context, out_proj_weight, out_proj_bias)", .result = "out",
                    .bindings = {step_var("context", ctx.id), weight_var("out_proj_weight", a.prefix + "out_proj.weight"),
                                 weight_var("out_proj_bias", a.prefix + "out_proj.bias")}};
  });
  return {out, out_id};
}

}  // namespace attnlab
