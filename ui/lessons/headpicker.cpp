#include "lessons/headpicker.h"

#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QRegularExpression>

namespace attnlab::ui {

HeadPicker::HeadPicker(QWidget* parent) : QWidget(parent) {
  auto* form = new QFormLayout(this);
  form->setContentsMargins(0, 0, 0, 0);
  layer_ = new QComboBox;
  layer_->setObjectName(QStringLiteral("headLayer"));
  layer_->setAccessibleName(tr("Layer"));
  head_ = new QComboBox;
  head_->setObjectName(QStringLiteral("headNumber"));
  head_->setAccessibleName(tr("Head"));
  note_ = new QLabel(tr("Or click the head's heatmap in the window (on an attention-weights step)."));
  note_->setWordWrap(true);
  form->addRow(tr("Layer:"), layer_);
  form->addRow(tr("Head:"), head_);
  form->addRow(note_);
}

void HeadPicker::setModel(int layers, int heads, std::optional<int> fixedLayer) {
  fixed_ = fixedLayer;
  layer_->clear();
  head_->clear();
  for (int l = 0; l < layers; ++l) layer_->addItem(tr("layer %1").arg(l), l);
  for (int h = 0; h < heads; ++h) head_->addItem(tr("head %1").arg(h), h);
  layer_->setCurrentIndex(fixedLayer ? *fixedLayer : 0);
  layer_->setEnabled(!fixedLayer && layers > 1);
}

void HeadPicker::setHead(int layer, int head) {
  if (!fixed_) layer_->setCurrentIndex(layer_->findData(layer));
  head_->setCurrentIndex(head_->findData(head));
}

bool HeadPicker::chooseFromStep(const QString& stepId, int head) {
  static const QRegularExpression block(QStringLiteral("^encoder\\.layers\\.(\\d+)\\.self_attn\\."));
  const QRegularExpressionMatch m = block.match(stepId);
  if (!m.hasMatch() || head < 0 || head >= head_->count()) return false;
  const int layer = m.captured(1).toInt();
  if (layer >= layer_->count() || (fixed_ && layer != *fixed_)) return false;
  setHead(layer, head);
  return true;
}

// What a find-the-head question asks a head to do.
QString HeadPicker::traitText(HeadTrait t) {
  switch (t) {
    case HeadTrait::PreviousToken: return HeadPicker::tr("on the <b>previous token</b>");
    case HeadTrait::Self: return HeadPicker::tr("on <b>its own position</b>");
    case HeadTrait::FirstToken: return HeadPicker::tr("on the <b>first token</b>");
    case HeadTrait::SameToken: return HeadPicker::tr("on <b>earlier copies of the same token</b>");
    case HeadTrait::Induction:
      return HeadPicker::tr("on <b>the token that followed the previous copy of the current token</b> (an induction head)");
  }
  return {};
}

QString HeadPicker::answerText() const {
  return QStringLiteral("%1.%2").arg(layer_->currentData().toInt()).arg(head_->currentData().toInt());
}

}  // namespace attnlab::ui
