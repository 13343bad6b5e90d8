#include "input/maskeditor.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>

namespace attnlab::ui {

MaskEditor::MaskEditor(QWidget* parent) : QWidget(parent) {
  setFocusPolicy(Qt::StrongFocus);
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
  setAccessibleName(tr("Mask editor"));
}

void MaskEditor::setMask(const QString& rows, const std::vector<std::string>& labels) {
  const QStringList parts = rows.split(QLatin1Char('/'), Qt::SkipEmptyParts);
  n_ = static_cast<int>(parts.size());
  cells_.assign(static_cast<size_t>(n_ * n_), 1);
  for (int r = 0; r < n_; ++r)
    for (int c = 0; c < n_ && c < parts[r].size(); ++c) cells_[static_cast<size_t>(r * n_ + c)] = parts[r][c] == QLatin1Char('1');
  labels_.clear();
  for (int i = 0; i < n_; ++i)
    labels_ << (i < static_cast<int>(labels.size()) ? QString::fromStdString(labels[static_cast<size_t>(i)])
                                                    : QString::number(i));
  cursor_ = {0, 0};
  updateGeometry();
  update();
}

QString MaskEditor::rowsText() const {
  QString out;
  for (int r = 0; r < n_; ++r) {
    if (r) out += QLatin1Char('/');
    for (int c = 0; c < n_; ++c) out += cell(r, c) ? QLatin1Char('1') : QLatin1Char('0');
  }
  return out;
}

void MaskEditor::toggle(int r, int c) {
  if (r < 0 || c < 0 || r >= n_ || c >= n_) return;
  char& v = cells_[static_cast<size_t>(r * n_ + c)];
  v = v ? 0 : 1;
  cursor_ = {c, r};
  update();
  emit changed();
}

// Row labels: "2 green" (position from 0, and token) so that the goal's "token 2" is easy to find.
qreal MaskEditor::labelWidth() const {
  const QFontMetricsF fm(font());
  qreal w = 0;
  for (int i = 0; i < labels_.size(); ++i) w = std::max(w, fm.horizontalAdvance(QStringLiteral("%1 %2").arg(i).arg(labels_[i])));
  return std::min(w, 12 * fm.averageCharWidth()) + fm.averageCharWidth();
}

QRectF MaskEditor::plot() const {
  const QFontMetricsF fm(font());
  const qreal left = labelWidth(), top = 2.4 * fm.height();
  const qreal side = std::max<qreal>(0, std::min(width() - left - 4, height() - top - 4));
  return {left, top, side, side};
}

QRectF MaskEditor::cellRect(int r, int c) const {
  const QRectF p = plot();
  const qreal s = n_ ? p.width() / n_ : 0;
  return {p.left() + c * s, p.top() + r * s, s, s};
}

QSize MaskEditor::sizeHint() const {
  const QFontMetricsF fm(font());
  const int cell = static_cast<int>(2.2 * fm.height());
  return {static_cast<int>(labelWidth()) + n_ * cell + 8, static_cast<int>(2.4 * fm.height()) + n_ * cell + 8};
}

QSize MaskEditor::minimumSizeHint() const {
  const QFontMetricsF fm(font());
  const int cell = static_cast<int>(1.4 * fm.height());
  return {static_cast<int>(labelWidth()) + n_ * cell + 8, static_cast<int>(2.4 * fm.height()) + n_ * cell + 8};
}

void MaskEditor::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  const QFontMetricsF fm(font());
  const QColor text = palette().color(QPalette::Text);
  p.setPen(text);
  p.drawText(QRectF(0, 0, width(), fm.height()), Qt::AlignLeft, tr("rows: queries · columns: keys · click to toggle"));
  for (int i = 0; i < n_; ++i) {
    const QRectF row = cellRect(i, 0), col = cellRect(0, i);
    p.drawText(QRectF(0, row.top(), labelWidth() - 4, row.height()), Qt::AlignRight | Qt::AlignVCenter,
               fm.elidedText(QStringLiteral("%1 %2").arg(i).arg(labels_[i]), Qt::ElideRight, labelWidth() - 4));
    p.drawText(QRectF(col.left(), col.top() - 1.2 * fm.height(), col.width(), fm.height()), Qt::AlignCenter,
               QString::number(i));
  }
  for (int r = 0; r < n_; ++r)
    for (int c = 0; c < n_; ++c) {
      const QRectF cr = cellRect(r, c).adjusted(1, 1, -1, -1);
      if (cell(r, c)) {
        p.fillRect(cr, QColor(46, 125, 50));
        p.setPen(Qt::white);
        p.drawText(cr, Qt::AlignCenter, QStringLiteral("1"));
      } else {
        p.fillRect(cr, palette().color(QPalette::Base));
        p.fillRect(cr, QBrush(palette().color(QPalette::Mid), Qt::BDiagPattern));
        p.setPen(text);
        p.drawText(cr, Qt::AlignCenter, QStringLiteral("0"));
      }
    }
  if (hasFocus() && n_ > 0) {
    p.setPen(QPen(palette().color(QPalette::Highlight), 3));
    p.setBrush(Qt::NoBrush);
    p.drawRect(cellRect(cursor_.y(), cursor_.x()));
  }
}

void MaskEditor::mousePressEvent(QMouseEvent* e) {
  for (int r = 0; r < n_; ++r)
    for (int c = 0; c < n_; ++c)
      if (cellRect(r, c).contains(e->position())) return toggle(r, c);
}

void MaskEditor::keyPressEvent(QKeyEvent* e) {
  if (n_ == 0) return QWidget::keyPressEvent(e);
  switch (e->key()) {
    case Qt::Key_Left: cursor_.rx() = std::max(0, cursor_.x() - 1); break;
    case Qt::Key_Right: cursor_.rx() = std::min(n_ - 1, cursor_.x() + 1); break;
    case Qt::Key_Up: cursor_.ry() = std::max(0, cursor_.y() - 1); break;
    case Qt::Key_Down: cursor_.ry() = std::min(n_ - 1, cursor_.y() + 1); break;
    case Qt::Key_Space:
    case Qt::Key_Return:
    case Qt::Key_Enter: toggle(cursor_.y(), cursor_.x()); return;
    default: return QWidget::keyPressEvent(e);
  }
  update();
}

}  // namespace attnlab::ui
