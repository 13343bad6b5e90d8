#include "traininglab/trainingcurves.h"

#include <QGraphicsLayout>
#include <QChart>
#include <QChartView>
#include <QEvent>
#include <QLabel>
#include <QLegend>
#include <QLineSeries>
#include <QPen>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

#include "views/chartkit.h"

namespace attnlab::ui {

namespace {

const QColor kLossColor{0x31, 0x68, 0x8e}, kHeldColor{0x35, 0xb7, 0x79}, kAccColor{0xe4, 0x6c, 0x0a};
const QColor kPrevColors[] = {{0x44, 0x01, 0x54}, {0x31, 0x68, 0x8e}, {0x35, 0xb7, 0x79}, {0x90, 0xd7, 0x43}};
const QColor kInductionColor{0xd6, 0x27, 0x28}, kMarkColor{0x55, 0x55, 0x55};

QLineSeries* line(const QString& name, const QColor& color, bool dashed, qreal width = 2.5) {
  auto* s = new QLineSeries;
  s->setName(name);
  QPen pen(color, width);
  if (dashed) pen.setStyle(Qt::DashLine);
  s->setPen(pen);
  return s;
}

// A vertical line at step x over y = lo … hi (the phase change, the timeline's moment).
QLineSeries* vertical(const QString& name, qreal x, qreal lo, qreal hi, Qt::PenStyle style) {
  auto* s = new QLineSeries;
  s->setName(name);
  s->setPen(QPen(kMarkColor, 2, style));
  s->append(x, lo);
  s->append(x, hi);
  return s;
}

double bestPrevious(const Evaluation& e, size_t layer) {
  double b = 0;
  for (const HeadScore& h : e.heads[layer]) b = std::max(b, h.previous);
  return b;
}

// s on chart c, against its x and y axes.
void put(QChart* c, QAbstractSeries* s, QAbstractAxis* x, QAbstractAxis* y) {
  c->addSeries(s);
  chartkit::attach(s, x, y);
}

bool hasInduction(const QVector<CurvePoint>& run) {
  return !run.isEmpty() && run.back().eval.has_induction();
}

}  // namespace

TrainingCurves::TrainingCurves(QWidget* parent) : QWidget(parent) {
  auto* box = new QVBoxLayout(this);
  box->setContentsMargins(0, 0, 0, 0);
  lossChart_ = chartkit::makeChart(&lossView_);
  headChart_ = chartkit::makeChart(&headView_);
  // A narrow dock shortens the legend's names ("train…"): the whole name on hover.
  lossChart_->legend()->setShowToolTips(true);
  headChart_->legend()->setShowToolTips(true);
  for (QChart* c : {lossChart_, headChart_}) {  // every pixel to the plot: a narrow dock has few
    c->layout()->setContentsMargins(0, 0, 0, 0);
    c->setBackgroundRoundness(0);
  }
  lossView_->setObjectName(QStringLiteral("trainingLossChart"));
  headView_->setObjectName(QStringLiteral("trainingHeadChart"));
  summary_ = new QLabel(this);
  summary_->setWordWrap(true);
  summary_->setObjectName(QStringLiteral("trainingSummary"));
  box->addWidget(lossView_, 1);
  box->addWidget(headView_, 1);
  box->addWidget(summary_);
  draw();
}

void TrainingCurves::setRuns(const QVector<CurvePoint>& run, const QVector<CurvePoint>& other, qint64 phase,
                             qint64 marker, const QString& runName, const QString& otherName) {
  run_ = run, other_ = other, phase_ = phase, marker_ = marker, runName_ = runName, otherName_ = otherName;
  draw();
}

void TrainingCurves::changeEvent(QEvent* e) {
  QWidget::changeEvent(e);
  if (e->type() == QEvent::FontChange || e->type() == QEvent::PaletteChange) draw();
}

int TrainingCurves::chartMinimumHeight(const QFontMetrics& fm) {
  // Title, legend, the step axis's labels and title: five lines of text (a CJK font's are taller),
  // and a plot of at least 140 px (the loss axis's title stands along it). Shorter, Qt Charts
  // shortens every axis label to "…".
  return 5 * fm.lineSpacing() + 40 + 140;
}

void TrainingCurves::draw() {
  for (QChartView* v : {lossView_, headView_}) v->setMinimumHeight(chartMinimumHeight(v->fontMetrics()));
  chartkit::resetChart(lossChart_);
  chartkit::resetChart(headChart_);
  lossChart_->setTitle(tr("Loss and held-out accuracy"));
  headChart_->setTitle(tr("What the heads do (held out)"));
  int64_t last = 1;
  double maxLoss = 0.1;
  for (const auto* r : {&run_, &other_})
    for (const CurvePoint& p : *r) last = std::max(last, p.step), maxLoss = std::max({maxLoss, p.loss, p.eval.loss});
  auto* x1 = chartkit::addValueAxis(lossChart_, Qt::AlignBottom, 0, double(last), tr("training step"));
  auto* loss = chartkit::addValueAxis(lossChart_, Qt::AlignLeft, 0, std::ceil(maxLoss), tr("loss (nats)"));
  auto* acc = chartkit::addValueAxis(lossChart_, Qt::AlignRight, 0, 1, tr("accuracy"));
  auto* x2 = chartkit::addValueAxis(headChart_, Qt::AlignBottom, 0, double(last), tr("training step"));
  auto* score = chartkit::addValueAxis(headChart_, Qt::AlignLeft, 0, 1, tr("mean attention weight"));
  for (QValueAxis* steps : {x1, x2}) steps->setLabelFormat(QStringLiteral("%i"));  // 1000, not 1e+03: narrower too
  const bool two = !other_.isEmpty();
  for (int k = 0; k < (two ? 2 : 1); ++k) {
    const QVector<CurvePoint>& r = k == 0 ? run_ : other_;
    const QString tag = two ? QStringLiteral(" (%1)").arg(k == 0 ? runName_ : otherName_) : QString();
    const bool dashed = k == 1;
    auto* l = line(tr("training loss") + tag, kLossColor, dashed, 1.5);
    auto* h = line(tr("held-out loss") + tag, kHeldColor, dashed);
    auto* a = line(tr("held-out accuracy") + tag, kAccColor, dashed);
    for (const CurvePoint& p : r) {
      if (p.step > 0) l->append(double(p.step), p.loss);
      h->append(double(p.step), p.eval.loss);
      a->append(double(p.step), p.eval.accuracy);
    }
    put(lossChart_, l, x1, loss);
    put(lossChart_, h, x1, loss);
    put(lossChart_, a, x1, acc);
    if (r.isEmpty() || r.back().eval.heads.empty()) continue;
    const size_t layers = r.back().eval.heads.size();
    for (size_t layer = 0; layer < layers; ++layer) {
      auto* s = line(tr("layer %1: best previous-token head").arg(layer) + tag, kPrevColors[layer % 4], dashed);
      for (const CurvePoint& p : r)
        if (p.eval.heads.size() == layers) s->append(double(p.step), bestPrevious(p.eval, layer));
      put(headChart_, s, x2, score);
    }
    if (hasInduction(r) && layers > 1) {
      auto* s = line(tr("best induction head (layers 1+)") + tag, kInductionColor, dashed);
      for (const CurvePoint& p : r)
        if (p.eval.heads.size() == layers) s->append(double(p.step), std::max(0.0, p.eval.best_induction()));
      put(headChart_, s, x2, score);
    }
  }
  if (phase_ >= 0) {
    put(headChart_, vertical(tr("phase change (step %1)").arg(phase_), double(phase_), 0, 1, Qt::DashLine), x2, score);
  }
  if (marker_ >= 0) {
    put(lossChart_, vertical(tr("shown: step %1").arg(marker_), double(marker_), 0, std::ceil(maxLoss), Qt::DotLine), x1, loss);
    put(headChart_, vertical(tr("shown: step %1").arg(marker_), double(marker_), 0, 1, Qt::DotLine), x2, score);
  }
  summary_->setText(summary());
}

int TrainingCurves::seriesCount() const { return int(lossChart_->series().size() + headChart_->series().size()); }

QString TrainingCurves::summary() const {
  if (run_.isEmpty()) return tr("Choose a task and press Start: the curves grow as the model learns.");
  const CurvePoint& p = run_.back();
  QString s = tr("Step %1: held-out loss %2, accuracy %3 %.").arg(p.step).arg(p.eval.loss, 0, 'f', 3).arg(100 * p.eval.accuracy, 0, 'f', 1);
  if (!p.eval.heads.empty()) s += QLatin1Char(' ') + tr("Best previous-token head %1.").arg(p.eval.best_previous(), 0, 'f', 2);
  if (hasInduction(run_) && p.eval.heads.size() > 1)
    s += QLatin1Char(' ') + tr("Best induction head %1.").arg(p.eval.best_induction(), 0, 'f', 2);
  if (phase_ >= 0) s += QLatin1Char(' ') + tr("The induction head appeared at step %1.").arg(phase_);
  return s;
}

QString TrainingCurves::csv() const {
  QString out = QStringLiteral("step,loss,lr,held_out_loss,accuracy,sequence_accuracy");
  const size_t layers = run_.isEmpty() ? 0 : run_.back().eval.heads.size();
  const size_t heads = layers ? run_.back().eval.heads[0].size() : 0;
  for (size_t l = 0; l < layers; ++l)
    for (size_t h = 0; h < heads; ++h)
      out += QStringLiteral(",L%1H%2_previous,L%1H%2_self,L%1H%2_entropy,L%1H%2_induction").arg(l).arg(h);
  out += QLatin1Char('\n');
  for (const CurvePoint& p : run_) {
    out += QStringLiteral("%1,%2,%3,%4,%5,%6").arg(p.step).arg(p.loss, 0, 'g', 9).arg(p.lr, 0, 'g', 9)
               .arg(p.eval.loss, 0, 'g', 9).arg(p.eval.accuracy, 0, 'g', 9).arg(p.eval.sequence_accuracy, 0, 'g', 9);
    for (const auto& layer : p.eval.heads)
      for (const HeadScore& h : layer)
        out += QStringLiteral(",%1,%2,%3,%4").arg(h.previous, 0, 'g', 9).arg(h.self, 0, 'g', 9).arg(h.entropy, 0, 'g', 9)
                   .arg(h.induction ? QString::number(*h.induction, 'g', 9) : QString());
    out += QLatin1Char('\n');
  }
  return out;
}

}  // namespace attnlab::ui
