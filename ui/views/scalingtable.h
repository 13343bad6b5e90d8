// The √d experiment with real gradients, under the gradient norms: the focused block's input run
// three times, its scores divided by √Dh (the model), by √D and not at all, forward and backward
// from the result's own loss (core/backward/scaling.h). One row per scaling: how many query rows
// the softmax saturates, and the gradient that reaches the scores, Q and K (a column per scaling,
// a row per measure). Computed on a worker
// (three traced runs), once per result and block.
#pragma once

#include <QLabel>
#include <QWidget>

#include <memory>
#include <vector>

#include "backward/scaling.h"
#include "window/traceresult.h"

class QTableWidget;

namespace attnlab::ui {

class ScalingTable : public QWidget {
  Q_OBJECT
 public:
  // A request of at most this many score cells per run (B·H·Tq·Tk) is computed; a larger one says so.
  static constexpr long long kMaxCells = 1 << 22;

  explicit ScalingTable(QWidget* parent = nullptr);
  ~ScalingTable() override;
  // The result's gradients (none: hidden) and the block in focus.
  void setSelection(const TraceResultPtr& result, const std::string& block);
  bool computing() const { return pending_ != nullptr; }
  const std::vector<ScalingRun>& runs() const { return runs_; }
  QString summary() const { return summary_->text(); }
  QTableWidget* table() const { return table_; }  // one column per run, one row per measure

 signals:
  void done();

 private:
  void finished(quint64 generation, std::shared_ptr<const std::vector<ScalingRun>> runs, const QString& error);
  void show(const std::vector<ScalingRun>& runs);

  QLabel* title_;
  QLabel* summary_;
  QTableWidget* table_;
  TraceResultPtr for_, pending_;
  std::string block_, pendingBlock_;
  std::vector<ScalingRun> runs_;
  quint64 generation_ = 0;
};

}  // namespace attnlab::ui
