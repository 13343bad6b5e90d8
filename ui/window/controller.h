// Owns what the user asked for and computes it off the GUI thread. Only the newest request is
// ever delivered: a request that arrives while one forward pass runs stops that pass at its next
// step and waits as the one pending request (later ones replace it).
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QStringList>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>

#include "io/weights_file.h"
#include "pretrained/pretrained_model.h"
#include "text/errors.h"
#include "window/traceresult.h"

namespace attnlab::ui {

// Weights imported from a .safetensors file (ui/input/weightsimport.h): the configuration they fix and
// the file's bytes, kept so that a session can embed them.
struct ImportedWeights {
  QString name;       // the file's name
  QString path;       // where it was read ("" when it came embedded in a session)
  std::string bytes;  // the whole file (empty for a checkpoint folder)
  LoadedWeights loaded;
  // A checkpoint folder (File ▸ Open model folder…): its own tokenizer cuts the texts; a session
  // references the folder.
  std::shared_ptr<const pretrained::PretrainedModel> checkpoint;
};
using ImportedWeightsPtr = std::shared_ptr<const ImportedWeights>;

// A piece "append and continue" added to a sentence: the pieces the sentence should now cut into.
struct AppendedPiece {
  int sentence = 0;
  std::vector<std::string> pieces;
};

struct Request {
  ModelConfig cfg;           // cfg.cross follows whether memoryTexts is non-empty
  QStringList texts;         // the batch
  QStringList memoryTexts;   // cross-attention sources (empty: encoder only)
  qint64 memoryBudgetMiB = 4096;
  BackendKind backend = BackendKind::Cpu;  // where the products run (auto: a real GPU if there is one)
  // With faults planted: label the steps as the correct model would (a find-the-bug exercise
  // before it is answered; core's without_fault_labels). Costs one more forward pass.
  bool hideFaults = false;
  ImportedWeightsPtr weights;  // null: seeded weights from cfg
  // The backward pass too, from this loss (core/backward; sum, next-token or per-position): its
  // gradient steps follow the forward's in the result's trace (with hideFaults, under the correct
  // run's words).
  std::optional<LossKind> loss;
  QStringList answers;  // per-position: one answer per sentence, read as the model reads a sentence
  bool prependBos = false;  // a GPT-2 checkpoint: <|endoftext|> before each sentence (pretrained_batch)
  // Heads of the encoder's self-attention knocked out (their W_O columns zeroed) before the run;
  // those the model does not have are dropped (a model changed under the choice).
  std::vector<explain::HeadRef> ablate;
  // How: zero (their output set to 0) or mean (to its mean over the batch's real positions in a
  // clean run, which the controller runs first).
  explain::AblateMode ablateMode = explain::AblateMode::Zero;
  // After "append and continue": the drawn piece decoded again with the KV cache and compared with
  // the traced pass (pretrained/kv_check.h) — when sentence `appended->sentence` still cuts into
  // exactly `appended->pieces` (the text before it and the piece).
  std::optional<AppendedPiece> appended;
};

// A request over its memory budget: what it needs with every score tensor kept, and what the
// tiled path (overview heatmaps) would need instead; tiledBytes is 0 where that is no way out
// (the request is tiled already, or has faults planted, which the tiled path ignores).
struct OverBudget : DataError {
  OverBudget(Text what, qint64 need, qint64 tiled, qint64 budget)
      : DataError(std::move(what)), needBytes(need), tiledBytes(tiled), budgetMiB(budget) {}
  qint64 needBytes, tiledBytes, budgetMiB;
};

// What the worker reports while it runs, and how it is told to stop.
struct Watch {
  const std::atomic<bool>* cancel = nullptr;                    // set: stop at the next step
  std::function<void(qint64 done, qint64 total)> progress;      // steps recorded / expected
};

// Runs one request to completion (the worker's job); throws ConfigError / DataError, and
// Cancelled when watch->cancel is set during the run.
TraceResultPtr compute(const Request& r, quint64 generation, const Watch* watch = nullptr);

class Controller : public QObject {
  Q_OBJECT
 public:
  explicit Controller(QObject* parent = nullptr);
  ~Controller() override;

  // Queues a computation; the newest request wins.
  void request(const Request& r);
  // Stops the running computation at its next step and drops any pending one; the current
  // result stays. Emits cancelled() once the worker has stopped.
  void cancel();
  bool busy() const { return running_; }
  TraceResultPtr current() const { return current_; }
  // Blocks until nothing is running or pending (tests, shutdown).
  void waitForIdle();

 signals:
  void resultReady(attnlab::ui::TraceResultPtr result);
  void failed(const QString& message);
  void busyChanged(bool busy);
  void progress(qint64 done, qint64 total);  // from the running computation, at most ~100 times
  void cancelled();
  // The newest request was over its memory budget (failed() follows with the message).
  void overBudget(qint64 needBytes, qint64 tiledBytes, qint64 budgetMiB);

 private:
  struct Outcome {
    TraceResultPtr result;
    Text error;  // translated in the window's thread
    bool cancelled = false;
    std::optional<OverBudget> overBudget;
    bool outOfMemory = false;
  };
  void start(const Request& r);
  void finished();

  QFutureWatcher<Outcome>* watcher_;
  std::optional<Request> pending_;
  TraceResultPtr current_;
  std::shared_ptr<std::atomic<bool>> cancel_;  // the running computation's flag
  quint64 generation_ = 0;
  bool running_ = false;
};

}  // namespace attnlab::ui
