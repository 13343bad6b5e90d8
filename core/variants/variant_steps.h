// Shared pieces of the variants' recorded steps (variants_*.cpp); internal to core.
#pragma once

#include <string>
#include <vector>

#include "tensor/eigen_types.h"
#include "variants/variants.h"

namespace attnlab::variant_detail {

// The context every variant's recorder works in: sizes, ids, the common code fragments.
struct Ctx {
  const VariantInput& in;
  Recorder& rec;
  int64_t b, h, t, dh;
  std::string id(const std::string& name) const { return variant_prefix(in.cfg) + name; }
  std::string root() const;     // "math.sqrt(8)"
  float root_f() const;         // √Dh
  std::string dims(std::initializer_list<int64_t> d) const;  // "2, 8, 5"
};
Ctx make_ctx(const VariantInput& in, Recorder& rec);

// Head (b, h) of a (B, H, R, C) tensor with any strides, as a (R, C) matrix.
Mat head_of(const Tensor& t, int64_t b, int64_t h);
// dst (B, H, R, C) contiguous ← m at (b, h).
void put_head(Tensor& dst, int64_t b, int64_t h, const Mat& m);
// Whether key j of sentence b is visible to some query (a column of the mask holds a 1).
std::vector<std::vector<uint8_t>> real_keys(const Tensor& mask);

// Softmax of row `s` over the entries where keep[j]; weights elsewhere 0; all zeros when none is
// kept (the nan_to_num(0) convention).
void masked_softmax_row(const float* s, const uint8_t* keep, int64_t n, float* w);
// out (B, H, T, C) = weights (B, H, T, K) @ values (B, H, K, C), each per head.
Tensor batched_matmul(const Tensor& weights, const Tensor& values);

// The pattern-driven attention of the sparse variants: scores only where pattern (B, H, T, T)
// is 1 (q·k / √Dh + bias (H, T, T) when given), their softmax, and the weighted sum.
struct Sparse {
  Tensor weights;  // (B, H, T, T), 0 outside the pattern
  Tensor out;      // (B, H, T, Dh)
};
Sparse sparse_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& pattern, float root,
                        const Tensor* bias = nullptr);

// Records weights, head_out and error for a variant whose weights are (B, H, T, T) applied to v.
// `weights_code` assigns `weights` from `bindings`.
Tensor record_weights_out_error(const Ctx& c, const Sparse& s, const std::string& weights_name,
                                const Text& title, const Text& formula, const std::string& weights_code,
                                std::vector<StepInfo::Binding> bindings);
// Records `head_out` (given) and then `error` against the reference flow.
std::string record_error(const Ctx& c, const Flow& head_out, const Flow& reference);
// The error tensor (B, T): max over heads and Dh of |a − b|, 0 where the query's own key is masked.
Tensor error_of(const Tensor& a, const Tensor& b, const Tensor& mask);

// The pattern (B, H, T, T) of per-head (T, T) patterns intersected with the mask.
Tensor pattern_tensor(const std::vector<std::vector<uint8_t>>& per_head, const Tensor& mask);

// The kinds (variants_sparse.cpp, variants_lowrank.cpp, variants_walk.cpp).
Tensor record_window(const Ctx& c);
Tensor record_bigbird(const Ctx& c);
Tensor record_topk(const Ctx& c);
Tensor record_bias(const Ctx& c);  // relative and alibi
Tensor record_axial(const Ctx& c);
Tensor record_linformer(const Ctx& c);
Tensor record_linear(const Ctx& c);
Tensor record_kv_cache(const Ctx& c);
Tensor record_tiled(const Ctx& c);

}  // namespace attnlab::variant_detail
