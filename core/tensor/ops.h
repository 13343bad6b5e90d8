// The operations of one transformer layer, each a free function with a shape contract.
// Fast versions (Eigen) here; their naive twins, used by the tests, in ops_naive.h.
// Shapes: B batch, Sq query length, Sk key length, D model width, H heads, Dh = D/H, F d_ff.
#pragma once

#include <string_view>

#include "tensor/tensor.h"

namespace attnlab {

enum class MaskKind { None, Padding, Causal, PaddingCausal };
// Gelu: exact, ½x(1 + erf(x/√2)); GeluTanh: GPT-2's tanh approximation (F.gelu(x, approximate="tanh")).
enum class Activation { Relu, Gelu, GeluTanh };

// x (…, In) · wᵀ (Out, In) + b (Out) → (…, Out), b added after the product (gemm.h). x must be contiguous.
Tensor linear(const Tensor& x, const Tensor& w, const Tensor& b);
// Rows [row0, row0 + rows) of w and b: the Q, K or V part of a fused in_proj (rows Q|K|V).
Tensor linear_rows(const Tensor& x, const Tensor& w, const Tensor& b, int64_t row0, int64_t rows);
// linear and then ReLU, or then + residual (…, Out), in the product's own pass over the output
// (gemm.h's epilogue: on the libraries, no pass or parallel region of its own). The same bits as
// relu(linear(x, w, b)) and add(residual, linear(x, w, b)).
Tensor linear_relu(const Tensor& x, const Tensor& w, const Tensor& b);
Tensor linear_add(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& residual);

// LayerNorm over the last dimension, biased variance (as PyTorch). x (…, D), w (D), b (D).
Tensor layer_norm(const Tensor& x, const Tensor& w, const Tensor& b, double eps);

// Softmax over the last dimension. A row whose entries are all −∞ becomes NaN (as PyTorch).
Tensor softmax_lastdim(const Tensor& x);
void softmax_lastdim_inplace(Tensor& x);

Tensor relu(const Tensor& x);
Tensor gelu(const Tensor& x);  // exact: 0.5·x·(1 + erf(x/√2))
// 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), as PyTorch's approximate="tanh".
Tensor gelu_tanh(const Tensor& x);
Tensor activate(const Tensor& x, Activation a);

Tensor add(const Tensor& a, const Tensor& b);  // same shapes, contiguous result
Tensor scale(const Tensor& a, float s);

// Batched matrix product over the leading dims: a (…, M, K) · b (…, K, N) → (…, M, N).
// a and b may be strided views (e.g. a head slice or a transposed key) as long as their last
// two dims are row- or column-major blocks; the result is contiguous.
Tensor matmul(const Tensor& a, const Tensor& b);

// mask (B, Sq, Sk): 1 where query i may attend key j, 0 where masked.
//   k_len: real (unpadded) key length per batch row; padding masks keys only.
Tensor make_mask(MaskKind kind, const std::vector<int>& k_len, int64_t sq, int64_t sk);

// scores (B, H, Sq, Sk), mask (B, Sq, Sk) → scores with `value` (−∞) where mask == 0, in one
// pass; the in-place forms need contiguous scores.
Tensor masked_fill(const Tensor& scores, const Tensor& mask, float value);
void masked_fill_inplace(Tensor& scores, const Tensor& mask, float value);
Tensor masked_fill_neg_inf(const Tensor& scores, const Tensor& mask);
void masked_fill_neg_inf_inplace(Tensor& scores, const Tensor& mask);
// True when no entry of the mask is 0 (MaskKind::None's, a padding mask over equal lengths).
bool hides_nothing(const Tensor& mask);
// masked_fill, except that a mask hiding nothing gives scores itself (its storage and strides
// shared, the same bits): no copy. For results nobody writes into (the backward's gradients; the
// traced forward's masked step stays a tensor of its own, as the memory estimate counts it).
Tensor masked_fill_or_same(const Tensor& scores, const Tensor& mask, float value);

// Sinusoidal position code (S, D): PE(p, 2i) = sin(p / 10000^(2i/D)), PE(p, 2i+1) = cos(…).
Tensor sinusoidal_positions(int64_t s, int64_t d);

MaskKind parse_mask(std::string_view s);  // throws ConfigError
std::string_view mask_name(MaskKind m);
Activation parse_activation(std::string_view s);
std::string_view activation_name(Activation a);

}  // namespace attnlab
