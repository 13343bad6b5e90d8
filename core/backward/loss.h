// The losses a backward pass starts from: the value and ∂L/∂(the loss's input).
//   B batch, S positions, D width, V vocabulary.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/trained.h"
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
  Tensor target;  // Mse: the target, the output's shape; PerPosition: the answers' token ids (B, S)
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

// The per-position loss's targets from the answers' token ids (B, S), as floats (a .npy of
// integers, or answer_ids): −1 and 0 ([PAD]) are ignored (−1 in the result). DataError when the
// shape is not the token ids' or a value is not −1 nor an id below `vocab`.
std::vector<std::vector<int64_t>> answer_targets(const Tensor& answers, const Shape& ids, int64_t vocab);

// Answers typed as text, one per sentence: each tokenised as the model reads a sentence
// (tokenize(), then the vocabulary's ids, [UNK] for an unknown word) into row b of a (B, S) tensor, −1 past its end. DataError
// when the count differs from B or an answer is longer than S.
Tensor answer_ids(const std::vector<std::string>& answers, const TrainedVocab& vocab, int64_t b, int64_t s);

}  // namespace attnlab
