#include "step/shapediagram.h"

#include <QPainter>
#include <QPainterPath>
#include <QRegularExpression>

#include <algorithm>
#include <cmath>

#include "words/stepnames.h"
#include "words/steptext.h"

namespace attnlab::ui {

namespace {

// A hue per axis name, so an axis keeps its colour from box to box (S stays blue when it moves).
int axisHue(const QString& name) {
  static const QHash<QString, int> hues{{QStringLiteral("S"), 210}, {QStringLiteral("T"), 175}, {QStringLiteral("H"), 280},
                                        {QStringLiteral("Dh"), 30},  {QStringLiteral("D"), 120},  {QStringLiteral("F"), 55},
                                        {QStringLiteral("V"), 330}};
  return hues.value(name, -1);
}

QString csv(const Shape& s) {
  QStringList out;
  for (auto v : s) out << QString::number(v);
  return out.join(QStringLiteral(", "));
}

// Axes whose name differs between two name lists of the same length: "S and H".
QString swappedAxes(const QStringList& a, const QStringList& b) {
  QStringList moved;
  for (int i = 0; i < std::min(a.size(), b.size()); ++i)
    if (a[i] != b[i]) moved << a[i];
  return moved.join(ShapeDiagram::tr(" and "));
}

QString joined(const QStringList& from, const QStringList& other) {
  QStringList only;
  for (const auto& n : from)
    if (!other.contains(n)) only << n;
  return only.join(QStringLiteral(" × "));
}

// The move a view / transpose / contiguous step makes, read from its own code line.
QString structuralMove(const Step& out, const Step* in) {
  static const QRegularExpression re(QStringLiteral(R"(\.(view|transpose|contiguous)\(([^)]*)\))"));
  const auto m = re.match(QString::fromStdString(out.info.code));
  if (!m.hasMatch() || !in) return {};
  const QString op = m.captured(1), call = op + QLatin1Char('(') + m.captured(2) + QLatin1Char(')');
  const QStringList a = StepNames::axisNames(in->info.id, static_cast<int>(in->tensor.dim()));
  const QStringList b = StepNames::axisNames(out.info.id, static_cast<int>(out.tensor.dim()));
  if (op == QLatin1String("transpose"))
    return ShapeDiagram::tr("%1: swap %2 — no data moves, only the strides change").arg(call, swappedAxes(a, b));
  if (op == QLatin1String("contiguous"))
    return out.tensor.shares_storage(in->tensor) ? ShapeDiagram::tr("contiguous(): already in C order — nothing copied")
                                                 : ShapeDiagram::tr("contiguous(): copy into C order so that view() can work");
  if (b.size() > a.size())
    return ShapeDiagram::tr("view: split %1 into %2 — same storage, no copy").arg(joined(a, b), joined(b, a));
  return ShapeDiagram::tr("view: join %1 into %2 — same storage, no copy").arg(joined(a, b), joined(b, a));
}

// An axis segment: its label plus a little more width the larger the axis (log2 of its size).
qreal segmentWidth(const QFontMetricsF& fm, const QString& label, qint64 size) {
  const qreal lh = fm.height();
  return fm.horizontalAdvance(label) + 0.8 * lh + std::min(3 * lh, 0.3 * lh * std::log2(double(std::max<qint64>(1, size))));
}

}  // namespace

ShapeDiagram::ShapeDiagram(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
}

ShapeDiagram::Box ShapeDiagram::makeBox(const QString& name, const Step& step) const {
  Box b;
  b.name = name;
  b.names = StepNames::axisNames(step.info.id, static_cast<int>(step.tensor.dim()));
  for (int i = 0; i < b.names.size(); ++i) {
    b.sizes.push_back(step.tensor.shape()[static_cast<size_t>(i)]);
    b.axes << tr("%1 %2").arg(b.names[i]).arg(b.sizes.back());
  }
  b.strides = tr("strides (%1)").arg(csv(step.tensor.strides()));
  b.contiguous = step.tensor.is_contiguous();
  if (!concealed_.empty() && step.info.id == concealed_) {
    b.hidden = true;
    b.names = {QStringLiteral("?")};
    b.sizes = {1};
    b.axes = {tr("shape ?")};
    b.strides = tr("strides ?");
  }
  return b;
}

void ShapeDiagram::setStep(TraceResultPtr result, int stepIndex) {
  inputs_.clear();
  move_.clear();
  hasOutput_ = false;
  const auto* steps = result ? &result->trace.steps() : nullptr;
  if (steps && stepIndex >= 0 && stepIndex < static_cast<int>(steps->size())) {
    const Step& out = (*steps)[static_cast<size_t>(stepIndex)];
    const Step* first = nullptr;
    std::vector<std::string> seen;
    for (const auto& bind : out.info.bindings) {
      if (bind.weight || std::find(seen.begin(), seen.end(), bind.source) != seen.end()) continue;
      seen.push_back(bind.source);
      if (const Step* in = result->trace.find(bind.source)) {
        inputs_.push_back(makeBox(QString::fromStdString(bind.var), *in));
        first = first ? first : in;
      }
    }
    output_ = makeBox(QString::fromStdString(out.info.result), out);
    hasOutput_ = true;
    move_ = structuralMove(out, inputs_.size() == 1 ? first : nullptr);
    if (move_.isEmpty()) move_ = StepText::formula(out.info);
    if (output_.hidden) move_ = tr("(hidden: predict the result in the exercise panel)");
  }
  setAccessibleDescription(boxTexts().join(QLatin1Char('\n')) + QLatin1Char('\n') + move_);
  updateGeometry();
  update();
}

QString ShapeDiagram::badge(const Box& b) {
  return b.hidden ? tr("contiguous?") : b.contiguous ? tr("contiguous") : tr("not contiguous");
}

QStringList ShapeDiagram::boxTexts() const {
  QStringList lines;
  auto line = [this](const Box& b) {
    return tr("%1 (%2) %3 %4").arg(b.name, b.axes.join(QStringLiteral(" · ")), b.strides,
                                   badge(b));
  };
  for (const auto& b : inputs_) lines << line(b);
  if (hasOutput_) lines << line(output_);
  return lines;
}

QString ShapeDiagram::moveText() const { return move_; }

// --- geometry (all in units of the widget font's line height, so zoom scales everything) ---

QSizeF ShapeDiagram::boxSize(const Box& b) const {
  const QFontMetricsF fm(font());
  QFont bold = font();
  bold.setBold(true);
  const qreal lh = fm.height(), pad = 0.4 * lh;
  const qreal title = QFontMetricsF(bold).horizontalAdvance(b.name) + lh + fm.horizontalAdvance(badge(b)) + 2 * pad;
  qreal segs = 0;
  for (size_t i = 0; i < b.sizes.size(); ++i) segs += segmentWidth(fm, b.axes[static_cast<int>(i)], b.sizes[i]);
  const qreal w = std::max({title, segs, fm.horizontalAdvance(b.strides)}) + 2 * pad;
  return {w, 5 * pad + 1.3 * lh + 1.6 * lh + lh};
}

QSizeF ShapeDiagram::arrowSize(qreal maxWidth) const {
  const QFontMetricsF fm(font());
  const qreal lh = fm.height();
  const qreal wrap = std::max(4 * lh, std::min({fm.horizontalAdvance(move_) + 2 * lh, 13 * lh, maxWidth}));
  const QRectF text = fm.boundingRect(QRectF(0, 0, wrap - lh, 1e6), Qt::TextWordWrap, move_);
  return {std::max(wrap, 4 * lh), text.height() + (inputs_.empty() ? 0.5 : 1.5) * lh};
}

std::vector<ShapeDiagram::Placed> ShapeDiagram::layout(qreal width, QSizeF* total) const {
  const qreal lh = QFontMetricsF(font()).height(), margin = 0.5 * lh, gap = 0.8 * lh;
  std::vector<Placed> items;
  for (size_t i = 0; i < inputs_.size(); ++i) items.push_back({QRectF(QPointF(), boxSize(inputs_[i])), static_cast<int>(i)});
  if (hasOutput_) {
    items.push_back({QRectF(QPointF(), arrowSize(width - 2 * margin)), -1});
    items.push_back({QRectF(QPointF(), boxSize(output_)), -2});
  }
  // Flow left to right; the arrow stays with the output when both fit on one row.
  std::vector<int> rowOf(items.size());
  std::vector<qreal> rowH(1, 0);
  qreal x = margin, widest = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    qreal need = items[i].rect.width();
    if (items[i].item == -1 && i + 1 < items.size() && need + gap + items[i + 1].rect.width() <= width - 2 * margin)
      need += gap + items[i + 1].rect.width();
    if (x > margin && x + need > width - margin) x = margin, rowH.push_back(0);
    items[i].rect.moveLeft(x);
    rowOf[i] = static_cast<int>(rowH.size()) - 1;
    rowH.back() = std::max(rowH.back(), items[i].rect.height());
    x += items[i].rect.width() + gap;
    widest = std::max(widest, x - gap + margin);
  }
  std::vector<qreal> rowY(rowH.size(), margin);
  for (size_t r = 1; r < rowH.size(); ++r) rowY[r] = rowY[r - 1] + rowH[r - 1] + gap;
  for (size_t i = 0; i < items.size(); ++i)
    items[i].rect.moveTop(rowY[rowOf[i]] + (rowH[rowOf[i]] - items[i].rect.height()) / 2);
  *total = QSizeF(widest, rowY.back() + rowH.back() + margin);
  return items;
}

QSize ShapeDiagram::sizeHint() const {
  QSizeF total;
  layout(1e6, &total);
  return total.toSize().expandedTo(QSize(1, 1));
}

QSize ShapeDiagram::minimumSizeHint() const {
  const int lh = fontMetrics().height();
  return sizeHint().boundedTo(QSize(16 * lh, 6 * lh));
}

// --- painting ---

void ShapeDiagram::paintEvent(QPaintEvent*) {
  if (!hasOutput_) return;
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  // Shrink to fit rather than clip: lay out for a wider area and scale down until it fits.
  QSizeF total;
  std::vector<Placed> items;
  qreal scale = 1.0;
  for (; scale > 0.2; scale -= 0.05) {
    items = layout(width() / scale, &total);
    if (total.width() * scale <= width() + 0.5 && total.height() * scale <= height() + 0.5) break;
  }
  p.translate(std::max(0.0, (width() - total.width() * scale) / 2), std::max(0.0, (height() - total.height() * scale) / 2));
  p.scale(scale, scale);
  for (const auto& it : items) {
    if (it.item >= 0) paintBox(p, inputs_[static_cast<size_t>(it.item)], it.rect, false);
    else if (it.item == -2) paintBox(p, output_, it.rect, true);
    else paintArrow(p, it.rect);
  }
}

void ShapeDiagram::paintBox(QPainter& p, const Box& b, const QRectF& r, bool output) const {
  const QFontMetricsF fm(font());
  const qreal lh = fm.height(), pad = 0.4 * lh;
  const bool dark = palette().color(QPalette::Base).lightness() < 128;
  p.setPen(QPen(output ? palette().color(QPalette::Highlight) : palette().color(QPalette::Mid), output ? 2 : 1));
  p.setBrush(palette().color(QPalette::Base));
  p.drawRoundedRect(r, pad, pad);
  // Title row: the variable's name, and the contiguity badge on the right.
  QFont bold = font();
  bold.setBold(true);
  const QRectF title(r.left() + pad, r.top() + pad, r.width() - 2 * pad, 1.3 * lh);
  p.setFont(bold);
  p.setPen(palette().color(QPalette::Text));
  p.drawText(title, Qt::AlignLeft | Qt::AlignVCenter, b.name);
  const QString text = badge(b);
  const qreal bw = fm.horizontalAdvance(text) + 2 * pad;
  const QRectF badgeRect(title.right() - bw, title.top(), bw, title.height());
  p.setPen(Qt::NoPen);
  p.setBrush(b.hidden ? QColor(110, 110, 110) : b.contiguous ? QColor(46, 125, 50) : QColor(230, 100, 0));
  p.drawRoundedRect(badgeRect, badgeRect.height() / 2, badgeRect.height() / 2);
  p.setFont(font());
  p.setPen(Qt::white);
  p.drawText(badgeRect, Qt::AlignCenter, text);
  // Axis segments, widths growing with log2(size), stretched to the box width.
  const QRectF segs(r.left() + pad, title.bottom() + pad, r.width() - 2 * pad, 1.6 * lh);
  std::vector<qreal> w;
  qreal sum = 0;
  for (size_t i = 0; i < b.sizes.size(); ++i) {
    w.push_back(segmentWidth(fm, b.axes[static_cast<int>(i)], b.sizes[i]));
    sum += w.back();
  }
  qreal x = segs.left();
  for (size_t i = 0; i < w.size(); ++i) {
    const QRectF seg(x, segs.top(), w[i] * segs.width() / std::max<qreal>(sum, 1), segs.height());
    const int hue = axisHue(b.names.value(static_cast<int>(i)));
    p.setPen(palette().color(QPalette::Mid));
    p.setBrush(QColor::fromHsl(std::max(hue, 0), hue < 0 ? 0 : 150, dark ? 70 : 215));
    p.drawRect(seg);
    p.setPen(palette().color(QPalette::Text));
    p.drawText(seg, Qt::AlignCenter, b.axes[static_cast<int>(i)]);
    x = seg.right();
  }
  QColor muted = palette().color(QPalette::Text);  // secondary, yet readable on any palette (a
  muted.setAlphaF(0.7);                           // theme may leave PlaceholderText unset)
  p.setPen(muted);
  p.drawText(QRectF(segs.left(), segs.bottom() + pad, segs.width(), lh), Qt::AlignLeft | Qt::AlignVCenter, b.strides);
}

void ShapeDiagram::paintArrow(QPainter& p, const QRectF& r) const {
  const qreal lh = QFontMetricsF(font()).height();
  const QRectF text(r.left() + lh / 2, r.top(), r.width() - lh, r.height() - (inputs_.empty() ? 0.5 : 1.5) * lh);
  p.setFont(font());
  p.setPen(palette().color(QPalette::Text));
  p.drawText(text, Qt::AlignHCenter | Qt::AlignBottom | Qt::TextWordWrap, move_);
  if (inputs_.empty()) return;
  const qreal y = r.bottom() - 0.75 * lh, x0 = r.left() + lh / 4, x1 = r.right() - lh / 4;
  p.setPen(QPen(palette().color(QPalette::Highlight), std::max<qreal>(1.5, lh / 8)));
  p.drawLine(QPointF(x0, y), QPointF(x1 - lh / 3, y));
  QPainterPath head;
  head.moveTo(x1, y);
  head.lineTo(x1 - lh / 2, y - lh / 3);
  head.lineTo(x1 - lh / 2, y + lh / 3);
  head.closeSubpath();
  p.fillPath(head, palette().color(QPalette::Highlight));
}

}  // namespace attnlab::ui
