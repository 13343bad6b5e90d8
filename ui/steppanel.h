// One step, explained: where we are, the formula, the PyTorch line, the shape diagram, what
// changed, and the values — per-head heatmaps for attention steps, a slice view otherwise.
#pragma once

#include <QWidget>

#include "traceresult.h"

class QComboBox;
class QLabel;
class QStackedWidget;

namespace attnlab::ui {

class HeatmapGrid;
class ShapeDiagram;
class TensorView;

class StepPanel : public QWidget {
  Q_OBJECT
 public:
  explicit StepPanel(QWidget* parent = nullptr);
  void setStep(TraceResultPtr result, int index);

  QString locationText() const;
  QString formulaText() const;
  QString codeText() const;
  QString changeText() const;
  bool showingHeatmaps() const;
  HeatmapGrid* heatmaps() const { return grid_; }
  ShapeDiagram* diagram() const { return diagram_; }
  TensorView* values() const { return values_; }
  int sentence() const;
  void setSentence(int b);

 private:
  void refreshValues();

  TraceResultPtr result_;
  int index_ = -1;
  QLabel *location_, *title_, *formula_, *code_, *change_, *timing_;
  QComboBox* sentence_;
  ShapeDiagram* diagram_;
  QStackedWidget* stack_;
  HeatmapGrid* grid_;
  TensorView* values_;
};

}  // namespace attnlab::ui
