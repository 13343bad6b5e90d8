#include "views/runcompare.h"

#include <QComboBox>
#include <QGridLayout>
#include <QLabel>
#include <QStackedWidget>
#include <QVBoxLayout>

#include <cmath>
#include <limits>

#include "step/tensorview.h"
#include "variants/variant_table.h"
#include "views/heatmapgrid.h"

namespace attnlab::ui {

double maxAbsDifference(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape()) return std::numeric_limits<double>::quiet_NaN();
  const std::vector<float> x = a.to_vector(), y = b.to_vector();
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const bool xinf = std::isinf(x[i]), yinf = std::isinf(y[i]);
    if (xinf || yinf) {
      if (x[i] != y[i]) return std::numeric_limits<double>::infinity();
      continue;
    }
    worst = std::max(worst, std::abs(static_cast<double>(x[i]) - y[i]));
  }
  return worst;
}

QString rowSumRange(const Tensor& t) {
  if (t.dim() == 0 || t.numel() == 0) return {};
  const std::vector<float> v = t.to_vector();
  const auto n = static_cast<size_t>(t.shape().back());
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (size_t r = 0; r * n < v.size(); ++r) {
    double s = 0;
    for (size_t c = 0; c < n; ++c) s += v[r * n + c];
    lo = std::min(lo, s);
    hi = std::max(hi, s);
  }
  return QStringLiteral("%1 … %2").arg(lo, 0, 'f', 3).arg(hi, 0, 'f', 3);
}

RunComparison::RunComparison(TraceResultPtr faulty, TraceResultPtr correct, const QStringList& steps,
                             const QString& faultTitle, QWidget* parent)
    : QDialog(parent), faulty_(std::move(faulty)), correct_(std::move(correct)) {
  setWindowTitle(tr("The faulty run beside the correct one"));
  setObjectName(QStringLiteral("runComparison"));
  auto* v = new QVBoxLayout(this);
  auto* what = new QLabel(tr("<b>The planted bug:</b> %1").arg(faultTitle.toHtmlEscaped()));
  what->setWordWrap(true);
  v->addWidget(what);
  auto* row = new QHBoxLayout;
  row->addWidget(new QLabel(tr("Step:")));
  steps_ = new QComboBox;
  steps_->addItems(steps);
  row->addWidget(steps_, 1);
  v->addLayout(row);
  summary_ = new QLabel;
  summary_->setObjectName(QStringLiteral("summary"));
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  v->addWidget(summary_);
  auto* sides = new QGridLayout;
  left_ = makeSide(tr("Faulty run"));
  right_ = makeSide(tr("Correct run"));
  sides->addWidget(left_.caption, 0, 0);
  sides->addWidget(right_.caption, 0, 1);
  sides->addWidget(left_.stack, 1, 0);
  sides->addWidget(right_.stack, 1, 1);
  sides->setColumnStretch(0, 1);
  sides->setColumnStretch(1, 1);
  v->addLayout(sides, 1);
  connect(steps_, &QComboBox::currentTextChanged, this, &RunComparison::showStep);
  if (!steps.isEmpty()) showStep(steps.front());
  resize(1200, 700);
}

RunComparison::Side RunComparison::makeSide(const QString& title) {
  Side s;
  s.caption = new QLabel(title);
  QFont f = s.caption->font();
  f.setBold(true);
  s.caption->setFont(f);
  s.stack = new QStackedWidget;
  s.grid = new HeatmapGrid;
  s.values = new TensorView;
  s.stack->addWidget(s.grid);
  s.stack->addWidget(s.values);
  return s;
}

void RunComparison::fill(Side& side, const TraceResultPtr& r, int index) {
  const Step& st = r->trace.steps()[static_cast<size_t>(index)];
  if (is_attention_matrix(st.info.id, st.tensor, MatrixSteps::FaultPair)) {
    side.grid->setStep(r, index, 0);
    side.stack->setCurrentWidget(side.grid);
  } else {
    side.values->setStep(r, index, 0);
    side.stack->setCurrentWidget(side.values);
  }
}

void RunComparison::showStep(const QString& stepId) {
  const std::string id = stepId.toStdString();
  const int fi = faulty_->indexOf(id), ci = correct_->indexOf(id);
  QStringList lines;
  if (fi >= 0) {
    fill(left_, faulty_, fi);
    const Tensor& t = faulty_->trace.steps()[static_cast<size_t>(fi)].tensor;
    lines << tr("Faulty: shape %1").arg(QString::fromStdString(shape_str(t.shape())));
    if (id.ends_with("weights")) lines.back() += tr(", row sums %1").arg(rowSumRange(t));
  }
  if (ci >= 0) {
    fill(right_, correct_, ci);
    const Tensor& t = correct_->trace.steps()[static_cast<size_t>(ci)].tensor;
    lines << tr("Correct: shape %1").arg(QString::fromStdString(shape_str(t.shape())));
    if (id.ends_with("weights")) lines.back() += tr(", row sums %1").arg(rowSumRange(t));
  } else {
    lines << tr("The correct run has no step %1: the bug added it.").arg(stepId);
  }
  right_.stack->setVisible(ci >= 0);
  if (fi >= 0 && ci >= 0) {
    const double d = maxAbsDifference(faulty_->trace.steps()[static_cast<size_t>(fi)].tensor,
                                      correct_->trace.steps()[static_cast<size_t>(ci)].tensor);
    lines << (std::isnan(d) ? tr("The shapes differ.") : tr("Largest difference: %1").arg(d, 0, 'g', 4));
  }
  summary_->setText(lines.join(QLatin1Char('\n')));
}

QString RunComparison::summaryText() const { return summary_->text(); }
QWidget* RunComparison::faultySide() const { return left_.stack->currentWidget(); }
QWidget* RunComparison::correctSide() const { return right_.stack->currentWidget(); }

}  // namespace attnlab::ui
