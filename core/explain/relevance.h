// The maths of the explanation methods on one sentence's (S, S) matrices, in double. The fast
// paths (Eigen products, Dinic's max-flow) are here; explain_naive.h holds their loop twins.
//   H heads, S tokens, L layers; A_l (H, S, S) a layer's weights, rows = queries.
#pragma once

#include <cstdint>
#include <vector>

#include <Eigen/Core>

#include "tensor/tensor.h"

namespace attnlab::explain {

using Mat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Â (S, S) = ½·mean_h(A) + ½·I, each row divided by its sum. weights (B, H, S, S), sentence b.
Mat residual_attention(const Tensor& weights, int64_t b);
// R (S, S) = Â_L ⋯ Â_1 (a_hat in layer order, first layer first).
Mat rollout(const std::vector<Mat>& a_hat);
// F (S, S): F[i, j] = the maximum flow from input token j (layer 0) to position i after the last
// layer, the edge (l − 1, j) → (l, i) carrying Â_l[i, j]; each row then divided by its sum. NaN
// rows when a capacity is not finite. Dinic's algorithm, one solve per (i, j).
Mat attention_flow(const std::vector<Mat>& a_hat);
// Ā (T, S) = mean_h((sign·∂L/∂A ⊙ A)⁺). weights, grad (B, H, T, S) (T = S but for cross-attention), sentence b. sign −1 turns a
// loss's gradient into the gradient of the score it lowers (Chefer's ∂y_t/∂A: explain.cpp).
Mat grad_weighted(const Tensor& weights, const Tensor& grad, int64_t b, double sign = 1.0);
// R (S, S): R = I, then R ← R + Ā_l·R for l = 1 … L (a_bar first layer first).
Mat grad_rollout(const std::vector<Mat>& a_bar);
// An encoder–decoder (Chefer et al. 2021, their eq. 6–10 and code): T decoder positions, S source
// tokens. mean_h(A) (T, S) of one sentence's cross-attention weights (B, H, T, S).
Mat head_mean(const Tensor& weights, int64_t b);
// R̄ (eq. 8–9) from R̂ = R − I: each row of R̂ divided by its sum (a row summing to 0 stays 0), + I.
// The rules below keep R̂ itself (R = I + R̂, so R ← R + Ā·R is R̂ ← R̂ + Ā·(I + R̂)): subtracting I
// from a diagonal of 1 + ε would leave ε with the rounding of 1, and this division magnifies it.
Mat residual_normalised(const Mat& r_hat);
// Their rollout for encoder–decoders: R_ts (T, S) = R_ttᵀ · cross · R_ss, R_ss and R_tt the rollouts
// (Â products) of the encoder's and the decoder's self-attention, `cross` the last decoder layer's
// head_mean.
Mat encdec_rollout(const Mat& r_ss, const Mat& r_tt, const Mat& cross);
// Their rules with gradient-weighted Ā per layer (grad_weighted): R_ss = I, R_ss += Ā·R_ss per
// encoder layer; R_tt = I, R_ts = 0; per decoder layer R_tt += Ā_self·R_tt, R_ts += Ā_self·R_ts,
// then R_ts += R̄_ttᵀ · Ā_cross · R̄_ss. Returns R_ts (T, S).
Mat encdec_grad_relevance(const std::vector<Mat>& encoder, const std::vector<Mat>& decoder_self,
                          const std::vector<Mat>& cross);
// s (S): s[i] = Σ_d x[b, i, d] · g[b, i, d]. x, g (B, S, D).
std::vector<double> saliency(const Tensor& x, const Tensor& g, int64_t b);

}  // namespace attnlab::explain
