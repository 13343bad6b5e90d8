// The mouse wheel over a scrolling panel scrolls the panel. Without this, a wheel turned to scroll
// the inputs or the Explanations panel changes whatever combo box or spin box passes under the
// pointer (a knock-out mode, a layer count) and runs the model again — a classroom favourite.
// A combo box or spin box inside a scroll area that can scroll takes the wheel only once it has
// the keyboard focus (a click or Tab); until then the wheel scrolls the area around it. Outside a
// scrolling area (a toolbar, a dialog, a panel that fits) the wheel works as Qt's widgets do.
//
// Two parts, both needed: Qt gives a box whose focus policy has Qt::WheelFocus (Qt's default for
// both kinds) the focus on a real wheel turn before any event filter sees the turn, so every such
// box gets Qt::StrongFocus (click or Tab, never the wheel: the boxes there now, and each one
// polished later); and the filter hands an unfocused box's wheel to the area's scroll bar.
#pragma once

#include <QObject>

class QAbstractScrollArea;
class QWheelEvent;
class QWidget;

namespace attnlab::ui {

class WheelGuard : public QObject {
  Q_OBJECT
 public:
  // The application's one guard, made and installed on the first call (every window calls it).
  static WheelGuard* install();
  // The scroll area, able to scroll along the wheel's main axis, that the wheel over `w` should
  // scroll instead of changing it; null when `w` may take the wheel (not a combo or spin box,
  // focused, or no such area). `horizontal`: the turn is mostly sideways.
  static QAbstractScrollArea* scrollsInstead(const QWidget* w, bool horizontal = false);
  // A combo or spin box: the focus by click or Tab only (Qt::StrongFocus), not by the wheel.
  static void noWheelFocus(QWidget* w);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  using QObject::QObject;
};

}  // namespace attnlab::ui
