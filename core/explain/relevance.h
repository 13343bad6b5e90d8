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
// Ā (S, S) = mean_h((sign·∂L/∂A ⊙ A)⁺). weights, grad (B, H, S, S), sentence b. sign −1 turns a
// loss's gradient into the gradient of the score it lowers (Chefer's ∂y_t/∂A: explain.cpp).
Mat grad_weighted(const Tensor& weights, const Tensor& grad, int64_t b, double sign = 1.0);
// R (S, S): R = I, then R ← R + Ā_l·R for l = 1 … L (a_bar first layer first).
Mat grad_rollout(const std::vector<Mat>& a_bar);
// s (S): s[i] = Σ_d x[b, i, d] · g[b, i, d]. x, g (B, S, D).
std::vector<double> saliency(const Tensor& x, const Tensor& g, int64_t b);

}  // namespace attnlab::explain
