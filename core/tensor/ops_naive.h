// Naive twins of the fast ops: plain loops, double accumulation, no Eigen. The tests check the
// fast versions against these; they are also the algorithmic reference a reader can follow.
#pragma once

#include "tensor/tensor.h"

namespace attnlab::naive {

Tensor linear(const Tensor& x, const Tensor& w, const Tensor& b);      // (…, In) → (…, Out)
Tensor layer_norm(const Tensor& x, const Tensor& w, const Tensor& b, double eps);
Tensor softmax_lastdim(const Tensor& x);
Tensor gelu(const Tensor& x);
Tensor gelu_tanh(const Tensor& x);  // the formula in double, as written
Tensor relu(const Tensor& x);
Tensor matmul(const Tensor& a, const Tensor& b);  // (…, M, K) · (…, K, N), any strides
// Single-head attention for one batch row and head: q (Sq, Dh), k (Sk, Dh), v (Sk, Dh),
// mask (Sq, Sk) → weights (Sq, Sk) and output (Sq, Dh).
void attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, Tensor& weights, Tensor& out);

}  // namespace attnlab::naive
