// The losses a backward pass starts from: the value and ∂L/∂(the loss's input).
//   B batch, S positions, D width, V vocabulary.
#pragma once

#include <string_view>
#include <vector>

#include "tensor/tensor.h"

namespace attnlab {

enum class LossKind {
  Sum,          // L = Σ every element of the last layer's output, [PAD] positions included
  NextToken,    // cross-entropy of position i's logits against token i + 1 (trained models)
  PerPosition,  // cross-entropy of position i's logits against token i (trained models)
  Mse,          // L = mean((output − target)²) against a target tensor of the output's shape
};

std::string_view loss_name(LossKind k);   // "sum", "next-token", "per-position", "mse"
LossKind parse_loss(std::string_view s);  // throws ConfigError listing the names

struct LossSpec {
  LossKind kind = LossKind::Sum;
  Tensor target;  // Mse: the target, the output's shape
};

struct LossValue {
  double value = 0;
  Tensor grad;  // ∂L/∂ the loss's input, its shape
};

// L = Σ y: every element's gradient is 1.
LossValue sum_loss(const Tensor& y);
// L = mean((y − t)²) over every element (PyTorch's F.mse_loss): ∂L/∂y = 2(y − t) / N.
LossValue mse_loss(const Tensor& y, const Tensor& target);
// logits (B, S, V); target (B, S) token ids, −1 = ignored (a [PAD] target). L = the mean over the
// counted positions of −log softmax(logits)[target] (F.cross_entropy, ignore_index = −1):
// ∂L/∂logits = (softmax − onehot) / count at counted positions, 0 at ignored ones. No counted
// position: L = 0 and every gradient 0 (PyTorch gives NaN; here the refusal is the caller's).
LossValue cross_entropy_loss(const Tensor& logits, const std::vector<std::vector<int64_t>>& target);

}  // namespace attnlab
