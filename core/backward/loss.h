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
  // NextToken on a pretrained checkpoint's vocabulary (whose [PAD] reads a real piece's row): the
  // real pieces per row, the rest padding. Empty: a target whose id is the vocabulary's pad id is
  // padding (Attention Lab's own vocabularies, [PAD] = 0).
  std::vector<int> lengths;
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
// integers, or answer_ids): −1 and, with `zero_is_pad` (Attention Lab's own vocabularies), 0
// ([PAD]) are ignored (−1 in the result); a pretrained checkpoint's row 0 is a real piece (GPT-2's
// "!"), so there only −1 is. DataError when the shape is not the token ids' or a value is not −1
// nor an id below `vocab`.
std::vector<std::vector<int64_t>> answer_targets(const Tensor& answers, const Shape& ids, int64_t vocab,
                                                 bool zero_is_pad = true);

// Answers typed as text, one per sentence: each tokenised as the model reads a sentence
// (tokenize(), then the vocabulary's ids, [UNK] for an unknown word) into row b of a (B, S) tensor, −1 past its end. DataError
// when the count differs from B or an answer is longer than S.
Tensor answer_ids(const std::vector<std::string>& answers, const TrainedVocab& vocab, int64_t b, int64_t s);
// The same from answers a checkpoint's own tokenizer has cut already (pretrained_batch: GPT-2's
// pieces, BERT's between [CLS] and [SEP]), row r's first `lengths[r]` pieces.
Tensor answer_ids(const TokenBatch& answers, const TrainedVocab& vocab, int64_t b, int64_t s);

}  // namespace attnlab
