// The words of the backward steps: each gradient's title, its formula (how each use of the
// tensor sends gradient back, summed), the PyTorch line that recomputes it.
#pragma once

#include <string>
#include <vector>

#include "backward/loss.h"
#include "model/trace.h"

namespace attnlab {

// How a consumer step sends gradient back to one of its inputs.
enum class GradUse {
  Same,           // an alias or a contiguous copy: the gradient as it is
  Residual,       // x + sub: both get the gradient unchanged
  LinearInput,    // y = x·Wᵀ + b: dx = dy·W
  Norm,           // LayerNorm: rstd·(dx̂ − mean dx̂ − x̂·mean(dx̂·x̂))
  Activation,     // ReLU / GELU: dy ⊙ f′(x)
  ViewBack,       // view: the same numbers in the input's shape
  TransposeBack,  // transpose: transposed back
  ProductLeft,    // c = a·b: da = dc·bᵀ
  ProductRight,   // c = a·b: db = aᵀ·dc
  Scale,          // c = a / r: da = dc / r
  Masked,         // masked_fill or ·mask: 0 where masked
  Softmax,        // p = softmax(s): ds = p ⊙ (dp − Σ dp ⊙ p)
  TiledQuery,     // tiled attention (FlashAttention-2's backward): dq = Σⱼ dSⱼ·kⱼ / √Dh
  TiledKey,       //   dk = Σᵢ dSᵢᵀ·qᵢ / √Dh
  TiledValue,     //   dv = Σᵢ Pᵢᵀ·dOᵢ
  BatchSum,       // x = emb + pe, pe (S, D) broadcast over the batch: dpe = Σ_b dx
};

// One use's share, e.g. "dscores / 2" or "dweights·vᵀ"; `to` is the input it reaches; `detail`
// the transposed dims ("1, 2") or the divisor ("2").
Text grad_formula(GradUse use, const Step& consumer, const Step& to, const std::string& detail = "");
// How the loss seeds the gradient of its input.
Text loss_formula(LossKind kind);
// The step "<id>.grad" of forward step `fwd`, whose gradient sums `uses`.
StepInfo grad_step_info(const Step& fwd, const std::vector<Text>& uses);
// The tiled path's stand-in for ∂L/∂scores, recorded at its forward overview `fwd`
// ("<A>.weights_overview" → "<A>.weights_overview.grad"): ∂L/∂scores binned like the overview,
// bq queries and bk keys per bin.
StepInfo overview_grad_info(const Step& fwd, int64_t bq, int64_t bk);
// The step "grad/<name>".
StepInfo param_grad_info(const std::string& name);

}  // namespace attnlab
