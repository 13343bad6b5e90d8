// Widgets made the same way in several panels.
#pragma once

#include <QLabel>
#include <QSpinBox>

namespace attnlab::ui {

// A wrapping, selectable label with an object name (for tests and style sheets).
inline QLabel* wrappedLabel(const QString& objectName) {
  auto* l = new QLabel;
  l->setObjectName(objectName);
  l->setWordWrap(true);
  l->setTextInteractionFlags(Qt::TextSelectableByMouse);
  return l;
}

// A wrapping label on a shaded background: a panel's note or explanation.
inline QLabel* shadedLabel(const QString& objectName) {
  QLabel* l = wrappedLabel(objectName);
  l->setStyleSheet(QStringLiteral("QLabel { background: palette(alternate-base); padding: 6px; border-radius: 4px; }"));
  return l;
}

// A spin box over lo … hi showing value, faster when an arrow is held.
inline QSpinBox* spinBox(int lo, int hi, int value) {
  auto* s = new QSpinBox;
  s->setRange(lo, hi);
  s->setValue(value);
  s->setAccelerated(true);
  return s;
}

}  // namespace attnlab::ui
