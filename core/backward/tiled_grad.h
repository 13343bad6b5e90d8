// The backward of tiled attention: FlashAttention-2's (Dao 2023, Algorithm 2), on the CPU.
// Nothing of size Tq × Tk is kept: per (batch, head) a first pass over the key blocks recomputes
// each query row's log-sum-exp L (the traced forward keeps only the output), then each key block
// j, with every query block i, recomputes
//   S = q_i·k_jᵀ / root (−∞ where masked),  P = e^(S − L),
//   dv_j += Pᵀ·dO_i,  dP = dO_i·v_jᵀ,  dS = P ⊙ (dP − D_i)  with D = rowsum(dO ⊙ O),
//   dq_i += dS·k_j / root,  dk_j += dSᵀ·q_i / root,
// so a masked pair has P = 0 and dS exactly 0. Extra memory: the three gradients, one Bq × Bk
// block and the (Tq) rows L and D per task, whatever S is. A query that sees no key (NaN output)
// gets NaN gradients, as PyTorch's softmax gives.
// The naive twin is the full path's backward (grad_ops.h: softmax_backward, matmul_backward),
// which test_tiled_backward compares it with.
//   q (B, H, Tq, Dh), k and v (B, H, Tk, Dh): any strides with a unit last stride; out and dout
//   (B, H, Tq, Dh); mask (B, Tq, Tk) contiguous, 1 = attend.
#pragma once

#include "backend/attention_tiled.h"
#include "tensor/key_ranges.h"
#include "tensor/tensor.h"

namespace attnlab::grad {

struct TiledAttentionGrads {
  Tensor dq, dk, dv;  // the shapes of q, k, v; contiguous
  // ∂L/∂scores binned like the forward's weights overview (attention_tiled_overview with `cap`):
  // per pair of bins, the mean over the bin's queries of the sum over the bin's keys of dS.
  // (B, H, R, C); with Tq, Tk ≤ cap it is ∂L/∂scores itself.
  Tensor ds_overview;
};

TiledAttentionGrads attention_tiled_backward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask,
                                             float root, const Tensor& out, const Tensor& dout, int64_t cap = 256,
                                             TileSizes tiles = {});
// The same with the mask as key ranges (B·Tq intervals): nothing of size Tq × Tk at all.
TiledAttentionGrads attention_tiled_backward(const Tensor& q, const Tensor& k, const Tensor& v, const KeyRanges& mask,
                                             float root, const Tensor& out, const Tensor& dout, int64_t cap = 256,
                                             TileSizes tiles = {});

}  // namespace attnlab::grad
