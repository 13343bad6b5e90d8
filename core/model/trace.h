// The record of one forward pass: every intermediate tensor, named and explained.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "tensor/tensor.h"
#include "text/message.h"

namespace attnlab {

// What a step is, in words a learner reads. Title and formula are catalogue Texts
// (text/message.h): the bundle writes their English, the window translates them by id. `code` is
// PyTorch (1.13+) that recomputes the step's tensor into the variable `result` from `bindings`: each binding maps a variable name
// in the code to a step id or a weight name. Data steps (token ids, the embedding table) are
// inputs, not computations: their code is a comment.
struct StepInfo {
  std::string id;       // e.g. "encoder.layers.0.self_attn.scores"
  Text title;           // e.g. Text(Msg::st_scale_d_head): "Scale by √d_head"
  Text formula;         // e.g. maths("QKᵀ / √Dh, √Dh = 2.83"); prose parts are catalogue messages
  std::string code;     // e.g. "scores = qk / math.sqrt(8)"
  std::string result;   // the variable the code assigns, e.g. "scores"
  struct Binding {
    std::string var;     // name in `code`
    std::string source;  // a step id, or a weight name when `weight`
    bool weight = false;
  };
  std::vector<Binding> bindings;
  bool is_data = false;
  // The fault (faults.h id, e.g. "no_scaling") that changed what this step computes; several are
  // joined by ','. Empty on the correct path.
  std::string fault;
  std::vector<std::string> inputs() const;  // the step ids (not weights) among the bindings
};

struct Step {
  StepInfo info;
  Tensor tensor;  // may share storage with other steps (views)
};

// The model calls record() at every step. enabled() lets the fast path skip building strings.
class Recorder {
 public:
  virtual ~Recorder() = default;
  virtual bool enabled() const = 0;
  virtual void record(StepInfo info, const Tensor& t) = 0;
};

class NullRecorder final : public Recorder {
 public:
  bool enabled() const override { return false; }
  void record(StepInfo, const Tensor&) override {}
};

class Trace final : public Recorder {
 public:
  bool enabled() const override { return true; }
  void record(StepInfo info, const Tensor& t) override;

  const std::vector<Step>& steps() const { return steps_; }
  const Step* find(const std::string& id) const;
  // Bytes of distinct storage held by the trace (views counted once).
  int64_t storage_bytes() const;

 private:
  std::vector<Step> steps_;
};

// Thrown out of a forward pass whose WatchedRecorder was cancelled.
struct Cancelled : std::exception {
  const char* what() const noexcept override { return "cancelled"; }
};

// Passes every step on to `inner` and counts them: progress(steps so far) after each, and
// Cancelled thrown at the next step once `cancel` is set (a long run stops within one step).
class WatchedRecorder final : public Recorder {
 public:
  WatchedRecorder(Recorder& inner, const std::atomic<bool>& cancel, std::function<void(int64_t)> progress)
      : inner_(inner), cancel_(cancel), progress_(std::move(progress)) {}
  bool enabled() const override { return inner_.enabled(); }
  void record(StepInfo info, const Tensor& t) override {
    if (cancel_.load(std::memory_order_relaxed)) throw Cancelled();
    inner_.record(std::move(info), t);
    if (progress_) progress_(++steps_);
  }

 private:
  Recorder& inner_;
  const std::atomic<bool>& cancel_;
  std::function<void(int64_t)> progress_;
  int64_t steps_ = 0;
};

}  // namespace attnlab
