// The training run's curves (Qt Charts): the loss (the step's batch, and held out) with the
// held-out accuracy, and what the heads do — per layer the best previous-token score and, for the
// induction task, the best induction score — with the phase change marked where the induction
// score first passes 0.5 and the moment the timeline shows. A second run can be drawn beside the
// first (dashed) to compare them. CSV of every logged number.
#pragma once

#include <QVector>
#include <QWidget>

#include "traininglab/trainingsession.h"

QT_BEGIN_NAMESPACE
class QChart;
class QChartView;
class QFontMetrics;
class QLabel;
QT_END_NAMESPACE

namespace attnlab::ui {

class TrainingCurves : public QWidget {
  Q_OBJECT
 public:
  explicit TrainingCurves(QWidget* parent = nullptr);
  // run: the curves drawn solid; other: a second run drawn dashed (empty: none); phase: the
  // phase change step (−1: none); marker: the step the timeline shows (−1: none).
  void setRuns(const QVector<CurvePoint>& run, const QVector<CurvePoint>& other, qint64 phase, qint64 marker,
               const QString& runName = {}, const QString& otherName = {});
  QString csv() const;  // step, losses, accuracies, every head's scores
  int seriesCount() const;
  QString summary() const;  // one sentence on what the last point shows
  // The height a chart needs in this font for its labels to show whole.
  static int chartMinimumHeight(const QFontMetrics& fm);

 protected:
  void changeEvent(QEvent* e) override;

 private:
  void draw();

  QVector<CurvePoint> run_, other_;
  qint64 phase_ = -1, marker_ = -1;
  QString runName_, otherName_;
  QChart* lossChart_ = nullptr;
  QChart* headChart_ = nullptr;
  QChartView* lossView_ = nullptr;
  QChartView* headView_ = nullptr;
  QLabel* summary_ = nullptr;
};

}  // namespace attnlab::ui
