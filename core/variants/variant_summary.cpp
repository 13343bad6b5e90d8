// What a variant costs next to full attention and how far its result is from full attention's
// (what its steps occupy in a trace: variant_table.cpp).
#include <algorithm>
#include <cmath>

#include "variants/variants.h"

namespace attnlab {

namespace {

double nonzeros(const Step* s) {
  if (!s) return 0;
  return static_cast<double>(std::count_if(s->tensor.data(), s->tensor.data() + s->tensor.numel(),
                                           [](float v) { return v != 0.0f; }));
}

struct Sizes {
  double b, h, t, dh, d;
};

// The variant's cost (flops, bytes) from its recorded patterns; the reference's is full
// attention's (4·B·H·T²·Dh flops: QKᵀ and A·V; the (T, T) weights of every head held at once).
std::pair<Cost, Cost> costs(const VariantConfig& v, const Trace& tr, const std::string& p, const Sizes& z) {
  const double bh = z.b * z.h, t2 = z.t * z.t;
  const Cost full{4 * bh * t2 * z.dh, 4 * bh * t2};
  switch (v.kind) {
    case VariantKind::Window:
    case VariantKind::BigBird: {
      const double n = nonzeros(tr.find(p + "pattern"));  // pairs computed
      return {{4 * n * z.dh, 8 * n}, full};                  // a value and a key index per pair
    }
    case VariantKind::TopK: {
      const double n = nonzeros(tr.find(p + "pattern"));
      return {{2 * bh * t2 * z.dh + bh * t2 + 2 * n * z.dh, 4 * bh * t2}, full};  // every score, then a selection
    }
    case VariantKind::RelativeBias:
      return {{full.flops + bh * t2, full.bytes + 4 * z.h * (2 * v.max_distance + 1)}, full};
    case VariantKind::Alibi: return {{full.flops + bh * t2, full.bytes}, full};
    case VariantKind::Axial: {
      const double r = nonzeros(tr.find(p + "row_pattern")), c = nonzeros(tr.find(p + "col_pattern"));
      return {{4 * (r + c) * z.dh, 8 * std::max(r, c)}, full};
    }
    case VariantKind::Linformer: {
      const double k = static_cast<double>(v.rank);
      return {{4 * bh * k * z.t * z.dh + 4 * bh * z.t * k * z.dh, 4 * bh * (z.t * k + 2 * k * z.dh)}, full};
    }
    case VariantKind::Linear:
      return {{4 * bh * z.t * z.dh * z.dh + 3 * bh * z.t * z.dh, 4 * bh * (z.dh * z.dh + z.dh)}, full};
    case VariantKind::KvCache: {
      // Per position: the new token's q, k, v (6·D² flops) and its attention over t + 1 keys;
      // without a cache the k and v of the whole prefix are projected again every step.
      const double tt = z.t * (z.t + 1) / 2, d2 = z.d * z.d;
      const double attn = 4 * z.h * z.dh * tt;
      const Cost cached{z.b * (6 * d2 * z.t + attn), 4 * z.b * 2 * z.t * z.d};
      const Cost recompute{z.b * (2 * d2 * z.t + 4 * d2 * tt + attn), 4 * z.b * 2 * z.t * z.d};
      return {cached, recompute};
    }
    case VariantKind::Tiled: {
      const double tile = static_cast<double>(std::min<int64_t>(v.tile, static_cast<int64_t>(z.t)));
      const double blocks = std::ceil(z.t / tile);
      // + the rescaling of l and O after each block
      return {{full.flops + bh * z.t * (blocks - 1) * (z.dh + 1), 4 * bh * z.t * (tile + 2)}, full};
    }
    case VariantKind::None: break;
  }
  return {{}, full};
}

}  // namespace

std::optional<VariantSummary> summarize_variant(const VariantConfig& v, const Trace& tr, int64_t d_model) {
  if (!v.on()) return std::nullopt;
  const std::string p = variant_prefix(v);
  const Step* out = tr.find(p + "head_out");
  const std::string ref_id =
      v.kind == VariantKind::KvCache ? p + "reference" : "encoder.layers." + std::to_string(v.layer) + ".self_attn.head_out";
  const Step* ref = tr.find(ref_id);
  const Step* mask = tr.find("encoder.mask");
  if (!out || !ref || !mask || out->tensor.shape() != ref->tensor.shape()) return std::nullopt;
  const Tensor& o = out->tensor;
  const Tensor r = ref->tensor.contiguous();
  const int64_t b = o.size(0), h = o.size(1), t = o.size(2), dh = o.size(3);
  VariantSummary s;
  s.kind = v.kind;
  s.prefix = p;
  std::tie(s.cost, s.reference_cost) =
      costs(v, tr, p, {static_cast<double>(b), static_cast<double>(h), static_cast<double>(t), static_cast<double>(dh),
                       static_cast<double>(d_model)});
  double num = 0, den = 0;
  for (int64_t bb = 0; bb < b; ++bb)
    for (int64_t i = 0; i < t; ++i) {
      if (mask->tensor.data()[(bb * t + i) * t + i] == 0.0f) continue;
      ++s.counted_queries;
      for (int64_t hh = 0; hh < h; ++hh)
        for (int64_t k = 0; k < dh; ++k) {
          const int64_t at = ((bb * h + hh) * t + i) * dh + k;
          const double d = static_cast<double>(o.data()[at]) - r.data()[at];
          s.max_abs = std::max(s.max_abs, std::abs(d));
          num += d * d;
          den += static_cast<double>(r.data()[at]) * r.data()[at];
        }
    }
  s.rel_error = den > 0 ? std::sqrt(num / den) : 0.0;
  if (v.kind == VariantKind::KvCache || v.kind == VariantKind::Tiled) s.agreement = s.max_abs;
  if (const Step* q = tr.find(p + "quadratic_out"); q && v.kind == VariantKind::Linear) {
    s.agreement = 0;
    for (int64_t i = 0; i < o.numel(); ++i)
      s.agreement = std::max(s.agreement, static_cast<double>(std::abs(o.data()[i] - q->tensor.data()[i])));
  }
  return s;
}

}  // namespace attnlab
