// The variants' shared machinery: head access, the masked softmax, the sparse attention, the
// error step, and record_variant's dispatch to each kind.
#include "variants/variants.h"

#include <cmath>
#include <limits>

#include "text/errors.h"
#include "variants/variant_steps.h"

namespace attnlab {

namespace variant_detail {

std::string Ctx::root() const { return "math.sqrt(" + std::to_string(dh) + ")"; }
float Ctx::root_f() const { return static_cast<float>(std::sqrt(static_cast<double>(dh))); }
std::string Ctx::dims(std::initializer_list<int64_t> d) const { return dims_csv(Shape(d)); }

Ctx make_ctx(const VariantInput& in, Recorder& rec) {
  const Shape& s = in.q.t.shape();
  if (s.size() != 4 || in.k.t.shape() != s || in.v.t.shape() != s || in.mask.t.shape() != Shape{s[0], s[2], s[2]})
    throw ShapeError("variant: q " + shape_str(s) + ", k " + shape_str(in.k.t.shape()) + ", v " +
                     shape_str(in.v.t.shape()) + " and mask " + shape_str(in.mask.t.shape()) +
                     " must be (B, H, T, Dh) ×3 and (B, T, T) for one self-attention block");
  return Ctx{in, rec, s[0], s[1], s[2], s[3]};
}

Mat head_of(const Tensor& t, int64_t b, int64_t h) {
  const auto& st = t.strides();
  const int64_t r = t.size(2), cols = t.size(3);
  Mat m(r, cols);
  const float* base = t.data() + b * st[0] + h * st[1];
  for (int64_t i = 0; i < r; ++i)
    for (int64_t j = 0; j < cols; ++j) m(i, j) = base[i * st[2] + j * st[3]];
  return m;
}

void put_head(Tensor& dst, int64_t b, int64_t h, const Mat& m) {
  const int64_t plane = dst.size(2) * dst.size(3);
  std::copy(m.data(), m.data() + plane, dst.data() + (b * dst.size(1) + h) * plane);
}

std::vector<std::vector<uint8_t>> real_keys(const Tensor& mask) {
  const int64_t bsz = mask.size(0), tq = mask.size(1), tk = mask.size(2);
  std::vector<std::vector<uint8_t>> out(static_cast<size_t>(bsz), std::vector<uint8_t>(static_cast<size_t>(tk), 0));
  for (int64_t b = 0; b < bsz; ++b)
    for (int64_t i = 0; i < tq; ++i)
      for (int64_t j = 0; j < tk; ++j)
        if (mask.data()[(b * tq + i) * tk + j] != 0.0f) out[static_cast<size_t>(b)][static_cast<size_t>(j)] = 1;
  return out;
}

void masked_softmax_row(const float* s, const uint8_t* keep, int64_t n, float* w) {
  float m = -std::numeric_limits<float>::infinity();
  for (int64_t j = 0; j < n; ++j)
    if (keep[j] && s[j] > m) m = s[j];
  double sum = 0;
  for (int64_t j = 0; j < n; ++j) {
    w[j] = keep[j] && std::isfinite(m) ? std::exp(s[j] - m) : 0.0f;
    sum += w[j];
  }
  for (int64_t j = 0; j < n; ++j) w[j] = sum > 0 ? static_cast<float>(w[j] / sum) : 0.0f;
}

Tensor batched_matmul(const Tensor& weights, const Tensor& values) {
  const int64_t bsz = weights.size(0), h = weights.size(1);
  Tensor out = Tensor::empty({bsz, h, weights.size(2), values.size(3)});
  for (int64_t b = 0; b < bsz; ++b)
    for (int64_t hh = 0; hh < h; ++hh) put_head(out, b, hh, head_of(weights, b, hh) * head_of(values, b, hh));
  return out;
}

Sparse sparse_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& pattern, float root,
                        const Tensor* bias) {
  const int64_t bsz = q.size(0), h = q.size(1), t = q.size(2), dh = q.size(3);
  Sparse s{Tensor({bsz, h, t, t}), Tensor({bsz, h, t, dh})};
  std::vector<int64_t> keys;
  std::vector<float> sc, w;
  for (int64_t b = 0; b < bsz; ++b)
    for (int64_t hh = 0; hh < h; ++hh) {
      const Mat qh = head_of(q, b, hh), kh = head_of(k, b, hh), vh = head_of(v, b, hh);
      Mat out = Mat::Zero(t, dh);
      const float* pat = pattern.data() + (b * h + hh) * t * t;
      float* wrow = s.weights.data() + (b * h + hh) * t * t;
      for (int64_t i = 0; i < t; ++i) {
        keys.clear();
        for (int64_t j = 0; j < t; ++j)
          if (pat[i * t + j] != 0.0f) keys.push_back(j);  // only these pairs are computed
        sc.assign(keys.size(), 0.0f);
        for (size_t n = 0; n < keys.size(); ++n) {
          sc[n] = qh.row(i).dot(kh.row(keys[n])) / root;
          if (bias) sc[n] += bias->data()[(hh * t + i) * t + keys[n]];
        }
        const std::vector<uint8_t> all(keys.size(), 1);
        w.assign(keys.size(), 0.0f);
        if (!keys.empty()) masked_softmax_row(sc.data(), all.data(), static_cast<int64_t>(keys.size()), w.data());
        for (size_t n = 0; n < keys.size(); ++n) {
          wrow[i * t + keys[n]] = w[n];
          out.row(i) += w[n] * vh.row(keys[n]);
        }
      }
      put_head(s.out, b, hh, out);
    }
  return s;
}

Tensor error_of(const Tensor& a, const Tensor& ref, const Tensor& mask) {
  const int64_t bsz = a.size(0), h = a.size(1), t = a.size(2);
  Tensor e({bsz, t});
  for (int64_t b = 0; b < bsz; ++b)
    for (int64_t hh = 0; hh < h; ++hh) {
      const Mat d = (head_of(a, b, hh) - head_of(ref, b, hh)).cwiseAbs();
      for (int64_t i = 0; i < t; ++i)
        if (mask.data()[(b * t + i) * t + i] != 0.0f) e.data()[b * t + i] = std::max(e.data()[b * t + i], d.row(i).maxCoeff());
    }
  return e;
}

std::string record_error(const Ctx& c, const Flow& head_out, const Flow& reference) {
  return record_step(c.rec, c.id("error"), error_of(head_out.t, reference.t, c.in.mask.t), [&] {
    return StepInfo{.title = Text(Msg::st_v_difference_from_full_attention),
                    .formula = formula_parts({Text(Msg::sf_v_max_over_heads_dh_o_variant),
                                              Text(Msg::sf_v_0_where_querys_own_key_masked)}),
                    .code = "error = (head_out - reference).abs().amax(dim=(1, 3)) * mask.diagonal(dim1=1, dim2=2)",
                    .result = "error",
                    .bindings = {step_var("head_out", head_out.id), step_var("reference", reference.id),
                                 step_var("mask", c.in.mask.id)}};
  });
}

Tensor record_weights_out_error(const Ctx& c, const Sparse& s, const std::string& weights_name,
                                const Text& title, const Text& formula, const std::string& weights_code,
                                std::vector<StepInfo::Binding> bindings) {
  const std::string w_id = record_step(c.rec, c.id(weights_name), s.weights, [&] {
    return StepInfo{.title = title, .formula = formula, .code = weights_code, .result = "weights",
                    .bindings = bindings};
  });
  const std::string o_id = record_step(c.rec, c.id("head_out"), s.out, [&] {
    return StepInfo{.title = Text(Msg::st_v_weighted_sum_values_variant),
                    .formula = Text(Msg::sf_v_v_over_computed_pairs_only_b),
                    .code = "head_out = weights @ v", .result = "head_out",
                    .bindings = {step_var("weights", w_id), step_var("v", c.in.v.id)}};
  });
  record_error(c, {s.out, o_id}, c.in.reference);
  return s.out;
}

Tensor pattern_tensor(const std::vector<std::vector<uint8_t>>& per_head, const Tensor& mask) {
  const int64_t bsz = mask.size(0), t = mask.size(1), h = static_cast<int64_t>(per_head.size());
  Tensor p({bsz, h, t, t});
  for (int64_t b = 0; b < bsz; ++b)
    for (int64_t hh = 0; hh < h; ++hh)
      for (int64_t i = 0; i < t * t; ++i)
        p.data()[(b * h + hh) * t * t + i] =
            per_head[static_cast<size_t>(hh)][static_cast<size_t>(i)] && mask.data()[b * t * t + i] != 0.0f ? 1.0f : 0.0f;
  return p;
}

}  // namespace variant_detail

Tensor record_variant(const VariantInput& in, Recorder& rec) {
  using namespace variant_detail;
  const Ctx c = make_ctx(in, rec);
  switch (in.cfg.kind) {
    case VariantKind::Window: return record_window(c);
    case VariantKind::BigBird: return record_bigbird(c);
    case VariantKind::TopK: return record_topk(c);
    case VariantKind::RelativeBias:
    case VariantKind::Alibi: return record_bias(c);
    case VariantKind::Axial: return record_axial(c);
    case VariantKind::Linformer: return record_linformer(c);
    case VariantKind::Linear: return record_linear(c);
    case VariantKind::KvCache: return record_kv_cache(c);
    case VariantKind::Tiled: return record_tiled(c);
    case VariantKind::None: break;
  }
  return {};
}

}  // namespace attnlab
