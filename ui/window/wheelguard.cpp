#include "window/wheelguard.h"

#include <QAbstractScrollArea>
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QScrollBar>
#include <QWheelEvent>

namespace attnlab::ui {

QAbstractScrollArea* WheelGuard::scrollsInstead(const QWidget* w) {
  if (!w || w->hasFocus() || !(qobject_cast<const QComboBox*>(w) || qobject_cast<const QAbstractSpinBox*>(w)))
    return nullptr;
  // a combo box's own popup list is a scroll area of its own, never an ancestor of the box
  for (QWidget* p = w->parentWidget(); p; p = p->parentWidget())
    if (auto* area = qobject_cast<QAbstractScrollArea*>(p))
      if (area->verticalScrollBar()->maximum() > area->verticalScrollBar()->minimum()) return area;
  return nullptr;
}

bool WheelGuard::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() != QEvent::Wheel || !watched->isWidgetType()) return QObject::eventFilter(watched, event);
  QAbstractScrollArea* area = scrollsInstead(static_cast<QWidget*>(watched));
  if (!area) return QObject::eventFilter(watched, event);
  QCoreApplication::sendEvent(area->verticalScrollBar(), event);  // the panel scrolls, the value stays
  return true;
}

}  // namespace attnlab::ui
