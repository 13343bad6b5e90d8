// After a "find the bug" exercise: the faulty run beside the correct one, step by step among the
// steps the fault changed — per-head heatmaps for attention matrices, the value map otherwise —
// with the shapes, the largest difference and (for weights) the row sums of each side.
#pragma once

#include <QDialog>

#include "window/traceresult.h"

class QComboBox;
class QLabel;
class QStackedWidget;

namespace attnlab::ui {

class HeatmapGrid;
class TensorView;

class RunComparison : public QDialog {
  Q_OBJECT
 public:
  // steps: the step ids to offer (the first is shown); faultTitle: what was planted.
  RunComparison(TraceResultPtr faulty, TraceResultPtr correct, const QStringList& steps, const QString& faultTitle,
                QWidget* parent = nullptr);
  QString summaryText() const;
  QComboBox* stepChooser() const { return steps_; }
  QWidget* faultySide() const;
  QWidget* correctSide() const;

 private:
  struct Side {
    QLabel* caption;
    QStackedWidget* stack;
    HeatmapGrid* grid;
    TensorView* values;
  };
  Side makeSide(const QString& title);
  void showStep(const QString& stepId);
  static void fill(Side& side, const TraceResultPtr& r, int index);

  TraceResultPtr faulty_, correct_;
  QComboBox* steps_;
  QLabel* summary_;
  Side left_, right_;
};

// The largest |a − b| over two tensors of one shape; NaN when the shapes differ.
double maxAbsDifference(const Tensor& a, const Tensor& b);
// "min … max" of the sums over the last axis (rows of attention weights).
QString rowSumRange(const Tensor& t);

}  // namespace attnlab::ui
