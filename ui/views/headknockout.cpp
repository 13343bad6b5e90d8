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

QString headName(const explain::HeadRef& h) { return QString::fromStdString(explain::head_name(h)); }

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

void HeadKnockout::setModel(int layers, int heads, const std::vector<explain::HeadRef>& ablated, explain::AblateMode mode) {
  {
    const QSignalBlocker block(mode_);
    mode_->setCurrentIndex(mode_->findData(static_cast<int>(mode)));
  }
  const bool same = static_cast<int>(buttons_.size()) == layers && (layers == 0 || static_cast<int>(buttons_[0].size()) == heads);
  if (!same) {
    while (QLayoutItem* row = rows_->takeAt(0)) {  // each row: a label, the buttons, a stretch
      while (QLayoutItem* item = row->layout() ? row->layout()->takeAt(0) : nullptr) {
        delete item->widget();
        delete item;
      }
      delete row;
    }
    buttons_.assign(static_cast<size_t>(layers), {});
    const int labelWidth = fontMetrics().horizontalAdvance(tr("Layer %1").arg(std::max(layers - 1, 0))) + 8;  // rows aligned
    for (int l = 0; l < layers; ++l) {
      auto* row = new QHBoxLayout;
      row->setSpacing(2);
      auto* label = new QLabel(tr("Layer %1").arg(l));
      label->setFixedWidth(labelWidth);
      row->addWidget(label);
      for (int h = 0; h < heads; ++h) {
        auto* b = new QToolButton;
        b->setObjectName(QStringLiteral("knockout_%1_%2").arg(l).arg(h));
        b->setCheckable(true);
        b->setText(headName({l, h}));
        b->setToolTip(tr("Layer %1, head %2: click to knock it out").arg(l).arg(h));
        b->setToolButtonStyle(Qt::ToolButtonTextOnly);
        connect(b, &QToolButton::toggled, this, [this] { emit headsChanged(checkedHeads()); });
        row->addWidget(b);
        buttons_[static_cast<size_t>(l)].push_back(b);
      }
      row->addStretch(1);
      rows_->addLayout(row);
    }
  }
  for (int l = 0; l < layers; ++l)
    for (int h = 0; h < heads; ++h) {
      QToolButton* b = buttons_[static_cast<size_t>(l)][static_cast<size_t>(h)];
      const QSignalBlocker block(b);
      b->setChecked(std::find(ablated.begin(), ablated.end(), explain::HeadRef{l, h}) != ablated.end());
    }
  setEffects({}, 0);
}

void HeadKnockout::setEffects(const std::vector<explain::HeadEffect>& effects, double loss) {
  double top = 0;
  for (const auto& e : effects) top = std::max(top, std::abs(e.delta));
  const ColorMap map{ColorMapKind::Diverging, -(top > 0 ? top : 1), top > 0 ? top : 1};
  for (size_t l = 0; l < buttons_.size(); ++l)
    for (size_t h = 0; h < buttons_[l].size(); ++h) {
      QToolButton* b = buttons_[l][h];
      const explain::HeadRef ref{static_cast<int64_t>(l), static_cast<int64_t>(h)};
      const auto e = std::find_if(effects.begin(), effects.end(), [&](const auto& x) { return x.head == ref; });
      if (e == effects.end()) {
        b->setText(headName(ref));
        b->setStyleSheet(QString());
        continue;
      }
      b->setText(QStringLiteral("%1\n%2").arg(headName(ref), signedNumber(e->delta)));
      const QColor c = map.color(e->delta);
      b->setStyleSheet(QStringLiteral("QToolButton { background: %1; color: %2; } QToolButton:checked { border: 3px solid palette(highlight); }")
                           .arg(c.name(), inkOn(c).name()));
      b->setToolTip(tr("Layer %1, head %2 knocked out alone: the loss goes from %3 to %4 (%5). Click to knock it out.")
                        .arg(ref.layer)
                        .arg(ref.head)
                        .arg(QLocale().toString(loss, 'f', 4), QLocale().toString(e->loss, 'f', 4), signedNumber(e->delta)));
    }
  if (effects.empty()) {
    ranking_->hide();
    return;
  }
  QStringList ranked;
  for (size_t i = 0; i < effects.size() && i < 5; ++i)
    ranked << tr("%1 (%2)").arg(headName(effects[i].head), signedNumber(effects[i].delta));
  ranking_->setText(tr("Knocked out alone, these heads raise the loss most: %1").arg(ranked.join(QStringLiteral(", "))));
  ranking_->show();
}

std::vector<explain::HeadRef> HeadKnockout::checkedHeads() const {
  std::vector<explain::HeadRef> out;
  for (size_t l = 0; l < buttons_.size(); ++l)
    for (size_t h = 0; h < buttons_[l].size(); ++h)
      if (buttons_[l][h]->isChecked()) out.push_back({static_cast<int64_t>(l), static_cast<int64_t>(h)});
  return out;
}

QToolButton* HeadKnockout::button(int layer, int head) const {
  if (layer < 0 || head < 0 || layer >= static_cast<int>(buttons_.size()) || head >= static_cast<int>(buttons_[static_cast<size_t>(layer)].size()))
    return nullptr;
  return buttons_[static_cast<size_t>(layer)][static_cast<size_t>(head)];
}

}  // namespace attnlab::ui
