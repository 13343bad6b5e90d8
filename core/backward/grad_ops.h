// The backward of every op of the forward pass, on the engine's tensors: given the op's saved
// inputs and ∂L/∂output, ∂L/∂ each input (and parameter). Fast float paths on Eigen, the
// elementwise and per-row ones split between threads (parallel.h's row_blocks; LayerNorm in fixed
// chunks of rows: the same bits on any split); their naive twins, in any scalar type, are
// grad_ops_naive.h. No autograd: one explicit function per op.
//   N rows (every leading dim flattened), In / Out features, D model width, M × K · K × N products.
#pragma once

#include <cstdint>

#include "tensor/ops.h"
#include "tensor/tensor.h"

namespace attnlab::grad {

struct LinearGrads {
  Tensor dx;  // (…, In) like x
  Tensor dw;  // (rows, In): the gradient of the weight rows used
  Tensor db;  // (rows)
};
// y (…, rows) = x (…, In) · w[row0 : row0 + rows]ᵀ + b[row0 : row0 + rows]; dy (…, rows).
// dx = dy·w, dw = dyᵀ·x, db = Σ dy over every leading position.
LinearGrads linear_backward(const Tensor& x, const Tensor& w, const Tensor& dy, int64_t row0 = 0);

struct NormGrads {
  Tensor dx;      // (…, D)
  Tensor dgamma;  // (D)
  Tensor dbeta;   // (D)
};
// LayerNorm over the last dim (biased variance): x̂ = (x − μ)·rstd, dx = rstd·(dx̂ − mean dx̂ − x̂·mean(dx̂·x̂)).
NormGrads layer_norm_backward(const Tensor& x, const Tensor& gamma, const Tensor& dy, double eps);

// ReLU: dy where x > 0; exact GELU: dy·(Φ(x) + x·φ(x)). x is the activation's input.
Tensor activation_backward(const Tensor& x, const Tensor& dy, Activation a);

// p = softmax(s, dim) with dim −1 (over keys) or −2 (over queries): ds = p·(dp − Σ dp·p) along
// dim. Masked entries (p exactly 0) get exactly 0.
Tensor softmax_backward(const Tensor& p, const Tensor& dp, int dim = -1);

struct MatmulGrads {
  Tensor da;  // (…, M, K)
  Tensor db;  // (…, K, N)
};
// c = a · b over the leading dims: da = dc·bᵀ, db = aᵀ·dc. a and b may be any views.
MatmulGrads matmul_backward(const Tensor& a, const Tensor& b, const Tensor& dc);

// dy (…) where mask is 1, exactly 0 where it is 0: the backward of masked_fill with a constant
// (−∞ or 0), and of the multiplication by the mask. mask (B, Tq, Tk) against (B, H, Tq, Tk).
// A mask that hides nothing gives dy itself (masked_fill_or_same: no copy).
Tensor masked_backward(const Tensor& dy, const Tensor& mask);

// a (any strides) as a C-order tensor of `shape` holding a's elements in C order: the backward of
// view() / reshape (the numbers do not move, only their shape). An a with C order's strides is not
// copied: the result shares its storage (gradients are never written in place; see accumulate).
Tensor reshaped(const Tensor& a, const Shape& shape);
// The backward of transpose(d0, d1): the gradient transposed back, contiguous.
Tensor transposed(const Tensor& dy, int64_t d0, int64_t d1);

// dy (B, …) summed over its first dim (…), in double: the backward of a broadcast along the batch.
Tensor batch_sum(const Tensor& dy);

// ‖t‖₂ over every element (any strides), accumulated in double: a gradient's size.
double l2_norm(const Tensor& t);

// a + b elementwise (same shape) as a's new value, a fresh tensor; a undefined takes b itself (a
// copy only when b's strides are not C order's: a view, or a size-1 axis with an odd stride).
// Gradients are shared, never written in place: a residual's ∂L/∂output is both inputs' share and
// the trace's recorded step, so adding into it would change all three; copying each share (as
// before) cost a (B, H, S, S) copy per score step.
void accumulate(Tensor& a, const Tensor& b);

}  // namespace attnlab::grad
