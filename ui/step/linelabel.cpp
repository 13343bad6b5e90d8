#include "step/linelabel.h"

#include <QEvent>
#include <QFontMetrics>
#include <QResizeEvent>

namespace attnlab::ui {

LineLabel::LineLabel(QWidget* parent) : QLabel(parent) {
  setTextFormat(Qt::PlainText);
  setTextInteractionFlags(Qt::TextSelectableByMouse);
  setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
}

void LineLabel::setFullText(const QString& text) {
  full_ = text;
  refresh();
}

void LineLabel::setElideMode(Qt::TextElideMode mode) {
  mode_ = mode;
  refresh();
}

void LineLabel::setExpanded(bool on) {
  expanded_ = on;
  setWordWrap(on);
  refresh();
  updateGeometry();
}

// Collapsed: one line, elided to the width, the whole text as the tooltip when it does not fit.
void LineLabel::refresh() {
  if (expanded_) {
    setText(full_);
    setToolTip({});
    return;
  }
  const int w = contentsRect().width();
  QString line = full_;
  line.replace(QLatin1Char('\n'), QLatin1Char(' '));
  QString shown = fontMetrics().elidedText(line, mode_, std::max(w, 1));
  for (int less = 1; less < 8 && fontMetrics().horizontalAdvance(shown) > w; ++less)  // rounding: never past the box
    shown = fontMetrics().elidedText(line, mode_, std::max(w - less, 1));
  setText(shown);
  setToolTip(shown == line ? QString() : full_);  // only when something was cut
}

QSize LineLabel::minimumSizeHint() const {
  if (expanded_) return QLabel::minimumSizeHint();
  // The height of one line with the style's padding (what QLabel asks for its one-line text);
  // the width of a few characters.
  return {fontMetrics().averageCharWidth() * 6, QLabel::minimumSizeHint().height()};
}

QSize LineLabel::sizeHint() const {
  if (expanded_) return QLabel::sizeHint();
  return minimumSizeHint();
}

void LineLabel::resizeEvent(QResizeEvent* e) {
  QLabel::resizeEvent(e);
  if (!expanded_ && e->size().width() != e->oldSize().width()) refresh();
}

void LineLabel::changeEvent(QEvent* e) {
  QLabel::changeEvent(e);
  if (e->type() == QEvent::FontChange || e->type() == QEvent::StyleChange) refresh();
}

}  // namespace attnlab::ui
