// "Seeing attention" as charts, for the focused block, sentence, head and query row:
//   (a) the softmax distribution of the query row as bars, one per key token (masked keys: 0,
//       drawn as a grey hatched stub), at a temperature chosen on a log-scale slider (0.1 … 5);
//   (b) a histogram of the head's logits with and without the ÷√Dh scaling, with the fraction of
//       rows whose softmax saturates (max weight > 0.99) for each and one sentence saying why;
//   (c) every head's mean normalised entropy (0 … 1), each bar coloured and labelled with its
//       HeadPattern, so uniform ("dead"), diagonal and previous-token heads stand out.
// The numbers come from core/analysis/analysis.h; statistics ((b) and (c)) use the sentence's real query
// rows ([PAD] queries left out), the bars (a) show any row.
//
// Every use of Qt Charts (deprecated upstream from Qt 6.10) lives in this class and in chartkit.h
// (its axis helpers and TokenBarChart, the Variant panel's per-token error): the headers only
// forward-declare, so swapping the charting library touches chartspanel.cpp and chartkit.cpp alone.
#pragma once

#include <QPair>
#include <QStringList>
#include <QVector>
#include <QWidget>

#include "analysis/analysis.h"
#include "views/chartkit.h"
#include "window/selection.h"

QT_BEGIN_NAMESPACE
class QChart;
class QChartView;
class QComboBox;
class QGraphicsRectItem;
class QLabel;
class QSlider;
QT_END_NAMESPACE

namespace attnlab::ui {

class ChartsPanel : public QWidget {
  Q_OBJECT
 public:
  static constexpr double kMinTemperature = 0.1, kMaxTemperature = 5.0;

  explicit ChartsPanel(QWidget* parent = nullptr);

  // Re-reads the focused block's qk, masked_scores and weights for sel.batch, sel.head and
  // sel.query (clamped to the tensors). Emits nothing.
  void setSelection(const ViewSelection& sel) {
    sel_ = sel;
    recompute();
  }
  const ViewSelection& selection() const { return sel_; }

  double temperature() const { return temperature_; }
  void setTemperature(double t);  // clamped to [kMinTemperature, kMaxTemperature]; redraws (a), (b)

  // What the charts show, for tests and export.
  QVector<double> softmaxBars() const { return softmax_; }  // (Tk) row sel.query at temperature()
  QVector<bool> maskedKeys() const { return masked_; }      // (Tk) true where the key is masked
  QStringList keyLabels() const { return keyLabels_; }      // (Tk) key tokens
  QVector<double> entropyBars() const { return entropy_; }  // (H) HeadStats::entropy
  QStringList patternLabels() const { return patterns_; }   // (H) translated pattern names
  // Finite values behind the two histogram series: (scaled ÷√Dh, unscaled QKᵀ).
  QPair<int, int> histogramCounts() const {
    return {static_cast<int>(logits_.scaled.size()), static_cast<int>(logits_.unscaled.size())};
  }
  // Fraction of saturated rows at temperature(): (scaled, unscaled).
  QPair<double, double> saturatedFractions() const { return {logits_.saturated_scaled, logits_.saturated_unscaled}; }
  QString explanation() const;  // the sentence under the histogram
  QStringList chartTitles() const;  // (a), (b), (c)'s titles
  // Centre of head h's entropy bar in this widget's coordinates (where a click chooses it).
  QPoint entropyBarCenter(int h) const;

 public slots:
  void chooseHead(int h);    // as a click on head h's bar: redraws and emits headChosen
  void chooseQuery(int q);   // as picking row q: redraws (a) and emits queryChosen

 signals:
  void headChosen(int head);
  void queryChosen(int query);

 protected:
  void changeEvent(QEvent* e) override;  // font (zoom) and palette (dark mode) reach the charts
  void resizeEvent(QResizeEvent* e) override;  // more room, more token labels under (a)

 private:
  void buildControls();
  void temperatureChanged(double t);  // redraws (a), recounts saturation for (b)
  void recompute();                   // everything for the current selection
  void recomputeSoftmax();            // (a) data at temperature_
  void recomputeLogits();             // (b) data at temperature_
  void drawSoftmax();
  void drawHistogram();
  void drawEntropy();
  void placePatternChips();  // (c)'s pattern names, on the bars
  void applyTheme();  // chart theme from the palette
  void applyFonts();  // the widget font on every title, legend and axis
  int realQueryRows() const;  // query tokens that are not [PAD]
  int keyLabelStep() const;   // label every k-th key so labels fit the width
  const Tensor& blockTensor(const char* name) const;  // the focused block's step `name`

  ViewSelection sel_;
  double temperature_ = 1.0;
  int queries_ = 0;  // Tq
  QStringList queryLabels_;
  QVector<double> softmax_, softmaxAtOne_;  // (Tk)
  QVector<bool> masked_;                    // (Tk)
  QStringList keyLabels_;                   // (Tk)
  QVector<double> entropy_;                 // (H)
  QVector<int> patternIds_;                 // (H) HeadPattern
  QStringList patterns_;                    // (H)
  LogitStats logits_;
  double dHead_ = 1;
  int keyStep_ = 1;

  QComboBox* query_ = nullptr;
  QSlider* tempSlider_ = nullptr;
  QLabel* tempLabel_ = nullptr;
  QLabel* explanation_ = nullptr;
  QChart* softmaxChart_ = nullptr;
  QChart* histChart_ = nullptr;
  QChart* entropyChart_ = nullptr;
  QChartView* softmaxView_ = nullptr;
  QChartView* histView_ = nullptr;
  QChartView* entropyView_ = nullptr;
  QList<QGraphicsRectItem*> chips_;  // (H) children of entropyChart_
};

}  // namespace attnlab::ui
