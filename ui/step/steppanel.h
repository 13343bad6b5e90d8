// One step, explained: where we are, the formula, the PyTorch line, the shape diagram, what
// changed, and the values — per-head heatmaps for attention steps, a slice view otherwise — with
// the other ways of seeing the focused attention block in tabs (lines, model view, neuron view,
// mask comparison, charts), all following one ViewSelection.
#pragma once

#include <QWidget>

#include "window/selection.h"

class QComboBox;
class QLabel;
class QStackedWidget;
class QTabWidget;

namespace attnlab::ui {

class ChartsPanel;
class HeatmapGrid;
class LineView;
class MaskComparison;
class ModelView;
class NeuronView;
class ShapeDiagram;
class TensorView;

class StepPanel : public QWidget {
  Q_OBJECT
 public:
  enum Tab { ValuesTab, LinesTab, ModelTab, NeuronTab, MasksTab, ChartsTab };

  explicit StepPanel(QWidget* parent = nullptr);
  void setStep(TraceResultPtr result, int index);
  // Hides everything that gives away the shape of step `id` (its code line, the sentence saying
  // what changed, its values; "?" in every shape diagram) for a predict-the-shape exercise; an
  // empty id shows everything again. Re-shows the current step.
  void setConcealed(const QString& id);
  // A note over the step that what is on show is the last result, not what the inputs now say
  // ("" when the result is current again).
  void setStale(const QString& note);
  QString staleNote() const;  // "" when hidden
  QString concealed() const { return concealed_; }

  QString locationText() const;
  QString formulaText() const;
  QString codeText() const;
  QString changeText() const;
  bool showingHeatmaps() const;
  HeatmapGrid* heatmaps() const { return grid_; }
  ShapeDiagram* diagram() const { return diagram_; }
  TensorView* values() const { return values_; }
  LineView* lines() const { return lines_; }
  ModelView* model() const { return model_; }
  NeuronView* neuron() const { return neuron_; }
  MaskComparison* masks() const { return masks_; }
  ChartsPanel* charts() const { return charts_; }
  QTabWidget* tabs() const { return tabs_; }
  const ViewSelection& selection() const { return sel_; }
  int sentence() const;
  void setSentence(int b);
  // The view tabs by stable name (sessions): values, lines, model, neuron, masks, charts.
  QString currentTabId() const;
  void setCurrentTabId(const QString& id);
  void setHead(int head);
  void setQuery(int query);

 signals:
  // A view asked to show another step (e.g. a model-view thumbnail → that block's weights).
  void stepRequested(const QString& id);

 protected:
  void changeEvent(QEvent* event) override;  // font (zoom, presenter mode) and palette (dark themes)

 private:
  QWidget* buildHeader();
  void styleHeader();  // the header's sizes relative to the panel's font, colours to its palette
  void refreshValues();
  void refreshTab();  // pushes the selection to the visible view only

  ViewSelection sel_;
  QString concealed_;
  QLabel* concealNote_ = nullptr;
  QLabel* stale_ = nullptr;
  QLabel *location_ = nullptr, *title_ = nullptr, *formula_ = nullptr, *code_ = nullptr, *change_ = nullptr, *explain_ = nullptr,
         *timing_ = nullptr;
  QComboBox* sentence_;
  QLabel* sentenceLabel_ = nullptr;
  bool sentencesAreSource_ = false;  // the chooser lists the source sentences (an encoder step in cross mode)
  void fillSentences(bool source);
  ShapeDiagram* diagram_;
  QTabWidget* tabs_;
  QStackedWidget* stack_;
  HeatmapGrid* grid_;
  TensorView* values_;
  LineView* lines_;
  ModelView* model_;
  NeuronView* neuron_;
  MaskComparison* masks_;
  ChartsPanel* charts_;
};

}  // namespace attnlab::ui
