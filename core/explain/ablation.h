// Token ablation: the ground truth the explanations are scored against. For each key token j,
// mask j for every query but its own and run the model again (untraced); what changes at the
// explained position is how much j mattered. (Row j itself is left alone: with key j masked for
// every other row in every layer, nothing of row j reaches another position.) Then Spearman's ρ
// between that and each method's row, per sentence, over the other tokens: the explained
// position's own token keeps its residual stream whatever is masked, which every rollout-style
// method counts, so no key mask measures it.
// In an encoder–decoder run (cfg.cross) the keys are the S source tokens and the explained
// position is the decoder's: source token j is masked in the encoder's self-attention as above and
// for every decoder position in each layer's cross-attention (a decoder row left with no source key
// keeps j: a one-token source), the whole model run again, the effect read at the decoder's
// position; ρ is then over every source token it attends to (it has no token of its own there).
//   B batch, S tokens, T decoder tokens, V vocabulary.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "forward/model.h"
#include "model/config.h"
#include "model/trace.h"
#include "model/weights.h"

namespace attnlab::explain {

// Token ablation runs the model once per token; it is refused beyond this many (docs/cli.md).
inline constexpr int64_t kAblationMaxTokens = 256;

// The position each sentence's explanation is read at: its first [MASK] (BERT's masked word), else
// its last real token (of the decoder's text in an encoder–decoder run).
std::vector<int64_t> explained_positions(const Batch& batch);

// The dense mask (B, S, S) with key j of sentence b masked for every query but j itself (when
// j < S; a row left with no key keeps its own, so no row is all −∞).
Tensor mask_without_key(const Tensor& mask, int64_t b, int64_t j);

struct TokenAblation {
  bool logprob = false;  // a trained model: |Δ log p(predicted token)|; else ‖Δh‖ of the stack's output
  Tensor effect;         // (B, S): key j's effect at the sentence's explained position; 0 where it cannot attend
};

// `fwd`: the traced run (its encoder.input and encoder.mask; an encoder–decoder's decoder.input,
// decoder.self_mask and decoder.cross_mask too). `query`: the explained position per sentence.
// `stop` (stop.h): Cancelled before the next key's re-run once set.
TokenAblation ablate_tokens(const ModelConfig& cfg, const Weights& w, const Trace& fwd, const std::vector<int64_t>& query,
                            const std::atomic<bool>* stop = nullptr);

// Spearman's rank correlation of two equal-length lists (ties share their mean rank); NaN when
// fewer than 3 entries, either list is constant, or a value is not finite (a planted fault's NaN).
double spearman(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace attnlab::explain
