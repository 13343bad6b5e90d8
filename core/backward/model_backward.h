// The backward pass of a traced forward run, stepped like the forward: ∂L/∂ every op step's
// tensor from `<stack>.input` on, recorded as `<step id>.grad` (same shape) in the order the
// gradient reaches them (the forward's reverse), then every parameter's gradient as
// `grad/<parameter name>` in state-dict order. It walks the forward trace backwards: each step's
// saved tensors and bindings give its op's backward (grad_ops.h), and a tensor used twice (the
// residual stream) sums what comes back along each use.
//   B batch, S encoder tokens, T decoder tokens, D model width, H heads, Dh = D / H, F d_ff.
#pragma once

#include <string>
#include <string_view>

#include "backward/loss.h"
#include "forward/memory.h"
#include "forward/model.h"
#include "model/config.h"
#include "model/trace.h"
#include "model/weights.h"
#include "tensor/key_ranges.h"

namespace attnlab {

struct BackwardResult {
  LossKind kind = LossKind::Sum;
  double loss = 0;     // the loss's value
  std::string output;  // the step the loss reads, e.g. "encoder.layers.1.output"
  Trace steps;         // "<id>.grad" steps, then "grad/<parameter>" steps
  Tensor target;       // mse: the target; per-position: the answers' ids (the bundle's "loss/target")
};

// The ids of the backward steps: "<forward id>.grad" and "grad/<parameter>".
inline bool is_grad_step(std::string_view id) { return id.ends_with(".grad") || id.starts_with("grad/"); }
inline bool is_param_grad(std::string_view id) { return id.starts_with("grad/"); }
// "encoder.layers.0.self_attn.weights.grad" → "encoder.layers.0.self_attn.weights"; a parameter's
// gradient → its parameter's name; any other id as it is.
inline std::string forward_id_of(std::string_view id) {
  if (id.starts_with("grad/")) return std::string(id.substr(5));
  if (id.ends_with(".grad")) return std::string(id.substr(0, id.size() - 5));
  return std::string(id);
}

// The memory of a traced run with its backward pass: every op step's gradient is a fresh tensor of
// its step's shape (a view's too, so up to twice the forward's deduplicated trace) and every
// parameter gets one: the trace three times over and the weights twice, saturating.
MemoryEstimate with_gradients(MemoryEstimate e);

// The id of the step the loss reads: the last layer's output (the decoder's in cross mode), or
// for the cross-entropy losses the output head's logits.
std::string loss_input_step(const ModelConfig& cfg, LossKind kind = LossKind::Sum);

// The refusal of backward() that needs no forward run: a cross-entropy loss without a trained
// model's head. ConfigError.
void check_backward(bool trained, LossKind kind);

// The loss `loss` takes at `input`, the tensor loss_input_step names (the trace's own, or the same
// step of another run: the head ablation's), with the token ids read from `fwd`; and its gradient.
// The refusals of backward() below.
LossValue evaluate_loss(const ModelConfig& cfg, const Weights& w, const Trace& fwd, const LossSpec& loss, const Tensor& input);

// A tiled run (ModelConfig::overview_cap) gets FlashAttention-2's backward (tiled_grad.h) in its
// tiled layers (all but ModelConfig::full_layers): the same steps but the (S, S) ones, and
// ∂L/∂scores binned as "<A>.weights_overview.grad".
// Throws ConfigError when the run cannot be differentiated here (a stopped or untraced run; a cross-entropy loss without a trained model's output
// head; per-position without its answers); DataError when `loss.target` does not fit.
// next-token: position i's logits against token i + 1 of its sentence, padding targets ignored
// ([PAD] = 0, or for a checkpoint past loss.lengths); per-position: against the answers' token id
// at i (loss.target (B, S)), −1 ignored, and 0 ([PAD]) too but for a checkpoint (a real piece).
// A checkpoint's tied head (Weights::head_tied) reports one summed gradient under both names.
// `ranges`: the encoder's mask as key ranges, for a traced tiled run made without the dense mask
// (encoder_stack with KeyRanges: benchmarks); null: every block reads its bound mask step.
BackwardResult backward(const ModelConfig& cfg, const Weights& w, const Trace& fwd, const LossSpec& loss,
                        const KeyRanges* ranges = nullptr);

}  // namespace attnlab
