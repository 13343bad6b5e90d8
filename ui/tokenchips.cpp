#include "tokenchips.h"

#include <QPainter>
#include <QPalette>

#include "tokenizer.h"

namespace attnlab::ui {

TokenChips::TokenChips(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
}

void TokenChips::setRows(const std::vector<std::vector<std::string>>& rows) {
  rows_ = rows;
  updateGeometry();
  update();
}

int TokenChips::layout(int w, std::vector<std::pair<QRectF, const std::string*>>* out) const {
  const QFontMetricsF fm(font());
  const double pad = fm.height() * 0.3, gap = fm.height() * 0.25, h = fm.height() + pad;
  double x = 0, y = 0;
  for (size_t r = 0; r < rows_.size(); ++r) {
    const QString label = tr("%1:").arg(r + 1);
    x = fm.horizontalAdvance(label) + gap;
    for (const auto& tok : rows_[r]) {
      const double cw = fm.horizontalAdvance(QString::fromStdString(tok)) + 2 * pad;
      if (x + cw > w && x > fm.horizontalAdvance(label) + gap) {
        x = fm.horizontalAdvance(label) + gap;
        y += h + gap;
      }
      if (out) out->push_back({QRectF(x, y, cw, h), &tok});
      x += cw + gap;
    }
    y += h + 2 * gap;
  }
  return static_cast<int>(y + 1);
}

int TokenChips::heightForWidth(int w) const { return layout(w, nullptr); }

QSize TokenChips::sizeHint() const { return {300, heightForWidth(300)}; }

void TokenChips::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  std::vector<std::pair<QRectF, const std::string*>> chips;
  layout(width(), &chips);
  const QFontMetricsF fm(font());
  const QPalette pal = palette();
  // Row labels: one per sentence, at the y of its first chip.
  double lastY = -1;
  int row = 0;
  for (const auto& [rect, tok] : chips) {
    const bool firstOfRow = row < static_cast<int>(rows_.size()) && !rows_[row].empty() && tok == &rows_[row].front();
    if (firstOfRow) {
      p.setPen(pal.color(QPalette::PlaceholderText));
      p.drawText(QRectF(0, rect.top(), rect.left(), rect.height()), Qt::AlignVCenter | Qt::AlignLeft,
                 tr("%1:").arg(row + 1));
      ++row;
    }
    lastY = rect.top();
    const bool pad = *tok == kPadToken;
    const QColor fill = pad ? pal.color(QPalette::Window) : pal.color(QPalette::Highlight).lighter(170);
    p.setPen(QPen(pad ? pal.color(QPalette::PlaceholderText) : pal.color(QPalette::Highlight), 1,
                  pad ? Qt::DashLine : Qt::SolidLine));
    p.setBrush(fill);
    p.drawRoundedRect(rect, fm.height() * 0.25, fm.height() * 0.25);
    p.setPen(pad ? pal.color(QPalette::PlaceholderText) : QColor(Qt::black));
    p.drawText(rect, Qt::AlignCenter, QString::fromStdString(*tok));
  }
  (void)lastY;
}

}  // namespace attnlab::ui
