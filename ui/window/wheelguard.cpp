#include "window/wheelguard.h"

#include <QAbstractScrollArea>
#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QPointer>
#include <QScrollBar>
#include <QWheelEvent>

#include <cstdlib>

namespace attnlab::ui {

namespace {
bool isBox(const QObject* o) { return qobject_cast<const QComboBox*>(o) || qobject_cast<const QAbstractSpinBox*>(o); }
}  // namespace

WheelGuard* WheelGuard::install() {
  static QPointer<WheelGuard> guard;
  if (!guard) {
    guard = new WheelGuard(qApp);
    for (QWidget* w : QApplication::allWidgets()) noWheelFocus(w);  // those made before the guard
    qApp->installEventFilter(guard);
  }
  return guard;
}

void WheelGuard::noWheelFocus(QWidget* w) {
  if (w && isBox(w) && w->focusPolicy() == Qt::WheelFocus) w->setFocusPolicy(Qt::StrongFocus);
}

QAbstractScrollArea* WheelGuard::scrollsInstead(const QWidget* w, bool horizontal) {
  if (!w || w->hasFocus() || !isBox(w)) return nullptr;
  // a combo box's own popup list is a scroll area of its own, never an ancestor of the box
  for (QWidget* p = w->parentWidget(); p; p = p->parentWidget())
    if (auto* area = qobject_cast<QAbstractScrollArea*>(p)) {
      const QScrollBar* bar = horizontal ? area->horizontalScrollBar() : area->verticalScrollBar();
      if (bar->maximum() > bar->minimum()) return area;
    }
  return nullptr;
}

bool WheelGuard::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() == QEvent::Polish && watched->isWidgetType()) noWheelFocus(static_cast<QWidget*>(watched));
  if (event->type() != QEvent::Wheel || !watched->isWidgetType()) return QObject::eventFilter(watched, event);
  const QPoint turn = static_cast<QWheelEvent*>(event)->angleDelta();
  const bool horizontal = std::abs(turn.x()) > std::abs(turn.y());
  QAbstractScrollArea* area = scrollsInstead(static_cast<QWidget*>(watched), horizontal);
  if (!area) return QObject::eventFilter(watched, event);
  // the panel scrolls, the value stays
  QCoreApplication::sendEvent(horizontal ? area->horizontalScrollBar() : area->verticalScrollBar(), event);
  return true;
}

}  // namespace attnlab::ui
