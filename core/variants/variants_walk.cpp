// The two walk-throughs: decoding with a KV cache one token at a time, and attention tiled over
// blocks of keys with the online softmax. Both must end where full attention does.
#include <algorithm>
#include <cmath>
#include <limits>

#include "tensor/ops.h"
#include "variants/variant_steps.h"

namespace attnlab::variant_detail {

namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// Rows [row0, row0 + D) of the fused in_proj applied to token t of every sentence:
// (B, T, D) → (B, H, 1, Dh).
Tensor project_token(const Ctx& c, int64_t t, int64_t row0) {
  const Tensor x = c.in.x.t.is_contiguous() ? c.in.x.t : c.in.x.t.contiguous();
  const int64_t d = x.size(2);
  const Tensor& w = c.in.w.get(c.in.attn_prefix + "in_proj_weight");
  const Tensor& bias = c.in.w.get(c.in.attn_prefix + "in_proj_bias");
  Tensor out = Tensor::empty({c.b, c.h, 1, c.dh});
  const ConstMatMap wm(w.data() + row0 * d, d, d);
  const ConstVecMap bm(bias.data() + row0, d);
  for (int64_t b = 0; b < c.b; ++b) {
    const ConstVecMap xr(x.data() + (b * x.size(1) + t) * d, d);
    Vec y = xr * wm.transpose() + bm;
    std::copy(y.data(), y.data() + d, out.data() + b * d);  // (H, 1, Dh) is the row in C order
  }
  return out;
}

std::string token_code(const Ctx& c, int64_t t, int64_t row0) {
  const int64_t d = c.h * c.dh;
  const std::string lo = std::to_string(row0), hi = std::to_string(row0 + d);
  return "F.linear(x[:, " + std::to_string(t) + ":" + std::to_string(t + 1) + "], in_proj_weight[" + lo + ":" + hi +
         "], in_proj_bias[" + lo + ":" + hi + "]).view(" + c.dims({c.b, c.h, c.dh}) + ").unsqueeze(2)";
}

std::vector<StepInfo::Binding> in_proj(const Ctx& c) {
  return {step_var("x", c.in.x.id), weight_var("in_proj_weight", c.in.attn_prefix + "in_proj_weight"),
          weight_var("in_proj_bias", c.in.attn_prefix + "in_proj_bias")};
}

// cache (B, H, n, Dh) with row (B, H, 1, Dh) appended.
Tensor append(const Tensor& cache, const Tensor& row) {
  const int64_t bh = row.size(0) * row.size(1), n = cache.defined() ? cache.size(2) : 0, dh = row.size(3);
  Tensor out = Tensor::empty({row.size(0), row.size(1), n + 1, dh});
  for (int64_t i = 0; i < bh; ++i) {
    if (n > 0) std::copy(cache.data() + i * n * dh, cache.data() + (i + 1) * n * dh, out.data() + i * (n + 1) * dh);
    std::copy(row.data() + i * dh, row.data() + (i + 1) * dh, out.data() + i * (n + 1) * dh + n * dh);
  }
  return out;
}

}  // namespace

// Position t: project only token t to q, k, v; append k and v to the cache; attend from q to
// the cache (keys ≤ t that the model's mask shows). The concatenated outputs equal full causal
// attention; the cache saves re-projecting the prefix at every step.
Tensor record_kv_cache(const Ctx& c) {
  const int64_t d = c.h * c.dh, t_len = c.t;
  Flow kc, vc;
  std::vector<Flow> outs;
  const Tensor& mask = c.in.mask.t;
  for (int64_t t = 0; t < t_len; ++t) {
    const std::string ts = round_prefix(StepRound::EveryToken, t);  // "t3." (variant_table.h)
    Flow* caches[2] = {&kc, &vc};
    for (int i = 0; i < 2; ++i) {
      const std::string n = i == 0 ? "k_cache" : "v_cache", prev = n + "_prev";
      const Tensor next = append(caches[i]->t, project_token(c, t, (i + 1) * d));
      const Flow before = *caches[i];
      *caches[i] = {next, record_step(c.rec, c.id(ts + n), next, [&] {
                      auto b = in_proj(c);
                      std::string code = n + " = " + token_code(c, t, (i + 1) * d);
                      if (t > 0) {
                        code = n + " = torch.cat([" + prev + ", " + token_code(c, t, (i + 1) * d) + "], dim=2)";
                        b.push_back(step_var(prev, before.id));
                      }
                      return StepInfo{.title = Text(i == 0 ? Msg::st_v_kv_cache_append_new_key
                                                           : Msg::st_v_kv_cache_append_new_value),
                                      .formula = formula_parts({Text(Msg::sf_v_project_token_1_only, t),
                                                                Text(i == 0 ? Msg::sf_v_cache_grows_1_keys
                                                                            : Msg::sf_v_cache_grows_1_values,
                                                                     t + 1)}),
                                      .code = code, .result = n, .bindings = b};
                    })};
    }
    const Tensor q = project_token(c, t, 0);
    Tensor attn({c.b, c.h, 1, t + 1}), out({c.b, c.h, 1, c.dh});
    std::vector<uint8_t> keep(static_cast<size_t>(t + 1));
    for (int64_t b = 0; b < c.b; ++b) {
      for (int64_t j = 0; j <= t; ++j) keep[static_cast<size_t>(j)] = mask.data()[(b * t_len + t) * t_len + j] != 0.0f;
      for (int64_t h = 0; h < c.h; ++h) {
        const Mat kh = head_of(kc.t, b, h), vh = head_of(vc.t, b, h), qh = head_of(q, b, h);
        Vec s = qh.row(0) * kh.transpose() / c.root_f();
        Mat w(1, t + 1);
        masked_softmax_row(s.data(), keep.data(), t + 1, w.data());
        put_head(attn, b, h, w);
        put_head(out, b, h, w * vh);
      }
    }
    const std::string a_id = record_step(c.rec, c.id(ts + "attn"), attn, [&] {
      auto b = in_proj(c);
      b.push_back(step_var("k_cache", kc.id));
      b.push_back(step_var("mask", c.in.mask.id));
      const std::string lo = std::to_string(t), hi = std::to_string(t + 1);
      return StepInfo{.title = Text(Msg::st_v_kv_cache_new_token_attends_cache),
                      .formula = formula_parts({maths("q_t = x_t·W_Qᵀ + b_Q"), Text(Msg::sf_v_softmax_q_t_k_cache_dh, lo)}),
                      .code = "q_t = " + token_code(c, t, 0) + "; attn = torch.softmax((q_t @ k_cache.transpose(-2, -1) / " +
                              c.root() + ").masked_fill(mask[:, " + lo + ":" + hi + ", :" + hi +
                              "].unsqueeze(1) == 0, float('-inf')), dim=-1).nan_to_num(0.0)",
                      .result = "attn",
                      .bindings = b};
    });
    outs.push_back({out, record_step(c.rec, c.id(ts + "out"), out, [&] {
                      return StepInfo{.title = Text(Msg::st_v_kv_cache_output_new_token),
                                      .formula = maths("o_t = attn·V_cache (B, H, 1, Dh)"),
                                      .code = "out = attn @ v_cache", .result = "out",
                                      .bindings = {step_var("attn", a_id), step_var("v_cache", vc.id)}};
                    })});
  }
  Tensor all = Tensor::empty({c.b, c.h, t_len, c.dh});
  for (int64_t bh = 0; bh < c.b * c.h; ++bh)
    for (int64_t t = 0; t < t_len; ++t)
      std::copy(outs[static_cast<size_t>(t)].t.data() + bh * c.dh, outs[static_cast<size_t>(t)].t.data() + (bh + 1) * c.dh,
                all.data() + (bh * t_len + t) * c.dh);
  const std::string o_id = record_step(c.rec, c.id("head_out"), all, [&] {
    StepInfo info{.title = Text(Msg::st_v_kv_cache_every_steps_output), .formula = Text(Msg::sf_v_b_h_t_dh_outputs_steps),
                  .result = "head_out"};
    std::string list;
    for (int64_t t = 0; t < t_len; ++t) {
      std::string var = "o";  // appended piecewise: GCC 12 warns falsely on "o" + string&&
      var += std::to_string(t);
      if (t) list += ", ";
      list += var;
      info.bindings.push_back(step_var(var, outs[static_cast<size_t>(t)].id));
    }
    info.code = "head_out = torch.cat([" + list + "], dim=2)";
    return info;
  });
  // The reference: full attention recomputed with the causal mask over the whole sequence.
  Tensor causal = mask.clone();
  for (int64_t b = 0; b < c.b; ++b)
    for (int64_t i = 0; i < t_len; ++i)
      for (int64_t j = i + 1; j < t_len; ++j) causal.data()[(b * t_len + i) * t_len + j] = 0.0f;
  Tensor ref = Tensor::empty(c.in.q.t.shape());
  for (int64_t b = 0; b < c.b; ++b)
    for (int64_t h = 0; h < c.h; ++h) {
      Mat s = head_of(c.in.q.t, b, h) * head_of(c.in.k.t, b, h).transpose() / c.root_f();
      std::vector<uint8_t> keep(static_cast<size_t>(t_len));
      for (int64_t i = 0; i < t_len; ++i) {
        for (int64_t j = 0; j < t_len; ++j) keep[static_cast<size_t>(j)] = causal.data()[(b * t_len + i) * t_len + j] != 0.0f;
        masked_softmax_row(s.row(i).data(), keep.data(), t_len, s.row(i).data());
      }
      put_head(ref, b, h, s * head_of(c.in.v.t, b, h));
    }
  const std::string r_id = record_step(c.rec, c.id("reference"), ref, [&] {
    return StepInfo{.title = Text(Msg::st_v_full_causal_attention_reference),
                    .formula = Text(Msg::sf_v_softmax_qk_dh_above_diagonal_where),
                    .code = "reference = torch.softmax((q @ k.transpose(-2, -1) / " + c.root() + ").masked_fill((mask * torch.ones(" +
                            c.dims({t_len, t_len}) + ").tril()).unsqueeze(1) == 0, float('-inf')), dim=-1).nan_to_num(0.0) @ v",
                    .result = "reference",
                    .bindings = {step_var("q", c.in.q.id), step_var("k", c.in.k.id), step_var("v", c.in.v.id),
                                 step_var("mask", c.in.mask.id)}};
  });
  record_error(c, {all, o_id}, {ref, r_id});
  return all;
}

// Key block j = [a, e): scores S_j; m ← max(m, rowmax S_j); r = e^(m_old − m);
// l ← l·r + Σ e^(S_j − m); O ← O·r + e^(S_j − m)·V_j. After the last block O / l.
Tensor record_tiled(const Ctx& c) {
  const int64_t tile = c.in.cfg.tile, t_len = c.t;
  const Tensor& mask = c.in.mask.t;
  Flow m, l, o;
  for (int64_t a = 0, j = 0; a < t_len; a += tile, ++j) {
    const int64_t e = std::min(a + tile, t_len), n = e - a;
    const std::string ts = round_prefix(StepRound::EveryTile, j), as = std::to_string(a), es = std::to_string(e);
    Tensor sc({c.b, c.h, t_len, n}), mn({c.b, c.h, t_len, 1}), rs({c.b, c.h, t_len, 1}), ln({c.b, c.h, t_len, 1}),
        on({c.b, c.h, t_len, c.dh});
    for (int64_t b = 0; b < c.b; ++b)
      for (int64_t h = 0; h < c.h; ++h) {
        const Mat qh = head_of(c.in.q.t, b, h), kh = head_of(c.in.k.t, b, h), vh = head_of(c.in.v.t, b, h);
        Mat s = qh * kh.middleRows(a, n).transpose() / c.root_f();
        const int64_t bh = b * c.h + h;
        for (int64_t i = 0; i < t_len; ++i) {
          float mx = kNegInf;
          for (int64_t k = 0; k < n; ++k) {
            if (mask.data()[(b * t_len + i) * t_len + a + k] == 0.0f) s(i, k) = kNegInf;
            mx = std::max(mx, s(i, k));
          }
          const float m_old = j ? m.t.data()[bh * t_len + i] : kNegInf;
          const float m_new = std::max(m_old, mx);
          float r = std::exp(m_old - m_new);  // NaN when both are −∞: nothing to rescale
          if (std::isnan(r)) r = 0.0f;
          float sum = 0.0f;
          Vec acc = j ? Vec(Eigen::Map<const Vec>(o.t.data() + (bh * t_len + i) * c.dh, c.dh) * r) : Vec(Vec::Zero(c.dh));
          for (int64_t k = 0; k < n; ++k) {
            float p = std::exp(s(i, k) - m_new);
            if (std::isnan(p)) p = 0.0f;
            sum += p;
            acc += p * vh.row(a + k);
          }
          mn.data()[bh * t_len + i] = m_new;
          rs.data()[bh * t_len + i] = r;
          ln.data()[bh * t_len + i] = (j ? l.t.data()[bh * t_len + i] * r : 0.0f) + sum;
          std::copy(acc.data(), acc.data() + c.dh, on.data() + (bh * t_len + i) * c.dh);
        }
        put_head(sc, b, h, s);
      }
    const std::string s_id = record_step(c.rec, c.id(ts + "scores"), sc, [&] {
      return StepInfo{.title = Text(Msg::st_v_tiled_scores_key_block),
                      .formula = Text(Msg::sf_v_s_j_q_k_1_2, as, es, n),
                      .code = "scores = (q @ k[:, :, " + as + ":" + es + "].transpose(-2, -1) / " + c.root() +
                              ").masked_fill(mask[:, :, " + as + ":" + es + "].unsqueeze(1) == 0, float('-inf'))",
                      .result = "scores",
                      .bindings = {step_var("q", c.in.q.id), step_var("k", c.in.k.id), step_var("mask", c.in.mask.id)}};
    });
    const Flow m_prev = m, l_prev = l, o_prev = o;
    m = {mn, record_step(c.rec, c.id(ts + "m"), mn, [&] {
           StepInfo info{.title = Text(Msg::st_v_tiled_running_maximum), .formula = maths("m ← max(m, rowmax(scores_j)) (B, H, S, 1)"),
                         .result = "m", .bindings = {step_var("scores", s_id)}};
           info.code = j ? "m = torch.maximum(m_prev, scores.amax(-1, keepdim=True))" : "m = scores.amax(-1, keepdim=True)";
           if (j) info.bindings.push_back(step_var("m_prev", m_prev.id));
           return info;
         })};
    std::string r_id;
    if (j)
      r_id = record_step(c.rec, c.id(ts + "rescale"), rs, [&] {
        return StepInfo{.title = Text(Msg::st_v_tiled_rescale_factor),
                        .formula = Text(Msg::sf_v_r_e_m_old_m_new),
                        .code = "rescale = torch.exp(m_prev - m).nan_to_num(0.0)", .result = "rescale",
                        .bindings = {step_var("m_prev", m_prev.id), step_var("m", m.id)}};
      });
    const std::string p = "torch.exp(scores - m).nan_to_num(0.0)";
    l = {ln, record_step(c.rec, c.id(ts + "l"), ln, [&] {
           StepInfo info{.title = Text(Msg::st_v_tiled_running_sum), .formula = maths("l ← l·r + Σ e^(scores_j − m)"), .result = "l",
                         .bindings = {step_var("scores", s_id), step_var("m", m.id)}};
           info.code = (j ? "l = l_prev * rescale + " : "l = ") + p + ".sum(-1, keepdim=True)";
           if (j) {
             info.bindings.push_back(step_var("l_prev", l_prev.id));
             info.bindings.push_back(step_var("rescale", r_id));
           }
           return info;
         })};
    o = {on, record_step(c.rec, c.id(ts + "o"), on, [&] {
           StepInfo info{.title = Text(Msg::st_v_tiled_running_output), .formula = Text(Msg::sf_v_o_o_r_e_s_j),
                         .result = "o", .bindings = {step_var("scores", s_id), step_var("m", m.id), step_var("v", c.in.v.id)}};
           info.code = (j ? "o = o_prev * rescale + " : "o = ") + p + " @ v[:, :, " + as + ":" + es + "]";
           if (j) {
             info.bindings.push_back(step_var("o_prev", o_prev.id));
             info.bindings.push_back(step_var("rescale", r_id));
           }
           return info;
         })};
  }
  Tensor out = Tensor::empty(c.in.q.t.shape());
  for (int64_t r = 0; r < c.b * c.h * t_len; ++r)
    for (int64_t k = 0; k < c.dh; ++k) {
      const float v = o.t.data()[r * c.dh + k] / l.t.data()[r];
      out.data()[r * c.dh + k] = std::isnan(v) ? 0.0f : v;
    }
  const std::string o_id = record_step(c.rec, c.id("head_out"), out, [&] {
    return StepInfo{.title = Text(Msg::st_v_tiled_normalise), .formula = Text(Msg::sf_v_o_l_equal_softmax_qk_dh),
                    .code = "head_out = (o / l).nan_to_num(0.0)", .result = "head_out",
                    .bindings = {step_var("o", o.id), step_var("l", l.id)}};
  });
  record_error(c, {out, o_id}, c.in.reference);
  return out;
}

}  // namespace attnlab::variant_detail
