// Attention without the score matrix, on the CPU: FlashAttention-2's loop. For each (batch,
// head, block of query rows) the keys and values go by in blocks; each query row keeps its
// running maximum m, running sum l and unnormalised output o, rescaled by e^(m_old − m_new)
// whenever the maximum grows (the online softmax). Extra memory: one Bq × Bk score block and
// one Bq × Dh output block per thread, whatever S is. Key blocks that a causal mask hides
// entirely are skipped.
//
// Shapes: q (B, H, Tq, Dh), k and v (B, H, Tk, Dh), any strides with a unit last stride (the
// head split's views); mask (B, Tq, Tk) contiguous, 1 = attend, 0 = masked → (B, H, Tq, Dh),
// equal to softmax(q·kᵀ / root, −∞ where masked)·v; a row with every key masked is NaN.
#pragma once

#include "tensor.h"

namespace attnlab {

struct TileSizes {
  int64_t queries = 64;  // Bq: query rows per block (and per task)
  int64_t keys = 256;    // Bk: keys per block
};

Tensor attention_tiled(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, float root,
                       TileSizes tiles = {});

}  // namespace attnlab
