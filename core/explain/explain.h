// "Which tokens mattered?" — explanations computed from a traced run, each recorded as a step
// with its formula and a PyTorch (or plain Python) recomputation in `code`:
//   explain.rollout         (B, S, S)  attention rollout (Abnar & Zuidema 2020)
//   explain.flow            (B, S, S)  attention flow, exact max-flow (same paper)
//   explain.grad_attention  (B, S, S)  gradient-weighted attention (Chefer et al. 2021)
//   explain.saliency        (B, S)     gradient × input, Σ_d x·∂L/∂x at encoder.input
//   explain.token_ablation  (B, S)     each key masked and the model run again (ablation.h): the
//                                      ground truth, with Spearman's ρ of every other method's row
//   explain.logit_lens*     (B, L+1, S, K)  what each layer would predict (logit_lens.h)
// Rows are the positions after the last layer (queries), columns the input tokens. They read the
// encoder stack's self-attention weights `encoder.layers.{l}.self_attn.weights` (B, H, S, S) and,
// for the gradient methods, the backward pass of the export's --loss. In an encoder–decoder run
// (cfg.cross) rollout and grad-attention are (B, T, S) — the decoder's T positions on the S source
// tokens, Chefer et al. 2021's rules over the encoder's, the decoder's and the cross-attention's
// weights (relevance.h) —, saliency is over the encoder's input and token ablation masks one source
// token at a time (ablation.h), the head table knocks out the heads of all three attentions; flow and
// the lens are refused.
//   B batch, H heads, S tokens, T decoder tokens, L layers.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "backward/model_backward.h"
#include "explain/head_ablation.h"
#include "explain/logit_lens.h"
#include "forward/model.h"
#include "model/config.h"
#include "model/trace.h"

namespace attnlab {

enum class ExplainMethod : uint8_t { Rollout, Flow, GradAttention, Saliency, Ablation, Heads, LogitLens };

// "rollout", "flow", "grad-attention", "saliency", "ablation", "heads", "logit-lens" (the command
// line's names).
std::string_view explain_name(ExplainMethod m);
// The step id each method records: "explain.rollout", …; "" for heads (a table, no step); the
// lens's first (it records three, logit_lens.h).
std::string explain_step_id(ExplainMethod m);
// A comma-separated list of names, each once, in the order given. ConfigError naming the word.
std::vector<ExplainMethod> parse_explain(std::string_view list);
// The methods that read the loss: the gradient methods, and heads (every head's effect on it).
inline bool needs_backward(ExplainMethod m) {
  return m == ExplainMethod::GradAttention || m == ExplainMethod::Saliency || m == ExplainMethod::Heads;
}

// Whether `m` is defined for cfg's architecture: an encoder–decoder (cfg.cross) has rollout,
// grad-attention and saliency (Chefer et al. 2021's rules for it), token ablation of the source and
// the head table over its three attentions; check_explain refuses flow and the lens.
bool defined_for(const ModelConfig& cfg, ExplainMethod m);

// Attention flow solves S² max-flows over a graph of (L + 1)·S nodes and up to L·S² edges. It is
// refused when L · S⁴ exceeds this (S 48 at 12 layers; S 67 at 3): 0.1–0.3 s at the limit on
// 2 cores (docs/cli.md "Explanations").
inline constexpr double kFlowMaxCost = 12.0 * 48 * 48 * 48 * 48;
// The longest text flow accepts at `layers` layers.
int64_t flow_max_tokens(int64_t layers);

// Before any work: ConfigError when the run cannot be explained — a method an encoder–decoder run
// does not have (flow, the lens), a
// gradient method without a loss (`has_loss`), the logit lens without a trained model's head
// (`has_head`), flow beyond kFlowMaxCost or ablation beyond kAblationMaxTokens at `seq` tokens, or
// a method reading attention weights with a layer run tiled (not in cfg.full_layers).
void check_explain(const ModelConfig& cfg, int64_t seq, const std::vector<ExplainMethod>& methods, bool has_loss,
                   bool has_head);

struct Explanations {
  Trace steps;  // each method's step, in the order asked
  // With ablation: each sentence's explained position (ablation.h), whether the effect is
  // |Δ log p| (a trained model) or ‖Δh‖, and Spearman's ρ per sentence against the effect for the
  // last layer's head-averaged attention ("attention") and each other method asked (saliency by
  // |s_j|), over the other keys the explained position attends to (ablation.h says why not its
  // own; an encoder–decoder's: every source token it attends to). NaN: fewer than 3 keys, or constant.
  std::vector<int64_t> query;
  bool logprob = false;
  std::vector<std::pair<std::string, std::vector<double>>> spearman;
  // With heads: every head knocked out alone (head_ablation.h, in `heads_mode`), largest loss
  // increase first, and the loss of the run as it was.
  std::vector<explain::HeadEffect> heads;
  explain::AblateMode heads_mode = explain::AblateMode::Zero;
  double loss = 0;
};

// Method `key`'s values over sentence b's S tokens at its explained position: "attention" (the last
// layer's weights averaged over heads) or a step's name after "explain." ("rollout", …; saliency
// signed). Empty when that method was not computed. The ρ scores and the window's table read it.
std::vector<double> explained_row(const ModelConfig& cfg, const Trace& fwd, const Explanations& ex, const std::string& key,
                                  int64_t b);

// `bw`: the backward pass of the same run from `loss` (needed by the gradient methods and heads;
// `mode` says how heads knocks each out). ConfigError when a step it reads is missing.
struct ExplainInputs {
  const BackwardResult* bw = nullptr;
  const LossSpec* loss = nullptr;
  explain::AblateMode mode = explain::AblateMode::Zero;
  int64_t lens_top = explain::kLensTopDefault;  // the logit lens's K (logit_lens.h)
  // The position explained in each sentence; an entry outside the sentence's real tokens (−1),
  // or none: its explained position (ablation.h: its [MASK], else its last token).
  std::vector<int64_t> query;
  // Set: Cancelled between two re-runs of the model (token and head ablation, the lens; stop.h).
  const std::atomic<bool>* stop = nullptr;
};
Explanations compute_explanations(const ModelConfig& cfg, const Weights& w, const Batch& batch, const Trace& fwd,
                                  const ExplainInputs& in, const std::vector<ExplainMethod>& methods);

}  // namespace attnlab
