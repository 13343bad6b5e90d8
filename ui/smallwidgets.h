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

// A spin box over lo … hi showing value, faster when an arrow is held.
inline QSpinBox* spinBox(int lo, int hi, int value) {
  auto* s = new QSpinBox;
  s->setRange(lo, hi);
  s->setValue(value);
  s->setAccelerated(true);
  return s;
}

}  // namespace attnlab::ui
