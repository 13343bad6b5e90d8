#include "views/headknockout.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "views/colormap.h"
#include "window/smallwidgets.h"

namespace attnlab::ui {

namespace {

QString signedNumber(double v) {
  return (v > 0 ? QStringLiteral("+") : QString()) + QLocale().toString(v, 'f', std::abs(v) < 0.1 ? 3 : 2);
}

}  // namespace

HeadKnockout::HeadKnockout(QWidget* parent) : QWidget(parent) {
  auto* v = new QVBoxLayout(this);
  v->setContentsMargins(0, 0, 0, 0);
  note_ = wrappedLabel(QStringLiteral("knockoutNote"));
  note_->setText(tr("Click a head to knock it out and every panel runs again without it; click again to bring it back."));
  v->addWidget(note_);
  auto* how = new QHBoxLayout;
  auto* howLabel = new QLabel(tr("Knocked out as:"));
  mode_ = new QComboBox;
  mode_->setObjectName(QStringLiteral("ablateMode"));
  mode_->addItem(tr("zero output"), static_cast<int>(explain::AblateMode::Zero));
  mode_->addItem(tr("its mean output"), static_cast<int>(explain::AblateMode::Mean));
  mode_->setToolTip(tr("Zero: the head's output is set to 0. Mean: to its average over every real position of the "
                       "sentences (from a run with every head in) — the head still adds what it always adds, but no "
                       "longer depends on the sentence, so only its sentence-specific work is lost."));
  howLabel->setBuddy(mode_);
  how->addWidget(howLabel);
  how->addWidget(mode_);
  how->addStretch(1);
  v->addLayout(how);
  connect(mode_, &QComboBox::currentIndexChanged, this, [this] { emit modeChanged(mode()); });
  rows_ = new QVBoxLayout;
  rows_->setSpacing(2);
  v->addLayout(rows_);
  ranking_ = wrappedLabel(QStringLiteral("knockoutRanking"));
  ranking_->hide();
  v->addWidget(ranking_);
}

explain::AblateMode HeadKnockout::mode() const { return static_cast<explain::AblateMode>(mode_->currentData().toInt()); }

namespace {

QString rowLabel(explain::HeadBlock block, int layer, bool cross) {
  if (!cross) return HeadKnockout::tr("Layer %1").arg(layer);
  switch (block) {
    case explain::HeadBlock::Decoder: return HeadKnockout::tr("Decoder %1").arg(layer);
    case explain::HeadBlock::Cross: return HeadKnockout::tr("Cross %1").arg(layer);
    case explain::HeadBlock::Encoder: break;
  }
  return HeadKnockout::tr("Encoder %1").arg(layer);
}

QString blockTip(explain::HeadBlock block) {
  switch (block) {
    case explain::HeadBlock::Decoder: return HeadKnockout::tr("the decoder's self-attention");
    case explain::HeadBlock::Cross: return HeadKnockout::tr("the cross-attention (the decoder reading the source)");
    case explain::HeadBlock::Encoder: break;
  }
  return HeadKnockout::tr("the encoder's self-attention");
}

QString buttonName(const explain::HeadRef& h) {
  const QString lh = QStringLiteral("%1_%2").arg(h.layer).arg(h.head);
  return h.block == explain::HeadBlock::Encoder ? QStringLiteral("knockout_") + lh
                                                : QStringLiteral("knockout_%1_%2").arg(QLatin1String(explain::block_name(h.block).data()), lh);
}

}  // namespace

void HeadKnockout::rebuild(int layers, int heads, bool cross) {
  while (QLayoutItem* row = rows_->takeAt(0)) {  // each row: a label, the buttons, a stretch
    while (QLayoutItem* item = row->layout() ? row->layout()->takeAt(0) : nullptr) {
      delete item->widget();
      delete item;
    }
    delete row;
  }
  buttons_.clear();
  cross_ = cross;
  const std::vector<explain::HeadBlock> blocks =
      cross ? std::vector<explain::HeadBlock>{explain::HeadBlock::Encoder, explain::HeadBlock::Decoder, explain::HeadBlock::Cross}
            : std::vector<explain::HeadBlock>{explain::HeadBlock::Encoder};
  int labelWidth = 0;  // rows aligned
  for (explain::HeadBlock block : blocks)
    labelWidth = std::max(labelWidth, fontMetrics().horizontalAdvance(rowLabel(block, std::max(layers - 1, 0), cross)) + 8);
  for (explain::HeadBlock block : blocks)
    for (int l = 0; l < layers; ++l) {
      auto* row = new QHBoxLayout;
      row->setSpacing(2);
      auto* label = new QLabel(rowLabel(block, l, cross));
      label->setFixedWidth(labelWidth);
      label->setToolTip(tr("Layer %1 of %2").arg(l).arg(blockTip(block)));
      row->addWidget(label);
      Row r{block, l, {}};
      for (int h = 0; h < heads; ++h) {
        const explain::HeadRef ref{l, h, block};
        auto* b = new QToolButton;
        b->setObjectName(buttonName(ref));
        b->setCheckable(true);
        b->setText(QStringLiteral("%1.%2").arg(l).arg(h));
        b->setToolTip(tr("Layer %1, head %2 of %3: click to knock it out").arg(l).arg(h).arg(blockTip(block)));
        b->setToolButtonStyle(Qt::ToolButtonTextOnly);
        connect(b, &QToolButton::toggled, this, [this] { emit headsChanged(checkedHeads()); });
        row->addWidget(b);
        r.buttons.push_back(b);
      }
      row->addStretch(1);
      rows_->addLayout(row);
      buttons_.push_back(std::move(r));
    }
}

void HeadKnockout::setModel(int layers, int heads, const std::vector<explain::HeadRef>& ablated, explain::AblateMode mode,
                            bool cross) {
  {
    const QSignalBlocker block(mode_);
    mode_->setCurrentIndex(mode_->findData(static_cast<int>(mode)));
  }
  const size_t rows = static_cast<size_t>(layers) * (cross ? 3 : 1);
  const bool same = cross == cross_ && buttons_.size() == rows &&
                    (rows == 0 || static_cast<int>(buttons_.front().buttons.size()) == heads);
  if (!same) rebuild(layers, heads, cross);
  for (const Row& r : buttons_)
    for (int h = 0; h < static_cast<int>(r.buttons.size()); ++h) {
      QToolButton* b = r.buttons[static_cast<size_t>(h)];
      const QSignalBlocker block(b);
      b->setChecked(std::find(ablated.begin(), ablated.end(), explain::HeadRef{r.layer, h, r.block}) != ablated.end());
    }
  setEffects({}, 0);
}

void HeadKnockout::setEffects(const std::vector<explain::HeadEffect>& effects, double loss) {
  double top = 0;
  for (const auto& e : effects) top = std::max(top, std::abs(e.delta));
  const ColorMap map{ColorMapKind::Diverging, -(top > 0 ? top : 1), top > 0 ? top : 1};
  for (const Row& r : buttons_)
    for (size_t h = 0; h < r.buttons.size(); ++h) {
      QToolButton* b = r.buttons[h];
      const explain::HeadRef ref{r.layer, static_cast<int64_t>(h), r.block};
      const QString shortName = QStringLiteral("%1.%2").arg(ref.layer).arg(ref.head);  // the row names the attention
      const auto e = std::find_if(effects.begin(), effects.end(), [&](const auto& x) { return x.head == ref; });
      if (e == effects.end()) {
        b->setText(shortName);
        b->setStyleSheet(QString());
        continue;
      }
      b->setText(QStringLiteral("%1\n%2").arg(shortName, signedNumber(e->delta)));
      const QColor c = map.color(e->delta);
      b->setStyleSheet(QStringLiteral("QToolButton { background: %1; color: %2; } QToolButton:checked { border: 3px solid palette(highlight); }")
                           .arg(c.name(), inkOn(c).name()));
      b->setToolTip(tr("Layer %1, head %2 of %3 knocked out alone: the loss goes from %4 to %5 (%6). Click to knock it out.")
                        .arg(ref.layer)
                        .arg(ref.head)
                        .arg(blockTip(ref.block), QLocale().toString(loss, 'f', 4), QLocale().toString(e->loss, 'f', 4),
                             signedNumber(e->delta)));
    }
  if (effects.empty()) {
    ranking_->hide();
    return;
  }
  QStringList ranked;
  for (size_t i = 0; i < effects.size() && i < 5; ++i)
    ranked << tr("%1 (%2)").arg(QString::fromStdString(explain::head_label(effects[i].head, cross_)), signedNumber(effects[i].delta));
  ranking_->setText(tr("Knocked out alone, these heads raise the loss most: %1").arg(ranked.join(QStringLiteral(", "))));
  ranking_->show();
}

std::vector<explain::HeadRef> HeadKnockout::checkedHeads() const {
  std::vector<explain::HeadRef> out;
  for (const Row& r : buttons_)
    for (size_t h = 0; h < r.buttons.size(); ++h)
      if (r.buttons[h]->isChecked()) out.push_back({r.layer, static_cast<int64_t>(h), r.block});
  return out;
}

QToolButton* HeadKnockout::button(int layer, int head, explain::HeadBlock block) const {
  for (const Row& r : buttons_)
    if (r.block == block && r.layer == layer)
      return head >= 0 && head < static_cast<int>(r.buttons.size()) ? r.buttons[static_cast<size_t>(head)] : nullptr;
  return nullptr;
}

}  // namespace attnlab::ui
