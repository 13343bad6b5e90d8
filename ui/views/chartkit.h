// The Qt Charts kit the charts share: axes with round ticks or thinned token labels, a chart in
// its view, and TokenBarChart, one bar per token (the Variant panel's per-token error). The only
// other user of Qt Charts is chartspanel.cpp.
#pragma once

#include <QColor>
#include <QFont>
#include <QStringList>
#include <QVector>
#include <QWidget>

QT_BEGIN_NAMESPACE
class QAbstractAxis;
class QAbstractSeries;
class QCategoryAxis;
class QChart;
class QChartView;
class QValueAxis;
QT_END_NAMESPACE

namespace attnlab::ui {

namespace chartkit {

// The charts' two series colours: weights (viridis blue) and what is compared with them (orange).
inline const QColor kWeightColor{0x31, 0x68, 0x8e};
inline const QColor kUnscaledColor{0xe4, 0x6c, 0x0a};

// A tick interval of 1, 2 or 5 × 10^k that cuts `range` into about five steps.
double niceStep(double range);
// Every axis and series of c removed (and the axes deleted).
void resetChart(QChart* c);
// A value axis lo … hi with ticks at multiples of niceStep from 0.
QValueAxis* addValueAxis(QChart* c, Qt::Alignment side, double lo, double hi, const QString& title);
// base, with a CJK font first when `text` has Chinese characters (their room reserved whole).
QFont titleFont(QFont base, const QString& text);
// Tokens under bars at x = 0 … n−1, every `step`-th labelled (repeats kept apart), rotated when
// there are more than 8 and `rotate`.
QCategoryAxis* addTokenAxis(QChart* c, const QStringList& tokens, int step, bool rotate = true);
void attach(QAbstractSeries* s, QAbstractAxis* x, QAbstractAxis* y);
// A new chart in a new antialiased view (at least 280 × 180), legend on top.
QChart* makeChart(QChartView** view);

}  // namespace chartkit

// One bar per token of a sentence (e.g. a variant's difference from full attention per query),
// the tokens under the bars, thinned out when they would not fit.
class TokenBarChart : public QWidget {
  Q_OBJECT
 public:
  explicit TokenBarChart(QWidget* parent = nullptr);
  // tokens and values: one per bar (the same length).
  void setBars(const QStringList& tokens, const QVector<double>& values, const QString& title, const QString& valueTitle);
  QVector<double> values() const { return values_; }
  QStringList tokens() const { return tokens_; }
  int barCount() const;  // the bars drawn (the chart's own count, for tests)
  QString title() const;

 protected:
  void changeEvent(QEvent* e) override;  // font (zoom) and palette (dark mode)

 private:
  void draw();

  QStringList tokens_;
  QVector<double> values_;
  QString title_, valueTitle_;
  QChart* chart_ = nullptr;
  QChartView* view_ = nullptr;
};

}  // namespace attnlab::ui
