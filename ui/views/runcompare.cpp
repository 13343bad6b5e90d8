#include "views/runcompare.h"

#include <QComboBox>
#include <QFileDialog>
#include <QMessageBox>
#include <QPushButton>
#include <QGridLayout>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QScreen>
#include <QStackedWidget>
#include <QVBoxLayout>
#include <QWindow>

#include <algorithm>
#include <cmath>
#include <limits>

#include "export/widgetexport.h"
#include "step/tensorview.h"
#include "text/tokenizer.h"
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

ComparisonWords RunComparison::faultWords(const QString& faultTitle) {
  return {tr("The faulty run beside the correct one"), tr("<b>The planted bug:</b> %1").arg(faultTitle.toHtmlEscaped()),
          tr("Faulty run"), tr("Correct run"), tr("The faulty run has no step %1."),
          tr("The correct run has no step %1: the bug added it.")};
}

RunComparison::RunComparison(TraceResultPtr faulty, TraceResultPtr correct, const QStringList& steps,
                             const QString& faultTitle, QWidget* parent)
    : RunComparison(std::move(faulty), std::move(correct), steps, faultWords(faultTitle), parent) {}

RunComparison::RunComparison(TraceResultPtr left, TraceResultPtr right, const QStringList& steps,
                             ComparisonWords words, QWidget* parent)
    : QDialog(parent), faulty_(std::move(left)), correct_(std::move(right)), words_(std::move(words)) {
  setWindowTitle(words_.title);
  setObjectName(QStringLiteral("runComparison"));
  auto* v = new QVBoxLayout(this);
  what_ = new QLabel(words_.what);
  what_->setObjectName(QStringLiteral("compareWhat"));
  what_->setWordWrap(true);
  v->addWidget(what_);
  // One compact row: which step, which sentence, and how far apart the two runs are there.
  auto* row = new QHBoxLayout;
  auto* stepLabel = new QLabel(tr("Step:"));
  row->addWidget(stepLabel);
  steps_ = new QComboBox;
  steps_->setObjectName(QStringLiteral("compareStep"));
  steps_->addItems(steps);
  steps_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  steps_->setMinimumContentsLength(16);
  stepLabel->setBuddy(steps_);
  row->addWidget(steps_, 2);
  auto* sentenceLabel = new QLabel(tr("Sentence:"));
  row->addWidget(sentenceLabel);
  sentence_ = new QComboBox;
  sentence_->setObjectName(QStringLiteral("compareSentence"));
  sentence_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  sentence_->setMinimumContentsLength(8);
  sentenceLabel->setBuddy(sentence_);
  row->addWidget(sentence_, 1);
  summary_ = new QLabel;
  summary_->setObjectName(QStringLiteral("summary"));
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  row->addSpacing(12);
  row->addWidget(summary_, 2);
  auto* save = new QPushButton(tr("Export…"));
  save->setObjectName(QStringLiteral("compareExport"));
  save->setToolTip(tr("Both sides as a PNG or SVG picture, or the shown step's numbers as CSV"));
  row->addWidget(save);
  v->addLayout(row);
  connect(save, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export the comparison"), QStringLiteral("comparison.png"),
                                                      tr("PNG image (*.png);;SVG drawing (*.svg);;CSV numbers (*.csv)"));
    if (path.isEmpty()) return;
    if (const QString problem = exportTo(path); !problem.isEmpty()) QMessageBox::warning(this, windowTitle(), problem);
  });
  // The two pictures take everything else.
  sidesWidget_ = new QWidget;
  auto* sides = new QGridLayout(sidesWidget_);
  sides->setContentsMargins(0, 0, 0, 0);
  left_ = makeSide();
  right_ = makeSide();
  sides->addWidget(left_.caption, 0, 0);
  sides->addWidget(right_.caption, 0, 1);
  sides->addWidget(left_.stack, 1, 0);
  sides->addWidget(right_.stack, 1, 1);
  sides->setColumnStretch(0, 1);
  sides->setColumnStretch(1, 1);
  sides->setRowStretch(1, 1);
  v->addWidget(sidesWidget_, 1);
  connect(steps_, &QComboBox::currentTextChanged, this, &RunComparison::showStep);
  connect(sentence_, &QComboBox::currentIndexChanged, this, [this] { showStep(steps_->currentText()); });
  fillSentences(false);
  if (!steps.isEmpty()) showStep(steps.front());
  place();  // large, like the step panel's heatmaps: most of the screen the window is on
}

void RunComparison::setRuns(TraceResultPtr left, TraceResultPtr right, const QStringList& steps, const QString& what) {
  faulty_ = std::move(left);
  correct_ = std::move(right);
  what_->setText(what);
  const QString shown = steps_->currentText();
  {
    const QSignalBlocker quiet(steps_);
    steps_->clear();
    steps_->addItems(steps);
    steps_->setCurrentIndex(std::max(0, static_cast<int>(steps.indexOf(shown))));
  }
  fillSentences(sentencesAreSource_);
  if (!steps.isEmpty()) showStep(steps_->currentText());
}

QSize RunComparison::openingSize(const QRect& available, const QMargins& frame) {
  const QSize most = available.size();
  const QSize inside = most.shrunkBy(frame);
  return QSize(qRound(most.width() * 0.9), qRound(most.height() * 0.9)).expandedTo(QSize(1000, 700)).boundedTo(inside);
}

void RunComparison::place() {
  const QScreen* s = screen() ? screen() : QGuiApplication::primaryScreen();
  const QRect avail = s ? s->availableGeometry() : QRect(0, 0, 1600, 1000);
  // The window's frame, as far as the platform says it yet (nothing before the window exists).
  const QMargins frame = windowHandle() ? windowHandle()->frameMargins() : QMargins();
  resize(openingSize(avail, frame));
  const QSize whole = size().grownBy(frame);
  move(avail.topLeft() + QPoint((avail.width() - whole.width()) / 2, (avail.height() - whole.height()) / 2));
}

void RunComparison::showEvent(QShowEvent* event) {
  QDialog::showEvent(event);
  if (placed_) return;
  placed_ = true;
  place();  // now the frame is known (where the platform says it at once)
}

RunComparison::Side RunComparison::makeSide() {
  Side s;
  s.caption = new QLabel;
  s.caption->setTextFormat(Qt::RichText);
  s.stack = new QStackedWidget;
  s.grid = new HeatmapGrid;
  s.values = new TensorView;
  s.stack->addWidget(s.grid);
  s.stack->addWidget(s.values);
  return s;
}

void RunComparison::fillSentences(bool source) {
  sentencesAreSource_ = source;
  const QSignalBlocker quiet(sentence_);
  const int keep = std::max(0, sentence_->currentIndex());
  sentence_->clear();
  const auto& rows = (source ? faulty_->batch.memory : faulty_->batch.text).shown_rows();
  for (size_t b = 0; b < rows.size(); ++b) {
    QStringList words;
    for (const auto& t : rows[b])
      if (t != kPadToken) words << QString::fromStdString(t);
    sentence_->addItem(tr("%1: %2").arg(b).arg(words.join(QLatin1Char(' ')).left(60)));
  }
  sentence_->setCurrentIndex(std::min(keep, sentence_->count() - 1));
  sentence_->setEnabled(sentence_->count() > 1);
}

QString RunComparison::fill(Side& side, const TraceResultPtr& r, int index) {
  const Step& st = r->trace.steps()[static_cast<size_t>(index)];
  const int b = std::max(0, sentence_->currentIndex());
  if (is_attention_matrix(st.info.id, st.tensor, MatrixSteps::FaultPair)) {  // (B, H, Tq, Tk)
    side.grid->setStep(r, index, std::min(b, static_cast<int>(st.tensor.size(0)) - 1));
    side.stack->setCurrentWidget(side.grid);
  } else {
    side.values->setStep(r, index, b);
    side.stack->setCurrentWidget(side.values);
  }
  QString facts = tr("shape %1").arg(QString::fromStdString(shape_str(st.tensor.shape())));
  if (st.info.id.ends_with("weights")) facts += tr(", row sums %1").arg(rowSumRange(st.tensor));
  return facts;
}

// One side: step `index` of r under its title, or (index < 0) the words saying it has no such step.
void RunComparison::fillSide(Side& side, const TraceResultPtr& r, int index, const QString& title,
                             const QString& missing, const QString& stepId) {
  side.stack->setVisible(index >= 0);
  if (index < 0) {
    side.caption->setText(missing.arg(stepId).toHtmlEscaped());
    summaryLines_ << missing.arg(stepId);
    return;
  }
  const QString facts = fill(side, r, index);
  side.caption->setText(QStringLiteral("<b>%1</b> · %2").arg(title.toHtmlEscaped(), facts.toHtmlEscaped()));
  summaryLines_ << title + QStringLiteral(" · ") + facts;
}

void RunComparison::showStep(const QString& stepId) {
  const std::string id = stepId.toStdString();
  const int fi = faulty_->indexOf(id), ci = correct_->indexOf(id);
  const bool source = faulty_->batch.cross() && id.starts_with("encoder.");
  if (source != sentencesAreSource_) fillSentences(source);
  summaryLines_.clear();
  // Both runs on one colour scale, the map covering both: the same colour is the same number on
  // either side (set before the grids draw, so each draws once).
  const std::optional<ColorMap> both = fi >= 0 && ci >= 0 ? sharedMap(fi, ci) : std::nullopt;
  left_.grid->setSharedMap(both, false);
  right_.grid->setSharedMap(both, false);
  fillSide(left_, faulty_, fi, words_.left, words_.leftMissing, stepId);
  fillSide(right_, correct_, ci, words_.right, words_.rightMissing, stepId);
  QString difference;
  if (fi >= 0 && ci >= 0) {
    const double d = maxAbsDifference(faulty_->trace.steps()[static_cast<size_t>(fi)].tensor,
                                      correct_->trace.steps()[static_cast<size_t>(ci)].tensor);
    difference = std::isnan(d) ? tr("The shapes differ.") : tr("Largest difference: %1").arg(d, 0, 'g', 4);
    summaryLines_ << difference;
  }
  summary_->setText(difference);
  summary_->setToolTip(summaryLines_.join(QLatin1Char('\n')));
}

// The map covering the faulty step fi and the correct step ci for the chosen sentence (each as
// HeatmapGrid would fit it alone); nullopt when they are not both attention matrices.
std::optional<ColorMap> RunComparison::sharedMap(int fi, int ci) const {
  const Step& f = faulty_->trace.steps()[static_cast<size_t>(fi)];
  const Step& c = correct_->trace.steps()[static_cast<size_t>(ci)];
  if (!is_attention_matrix(f.info.id, f.tensor, MatrixSteps::FaultPair) ||
      !is_attention_matrix(c.info.id, c.tensor, MatrixSteps::FaultPair))
    return std::nullopt;
  const auto fitted = [this](const Step& st) {
    const Tensor t = st.tensor.contiguous();
    const int64_t b = std::clamp<int64_t>(sentence_->currentIndex(), 0, t.size(0) - 1), n = t.numel() / t.size(0);
    return ColorMap::fitted(t.data() + b * n, n, st.info.id.ends_with("weights"));
  };
  return HeatmapGrid::unite(fitted(f), fitted(c));
}

QString RunComparison::summaryText() const { return summaryLines_.join(QLatin1Char('\n')); }

QString RunComparison::exportTo(const QString& path) const {
  return saveWidgetOrCsv(sidesWidget_, path, [this] { return shownCsv(); });
}

// Every cell of the shown step for the chosen sentence, each side that has the step.
QString RunComparison::shownCsv() const {
  const std::string id = steps_->currentText().toStdString();
  QString csv = QStringLiteral("side,step,index,value\n");
  const auto side = [&](const QString& name, const TraceResultPtr& r) {
    const int at = r->indexOf(id);
    if (at < 0) return;
    const Tensor t = r->trace.steps()[static_cast<size_t>(at)].tensor.contiguous();
    if (t.dim() == 0 || t.numel() == 0) return;
    const int64_t b = std::clamp<int64_t>(sentence_->currentIndex(), 0, t.size(0) - 1), n = t.numel() / t.size(0);
    const Shape shape = t.shape();
    for (int64_t k = 0; k < n; ++k) {  // cell k of the sentence's slice, its index (b, …) in the step
      std::vector<int64_t> idx(static_cast<size_t>(t.dim() - 1));
      for (int64_t rest = k, d = t.dim() - 1; d >= 1; --d) {
        idx[static_cast<size_t>(d - 1)] = rest % shape[static_cast<size_t>(d)];
        rest /= shape[static_cast<size_t>(d)];
      }
      QStringList parts{QString::number(b)};
      for (int64_t i : idx) parts << QString::number(i);
      csv += QStringLiteral("%1,%2,%3,%4\n").arg(name, steps_->currentText(), parts.join(QLatin1Char(' ')))
                 .arg(static_cast<double>(t.data()[b * n + k]), 0, 'g', 9);
    }
  };
  side(QStringLiteral("left"), faulty_);
  side(QStringLiteral("right"), correct_);
  return csv;
}
QWidget* RunComparison::faultySide() const { return left_.stack->currentWidget(); }
QWidget* RunComparison::correctSide() const { return right_.stack->currentWidget(); }

}  // namespace attnlab::ui
