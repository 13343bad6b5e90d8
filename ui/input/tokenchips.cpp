#include "input/tokenchips.h"

#include <QLocale>
#include <QPainter>
#include <QPalette>

#include <algorithm>
#include <numeric>

#include "text/tokenizer.h"
#include "words/qtstrings.h"

namespace attnlab::ui {

namespace {
// What a chip says: the token, and "?" after one the trained model does not know.
QString chipTextOf(const std::string& tok, bool unknown) {
  return shownToken(tok) + (unknown ? QStringLiteral("?") : QString());
}

// The note that ends a sentence cut short: `hidden` tokens not drawn, the last `pads` of them [PAD].
QString hiddenNote(size_t hidden, size_t pads) {
  const QString n = QLocale().toString(static_cast<qulonglong>(hidden));
  if (pads == hidden) return TokenChips::tr("… and %1 more [PAD]").arg(n);
  if (pads > 0) return TokenChips::tr("… and %1 more tokens, %2 of them [PAD]").arg(n, QLocale().toString(static_cast<qulonglong>(pads)));
  return hidden == 1 ? TokenChips::tr("… and 1 more token") : TokenChips::tr("… and %1 more tokens").arg(n);
}

// Where a row's trailing [PAD] tokens begin (the row's size when it has none).
size_t padStart(const std::vector<std::string>& row) {
  size_t k = row.size();
  while (k > 0 && row[k - 1] == kPadToken) --k;
  return k;
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

int TokenChips::linesNeeded(size_t r, double w, int cap) const {
  const QFontMetricsF fm(font());
  const double pad = fm.height() * 0.3, gap = fm.height() * 0.25;
  const double x0 = fm.horizontalAdvance(tr("%1:").arg(r)) + gap;
  double x = x0;
  int lines = 1;
  for (const auto& tok : rows_[r]) {
    const double cw = fm.horizontalAdvance(chipTextOf(tok, isUnknown(tok))) + 2 * pad;
    if (x + cw > w && x > x0) {
      if (++lines > cap) return lines;
      x = x0;
    }
    x += cw + gap;
  }
  return lines;
}

TokenChips::Layout TokenChips::layout(int width) const {
  Layout out;
  const QFontMetricsF fm(font());
  const double pad = fm.height() * 0.3, gap = fm.height() * 0.25, h = fm.height() + pad;
  const double w = width;
  const size_t n = rows_.size();
  // Sentences past the budget are counted on a last line of their own.
  const size_t shownRows = n > size_t{kMaxLines} ? size_t{kMaxLines} - 1 : n;
  const int budget = n > size_t{kMaxLines} ? kMaxLines - 1 : kMaxLines;
  // Lines per sentence: what each needs, the longest cut first until the total fits.
  std::vector<int> need(shownRows);
  for (size_t r = 0; r < shownRows; ++r) need[r] = linesNeeded(r, w, budget);
  std::vector<int> lines = need;
  while (std::accumulate(lines.begin(), lines.end(), 0) > budget) {
    auto most = std::max_element(lines.rbegin(), lines.rend());  // the last of the longest
    --*most;
  }
  double y = 0;
  for (size_t r = 0; r < shownRows; ++r) {
    const auto& row = rows_[r];
    const QString label = tr("%1:").arg(r);  // the sentence, from 0 as everywhere
    const double x0 = fm.horizontalAdvance(label) + gap;
    out.rowLabels.push_back({QRectF(0, y, x0 - gap, h), label});
    double x = x0;
    int line = 0;
    if (row.empty()) {
      const QString empty = tr("(empty)");
      out.notes.push_back({QRectF(x0, y, fm.horizontalAdvance(empty), h), empty});
    }
    const size_t pads = padStart(row);
    const bool cut = need[r] > lines[r];  // then its last line ends with a note
    size_t stop = row.size();             // the first token not drawn
    for (size_t k = 0; k < row.size(); ++k) {
      const std::string& tok = row[k];
      const double cw = fm.horizontalAdvance(chipTextOf(tok, isUnknown(tok))) + 2 * pad;
      if (x + cw > w && x > x0) {
        if (cut && line + 1 >= lines[r]) {
          stop = k;
          break;
        }
        ++line;
        x = x0;
        y += h + gap;
      }
      // On a cut sentence's last line, the note for the tokens after this one must fit behind it.
      if (cut && line + 1 >= lines[r] && k + 1 < row.size() && x > x0) {
        const QString note = hiddenNote(row.size() - k - 1, row.size() - std::max(k + 1, pads));
        if (x + cw + gap + fm.horizontalAdvance(note) > w) {
          stop = k;
          break;
        }
      }
      out.chips.push_back({QRectF(x, y, cw, h), &tok});
      x += cw + gap;
    }
    if (stop < row.size()) {
      const QString note = hiddenNote(row.size() - stop, row.size() - std::max(stop, pads));
      out.notes.push_back({QRectF(x, y, fm.horizontalAdvance(note) + 1, h), note});
    }
    out.lines += line + 1;
    y += h + 2 * gap;
  }
  if (shownRows < n) {
    const QString note = tr("… and %1 more sentences").arg(QLocale().toString(static_cast<qulonglong>(n - shownRows)));
    out.notes.push_back({QRectF(0, y, fm.horizontalAdvance(note) + 1, h), note});
    out.lines += 1;
    y += h + 2 * gap;
  }
  out.height = static_cast<int>(y + 1);
  return out;
}

int TokenChips::heightForWidth(int w) const { return layout(w).height; }

QSize TokenChips::sizeHint() const { return {300, heightForWidth(300)}; }

int TokenChips::shownChips() const { return static_cast<int>(layout(width()).chips.size()); }
int TokenChips::shownLines() const { return layout(width()).lines; }

QStringList TokenChips::overflowNotes() const {
  QStringList out;
  for (const auto& note : layout(width()).notes) out << note.text;
  return out;
}

void TokenChips::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  const Layout l = layout(width());
  const QFontMetricsF fm(font());
  const QPalette pal = palette();
  // Row labels: one per sentence (from 0), at the y of its first chip.
  p.setPen(pal.color(QPalette::PlaceholderText));
  for (const auto& label : l.rowLabels) p.drawText(label.rect, Qt::AlignVCenter | Qt::AlignLeft, label.text);
  for (const auto& [rect, tok] : l.chips) {
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
  // What is not drawn, said in words (italic, in the row labels' colour).
  QFont italic = font();
  italic.setItalic(true);
  p.setFont(italic);
  p.setPen(pal.color(QPalette::PlaceholderText));
  for (const auto& note : l.notes) p.drawText(note.rect, Qt::AlignVCenter | Qt::AlignLeft, note.text);
}

}  // namespace attnlab::ui
