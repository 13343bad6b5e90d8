// Attention without the score matrix, on the CPU: FlashAttention-2's loop. For each (batch,
// head, block of query rows) the keys and values go by in blocks; each query row keeps its
// running maximum m, running sum l and unnormalised output o, rescaled by e^(m_old − m_new)
// whenever the maximum grows (the online softmax). Extra memory: one Bq × Bk score block and
// one Bq × Dh output block per thread, whatever S is. Key blocks that a causal mask hides
// entirely are skipped.
//
// Shapes: q (B, H, Tq, Dh), k and v (B, H, Tk, Dh), any strides with a unit last stride (the
// head split's views); the mask as key ranges (B·Tq intervals, key_ranges.h) or dense
// (B, Tq, Tk) contiguous, 1 = attend, 0 = masked → (B, H, Tq, Dh), equal to
// softmax(q·kᵀ / root, −∞ where masked)·v; a row with every key masked is NaN.
#pragma once

#include "key_ranges.h"
#include "tensor.h"

namespace attnlab {

struct TileSizes {
  int64_t queries = 64;  // Bq: query rows per block (and per task)
  int64_t keys = 256;    // Bk: keys per block
};

// A mask given by ranges only: nothing of size Tq × Tk is read or made.
Tensor attention_tiled(const Tensor& q, const Tensor& k, const Tensor& v, const KeyRanges& mask, float root,
                       TileSizes tiles = {});
// A dense mask: its rows' ranges bound the key blocks; it is read element by element only when
// some row is not one interval (a hand-drawn mask).
Tensor attention_tiled(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, float root,
                       TileSizes tiles = {});

}  // namespace attnlab
