// A whole encoder stack run in one go by a backend that can keep it on its device: the weights
// uploaded once, the activations never leaving the device between ops, one submission per
// forward pass. The backend knows tensors, not layers, so the stack's shape comes as plain values
// and its weights layer by layer (forward/resident_stack.h builds them from a ModelConfig and its Weights).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "tensor/ops.h"
#include "tensor/tensor.h"

namespace attnlab {

// One layer of nn.TransformerEncoderLayer (batch_first, dropout off): in_proj (3D, D) and (3D),
// out_proj (D, D) and (D), norm1/norm2 (D), linear1 (F, D) and (F), linear2 (D, F) and (D).
// Without the feed-forward sub-layer the norm2 and linear tensors are left undefined.
struct StackLayerWeights {
  Tensor in_proj_w, in_proj_b, out_w, out_b, norm1_w, norm1_b, norm2_w, norm2_b;
  Tensor linear1_w, linear1_b, linear2_w, linear2_b;
};

struct StackSpec {
  int64_t d_model = 0, heads = 0, d_ff = 0;
  bool pre_norm = true;  // pre: x + f(norm(x)); post: norm(x + f(x))
  bool ffn = true;       // false: attention-only layers
  Activation activation = Activation::Relu;
  double eps = 1e-5;
  int64_t layer_count = 0;
  // Layer i's weights (0 ≤ i < layer_count), asked for once each while the backend uploads them:
  // a 16-bit model's F32 widenings then live one layer at a time, and a stack that does not fit
  // the device widens nothing.
  std::function<StackLayerWeights(int64_t)> layer;
};

class ResidentStack {
 public:
  virtual ~ResidentStack() = default;
  // x (B, S, D), mask (B, S, S) contiguous, 0 = masked → the last layer's output (B, S, D).
  // nullopt when this input is beyond what one pass on the device holds (a buffer past the
  // device's storage range, too many workgroups): the caller then runs the layers op by op,
  // which splits such work.
  virtual std::optional<Tensor> run(const Tensor& x, const Tensor& mask) = 0;
  // Device time of the weights' upload, ms (0 where the device has no timestamps).
  virtual double upload_ms() const = 0;
};

}  // namespace attnlab
