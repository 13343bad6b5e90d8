// Owns what the user asked for and computes it off the GUI thread. Only the newest request is
// ever delivered: while one forward pass runs, later requests collapse into one pending request.
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QStringList>

#include <optional>

#include "traceresult.h"

namespace attnlab::ui {

struct Request {
  ModelConfig cfg;           // cfg.cross follows whether memoryTexts is non-empty
  QStringList texts;         // the batch
  QStringList memoryTexts;   // cross-attention sources (empty: encoder only)
  qint64 memoryBudgetMiB = 4096;
  BackendKind backend = BackendKind::Cpu;  // where the products run (auto: a real GPU if there is one)
  // With faults planted: label the steps as the correct model would (a find-the-bug exercise
  // before it is answered; core's without_fault_labels). Costs one more forward pass.
  bool hideFaults = false;
};

// Runs one request to completion (the worker's job); throws ConfigError / DataError.
TraceResultPtr compute(const Request& r, quint64 generation);

class Controller : public QObject {
  Q_OBJECT
 public:
  explicit Controller(QObject* parent = nullptr);
  ~Controller() override;

  // Queues a computation; the newest request wins.
  void request(const Request& r);
  bool busy() const { return running_; }
  TraceResultPtr current() const { return current_; }
  // Blocks until nothing is running or pending (tests, shutdown).
  void waitForIdle();

 signals:
  void resultReady(attnlab::ui::TraceResultPtr result);
  void failed(const QString& message);
  void busyChanged(bool busy);

 private:
  struct Outcome {
    TraceResultPtr result;
    QString error;
  };
  void start(const Request& r);
  void finished();

  QFutureWatcher<Outcome>* watcher_;
  std::optional<Request> pending_;
  TraceResultPtr current_;
  quint64 generation_ = 0;
  bool running_ = false;
};

}  // namespace attnlab::ui
