#include "views/neuronview.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QLabel>
#include <QPainter>
#include <QScrollArea>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "forward/model.h"
#include "views/colormap.h"
#include "views/modelview.h"
#include "words/numbers.h"

namespace attnlab::ui {

namespace {

QString num(double v, int decimals) { return formatNumber(v, {.digits = decimals, .fixed = true, .plusOnInfinity = true}); }

QColor textOn(const QColor& c) {
  const double lum = 0.2126 * c.redF() + 0.7152 * c.greenF() + 0.0722 * c.blueF();
  return lum > 0.5 ? Qt::black : Qt::white;
}

}  // namespace

// The table itself, painted: a header row, the q row, then one row per key.
class NeuronCanvas : public QWidget {
 public:
  explicit NeuronCanvas(const NeuronData& d, QWidget* parent) : QWidget(parent), d_(d) {}
  void refit();  // colour maps and size after new data
  QSize sizeHint() const override;
  QSize minimumSizeHint() const override { return sizeHint(); }

 protected:
  void paintEvent(QPaintEvent*) override;
  bool event(QEvent* e) override;

 private:
  struct Cols {
    double lh = 0, pad = 0, rowH = 0, tokW = 0, cellW = 0, numW = 0, barW = 0;
    double kX = 0, pX = 0, dotX = 0, scoreX = 0, wX = 0;  // left edges of the columns
    int decimals = -1;     // digits after the point in strip cells; -1: colour only (tooltips)
  };
  Cols cols(double width) const;
  double rowY(int row) const { return cols(width()).rowH * (row + 2); }  // row -1 = the q row
  void paintHeader(QPainter& p, const Cols& c) const;
  void paintStrip(QPainter& p, const Cols& c, double x, double y, const float* f, const double* dbl,
                  const ColorMap& map) const;
  void paintKey(QPainter& p, const Cols& c, int j) const;

  const NeuronData& d_;
  ColorMap vecMap_, prodMap_;
};

void NeuronCanvas::refit() {
  std::vector<float> v(d_.q.begin(), d_.q.end()), prod(d_.products.begin(), d_.products.end());
  v.insert(v.end(), d_.k.begin(), d_.k.end());
  vecMap_ = ColorMap::fitted(v.data(), static_cast<long long>(v.size()), false);
  prodMap_ = ColorMap::fitted(prod.data(), static_cast<long long>(prod.size()), false);
  updateGeometry();
  update();
}

// token | k_j strip | q∘k_j strip | Σ | ÷√Dh | weight (bar + number)
NeuronCanvas::Cols NeuronCanvas::cols(double width) const {
  Cols c;
  const QFontMetricsF fm(font());
  c.lh = fm.height();
  c.pad = std::ceil(c.lh / 2);
  c.rowH = std::ceil(c.lh * 1.5);
  double longest = fm.horizontalAdvance(NeuronView::tr("q (“%1”)").arg(QString::fromStdString(d_.queryToken)));
  for (const auto& t : d_.keyTokens) longest = std::max(longest, fm.horizontalAdvance(QString::fromStdString(t)));
  c.tokW = std::min(std::ceil(longest) + c.pad, 14 * fm.averageCharWidth());
  QFont bold = font();
  bold.setBold(true);
  const QFontMetricsF bfm(bold);  // the headings of the number columns must fit
  c.numW = std::ceil(std::max({fm.horizontalAdvance(QStringLiteral("−00.000")), bfm.horizontalAdvance(NeuronView::tr("q·k_j")),
                               bfm.horizontalAdvance(NeuronView::tr("÷ √Dh"))}) + c.pad / 2);
  c.barW = 5 * c.lh;
  const double fixed = c.tokW + 3 * c.numW + c.barW + 6 * c.pad;
  const int dh = std::max(1, d_.dh);
  const double fit = (width - fixed) / (2 * dh);  // widest cell the width allows
  auto cellFor = [&](const char* sample) { return std::ceil(fm.horizontalAdvance(QString::fromUtf8(sample)) + c.lh / 4); };
  const double two = cellFor("−0.00"), one = cellFor("−0.0");
  c.decimals = fit >= two ? 2 : fit >= one ? 1 : -1;
  c.cellW = c.decimals == 2 ? two : c.decimals == 1 ? one : std::floor(std::max(6.0, fit));
  c.kX = c.pad + c.tokW + c.pad;
  c.pX = c.kX + dh * c.cellW + 2 * c.pad;
  c.dotX = c.pX + dh * c.cellW + c.pad;
  c.scoreX = c.dotX + c.numW;
  c.wX = c.scoreX + c.numW + c.pad;
  return c;
}

QSize NeuronCanvas::sizeHint() const {
  const Cols c = cols(0);  // the narrowest layout (colour-only cells)
  return {static_cast<int>(c.wX + c.barW + c.numW + c.pad), static_cast<int>(c.rowH * (d_.tk + 2) + c.pad)};
}

void NeuronCanvas::paintHeader(QPainter& p, const Cols& c) const {
  QFont bold = font();
  bold.setBold(true);
  p.setFont(bold);
  const QFontMetricsF fm(bold);
  auto head = [&](double x, double w, const QString& s, Qt::Alignment a = Qt::AlignLeft) {
    p.drawText(QRectF(x, 0, w, c.rowH), a | Qt::AlignVCenter, fm.elidedText(s, Qt::ElideRight, w));
  };
  const double stripW = d_.dh * c.cellW;
  head(c.pad, c.tokW, NeuronView::tr("key j"), Qt::AlignRight);
  head(c.kX, stripW + c.pad, NeuronView::tr("k_j (key)"));
  head(c.pX, stripW + c.pad, NeuronView::tr("q ∘ k_j"));
  head(c.dotX, c.numW, NeuronView::tr("q·k_j"), Qt::AlignRight);
  head(c.scoreX, c.numW, NeuronView::tr("÷ √Dh"), Qt::AlignRight);
  head(c.wX, c.barW + c.numW, NeuronView::tr("softmax weight"));
  p.setFont(font());
  // The q row: the query vector above the key vectors, and a reminder above the products.
  const double y = c.rowH;
  p.drawText(QRectF(c.pad, y, c.tokW, c.rowH), Qt::AlignRight | Qt::AlignVCenter,
             QFontMetricsF(font()).elidedText(NeuronView::tr("q (“%1”)").arg(QString::fromStdString(d_.queryToken)),
                                              Qt::ElideRight, c.tokW));
  paintStrip(p, c, c.kX, y, d_.q.data(), nullptr, vecMap_);
  const double room = std::max(0.0, width() - c.pX - c.pad);
  p.drawText(QRectF(c.pX, y, room, c.rowH), Qt::AlignLeft | Qt::AlignVCenter,
             QFontMetricsF(font()).elidedText(NeuronView::tr("cell d = q[d] × k_j[d]; the cells add up to q·k_j"),
                                              Qt::ElideRight, room));
}

// Dh coloured cells from floats f or doubles dbl, with numbers when they fit.
void NeuronCanvas::paintStrip(QPainter& p, const Cols& c, double x, double y, const float* f, const double* dbl,
                              const ColorMap& map) const {
  const double inset = std::ceil(c.rowH * 0.1);
  for (int dd = 0; dd < d_.dh; ++dd) {
    const double v = f ? f[dd] : dbl[dd];
    const QRectF cell(x + dd * c.cellW, y + inset, c.cellW, c.rowH - 2 * inset);
    const QColor col = map.color(v);
    p.fillRect(cell, col);
    if (c.decimals < 0) continue;
    p.setPen(textOn(col));
    p.drawText(cell, Qt::AlignCenter, num(v, c.decimals));
  }
  p.setPen(palette().color(QPalette::Mid));
  p.drawRect(QRectF(x, y + inset, d_.dh * c.cellW, c.rowH - 2 * inset));
  p.setPen(palette().color(QPalette::WindowText));
}

void NeuronCanvas::paintKey(QPainter& p, const Cols& c, int j) const {
  const double y = rowY(j);
  const auto sj = static_cast<size_t>(j);
  const bool masked = d_.masked[sj] != 0;
  const bool pad = d_.keyTokens[sj] == kPadToken;
  const QFontMetricsF fm(font());
  QColor text = palette().color(QPalette::WindowText);
  if (masked || pad) text.setAlphaF(0.55f);
  p.setPen(text);
  p.drawText(QRectF(c.pad, y, c.tokW, c.rowH), Qt::AlignRight | Qt::AlignVCenter,
             fm.elidedText(QString::fromStdString(d_.keyTokens[sj]), Qt::ElideRight, c.tokW));
  p.setPen(palette().color(QPalette::WindowText));
  paintStrip(p, c, c.kX, y, d_.k.data() + sj * d_.dh, nullptr, vecMap_);
  paintStrip(p, c, c.pX, y, nullptr, d_.products.data() + sj * d_.dh, prodMap_);
  p.drawText(QRectF(c.dotX, y, c.numW, c.rowH), Qt::AlignRight | Qt::AlignVCenter, num(d_.dots[sj], 3));
  p.drawText(QRectF(c.scoreX, y, c.numW, c.rowH), Qt::AlignRight | Qt::AlignVCenter, num(d_.scores[sj], 3));
  const QRectF bar(c.wX, y + c.rowH * 0.2, c.barW, c.rowH * 0.6);
  if (masked) {
    ColorLegend::paintMaskedMark(p, bar);
    p.drawText(QRectF(bar.right() + c.pad / 2, y, c.numW * 2, c.rowH), Qt::AlignLeft | Qt::AlignVCenter,
               NeuronView::tr("%1 (masked: −∞)").arg(num(d_.weights[sj], 3)));
    return;
  }
  const float w = d_.weights[sj];
  p.fillRect(bar, palette().color(QPalette::AlternateBase));
  const double frac = std::isfinite(w) ? std::clamp<double>(w, 0, 1) : 0;
  p.fillRect(QRectF(bar.left(), bar.top(), bar.width() * frac, bar.height()), palette().color(QPalette::Highlight));
  p.drawRect(bar);
  p.drawText(QRectF(bar.right() + c.pad / 2, y, c.numW, c.rowH), Qt::AlignLeft | Qt::AlignVCenter, num(w, 3));
}

void NeuronCanvas::paintEvent(QPaintEvent*) {
  if (d_.tk == 0) return;
  QPainter p(this);
  p.setFont(font());
  p.setPen(palette().color(QPalette::WindowText));
  const Cols c = cols(width());
  paintHeader(p, c);
  for (int j = 0; j < d_.tk; ++j) paintKey(p, c, j);
}

// Hovering a strip cell names it (needed when the cells are too narrow for their numbers).
bool NeuronCanvas::event(QEvent* e) {
  if (e->type() != QEvent::ToolTip || d_.tk == 0) return QWidget::event(e);
  const auto* he = static_cast<QHelpEvent*>(e);
  const Cols c = cols(width());
  const int row = static_cast<int>(std::floor(he->pos().y() / c.rowH)) - 2;  // -1 = the q row
  const double x = he->pos().x();
  const bool inK = x >= c.kX && x < c.kX + d_.dh * c.cellW, inP = x >= c.pX && x < c.pX + d_.dh * c.cellW;
  if (row < -1 || row >= d_.tk || (!inK && !inP) || (row == -1 && !inK)) {
    QToolTip::hideText();
    e->ignore();
    return true;
  }
  const int dd = static_cast<int>((x - (inK ? c.kX : c.pX)) / c.cellW);
  const auto at = static_cast<size_t>(std::max(row, 0)) * d_.dh + dd;
  const QString text = row < 0 ? NeuronView::tr("q[%1] = %2").arg(dd).arg(num(d_.q[dd], 4))
                       : inK   ? NeuronView::tr("k_%1[%2] = %3").arg(row).arg(dd).arg(num(d_.k[at], 4))
                               : NeuronView::tr("q[%1] × k_%2[%1] = %3 × %4 = %5")
                                   .arg(dd).arg(row).arg(num(d_.q[dd], 4), num(d_.k[at], 4), num(d_.products[at], 4));
  QToolTip::showText(he->globalPos(), text, this);
  return true;
}

// ---- NeuronView ----------------------------------------------------------------------------

// [caption]            [Query: (chooser)]
// [formula]
// [scrolling table]
// [note]
NeuronView::NeuronView(QWidget* parent) : QWidget(parent) {
  caption_ = new QLabel(this);
  caption_->setObjectName(QStringLiteral("caption"));
  caption_->setWordWrap(true);
  chooser_ = new QComboBox(this);
  chooser_->setObjectName(QStringLiteral("query"));
  chooser_->setToolTip(tr("The query token whose row of scores is taken apart"));
  connect(chooser_, &QComboBox::currentIndexChanged, this, &NeuronView::chooseQuery);
  formula_ = new QLabel(this);
  formula_->setObjectName(QStringLiteral("formula"));
  formula_->setWordWrap(true);
  canvas_ = new NeuronCanvas(data_, this);
  scroll_ = new QScrollArea(this);
  scroll_->setWidget(canvas_);
  scroll_->setWidgetResizable(true);
  scroll_->setFrameShape(QFrame::NoFrame);
  note_ = new QLabel(this);
  note_->setObjectName(QStringLiteral("note"));
  note_->setWordWrap(true);
  auto* top = new QHBoxLayout;
  top->addWidget(caption_, 1);
  top->addWidget(new QLabel(tr("Query:"), this));
  top->addWidget(chooser_);
  auto* v = new QVBoxLayout(this);
  v->addLayout(top);
  v->addWidget(formula_);
  v->addWidget(scroll_, 1);
  v->addWidget(note_);
}

void NeuronView::setSelection(const ViewSelection& sel) {
  const bool newRows = sel.result != sel_.result || sel.block != sel_.block || sel.batch != sel_.batch;
  sel_ = sel;
  if (newRows) fillChooser();
  load();
}

void NeuronView::fillChooser() {
  const QSignalBlocker block(chooser_);
  chooser_->clear();
  const Step* w = sel_.result && !sel_.block.empty() ? sel_.result->trace.find(sel_.blockStep("weights")) : nullptr;
  if (!w) return;
  const int64_t b = std::clamp<int64_t>(sel_.batch, 0, w->tensor.size(0) - 1);
  const AxisTokens tokens = attention_tokens(sel_.result->batch, w->info.id, b);
  for (size_t i = 0; i < tokens.query.size(); ++i)
    chooser_->addItem(tr("%1 · %2").arg(i).arg(QString::fromStdString(tokens.query[i])));
}

void NeuronView::chooseQuery(int query) {
  if (query < 0 || query == sel_.query) return;
  sel_.query = query;
  load();
  emit queryChosen(query);
}

QVector<double> NeuronView::product(int key) const {
  const auto* p = data_.products.data() + static_cast<size_t>(key) * data_.dh;
  return {p, p + data_.dh};
}

// Reads one query row of one head out of the block's q, k, qk, scores, masked_scores, weights.
void NeuronView::load() {
  data_ = NeuronData{};
  const Trace* trace = sel_.result ? &sel_.result->trace : nullptr;
  auto find = [&](const char* name) { return trace && !sel_.block.empty() ? trace->find(sel_.blockStep(name)) : nullptr; };
  const Step *q = find("q"), *k = find("k"), *qk = find("qk"), *sc = find("scores"), *ms = find("masked_scores"),
             *w = find("weights");
  if (!q || !k || !qk || !sc || !ms || !w || q->tensor.dim() != 4) {
    caption_->setText(tr("Choose a step inside the model to see how one query's scores are made."));
    formula_->clear();
    note_->clear();
    canvas_->refit();
    return;
  }
  const Tensor &tq = q->tensor, &tk = k->tensor;  // (B, H, Tq, Dh), (B, H, Tk, Dh)
  const int64_t b = std::clamp<int64_t>(sel_.batch, 0, tq.size(0) - 1);
  const int64_t h = std::clamp<int64_t>(sel_.head, 0, tq.size(1) - 1);
  const int64_t i = std::clamp<int64_t>(sel_.query, 0, tq.size(2) - 1);
  NeuronData& d = data_;
  d.dh = static_cast<int>(tq.size(3));
  d.tk = static_cast<int>(tk.size(2));
  d.query = static_cast<int>(i);
  const AxisTokens tokens = attention_tokens(sel_.result->batch, w->info.id, b);
  d.queryToken = tokens.query.at(static_cast<size_t>(i));
  d.keyTokens = tokens.key;
  for (int64_t dd = 0; dd < d.dh; ++dd) d.q.push_back(tq.at({b, h, i, dd}));
  for (int64_t j = 0; j < d.tk; ++j) {
    double dot = 0;
    for (int64_t dd = 0; dd < d.dh; ++dd) {
      const float kv = tk.at({b, h, j, dd});
      const double prod = static_cast<double>(d.q[static_cast<size_t>(dd)]) * kv;
      d.k.push_back(kv);
      d.products.push_back(prod);
      dot += prod;
    }
    d.dots.push_back(dot);
    d.qk.push_back(qk->tensor.at({b, h, i, j}));
    d.scores.push_back(sc->tensor.at({b, h, i, j}));
    const float m = ms->tensor.at({b, h, i, j});
    d.masked.push_back(std::isinf(m) && m < 0);
    d.weights.push_back(w->tensor.at({b, h, i, j}));
  }
  {
    const QSignalBlocker block(chooser_);
    chooser_->setCurrentIndex(d.query);
  }
  caption_->setText(tr("%1 · head %2 · sentence %3").arg(ModelView::blockName(sel_.block)).arg(h).arg(b));
  formula_->setText(tr("weight_j = softmax_j( (q · k_j) / √Dh ),  Dh = %1,  √Dh = %2")
                        .arg(d.dh).arg(std::sqrt(static_cast<double>(d.dh)), 0, 'g', 4));
  note_->setText(tr("The dot product adds up the element-wise products: a key whose vector points the same way as "
                    "q scores high. Dividing by √Dh keeps scores from growing with the head size; softmax turns "
                    "them into weights that sum to 1. Masked keys become −∞ before the softmax, so their weight is 0."));
  canvas_->refit();
}

}  // namespace attnlab::ui
