// The variants that never form the (T, T) score matrix: Linformer's low-rank keys and values,
// and kernelised linear attention (feature map elu + 1) computed in O(T) — each with the (T, T)
// matrix it amounts to, recorded for the heatmap.
#include <cmath>

#include "variants/variant_steps.h"

namespace attnlab::variant_detail {

namespace {

// x (B, H, T, C) with rows of keys no query sees set to 0.
Tensor zero_hidden_keys(const Tensor& x, const std::vector<std::vector<uint8_t>>& real) {
  Tensor out = Tensor::empty(x.shape());
  for (int64_t b = 0; b < x.size(0); ++b)
    for (int64_t h = 0; h < x.size(1); ++h) {
      Mat m = head_of(x, b, h);
      for (int64_t j = 0; j < m.rows(); ++j)
        if (!real[static_cast<size_t>(b)][static_cast<size_t>(j)]) m.row(j).setZero();
      put_head(out, b, h, m);
    }
  return out;
}

const char* kKeyMask = "mask.amax(dim=1)[:, None, :, None]";  // (B, 1, T, 1): 1 for keys some query sees

float elu1(float x) { return x > 0 ? x + 1.0f : std::exp(x); }  // elu(x) + 1 > 0

}  // namespace

// K̃ = E·K, Ṽ = E·V with E (rank, T) shared by keys and values (padded keys zeroed first);
// A = softmax(Q K̃ᵀ / √Dh) (T, rank); O = A Ṽ = (A E) V, so A·E is the (T, T) matrix it amounts to.
Tensor record_linformer(const Ctx& c) {
  const int64_t r = c.in.cfg.rank;
  const Tensor e = linformer_projection(r, c.t, c.in.seed);
  const auto real = real_keys(c.in.mask.t);
  const Mat em = ConstMatMap(e.data(), r, c.t);
  const std::string e_id = record_step(c.rec, c.id("projection"), e, [&] {
    return StepInfo{.title = Text(Msg::st_v_linformer_projection_e),
                    .formula = Text(Msg::sf_v_1_2_seeded_normals_3_shared, r, c.t, r),
                    .code = "# seeded: streams 'variant.linformer.row{r}' (docs/cli.md, Attention variants)",
                    .result = "projection",
                    .is_data = true};
  });
  Flow low[2];
  const Tensor kv[2] = {zero_hidden_keys(c.in.k.t, real), zero_hidden_keys(c.in.v.t, real)};
  for (int i = 0; i < 2; ++i) {
    Tensor t = Tensor::empty({c.b, c.h, r, c.dh});
    for (int64_t b = 0; b < c.b; ++b)
      for (int64_t h = 0; h < c.h; ++h) put_head(t, b, h, em * head_of(kv[i], b, h));
    const std::string n = i == 0 ? "k" : "v";
    low[i] = {t, record_step(c.rec, c.id(n + "_low"), t, [&] {
                return StepInfo{.title = Text(i == 0 ? Msg::st_v_project_keys_rank_k : Msg::st_v_project_values_rank_k),
                                .formula = Text(Msg::sf_v_1_b_h_2_dh_t, maths(i == 0 ? "K̃ = E·K" : "Ṽ = E·V"), r, r),
                                .code = n + "_low = projection @ (" + n + " * " + kKeyMask + ")",
                                .result = n + "_low",
                                .bindings = {step_var("projection", e_id), step_var(n, i == 0 ? c.in.k.id : c.in.v.id),
                                             step_var("mask", c.in.mask.id)}};
              })};
  }
  Tensor w = Tensor::empty({c.b, c.h, c.t, r});
  for (int64_t b = 0; b < c.b; ++b)
    for (int64_t h = 0; h < c.h; ++h) {
      Mat s = head_of(c.in.q.t, b, h) * head_of(low[0].t, b, h).transpose() / c.root_f();
      for (int64_t i = 0; i < c.t; ++i) {
        const std::vector<uint8_t> all(static_cast<size_t>(r), 1);
        masked_softmax_row(s.row(i).data(), all.data(), r, s.row(i).data());
      }
      put_head(w, b, h, s);
    }
  const std::string w_id = record_step(c.rec, c.id("low_weights"), w, [&] {
    return StepInfo{.title = Text(Msg::st_v_softmax_over_projected_keys),
                    .formula = Text(Msg::sf_v_softmax_q_k_dh_b_h, r),
                    .code = "low_weights = torch.softmax(q @ k_low.transpose(-2, -1) / " + c.root() + ", dim=-1)",
                    .result = "low_weights",
                    .bindings = {step_var("q", c.in.q.id), step_var("k_low", low[0].id)}};
  });
  const Tensor out = batched_matmul(w, low[1].t);
  const std::string o_id = record_step(c.rec, c.id("head_out"), out, [&] {
    return StepInfo{.title = Text(Msg::st_v_weighted_sum_projected_values), .formula = maths("O = A·Ṽ (B, H, S, Dh)"),
                    .code = "head_out = low_weights @ v_low", .result = "head_out",
                    .bindings = {step_var("low_weights", w_id), step_var("v_low", low[1].id)}};
  });
  Tensor eff = Tensor::empty({c.b, c.h, c.t, c.t});
  for (int64_t b = 0; b < c.b; ++b)
    for (int64_t h = 0; h < c.h; ++h) {
      Mat m = head_of(w, b, h) * em;
      for (int64_t j = 0; j < c.t; ++j)
        if (!real[static_cast<size_t>(b)][static_cast<size_t>(j)]) m.col(j).setZero();
      put_head(eff, b, h, m);
    }
  record_step(c.rec, c.id("effective"), eff, [&] {
    return StepInfo{.title = Text(Msg::st_v_linformer_effective_weights),
                    .formula = formula_parts({maths("A·E (B, H, S, S): O = (A·E)·V"), Text(Msg::sf_v_rows_sum_e_not_1_may)}),
                    .code = "effective = (low_weights @ projection) * mask.amax(dim=1)[:, None, None, :]",
                    .result = "effective",
                    .bindings = {step_var("low_weights", w_id), step_var("projection", e_id),
                                 step_var("mask", c.in.mask.id)}};
  });
  record_error(c, {out, o_id}, c.in.reference);
  return out;
}

// φ(x) = elu(x) + 1. Without a causal mask: S = φ(K)ᵀV (Dh, Dh) and z = Σ φ(k_j) once, then
// o_i = φ(q_i)·S / φ(q_i)·z. With one: the same sums kept running over j ≤ i.
Tensor record_linear(const Ctx& c) {
  const auto real = real_keys(c.in.mask.t);
  const bool causal = c.in.causal;
  Tensor phi[2] = {Tensor::empty(c.in.q.t.shape()), Tensor::empty(c.in.k.t.shape())};
  for (int64_t b = 0; b < c.b; ++b)
    for (int64_t h = 0; h < c.h; ++h) {
      Mat pq = head_of(c.in.q.t, b, h).unaryExpr(&elu1), pk = head_of(c.in.k.t, b, h).unaryExpr(&elu1);
      for (int64_t j = 0; j < c.t; ++j)
        if (!real[static_cast<size_t>(b)][static_cast<size_t>(j)]) pk.row(j).setZero();
      put_head(phi[0], b, h, pq);
      put_head(phi[1], b, h, pk);
    }
  const std::string pq_id = record_step(c.rec, c.id("phi_q"), phi[0], [&] {
    return StepInfo{.title = Text(Msg::st_v_feature_map_queries), .formula = maths("φ(Q) = elu(Q) + 1 > 0"),
                    .code = "phi_q = (F.elu(q) + 1).contiguous()", .result = "phi_q",
                    .bindings = {step_var("q", c.in.q.id)}};
  });
  const std::string pk_id = record_step(c.rec, c.id("phi_k"), phi[1], [&] {
    return StepInfo{.title = Text(Msg::st_v_feature_map_keys),
                    .formula = formula_parts({maths("φ(K) = elu(K) + 1"), Text(Msg::sf_v_rows_masked_keys_0)}),
                    .code = std::string("phi_k = ((F.elu(k) + 1) * ") + kKeyMask + ").contiguous()", .result = "phi_k",
                    .bindings = {step_var("k", c.in.k.id), step_var("mask", c.in.mask.id)}};
  });
  Tensor kv({c.b, c.h, c.dh, c.dh}), ksum({c.b, c.h, c.dh}), out = Tensor::empty(c.in.q.t.shape());
  for (int64_t b = 0; b < c.b; ++b)
    for (int64_t h = 0; h < c.h; ++h) {
      const Mat pq = head_of(phi[0], b, h), pk = head_of(phi[1], b, h), vh = head_of(c.in.v.t, b, h);
      Mat s = Mat::Zero(c.dh, c.dh), o(c.t, c.dh);
      Vec z = Vec::Zero(c.dh);
      if (!causal) {
        s = pk.transpose() * vh;  // one pass over the keys: O(T·Dh²)
        z = pk.colwise().sum();
      }
      for (int64_t i = 0; i < c.t; ++i) {
        if (causal) {  // the running state after key i
          s += pk.row(i).transpose() * vh.row(i);
          z += pk.row(i);
        }
        o.row(i) = (pq.row(i) * s) / pq.row(i).dot(z);
      }
      put_head(out, b, h, o);
      std::copy(s.data(), s.data() + c.dh * c.dh, kv.data() + (b * c.h + h) * c.dh * c.dh);
      std::copy(z.data(), z.data() + c.dh, ksum.data() + (b * c.h + h) * c.dh);
    }
  const std::string kv_id = record_step(c.rec, c.id("kv"), kv, [&] {
    return StepInfo{.title = Text(Msg::st_v_key_value_summary),
                    .formula = causal ? formula_parts({Text(Msg::sf_v_s_k_v_b_h_dh), Text(Msg::sf_v_causal_state_after_last_key)})
                                      : Text(Msg::sf_v_s_k_v_b_h_dh),
                    .code = "kv = phi_k.transpose(-2, -1) @ v", .result = "kv",
                    .bindings = {step_var("phi_k", pk_id), step_var("v", c.in.v.id)}};
  });
  record_step(c.rec, c.id("k_sum"), ksum, [&] {
    return StepInfo{.title = Text(Msg::st_v_key_sum_normaliser), .formula = maths("z = Σⱼ φ(kⱼ) (B, H, Dh)"),
                    .code = "k_sum = phi_k.sum(dim=2)", .result = "k_sum", .bindings = {step_var("phi_k", pk_id)}};
  });
  const std::string o_id = record_step(c.rec, c.id("head_out"), out, [&] {
    if (causal)
      return StepInfo{
          .title = Text(Msg::st_v_linear_attention_output_running_sums),
          .formula = Text(Msg::sf_v_1_o_t_dh_no_t, maths("oᵢ = φ(qᵢ)·Σ_{j≤i} φ(kⱼ)ᵀvⱼ / φ(qᵢ)·Σ_{j≤i} φ(kⱼ)")),
          .code = "head_out = torch.einsum('bhtd,bhtde->bhte', phi_q, torch.einsum('bhtd,bhte->bhtde', phi_k, "
                  "v).cumsum(2)) / torch.einsum('bhtd,bhtd->bht', phi_q, phi_k.cumsum(2)).unsqueeze(-1)",
          .result = "head_out",
          .bindings = {step_var("phi_q", pq_id), step_var("phi_k", pk_id), step_var("v", c.in.v.id)}};
    return StepInfo{.title = Text(Msg::st_v_linear_attention_output),
                    .formula = Text(Msg::sf_v_1_o_t_dh_no_t, maths("O = φ(Q)·KV / φ(Q)·z")),
                    .code = "head_out = (phi_q @ kv) / (phi_q @ k_sum.unsqueeze(-1))", .result = "head_out",
                    .bindings = {step_var("phi_q", pq_id), step_var("kv", kv_id), step_var("k_sum", c.id("k_sum"))}};
  });
  // The same thing the quadratic way, for the heatmap and the proof that the two agree.
  Tensor quad = Tensor::empty({c.b, c.h, c.t, c.t});
  for (int64_t b = 0; b < c.b; ++b)
    for (int64_t h = 0; h < c.h; ++h) {
      Mat a = head_of(phi[0], b, h) * head_of(phi[1], b, h).transpose();
      if (causal) a = a.triangularView<Eigen::Lower>().toDenseMatrix();
      for (int64_t i = 0; i < c.t; ++i) a.row(i) /= a.row(i).sum();
      put_head(quad, b, h, a);
    }
  const std::string q_id = record_step(c.rec, c.id("quadratic"), quad, [&] {
    return StepInfo{.title = Text(Msg::st_v_same_weights_quadratic_way),
                    .formula = Text(causal ? Msg::sf_v_q_k_lower_triangle_each_row : Msg::sf_v_q_k_each_row_divided_sum),
                    .code = std::string("a = (phi_q @ phi_k.transpose(-2, -1))") + (causal ? ".tril()" : "") +
                            "; quadratic = a / a.sum(-1, keepdim=True)",
                    .result = "quadratic",
                    .bindings = {step_var("phi_q", pq_id), step_var("phi_k", pk_id)}};
  });
  record_step(c.rec, c.id("quadratic_out"), batched_matmul(quad, c.in.v.t), [&] {
    return StepInfo{.title = Text(Msg::st_v_quadratic_forms_output), .formula = Text(Msg::sf_v_v_equal_o_t_result),
                    .code = "quadratic_out = quadratic @ v", .result = "quadratic_out",
                    .bindings = {step_var("quadratic", q_id), step_var("v", c.in.v.id)}};
  });
  record_error(c, {out, o_id}, c.in.reference);
  return out;
}

}  // namespace attnlab::variant_detail
