// One step, explained — a screen, not a document: a compact header of one line each (where we
// are with the sentence chooser, what happens and why, the formula, the PyTorch line, what
// changed; "Details" expands them and shows the step id), then the step's picture filling the
// rest — per-head heatmaps for attention steps, the shape diagram over a slice view otherwise
// (the diagram joins the heatmaps when the details are open) — with the other ways of seeing the
// focused attention block in tabs (lines, model view, neuron view, mask comparison, charts), all
// following one ViewSelection. Nothing scrolls: the panel fits whatever room it is given.
#pragma once

#include <QWidget>

#include <cstdint>
#include <map>
#include <set>

#include "window/selection.h"

class QComboBox;
class QLabel;
class QStackedWidget;
class QTabWidget;
class QToolButton;

namespace attnlab::ui {

class ChartsPanel;
class GradNormChart;
class ScalingTable;
class HeatmapGrid;
class LineLabel;
class LineView;
class MaskComparison;
class ModelView;
class NeuronView;
class ShapeDiagram;
class TensorView;

class StepPanel : public QWidget {
  Q_OBJECT
 public:
  enum Tab { ValuesTab, LinesTab, ModelTab, NeuronTab, MasksTab, ChartsTab, GradientsTab };

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
  // The header's lines in full and the step id (and, on an attention step, the shape diagram);
  // collapsed (one elided line each) by default.
  void setDetailsShown(bool on);
  bool detailsShown() const { return detailsOpen_; }
  // Presenter mode: the step alone — the explanation and the what-changed lines (the teacher says
  // them) and the details button leave the header.
  void setPresenting(bool on);
  // Makes a widget of the panel visible: opens the details when it lies in them (the tour).
  void reveal(QWidget* w);
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
  GradNormChart* gradNorms() const { return gradNorms_; }
  ScalingTable* scaling() const { return scaling_; }
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
  void resizeEvent(QResizeEvent* event) override;

 private:
  QWidget* buildHeader();
  void styleHeader();  // the header's sizes relative to the panel's font, colours to its palette
  void refreshValues();
  void refreshTab();  // pushes the selection to the visible view only
  void showGradients();  // the Gradients tab: shown and filled with a backward pass only

  ViewSelection sel_;
  QString concealed_;
  QLabel* concealNote_ = nullptr;
  QLabel* stale_ = nullptr;
  LineLabel *location_ = nullptr, *formula_ = nullptr, *code_ = nullptr, *change_ = nullptr, *explain_ = nullptr;
  QLabel* title_ = nullptr;
  QToolButton* details_ = nullptr;
  bool detailsOpen_ = false, presenting_ = false;
  void showDiagram();
  static constexpr int64_t kInlineNumbers = 1 << 20;  // what-changed measured on the GUI thread up to this
  QString whatChanged(int index);                       // the sentence, or "measuring…" while a worker measures
  std::map<int, QString> changes_;                      // by step index, for the result on show
  std::set<int> measuring_;                             // step indexes a worker is measuring
  bool changeHidden(int index) const;                   // the sentence would give an exercise away
  void fitHeader();  // on non-attention steps always; on attention steps with the details
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
  GradNormChart* gradNorms_;  // the Gradients tab, shown with a backward pass
  ScalingTable* scaling_;     // under it: the √d experiment with real gradients
  QLabel* gradSummary_;
};

}  // namespace attnlab::ui
