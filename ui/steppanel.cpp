#include "steppanel.h"

#include <QComboBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QStackedWidget>
#include <QVBoxLayout>

#include "heatmapgrid.h"
#include "shapediagram.h"
#include "stepnames.h"
#include "tensorview.h"
#include "tokenizer.h"

namespace attnlab::ui {

namespace {

QLabel* label(const QString& object, bool wrap = true) {
  auto* l = new QLabel;
  l->setObjectName(object);
  l->setWordWrap(wrap);
  l->setTextInteractionFlags(Qt::TextSelectableByMouse);
  return l;
}

// Attention matrices (B, H, Tq, Tk) are shown as per-head heatmaps.
bool isAttentionMatrix(const std::string& id) {
  for (const char* s : {".qk", ".scores", ".masked_scores", ".weights"})
    if (id.ends_with(s)) return true;
  return false;
}

}  // namespace

StepPanel::StepPanel(QWidget* parent) : QWidget(parent) {
  auto* v = new QVBoxLayout(this);
  location_ = label(QStringLiteral("location"));
  QFont big = location_->font();
  big.setPointSizeF(big.pointSizeF() * 1.35);
  big.setBold(true);
  location_->setFont(big);
  title_ = label(QStringLiteral("title"));
  formula_ = label(QStringLiteral("formula"));
  QFont f = formula_->font();
  f.setPointSizeF(f.pointSizeF() * 1.2);
  formula_->setFont(f);
  code_ = label(QStringLiteral("code"));
  code_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  code_->setStyleSheet(QStringLiteral("QLabel { background: #f3f3f3; color: #202020; padding: 6px; border-radius: 4px; }"));
  change_ = label(QStringLiteral("change"));
  change_->setStyleSheet(QStringLiteral("QLabel { color: #1d4f91; }"));
  timing_ = label(QStringLiteral("timing"));
  timing_->setStyleSheet(QStringLiteral("QLabel { color: palette(placeholder-text); }"));
  diagram_ = new ShapeDiagram;
  sentence_ = new QComboBox;
  sentence_->setObjectName(QStringLiteral("sentence"));
  grid_ = new HeatmapGrid;
  values_ = new TensorView;
  stack_ = new QStackedWidget;
  stack_->addWidget(grid_);
  stack_->addWidget(values_);

  v->addWidget(location_);
  v->addWidget(title_);
  v->addWidget(formula_);
  v->addWidget(code_);
  v->addWidget(change_);
  v->addWidget(diagram_);
  auto* row = new QHBoxLayout;
  row->addWidget(new QLabel(tr("Sentence:")));
  row->addWidget(sentence_, 1);
  row->addWidget(timing_);
  v->addLayout(row);
  v->addWidget(stack_, 1);
  connect(sentence_, &QComboBox::currentIndexChanged, this, [this] { refreshValues(); });
}

void StepPanel::setStep(TraceResultPtr result, int index) {
  const bool newResult = result != result_;
  result_ = std::move(result);
  index_ = index;
  if (!result_ || index < 0 || index >= static_cast<int>(result_->trace.steps().size())) return;
  const Step& s = result_->trace.steps()[static_cast<size_t>(index)];
  location_->setText(StepNames::location(result_->trace, index));
  title_->setText(tr("Step id: %1").arg(QString::fromStdString(s.info.id)));
  formula_->setText(QString::fromStdString(s.info.formula));
  code_->setText(QString::fromStdString(s.info.code));
  change_->setText(StepNames::whatChanged(result_->trace, index));
  diagram_->setStep(result_, index);
  if (newResult) {
    const int keep = sentence_->currentIndex();
    sentence_->blockSignals(true);
    sentence_->clear();
    const auto& rows = result_->batch.text.tokens;
    for (size_t b = 0; b < rows.size(); ++b) {
      QString preview;
      for (const auto& t : rows[b])
        if (t != kPadToken) preview += QString::fromStdString(t) + QLatin1Char(' ');
      sentence_->addItem(tr("%1: %2").arg(b + 1).arg(preview.left(60).trimmed()));
    }
    sentence_->setCurrentIndex(std::clamp(keep, 0, sentence_->count() - 1));
    sentence_->blockSignals(false);
    timing_->setText(tr("%1 ms").arg(result_->forward_ms, 0, 'f', 1));
    timing_->setToolTip(tr("Computed in %1 ms on %2").arg(result_->forward_ms, 0, 'f', 1).arg(result_->device));
  }
  refreshValues();
}

void StepPanel::refreshValues() {
  if (!result_ || index_ < 0) return;
  const Step& s = result_->trace.steps()[static_cast<size_t>(index_)];
  const int b = std::max(0, sentence_->currentIndex());
  if (isAttentionMatrix(s.info.id) && s.tensor.dim() == 4) {
    grid_->setStep(result_, index_, b);
    stack_->setCurrentWidget(grid_);
  } else {
    values_->setStep(result_, index_, b);
    stack_->setCurrentWidget(values_);
  }
}

QString StepPanel::locationText() const { return location_->text(); }
QString StepPanel::formulaText() const { return formula_->text(); }
QString StepPanel::codeText() const { return code_->text(); }
QString StepPanel::changeText() const { return change_->text(); }
bool StepPanel::showingHeatmaps() const { return stack_->currentWidget() == grid_; }
int StepPanel::sentence() const { return sentence_->currentIndex(); }
void StepPanel::setSentence(int b) { sentence_->setCurrentIndex(b); }

}  // namespace attnlab::ui
