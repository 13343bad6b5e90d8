// A parameter kept as a checkpoint stores it: 16-bit floats (F16 or BF16), widened to F32 a
// tensor at a time when it is used (tensor/row_kernels.h's widen_f16 / widen_bf16, exact). A
// GPT-2 or BERT checkpoint in 16 bits then takes its own size in memory, not twice it (issue 24);
// Weights (weights.h) widens on get() and keeps a bounded number of widened tensors.
//
// Shapes: `shape` is what get() returns. A Conv1D weight stays as the file lays it out, (in, out),
// with `transposed` set: widen() writes the (out, in) matrix the engine multiplies with.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "tensor/tensor.h"

namespace attnlab {

struct HalfTensor {
  enum class Format : uint8_t { F16, BF16 };
  Format format = Format::F16;
  Shape shape;              // as widened
  bool transposed = false;  // 2-D: bits hold (shape[1], shape[0]) in C order
  std::shared_ptr<const std::vector<uint16_t>> bits;

  int64_t numel() const { return numel_of(shape); }
  int64_t bytes() const { return numel() * 2; }
  // A fresh F32 tensor, C order of `shape`.
  Tensor widen() const;
  // Rows `which` of a 2-D tensor (of `shape`) as a fresh (which.size(), shape[1]) F32 tensor, the
  // same values widen() gives them, widening only those rows; each 0 ≤ row < shape[0].
  Tensor widen_rows(const std::vector<int64_t>& which) const;
  // The 2-D transpose (no copy: the flag flips).
  HalfTensor transpose() const;
  // The first element, in C order of `shape`, that is ±∞ or NaN; −1 when every one is finite.
  int64_t first_non_finite() const;
  // Untransposed tensors of one format and equal trailing sizes stacked along dimension 0
  // (BERT's separate query / key / value weights as one in_proj). Empty `parts`: a default.
  static HalfTensor concat_rows(const std::vector<HalfTensor>& parts);
};

}  // namespace attnlab
