// Two runs of one batch side by side. After a "find the bug" exercise: the faulty run beside the
// correct one, step by step among the steps the fault changed; in the Training panel: the run kept
// for comparison beside this one at the timeline's step (ComparisonWords says which) — the step panel's per-head heatmaps (HeatmapGrid) for attention
// matrices, the value map otherwise — with the shapes, the largest difference and (for weights)
// the row sums of each side. The dialog opens large (90 % of the screen, at least 1000 × 700 where
// the screen has it) and gives the two pictures all of it but one compact row (the step, the
// sentence, the largest difference) and one caption line per side.
#pragma once

#include <optional>

#include "views/colormap.h"

#include <QDialog>

#include "window/traceresult.h"

class QComboBox;
class QLabel;
class QStackedWidget;

namespace attnlab::ui {

class HeatmapGrid;
class TensorView;

// What the dialog calls its two sides (translated by the caller).
struct ComparisonWords {
  QString title;                     // the window's
  QString what;                      // the line above (rich text)
  QString left, right;               // each side's caption
  QString leftMissing, rightMissing;  // a side without the step: "%1" is the step id
};

class RunComparison : public QDialog {
  Q_OBJECT
 public:
  // steps: the step ids to offer (the first is shown); faultTitle: what was planted.
  RunComparison(TraceResultPtr faulty, TraceResultPtr correct, const QStringList& steps, const QString& faultTitle,
                QWidget* parent = nullptr);
  // Any two runs of the same sentences, in these words.
  RunComparison(TraceResultPtr left, TraceResultPtr right, const QStringList& steps, ComparisonWords words,
                QWidget* parent = nullptr);
  // The two runs replaced (e.g. another training step), the step and sentence chosen kept where
  // the new runs have them.
  void setRuns(TraceResultPtr left, TraceResultPtr right, const QStringList& steps, const QString& what);
  // The size the dialog opens at on a screen with this available geometry: 90 % of it, at least
  // 1000 × 700, never more than the screen holds with the window's frame around it.
  static QSize openingSize(const QRect& available, const QMargins& frame = {});
  // One line per side (shape, row sums) and the largest difference, as the dialog shows them.
  QString summaryText() const;
  // Both sides as they are shown, by the suffix: a picture (.png at 2×, .svg) or the shown step's
  // numbers for the chosen sentence (.csv: side, step, then each cell's indices and value). "" on
  // success, else the message to show.
  QString exportTo(const QString& path) const;
  QComboBox* stepChooser() const { return steps_; }
  QComboBox* sentenceChooser() const { return sentence_; }
  QWidget* faultySide() const;
  QWidget* correctSide() const;
  HeatmapGrid* faultyGrid() const { return left_.grid; }
  HeatmapGrid* correctGrid() const { return right_.grid; }

 protected:
  void showEvent(QShowEvent* event) override;  // the first time: sized and centred, frame and all

 private:
  void place();  // openingSize on the screen it is on, centred there
  struct Side {
    QLabel* caption;
    QStackedWidget* stack;
    HeatmapGrid* grid;
    TensorView* values;
  };
  Side makeSide();
  void showStep(const QString& stepId);
  std::optional<ColorMap> sharedMap(int faultyIndex, int correctIndex) const;
  void fillSentences(bool source);  // the batch's sentences, or in cross mode the sources an encoder step runs on
  // Shows step `index` of r on one side (sentence sentence_'s); returns the caption's facts.
  QString fill(Side& side, const TraceResultPtr& r, int index);
  static ComparisonWords faultWords(const QString& faultTitle);
  QString shownCsv() const;  // exportTo's numbers: side, step, index, value
  void fillSide(Side& side, const TraceResultPtr& r, int index, const QString& title, const QString& missing,
                const QString& stepId);

  TraceResultPtr faulty_, correct_;  // the left and the right run
  ComparisonWords words_;
  QLabel* what_;
  QWidget* sidesWidget_;  // both pictures and their captions (what a picture export shows)
  QComboBox* steps_;
  QComboBox* sentence_;
  QLabel* summary_;
  QStringList summaryLines_;
  bool sentencesAreSource_ = false;
  bool placed_ = false;
  Side left_, right_;
};

// The largest |a − b| over two tensors of one shape; NaN when the shapes differ.
double maxAbsDifference(const Tensor& a, const Tensor& b);
// "min … max" of the sums over the last axis (rows of attention weights).
QString rowSumRange(const Tensor& t);

}  // namespace attnlab::ui
