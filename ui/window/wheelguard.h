// The mouse wheel over a scrolling panel scrolls the panel. Without this, a wheel turned to scroll
// the inputs or the Explanations panel changes whatever combo box or spin box passes under the
// pointer (a knock-out mode, a layer count) and runs the model again — a classroom favourite.
// A combo box or spin box inside a scroll area that can scroll takes the wheel only once it has
// the keyboard focus (a click or Tab); until then the wheel scrolls the area around it. Outside a
// scrolling area (a toolbar, a dialog, a panel that fits) the wheel works as Qt's widgets do.
#pragma once

#include <QObject>

class QAbstractScrollArea;
class QWidget;

namespace attnlab::ui {

class WheelGuard : public QObject {
  Q_OBJECT
 public:
  using QObject::QObject;
  // The scroll area, able to scroll vertically, that the wheel over `w` should scroll instead of
  // changing it; null when `w` may take the wheel (not a combo or spin box, focused, or no such area).
  static QAbstractScrollArea* scrollsInstead(const QWidget* w);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;
};

}  // namespace attnlab::ui
