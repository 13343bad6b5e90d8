#include "window/dockfit.h"

#include <QDockWidget>
#include <QEvent>
#include <QMainWindow>
#include <QScrollArea>
#include <QScrollBar>
#include <QStyle>
#include <QTimer>

#include <algorithm>

namespace attnlab::ui {

namespace {
constexpr int kStepsWidth = 250;  // the Steps dock's width when it goes back to the left
constexpr int kSlack = 24;        // hysteresis: no flapping between the two arrangements

bool docked(const QDockWidget* d) { return d->isVisible() && !d->isFloating(); }

// A panel in a scroll area that never scrolls sideways (its text wraps instead) is clipped when
// the dock gets narrower than the panel's own minimum: the dock may not.
void keepPanelWhole(QDockWidget* d) {
  auto* area = qobject_cast<QScrollArea*>(d->widget());
  if (!area || !area->widget() || area->horizontalScrollBarPolicy() != Qt::ScrollBarAlwaysOff) return;
  const int bar = area->style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, area);
  const int frame = 2 * area->frameWidth();
  area->setMinimumWidth(area->widget()->minimumSizeHint().width() + bar + frame);
}
}  // namespace

DockFitter::DockFitter(QMainWindow* window, QDockWidget* steps, QDockWidget* inputs)
    : QObject(window), w_(window), steps_(steps), inputs_(inputs), timer_(new QTimer(this)) {
  timer_->setSingleShot(true);
  timer_->setInterval(0);
  connect(timer_, &QTimer::timeout, this, &DockFitter::fit);
  w_->installEventFilter(this);
}

bool DockFitter::eventFilter(QObject* watched, QEvent* event) {
  if (watched == w_ && (event->type() == QEvent::Resize || event->type() == QEvent::FontChange ||
                        event->type() == QEvent::Show))
    timer_->start();
  return QObject::eventFilter(watched, event);
}

int DockFitter::sideWidth(int area) const {
  int w = 0;
  for (const QDockWidget* d : w_->findChildren<QDockWidget*>())
    if (docked(d) && w_->dockWidgetArea(const_cast<QDockWidget*>(d)) == area) w = std::max(w, d->width());
  return w;
}

int DockFitter::sideMinimum(int area) const {
  int w = 0;
  for (const QDockWidget* d : w_->findChildren<QDockWidget*>())
    if (docked(d) && w_->dockWidgetArea(const_cast<QDockWidget*>(d)) == area)
      w = std::max(w, std::max(d->minimumWidth(), d->minimumSizeHint().width()));
  return w;
}

void DockFitter::narrow(int area, int* need) {
  const int now = sideWidth(area), floor = sideMinimum(area);
  const int take = std::min(*need, now - floor);
  if (take <= 0) return;
  QList<QDockWidget*> docks;
  QList<int> widths;
  for (QDockWidget* d : w_->findChildren<QDockWidget*>())
    if (docked(d) && w_->dockWidgetArea(d) == area) docks << d, widths << now - take;
  w_->resizeDocks(docks, widths, Qt::Horizontal);
  *need -= take;
}

bool DockFitter::stepsDocked(int area) const { return docked(steps_) && w_->dockWidgetArea(steps_) == area; }

void DockFitter::fit() {
  if (!w_->isVisible() || !w_->centralWidget()) return;
  for (QDockWidget* d : w_->findChildren<QDockWidget*>()) keepPanelWhole(d);
  // Room again: the Steps dock goes back to the left.
  if (tabbed_) {
    if (!stepsDocked(Qt::RightDockWidgetArea) || w_->dockWidgetArea(inputs_) != Qt::RightDockWidgetArea) {
      tabbed_ = false;  // the user moved it since: theirs now
    } else if (w_->width() - sideWidth(Qt::RightDockWidgetArea) - kStepsWidth >= kMinCentre + kSlack) {
      w_->addDockWidget(Qt::LeftDockWidgetArea, steps_);
      steps_->show();
      w_->resizeDocks({steps_}, {kStepsWidth}, Qt::Horizontal);
      tabbed_ = false;
      timer_->start();  // measure again once the layout has settled
      return;
    }
  }
  int need = kMinCentre - w_->centralWidget()->width();
  if (need <= 0) {
    passes_ = 0;
    return;
  }
  // Narrow the docks, then measure again once the layout has settled (it may not give all that
  // was asked); after a few passes that leave the centre short, the Steps dock tabs away.
  const int before = need;
  narrow(Qt::RightDockWidgetArea, &need);
  narrow(Qt::LeftDockWidgetArea, &need);
  if (need < before && ++passes_ < 3) {
    timer_->start();
    return;
  }
  passes_ = 0;
  if (tabSteps()) timer_->start();
}

bool DockFitter::tabSteps() {
  if (tabbed_ || !stepsDocked(Qt::LeftDockWidgetArea) || !docked(inputs_) ||
      w_->dockWidgetArea(inputs_) != Qt::RightDockWidgetArea)
    return false;
  w_->tabifyDockWidget(inputs_, steps_);
  inputs_->raise();  // the sentences and knobs; the Steps tab is one click away, and the keys step anyway
  tabbed_ = true;
  return true;
}

void DockFitter::beforeFontScale(double ratio) {
  if (!w_->isVisible() || ratio <= 1) return;
  const double sides = (sideMinimum(Qt::LeftDockWidgetArea) + sideMinimum(Qt::RightDockWidgetArea)) * ratio;
  if (sides + kMinCentre > w_->width()) tabSteps();
}

}  // namespace attnlab::ui
