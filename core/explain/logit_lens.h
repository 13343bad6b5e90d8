// The logit lens (nostalgebraist 2020): what the model would predict if it stopped after layer l.
// Each layer's residual stream h_l (B, S, D) — encoder.input for l = 0 (the embeddings, before any
// layer), encoder.layers.{l−1}.output after — goes through what follows the last layer
// (head_logits: the final LayerNorm where the model has one, the output head) and a softmax over
// the vocabulary V. At l = L this is the model's own prediction.
//   probs   (B, L+1, S, K)  the K largest probabilities at each layer and position, descending
//   ids     (B, L+1, S, K)  their vocabulary ids (as float: exact below 2²⁴), equal values by id
//   answer  (B, L+1, S)     the probability each layer gives the last layer's top token
// Cost: L + 1 passes of the head, 2·B·S·D·V multiply-adds each (GPT-2 small at S 1024: ~1 TFLOP).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "model/config.h"
#include "model/trace.h"
#include "model/weights.h"

namespace attnlab::explain {

inline constexpr int64_t kLensTopDefault = 5;
inline constexpr int64_t kLensTopMax = 20;

// The residual streams the lens reads, l = 0 … L: "encoder.input", "encoder.layers.{l−1}.output".
std::vector<std::string> lens_residual_ids(int64_t layers);

struct LogitLens {
  Tensor probs, ids, answer;
};

// Needs a trained model's output head (w.vocab()) and the residual steps in `fwd` (ConfigError
// naming the missing one; ConfigError without a head). k is held to 1 … min(kLensTopMax, V).
// `stop` (stop.h): Cancelled before the next layer's head once set.
LogitLens logit_lens(const ModelConfig& cfg, const Weights& w, const Trace& fwd, int64_t k,
                     Backend& be = cpu_backend(), const std::atomic<bool>* stop = nullptr);

// Records the lens as the steps explain.logit_lens, explain.logit_lens_ids and
// explain.logit_lens_answer, each with its formula and the PyTorch code that recomputes it from
// the residual steps and the head's weights (the ids: those whose probabilities are the top K).
void record_lens(const ModelConfig& cfg, const Weights& w, LogitLens lens, Trace& out);

}  // namespace attnlab::explain
