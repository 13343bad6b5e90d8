#include "step/stepnavigator.h"

#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSlider>
#include <QTimer>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "variants/variant_table.h"
#include "words/stepnames.h"
#include "words/steptext.h"

namespace attnlab::ui {

namespace {
constexpr int kStepRole = Qt::UserRole + 1;

// The group key of a step: "Encoder", "Encoder · layer 0", "Decoder · layer 1", … (layers count
// from 0, as in the step ids).
QString shownGroupName(const StepPlace& p) {
  if (p.parameter) return StepNavigator::tr("Parameters");
  if (p.layer < 0 && !p.block.isEmpty()) return QStringLiteral("%1 · %2").arg(p.stack, p.block);  // the output head
  return p.layer < 0 ? p.stack : QObject::tr("%1 · layer %2").arg(p.stack).arg(p.layer);
}
// The key that groups steps: the shown name, kept apart for the backward pass's groups (which sit
// under one "Backward" item, walked in the reverse order of the forward's).
QString groupName(const StepPlace& p) { return p.backward ? QStringLiteral("∂ ") + shownGroupName(p) : shownGroupName(p); }
// A walk-through's round in front of its title: "token 3 · KV cache: append the new key".
QString titleOf(const StepInfo& info) {
  const QString title = StepText::title(info);
  const std::optional<StepMatch> m = variant_step_of(info.id);  // the variants' step table reads the round
  if (!m || m->step->round == StepRound::Once) return title;
  return (m->step->round == StepRound::EveryToken ? StepNavigator::tr("token %1 · %2") : StepNavigator::tr("block %1 · %2"))
      .arg(m->round)
      .arg(title);
}
}  // namespace

StepNavigator::StepNavigator(QWidget* parent) : QWidget(parent) {
  auto* v = new QVBoxLayout(this);
  tree_ = new QTreeWidget;
  tree_->setHeaderHidden(true);
  tree_->setObjectName(QStringLiteral("steps"));
  v->addWidget(tree_, 1);
  auto* buttons = new QGridLayout;  // two by two: the dock stays narrow enough for a projector's screen
  prev_ = new QPushButton(tr("◀ Previous"));
  next_ = new QPushButton(tr("Next ▶"));
  play_ = new QPushButton(tr("Play"));
  prev_->setToolTip(tr("Previous step (←)"));
  next_->setToolTip(tr("Next step (→)"));
  play_->setToolTip(tr("Play / pause (Space)"));
  speed_ = new QComboBox;
  speed_->addItem(tr("slow (3 s)"), 3000);
  speed_->addItem(tr("normal (1.5 s)"), 1500);
  speed_->addItem(tr("fast (0.5 s)"), 500);
  speed_->setCurrentIndex(1);
  buttons->addWidget(prev_, 0, 0);
  buttons->addWidget(next_, 0, 1);
  buttons->addWidget(play_, 1, 0);
  buttons->addWidget(speed_, 1, 1);
  v->addLayout(buttons);
  auto* sliderRow = new QHBoxLayout;
  slider_ = new QSlider(Qt::Horizontal);
  slider_->setAccessibleName(tr("Step"));
  position_ = new QLabel;
  sliderRow->addWidget(slider_, 1);
  sliderRow->addWidget(position_);
  v->addLayout(sliderRow);
  timer_ = new QTimer(this);

  connect(prev_, &QPushButton::clicked, this, &StepNavigator::previous);
  connect(next_, &QPushButton::clicked, this, &StepNavigator::next);
  connect(play_, &QPushButton::clicked, this, &StepNavigator::togglePlay);
  connect(speed_, &QComboBox::currentIndexChanged, this, [this] { timer_->setInterval(speed_->currentData().toInt()); });
  timer_->setInterval(speed_->currentData().toInt());
  connect(timer_, &QTimer::timeout, this, [this] {
    if (current_ + 1 >= count()) togglePlay();
    else next();
  });
  connect(slider_, &QSlider::valueChanged, this, [this](int v) {
    if (!syncing_) setCurrent(v);
  });
  connect(tree_, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
    if (syncing_ || !item) return;
    const QVariant v = item->data(0, kStepRole);
    if (v.isValid()) setCurrent(v.toInt());
  });
}

int StepNavigator::count() const { return result_ ? static_cast<int>(result_->trace.steps().size()) : 0; }

void StepNavigator::setResult(TraceResultPtr result, int index) {
  result_ = std::move(result);
  syncing_ = true;
  tree_->clear();
  items_.clear();
  QTreeWidgetItem* group = nullptr;
  QTreeWidgetItem* block = nullptr;
  QTreeWidgetItem* backward = nullptr;  // the "Backward" item over the gradient steps' groups
  QString groupKey, blockKey;
  const auto& steps = result_->trace.steps();
  for (size_t i = 0; i < steps.size(); ++i) {
    const StepPlace p = StepNames::place(steps[i].info.id);
    if (!group || groupName(p) != groupKey) {
      groupKey = groupName(p);
      if (p.backward && !backward) {
        backward = new QTreeWidgetItem(tree_, {tr("Backward (gradients)")});
        backward->setExpanded(true);
        backward->setToolTip(0, tr("∂L/∂ every step and parameter, in the order the gradient reaches them"));
      }
      group = p.backward ? new QTreeWidgetItem(backward, {shownGroupName(p)}) : new QTreeWidgetItem(tree_, {groupKey});
      group->setExpanded(true);
      block = nullptr;
      blockKey.clear();
    }
    QTreeWidgetItem* parent = group;
    if (!p.block.isEmpty() && !p.parameter) {  // parameters: one flat list in state-dict order
      if (!block || p.block != blockKey) {
        blockKey = p.block;
        block = new QTreeWidgetItem(group, {p.block});
        block->setExpanded(true);
      }
      parent = block;
    } else {
      block = nullptr;
      blockKey.clear();
    }
    auto* item = new QTreeWidgetItem(parent, {titleOf(steps[i].info)});
    item->setData(0, kStepRole, static_cast<int>(i));
    item->setToolTip(0, QString::fromStdString(steps[i].info.id));
    items_.push_back(item);
  }
  slider_->setRange(0, std::max(0, count() - 1));
  syncing_ = false;
  current_ = -1;
  setCurrent(std::clamp(index, 0, std::max(0, count() - 1)));
}

void StepNavigator::setCurrent(int index) {
  if (count() == 0) return;
  index = std::clamp(index, 0, count() - 1);
  if (index == current_) return;
  current_ = index;
  syncWidgets();
  emit currentChanged(index);
}

void StepNavigator::syncWidgets() {
  syncing_ = true;
  tree_->setCurrentItem(items_[static_cast<size_t>(current_)]);
  tree_->scrollToItem(items_[static_cast<size_t>(current_)]);
  slider_->setValue(current_);
  position_->setText(tr("%1 / %2").arg(current_ + 1).arg(count()));
  prev_->setEnabled(current_ > 0);
  next_->setEnabled(current_ + 1 < count());
  syncing_ = false;
}

void StepNavigator::next() { setCurrent(current_ + 1); }
void StepNavigator::previous() { setCurrent(current_ - 1); }
void StepNavigator::first() { setCurrent(0); }
void StepNavigator::last() { setCurrent(count() - 1); }

int StepNavigator::groupStart(int index) const {
  const auto& steps = result_->trace.steps();
  const QString key = groupName(StepNames::place(steps[static_cast<size_t>(index)].info.id));
  while (index > 0 && groupName(StepNames::place(steps[static_cast<size_t>(index - 1)].info.id)) == key) --index;
  return index;
}

void StepNavigator::nextLayer() {
  if (!result_) return;
  const auto& steps = result_->trace.steps();
  const QString key = groupName(StepNames::place(steps[static_cast<size_t>(current_)].info.id));
  int i = current_;
  while (i + 1 < count() && groupName(StepNames::place(steps[static_cast<size_t>(i)].info.id)) == key) ++i;
  setCurrent(i);
}

void StepNavigator::previousLayer() {
  if (!result_) return;
  const int start = groupStart(current_);
  setCurrent(start < current_ ? start : groupStart(std::max(0, start - 1)));
}

bool StepNavigator::playing() const { return timer_->isActive(); }

void StepNavigator::togglePlay() {
  if (timer_->isActive()) {
    timer_->stop();
    play_->setText(tr("Play"));
  } else {
    if (current_ + 1 >= count()) setCurrent(0);
    timer_->start();
    play_->setText(tr("Pause"));
  }
}

}  // namespace attnlab::ui
