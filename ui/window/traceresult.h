// What the GUI shows: one finished forward pass with its inputs, shared read-only between the
// worker thread that made it and every view.
#pragma once

#include <QString>

#include <memory>
#include <optional>

#include "backward/model_backward.h"
#include "explain/head_ablation.h"
#include "forward/model.h"
#include "model/config.h"
#include "model/trace.h"
#include "model/trained.h"
#include "model/weights.h"
#include "pretrained/kv_check.h"
#include "text/message.h"

namespace attnlab::ui {

// The backward pass of a result asked with a loss: its steps follow the forward's in `trace`.
struct GradientInfo {
  LossKind kind = LossKind::Sum;
  double loss = 0;
  std::string output;   // the step the loss reads
  int firstStep = 0;    // the index in trace.steps() of the first gradient step
  LossSpec spec;        // the loss as the backward pass took it (its target, lengths): head effects re-evaluate it
  double backward_ms = 0;
};

struct TraceResult {
  ModelConfig cfg;
  Batch batch;
  Trace trace;  // the forward's steps, then (with `gradients`) the backward's
  std::optional<GradientInfo> gradients;
  double forward_ms = 0;
  double device_ms = 0;  // the Vulkan device's own time (timestamp queries); 0 on the CPU
  qint64 estimateBytes = 0;  // memory.h's estimate made before the run (trace, weights, working)
  QString backend = QStringLiteral("cpu");
  QString device;
  QString note;  // why the CPU ran when Vulkan was asked for ("" otherwise), in English (the manifest)
  Text deviceText, noteText;  // the same two for the window (words/coretext.h translates them)
  quint64 generation = 0;  // the request that produced it (newest wins)
  // The weights the run used (seeded, imported or a trained model's; tensors share storage), so
  // that an exported bundle holds exactly them.
  Weights weights;
  // The heads knocked out (edited in `weights` as ablateMode says, explain/head_ablation.h) for this
  // run; empty: none.
  std::vector<explain::HeadRef> ablated;
  explain::AblateMode ablateMode = explain::AblateMode::Zero;  // how they were knocked out
  bool prependBos = false;  // a GPT-2 checkpoint's sentences began with <|endoftext|> (Request::prependBos)
  // Request::appended's check of the drawn piece by the KV cache (pretrained/kv_check.h).
  enum class KvDecode { None, Checked, NotServed, Failed };  // none: no piece appended (or re-cut)
  KvDecode kvDecodeState = KvDecode::None;
  std::optional<pretrained::KvDecodeCheck> kvDecode;  // Checked
  QString kvDecodeFailure;  // Failed: the library's words, in English
  // A trained model's vocabulary (its output head's predictions are in the trace); null otherwise.
  const std::shared_ptr<const TrainedVocab>& vocab() const { return weights.vocab(); }

  // Index of a step id in trace.steps(), or -1.
  int indexOf(const std::string& id) const {
    const auto& s = trace.steps();
    for (size_t i = 0; i < s.size(); ++i)
      if (s[i].info.id == id) return static_cast<int>(i);
    return -1;
  }
};

using TraceResultPtr = std::shared_ptr<const TraceResult>;

}  // namespace attnlab::ui
