#include "views/lineview.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <array>
#include <cmath>

#include "forward/model.h"
#include "views/modelview.h"

namespace attnlab::ui {

namespace {

// Paul Tol's "vibrant" scheme: distinguishable with every common colour-vision deficiency and
// none too pale for thin lines on a light background.
constexpr std::array<QRgb, 7> kHeadColors{0x0077BB, 0xEE7733, 0x009988, 0xEE3377, 0x33BBEE, 0xCC3311, 0x999999};

Qt::PenStyle headPenStyle(int head) { return head < static_cast<int>(kHeadColors.size()) ? Qt::SolidLine : Qt::DashLine; }

// Black or white, whichever reads better on c.
QColor textOn(const QColor& c) {
  const double lum = 0.2126 * c.redF() + 0.7152 * c.greenF() + 0.0722 * c.blueF();
  return lum > 0.45 ? Qt::black : Qt::white;
}

QPixmap chipIcon(int head, int side) {
  QPixmap pm(side, side);
  pm.fill(Qt::transparent);
  QPainter p(&pm);
  p.setRenderHint(QPainter::Antialiasing);
  p.setPen(QPen(LineView::headColor(head), std::max(2, side / 5), headPenStyle(head), Qt::FlatCap));
  p.drawLine(QPointF(0, side / 2.0), QPointF(side, side / 2.0));
  return pm;
}

}  // namespace

QColor LineView::headColor(int head) {
  return QColor(kHeadColors[static_cast<size_t>(std::max(0, head)) % kHeadColors.size()]);
}

// [caption]
// [Heads: (chip) (chip) … All None]
// [query column ── lines ── key column]   (painted by this widget)
// [note]
LineView::LineView(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
  caption_ = new QLabel(this);
  caption_->setObjectName(QStringLiteral("caption"));
  caption_->setWordWrap(true);
  chipRow_ = new QWidget(this);
  chipRow_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);  // many heads clip, never widen the view
  chipLayout_ = new QHBoxLayout(chipRow_);
  chipLayout_->setContentsMargins(0, 0, 0, 0);
  note_ = new QLabel(this);
  note_->setObjectName(QStringLiteral("note"));
  note_->setWordWrap(true);
  note_->setTextFormat(Qt::PlainText);
  note_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  note_->setFixedHeight(3 * fontMetrics().height());  // hover text must not move the tokens under the mouse
  auto* v = new QVBoxLayout(this);
  v->addWidget(caption_);
  v->addWidget(chipRow_);
  v->addStretch(1);
  v->addWidget(note_);
  updateNote();
}

void LineView::setSelection(const ViewSelection& sel) {
  const bool sameBlock = sel_.result == sel.result && sel_.block == sel.block && sel_.batch == sel.batch;
  sel_ = sel;
  if (sameBlock) return;  // head / query / step changes do not alter this view
  const int oldHeads = heads_;
  w_.clear();
  heads_ = tq_ = tk_ = 0;
  qTokens_.clear();
  kTokens_.clear();
  padQuery_.clear();
  linesDirty_ = true;
  hover_ = -1;
  const Step* step = sel.result && !sel.block.empty() ? sel.result->trace.find(sel.blockStep("weights")) : nullptr;
  if (step && step->tensor.dim() == 4) {
    const Tensor& t = step->tensor;  // (B, H, Tq, Tk)
    const int64_t b = std::clamp<int64_t>(sel.batch, 0, t.size(0) - 1);
    heads_ = static_cast<int>(t.size(1));
    tq_ = static_cast<int>(t.size(2));
    tk_ = static_cast<int>(t.size(3));
    const int64_t per = static_cast<int64_t>(heads_) * tq_ * tk_;
    w_.resize(static_cast<size_t>(per));
    for (int64_t n = 0; n < per; ++n) w_[static_cast<size_t>(n)] = t.at_linear(b * per + n);  // strides honoured
    const AxisTokens tokens = attention_tokens(sel.result->batch, step->info.id, b);
    qTokens_ = tokens.query;
    for (const auto& t : qTokens_) padQuery_.push_back(t == kPadToken);
    kTokens_ = tokens.key;
    caption_->setText(tr("%1 · sentence %2 · queries (left) attend to keys (right)")
                          .arg(ModelView::blockName(sel.block))
                          .arg(b));
  } else {
    caption_->setText(tr("Choose a step inside the model to see its attention as lines."));
  }
  if (heads_ != oldHeads) {
    visible_.assign(static_cast<size_t>(heads_), 1);
    rebuildChips();
  }
  updateNote();
  update();
}

void LineView::rebuildChips() {
  chips_.clear();  // owned by the layout's widgets, deleted below
  while (QLayoutItem* item = chipLayout_->takeAt(0)) {
    delete item->widget();
    delete item;
  }
  if (heads_ == 0) return;
  chipLayout_->addWidget(new QLabel(tr("Heads:"), chipRow_));
  const int side = fontMetrics().height();
  for (int h = 0; h < heads_; ++h) {
    auto* chip = new QToolButton(chipRow_);
    chip->setObjectName(QStringLiteral("headChip%1").arg(h));
    chip->setCheckable(true);
    chip->setChecked(visible_[static_cast<size_t>(h)] != 0);
    chip->setText(QString::number(h));  // "Heads:" names them; short chips fit 16 heads at projector zoom
    chip->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    chip->setIcon(chipIcon(h, side));
    chip->setIconSize(QSize(side, side));
    chip->setToolTip(tr("Show or hide the lines of head %1").arg(h));
    connect(chip, &QToolButton::toggled, this, [this, h](bool on) { setHeadVisible(h, on); });
    chipLayout_->addWidget(chip);
    chips_.push_back(chip);
  }
  auto addAll = [this](const QString& text, const QString& name, bool on) {
    auto* b = new QToolButton(chipRow_);
    b->setText(text);
    b->setObjectName(name);
    connect(b, &QToolButton::clicked, this, [this, on] { for (int h = 0; h < heads_; ++h) setHeadVisible(h, on); });
    chipLayout_->addWidget(b);
  };
  addAll(tr("All"), QStringLiteral("allHeads"), true);
  addAll(tr("None"), QStringLiteral("noHeads"), false);
  chipLayout_->addStretch(1);
}

QVector<int> LineView::visibleHeads() const {
  QVector<int> out;
  for (int h = 0; h < heads_; ++h)
    if (visible_[static_cast<size_t>(h)]) out.push_back(h);
  return out;
}

void LineView::setHeadVisible(int head, bool visible) {
  if (head < 0 || head >= heads_ || (visible_[static_cast<size_t>(head)] != 0) == visible) return;
  visible_[static_cast<size_t>(head)] = visible ? 1 : 0;
  linesDirty_ = true;
  if (QToolButton* chip = chips_[static_cast<size_t>(head)]; chip->isChecked() != visible) {
    const QSignalBlocker block(chip);
    chip->setChecked(visible);
  }
  update();
  emit headsChanged();
}

float LineView::weight(int head, int i, int j) const {
  return w_[(static_cast<size_t>(head) * tq_ + i) * tk_ + j];
}

bool LineView::isPad(bool query, int index) const {
  const auto& t = query ? qTokens_ : kTokens_;
  return index >= 0 && index < static_cast<int>(t.size()) && t[static_cast<size_t>(index)] == kPadToken;
}

double LineView::lineOpacity(int head, int query, int key) const {
  if (head < 0 || head >= heads_ || query < 0 || query >= tq_ || key < 0 || key >= tk_) return 0;
  if (!visible_[static_cast<size_t>(head)]) return 0;
  if (hover_ >= 0 && (hoverQuery_ ? query != hover_ : key != hover_)) return 0;
  const double w = weight(head, query, key);
  if (!std::isfinite(w)) return 0;
  const double a = std::clamp(w, 0.0, 1.0) * (padQuery_[static_cast<size_t>(query)] ? kPadFade : 1.0);
  return a < drawFloor() ? 0 : a;
}

// [gutter | query tokens] lines [key tokens | gutter]; the gutters hold the hover numbers.
LineView::Layout LineView::layout() const {
  Layout l;
  const QFontMetricsF fm(font());
  const double lh = fm.height(), pad = std::ceil(lh / 2);
  const double top = chipRow_->geometry().bottom() + pad;
  const double bottom = note_->geometry().top() - pad;
  l.area = QRectF(pad, top, std::max(1.0, width() - 2 * pad), std::max(1.0, bottom - top));
  double longest = 0;
  for (const auto* tokens : {&qTokens_, &kTokens_})
    for (const auto& t : *tokens) longest = std::max(longest, fm.horizontalAdvance(QString::fromStdString(t)));
  QFont bold = font();
  bold.setBold(true);
  const QFontMetricsF bfm(bold);  // the column headings must fit too
  longest = std::max({longest, bfm.horizontalAdvance(tr("query")), bfm.horizontalAdvance(tr("key"))});
  const double w = l.area.width();
  const double tokW = std::max(std::min(longest + pad, 0.2 * w), std::min(3 * fm.averageCharWidth(), longest + pad));
  // Gutters get what the tokens and 25 % for the lines leave: "0.42" pills, else ".42", else fewer heads.
  const double gutterRoom = std::max(0.0, (0.75 * w - 2 * tokW) / 2);
  const int heads = static_cast<int>(visibleHeads().size());
  l.numW = fm.horizontalAdvance(QStringLiteral("0.00")) + lh / 2;
  if (heads * l.numW > gutterRoom) {
    l.compact = true;
    l.numW = fm.horizontalAdvance(QStringLiteral(".00")) + lh / 3;
  }
  l.pills = std::min(heads, static_cast<int>(gutterRoom / l.numW));
  const double gutter = l.pills * l.numW;
  l.qLeft = l.area.left() + gutter;
  l.qRight = l.qLeft + tokW;
  l.kRight = l.area.right() - gutter;
  l.kLeft = l.kRight - tokW;
  l.top = l.area.top() + lh + pad / 2;  // under the column headings
  const int n = std::max({tq_, tk_, 1});
  l.rowH = std::min(2.5 * lh, std::max(1.0, l.area.bottom() - l.top) / n);  // spread out: steeper, clearer lines
  l.labelStep = std::max(1, static_cast<int>(std::ceil(lh / l.rowH)));
  return l;
}

QRectF LineView::tokenRect(bool queryColumn, int index) const {
  if (index < 0 || index >= (queryColumn ? tq_ : tk_)) return {};
  return slot(layout(), queryColumn, index);
}

QRectF LineView::slot(const Layout& l, bool queryColumn, int index) {
  return {queryColumn ? l.qLeft : l.kLeft, l.top + index * l.rowH, l.qRight - l.qLeft, l.rowH};
}

void LineView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setFont(font());
  if (heads_ == 0) return;
  const Layout l = layout();
  QFont bold = font();
  bold.setBold(true);
  p.setFont(bold);
  p.setPen(palette().color(QPalette::WindowText));
  const double lh = QFontMetricsF(font()).height();
  p.drawText(QRectF(l.qLeft, l.area.top(), l.qRight - l.qLeft, lh), Qt::AlignRight | Qt::AlignVCenter, tr("query"));
  p.drawText(QRectF(l.kLeft, l.area.top(), l.kRight - l.kLeft, lh), Qt::AlignLeft | Qt::AlignVCenter, tr("key"));
  p.setFont(font());
  if (hover_ >= 0) {
    paintLines(p, l);  // one row or column: cheap
  } else {
    // Every line at once costs ~0.1 s in the raster engine: keep it for repaints.
    const QRectF key(l.qRight, l.top, l.kLeft - l.qRight, l.rowH * std::max(tq_, tk_));
    const qreal dpr = devicePixelRatioF();
    if (linesDirty_ || key != linesKey_ || linesCache_.size() != size() * dpr) {
      linesCache_ = QImage(size() * dpr, QImage::Format_ARGB32_Premultiplied);
      linesCache_.setDevicePixelRatio(dpr);
      linesCache_.fill(Qt::transparent);
      QPainter ip(&linesCache_);
      paintLines(ip, l);
      linesKey_ = key;
      linesDirty_ = false;
    }
    p.drawImage(QPointF(0, 0), linesCache_);
  }
  paintTokens(p, l, true);
  paintTokens(p, l, false);
  paintNumbers(p, l);
}

// Every visible head's lines, head after head; opacity from lineOpacity(). A line of width w is
// drawn as round(w) 1-pixel cosmetic strands: Qt's raster engine strokes wide antialiased pens
// about ten times slower, and the builtin sample alone has 8 × 14 × 14 lines.
void LineView::paintLines(QPainter& p, const Layout& l) const {
  p.save();
  p.setRenderHint(QPainter::Antialiasing);
  const double pad = QFontMetricsF(font()).height() / 4;
  const double x0 = l.qRight + pad, x1 = l.kLeft - pad;
  const int strands = std::max(2, static_cast<int>(std::lround(QFontMetricsF(font()).height() / 6)));
  const QVector<int> heads = visibleHeads();
  // Heads fan out a little at both ends, so lines of different heads between the same two
  // tokens stay apart instead of hiding each other.
  const double spread = std::min(1.5 * strands, l.rowH * 0.5 / std::max<qsizetype>(1, heads.size()));
  // A hovered token limits the work to its row or column.
  const bool row = hover_ >= 0 && hoverQuery_, col = hover_ >= 0 && !hoverQuery_;
  const int i0 = row ? hover_ : 0, i1 = row ? hover_ + 1 : tq_, j0 = col ? hover_ : 0, j1 = col ? hover_ + 1 : tk_;
  for (int k = 0; k < heads.size(); ++k) {
    const int h = heads[k];
    const double dy = (k - (heads.size() - 1) / 2.0) * spread - (strands - 1) / 2.0;
    QColor c = headColor(h);
    for (int i = i0; i < i1; ++i)
      for (int j = j0; j < j1; ++j) {
        const double a = lineOpacity(h, i, j);
        if (a < 1.0 / 255) continue;
        c.setAlphaF(static_cast<float>(a));
        QPen pen(c, 1, headPenStyle(h));
        pen.setCosmetic(true);
        p.setPen(pen);
        for (int s = 0; s < strands; ++s)
          p.drawLine(QPointF(x0, l.top + (i + 0.5) * l.rowH + dy + s), QPointF(x1, l.top + (j + 0.5) * l.rowH + dy + s));
      }
  }
  p.restore();
}

// Labels (every labelStep-th when crowded); [PAD] faded and italic; the hovered one highlighted.
void LineView::paintTokens(QPainter& p, const Layout& l, bool query) const {
  const auto& tokens = query ? qTokens_ : kTokens_;
  const QFontMetricsF fm(font());
  const QColor text = palette().color(QPalette::WindowText);
  QColor faded = text;
  faded.setAlphaF(0.4f);
  QFont italic = font();
  italic.setItalic(true);
  for (int i = 0; i < static_cast<int>(tokens.size()); ++i) {
    const bool hovered = hover_ == i && hoverQuery_ == query;
    if (i % l.labelStep != 0 && !hovered) continue;
    const QRectF r = slot(l, query, i);
    const QRectF textRect(r.left(), r.center().y() - fm.height() / 2, r.width(), fm.height());
    const bool pad = isPad(query, i);
    if (hovered) p.fillRect(textRect, palette().color(QPalette::Highlight));
    p.setFont(pad ? italic : font());
    p.setPen(hovered ? palette().color(QPalette::HighlightedText) : pad ? faded : text);
    const QString s = fm.elidedText(QString::fromStdString(tokens[static_cast<size_t>(i)]), Qt::ElideRight, r.width());
    p.drawText(textRect, (query ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter, s);
  }
  p.setFont(font());
}

// While a token is hovered: beside each token of the other column, one pill per visible head
// with that line's weight, filled with the head's colour.
void LineView::paintNumbers(QPainter& p, const Layout& l) const {
  if (hover_ < 0) return;
  const QVector<int> heads = visibleHeads();
  const QFontMetricsF fm(font());
  const int n = hoverQuery_ ? tk_ : tq_;
  if (!numbersFit(l)) return;  // the note says so
  p.save();
  p.setRenderHint(QPainter::Antialiasing);
  for (int t = 0; t < n; ++t) {
    const QRectF r = slot(l, !hoverQuery_, t);
    for (int k = 0; k < l.pills; ++k) {
      const int h = heads[k];
      const double w = hoverQuery_ ? weight(h, hover_, t) : weight(h, t, hover_);
      const double x = hoverQuery_ ? l.kRight + k * l.numW : l.area.left() + k * l.numW;
      const QRectF pill(x + 2, r.center().y() - fm.height() / 2, l.numW - 4, fm.height());
      p.setPen(Qt::NoPen);
      p.setBrush(headColor(h));
      p.drawRoundedRect(pill, pill.height() / 4, pill.height() / 4);
      p.setPen(textOn(headColor(h)));
      QString text = std::isfinite(w) ? QString::number(w, 'f', 2) : QStringLiteral("NaN");
      if (l.compact && text.startsWith(QLatin1String("0."))) text.remove(0, 1);  // ".42"
      p.drawText(pill, Qt::AlignCenter, text);
    }
  }
  p.restore();
}

// Hundreds of thousands of lines would stall every repaint; then only the clearer ones are drawn.
double LineView::drawFloor() const {
  const auto shown = std::count(visible_.begin(), visible_.end(), 1);
  return static_cast<double>(tq_) * tk_ * static_cast<double>(shown) > kManyLines ? kFloorWhenMany : 0.0;
}

bool LineView::numbersFit(const Layout& l) const { return l.rowH >= QFontMetricsF(font()).height() * 0.9; }

void LineView::setHover(int index, bool query) {
  if (hover_ == index && (index < 0 || hoverQuery_ == query)) return;
  hover_ = index;
  hoverQuery_ = query;
  updateNote();
  update();
}

void LineView::mouseMoveEvent(QMouseEvent* e) {
  const QPointF pos = e->position();
  const Layout l = layout();
  const int i = l.rowH > 0 ? static_cast<int>(std::floor((pos.y() - l.top) / l.rowH)) : -1;
  for (bool query : {true, false})
    if (i >= 0 && i < (query ? tq_ : tk_) && slot(l, query, i).contains(pos)) return setHover(i, query);
  setHover(-1, true);
}

void LineView::mousePressEvent(QMouseEvent* e) {
  if (e->button() != Qt::LeftButton) return;
  const Layout l = layout();
  const int i = l.rowH > 0 ? static_cast<int>(std::floor((e->position().y() - l.top) / l.rowH)) : -1;
  if (i >= 0 && i < tq_ && slot(l, true, i).contains(e->position())) emit queryChosen(i);
}

void LineView::leaveEvent(QEvent*) { setHover(-1, true); }

void LineView::changeEvent(QEvent* e) {
  if (e->type() == QEvent::FontChange && chipLayout_) {  // icons and the note follow the zoomed font
    rebuildChips();
    note_->setFixedHeight(3 * fontMetrics().height());
  }
  QWidget::changeEvent(e);
}

void LineView::updateNote() {
  if (heads_ == 0) {
    note_->clear();
    return;
  }
  if (hover_ < 0) {
    const QString many = drawFloor() > 0 ? tr(" With this many tokens, lines under %1 are left out.").arg(kFloorWhenMany)
                                         : QString();
    note_->setText(tr("Each line's opacity is its attention weight (lines from [PAD] queries are fainter). "
                      "Hover a token to isolate its lines and read the weights; click a query to choose it.") + many);
    return;
  }
  const Layout l = layout();
  const int hidden = numbersFit(l) ? static_cast<int>(visibleHeads().size()) - l.pills : -1;
  const QString more = hidden < 0  ? tr(" Too many tokens for numbers here: make the view taller.")
                       : hidden > 0 ? tr(" (No room for %n more head(s): hide some to see them.)", "", hidden)
                                    : QString();
  const auto& tokens = hoverQuery_ ? qTokens_ : kTokens_;
  const QString token = QString::fromStdString(tokens[static_cast<size_t>(hover_)]);
  note_->setText(hoverQuery_ ? tr("Query “%1” (row %2): the numbers beside the keys are its weights, one per "
                                  "visible head; each head's row sums to 1.").arg(token).arg(hover_) + more
                             : tr("Key “%1” (column %2): the numbers beside the queries are the weights they "
                                  "give it, one per visible head.").arg(token).arg(hover_) + more);
}

QSize LineView::sizeHint() const {
  const int lh = fontMetrics().height();
  return {40 * lh, std::clamp(std::max(tq_, tk_) * lh * 3 / 2 + 8 * lh, 16 * lh, 40 * lh)};
}

QSize LineView::minimumSizeHint() const {
  const int lh = fontMetrics().height();
  return {20 * lh, 12 * lh};
}

}  // namespace attnlab::ui
