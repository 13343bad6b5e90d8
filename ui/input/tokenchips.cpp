#include "input/tokenchips.h"

#include <QPainter>
#include <QPalette>

#include "text/tokenizer.h"
#include "words/qtstrings.h"

namespace attnlab::ui {

namespace {
// What a chip says: the token, and "?" after one the trained model does not know.
QString chipTextOf(const std::string& tok, bool unknown) {
  return shownToken(tok) + (unknown ? QStringLiteral("?") : QString());
}
}  // namespace

TokenChips::TokenChips(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
}

void TokenChips::setRows(const std::vector<std::vector<std::string>>& rows) {
  rows_ = rows;
  updateGeometry();
  update();
}

void TokenChips::setVocabulary(std::shared_ptr<const TrainedVocab> vocab) {
  vocab_ = std::move(vocab);
  updateGeometry();
  update();
}

bool TokenChips::isUnknown(const std::string& token) const {
  return vocab_ && vocab_->reads_as_unknown(token);
}

int TokenChips::layout(int w, std::vector<std::pair<QRectF, const std::string*>>* out) const {
  const QFontMetricsF fm(font());
  const double pad = fm.height() * 0.3, gap = fm.height() * 0.25, h = fm.height() + pad;
  double x = 0, y = 0;
  for (size_t r = 0; r < rows_.size(); ++r) {
    const QString label = tr("%1:").arg(r);  // the sentence, from 0 as everywhere
    x = fm.horizontalAdvance(label) + gap;
    for (const auto& tok : rows_[r]) {
      const double cw = fm.horizontalAdvance(chipTextOf(tok, isUnknown(tok))) + 2 * pad;
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
  // Row labels: one per sentence (from 0), at the y of its first chip.
  double lastY = -1;
  int row = 0;
  for (const auto& [rect, tok] : chips) {
    const bool firstOfRow = row < static_cast<int>(rows_.size()) && !rows_[row].empty() && tok == &rows_[row].front();
    if (firstOfRow) {
      p.setPen(pal.color(QPalette::PlaceholderText));
      p.drawText(QRectF(0, rect.top(), rect.left(), rect.height()), Qt::AlignVCenter | Qt::AlignLeft,
                 tr("%1:").arg(row));
      ++row;
    }
    lastY = rect.top();
    const bool pad = *tok == kPadToken;
    const bool unknown = isUnknown(*tok);
    const QColor edge = unknown ? QColor(0xc0, 0x10, 0x10) : pad ? pal.color(QPalette::PlaceholderText)
                                                                 : pal.color(QPalette::Highlight);
    const QColor fill = unknown ? QColor(0xff, 0xe0, 0xe0)
                                : pad ? pal.color(QPalette::Window) : pal.color(QPalette::Highlight).lighter(170);
    p.setPen(QPen(edge, unknown ? 2 : 1, pad || unknown ? Qt::DashLine : Qt::SolidLine));
    p.setBrush(fill);
    p.drawRoundedRect(rect, fm.height() * 0.25, fm.height() * 0.25);
    p.setPen(unknown ? QColor(0x90, 0x00, 0x00) : pad ? pal.color(QPalette::PlaceholderText) : QColor(Qt::black));
    p.drawText(rect, Qt::AlignCenter, chipTextOf(*tok, unknown));
  }
  (void)lastY;
}

}  // namespace attnlab::ui
