// Multi-head attention exactly as nn.MultiheadAttention (fused in_proj, rows Q|K|V), recorded
// step by step: projections, head split (view, then transpose), QKᵀ, scaling, masking, softmax,
// weighted sum, head merge (transpose, contiguous, view), output projection.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "backend/backend.h"
#include "model/faults.h"
#include "model/step_builder.h"
#include "model/variant_config.h"
#include "model/weights.h"

namespace attnlab {

struct AttentionArgs {
  std::string prefix;  // step ids and weights: e.g. "encoder.layers.0.self_attn."
  const Flow* query;   // (B, Tq, D)
  const Flow* memory;  // (B, Tk, D): keys and values (== query for self-attention)
  const Flow* mask;    // (B, Tq, Tk): 1 attend, 0 masked
  int64_t heads = 1;
  const FaultSet* faults = nullptr;  // injected bugs (faults.h); null or empty = the correct block
  Backend* backend = nullptr;        // where the products and the softmax run; null = the CPU
  // The mask as key ranges instead (the fast path of a built-in kind; *mask may then be an
  // undefined tensor): no (B, Tq, Tk) tensor is made unless the backend needs one.
  const KeyRanges* ranges = nullptr;
  int64_t overview_cap = 0;  // ModelConfig::overview_cap when traces_overview(), else 0
  // A variant to record beside this block (variants.h; traced self-attention only), the seed of
  // its numbers and whether the block's mask is causal.
  const VariantConfig* variant = nullptr;
  uint64_t seed = 0;
  bool causal = false;
  // With the overview: the heads whose weights are kept whole beside it (ModelConfig::full_heads),
  // each a step "<prefix>weights_head_<h>" (B, 1, Tq, Tk).
  std::vector<int64_t> full_heads;
  // Untraced and fault-free only: the residual stream (B, Tq, D) the block's output is added to,
  // in the output projection's own pass (Backend::linear_add). The result is then x + out.
  const Tensor* residual = nullptr;
};

// Returns the output projection (B, Tq, D) and its step id.
Flow multi_head_attention(const AttentionArgs& a, const Weights& w, Recorder& rec);

// The model's head number of a kept head's step ("…self_attn.weights_head_3" → 3,
// ModelConfig::full_heads); −1 for any other step id. Its tensor's head axis holds that head alone.
int64_t kept_head(std::string_view step_id);

}  // namespace attnlab
