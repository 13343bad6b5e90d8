#include "window/dockfit.h"

#include <QApplication>
#include <QDockWidget>
#include <QFontInfo>
#include <QEvent>
#include <QMainWindow>
#include <QScrollArea>
#include <QScrollBar>
#include <QStyle>
#include <QScopeGuard>
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
                        event->type() == QEvent::Show)) {
    resized_ = true;
    timer_->start();
  }
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

// How much larger the window's type is than the application's (its zoom).
double DockFitter::typeScale() const {
  const double app = QFontInfo(QApplication::font()).pixelSize();
  return app > 0 ? QFontInfo(w_->font()).pixelSize() / app : 1.0;
}

// kMinCentre at zoom 100 %; more at a larger zoom, where the same heads need more pixels (80 % of
// the zoom: 896 px at 200 %).
int DockFitter::minCentre() const { return static_cast<int>(kMinCentre * std::max(1.0, 0.8 * typeScale())); }

int DockFitter::stepsWidth() const {
  return std::max({kStepsWidth, steps_->minimumSizeHint().width(), steps_->minimumWidth()});
}

void DockFitter::fit() {
  const auto done = qScopeGuard([this] { resized_ = false; });  // read below, cleared on the way out
  if (!w_->isVisible() || !w_->centralWidget()) return;
  for (QDockWidget* d : w_->findChildren<QDockWidget*>()) keepPanelWhole(d);
  // Room again: the Steps dock goes back to the left.
  if (tabbed_) {
    if (!stepsDocked(Qt::RightDockWidgetArea) || w_->dockWidgetArea(inputs_) != Qt::RightDockWidgetArea) {
      tabbed_ = false;  // the user moved it since: theirs now
    } else if (resized_ && w_->width() - sideWidth(Qt::RightDockWidgetArea) - stepsWidth() >= minCentre() + kSlack) {
      // Only on a real resize (not on a pass of its own), and only with room for the dock as wide
      // as it must be: no going back and forth.
      w_->addDockWidget(Qt::LeftDockWidgetArea, steps_);
      steps_->show();
      w_->resizeDocks({steps_}, {stepsWidth()}, Qt::Horizontal);
      tabbed_ = false;
      timer_->start();  // measure again once the layout has settled
      return;
    }
  }
  int need = minCentre() - w_->centralWidget()->width();
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
  // Whichever of the inputs' tab group was in front stays there (the sentences and knobs, or the
  // Training panel a lesson brought forward); the Steps tab is one click away, and the keys step anyway.
  QDockWidget* front = inputs_;
  for (QDockWidget* d : w_->tabifiedDockWidgets(inputs_))
    if (d != steps_ && !d->isHidden() && !d->visibleRegion().isEmpty()) front = d;
  w_->tabifyDockWidget(inputs_, steps_);
  front->raise();
  tabbed_ = true;
  return true;
}

void DockFitter::beforeFontScale(double ratio) {
  if (!w_->isVisible() || ratio <= 1) return;
  const double sides = (sideMinimum(Qt::LeftDockWidgetArea) + sideMinimum(Qt::RightDockWidgetArea)) * ratio;
  if (sides + kMinCentre * std::max(1.0, 0.8 * ratio * typeScale()) > w_->width()) tabSteps();
}

}  // namespace attnlab::ui
