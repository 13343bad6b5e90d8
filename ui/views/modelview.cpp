#include "views/modelview.h"

#include <QLinearGradient>
#include <QMouseEvent>
#include <QPainter>

#include <algorithm>
#include <cmath>

#include "words/stepnames.h"

namespace attnlab::ui {

namespace {

constexpr const char* kWeights = ".weights";

// Copies (H, Tq, Tk) of batch row b out of a (B, H, Tq, Tk) tensor.
std::vector<float> sentenceSlice(const Tensor& t, int64_t b) {
  const int64_t per = t.size(1) * t.size(2) * t.size(3);
  std::vector<float> out(static_cast<size_t>(per));
  if (t.is_contiguous()) {  // the usual case: softmax and masking write fresh C-order tensors
    std::copy_n(t.data() + b * per, per, out.begin());
    return out;
  }
  for (int64_t n = 0; n < per; ++n) out[static_cast<size_t>(n)] = t.at_linear(b * per + n);
  return out;
}

// Two lines for a row label: "Encoder layer 0" and "Self-attention" (layers count from 0, as the ids).
QStringList rowLabel(const std::string& block) {
  const StepPlace where = StepNames::place(block + kWeights);
  return {ModelView::tr("%1 layer %2").arg(where.stack).arg(where.layer), where.block};
}

}  // namespace

QString ModelView::blockName(const std::string& block) {
  const QStringList l = rowLabel(block);
  return tr("%1 · %2").arg(l.at(0), l.at(1));
}

ModelView::ModelView(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void ModelView::setSelection(const ViewSelection& sel) {
  const bool reload = sel.result != sel_.result || sel.batch != sel_.batch;
  sel_ = sel;
  if (reload) load();
  update();
}

// Every `<block>.weights` step of the trace, in order, for the chosen sentence.
void ModelView::load() {
  blocks_.clear();
  heads_ = 0;
  hover_ = {-1, -1};
  if (!sel_.result) return;
  std::vector<float> all;
  for (const Step& s : sel_.result->trace.steps()) {
    const std::string& id = s.info.id;
    if (!id.ends_with(kWeights) || s.tensor.dim() != 4) continue;
    if (id.find(".variant.") != std::string::npos) continue;  // a variant beside a block is not a block
    const Tensor& t = s.tensor;  // (B, H, Tq, Tk)
    const int64_t b = std::clamp<int64_t>(sel_.batch, 0, t.size(0) - 1);
    Block blk;
    blk.id = id.substr(0, id.size() - std::string(kWeights).size());
    blk.tq = static_cast<int>(t.size(2));
    blk.tk = static_cast<int>(t.size(3));
    blk.w = sentenceSlice(t, b);
    if (const Step* m = sel_.result->trace.find(blk.id + ".masked_scores"); m && m->tensor.shape() == t.shape()) {
      const std::vector<float> ms = sentenceSlice(m->tensor, b);
      blk.masked.resize(ms.size());
      for (size_t n = 0; n < ms.size(); ++n) blk.masked[n] = std::isinf(ms[n]) && ms[n] < 0;
    }
    heads_ = std::max(heads_, static_cast<int>(t.size(1)));
    all.insert(all.end(), blk.w.begin(), blk.w.end());
    blocks_.push_back(std::move(blk));
  }
  map_ = ColorMap::fitted(all.data(), static_cast<long long>(all.size()), true);
  imageSide_ = -1;
  rebuildImages();
}

QImage ModelView::thumbnail(const Block& b, int head, int side) const {
  const int h = std::clamp(b.tq, 1, std::max(1, side)), w = std::clamp(b.tk, 1, std::max(1, side));
  QImage img(w, h, QImage::Format_RGB32);
  const size_t base = static_cast<size_t>(head) * b.tq * b.tk;
  for (int y = 0; y < h; ++y) {
    const int r0 = y * b.tq / h, r1 = std::max(r0 + 1, (y + 1) * b.tq / h);
    auto* line = reinterpret_cast<QRgb*>(img.scanLine(y));
    for (int x = 0; x < w; ++x) {
      const int c0 = x * b.tk / w, c1 = std::max(c0 + 1, (x + 1) * b.tk / w);
      double sum = 0;
      int n = 0, masked = 0;
      bool nan = false;
      for (int r = r0; r < r1; ++r)
        for (int c = c0; c < c1; ++c) {
          const size_t at = base + static_cast<size_t>(r) * b.tk + c;
          if (!b.masked.empty() && b.masked[at]) ++masked;
          else if (std::isnan(b.w[at])) nan = true;
          else sum += b.w[at], ++n;
        }
      line[x] = nan ? ColorMap::nanColor().rgb()
                : n == 0 ? ColorMap::maskedColor().rgb()
                         : map_.color(sum / n).rgb();
    }
  }
  return img;
}

void ModelView::rebuildImages() {
  const int side = std::max(1, static_cast<int>(grid().cell));
  if (side == imageSide_ && colorScheme() == imageScheme_) return;
  imageSide_ = side;
  imageScheme_ = colorScheme();
  for (Block& b : blocks_) {
    b.images.clear();
    const int h = b.tq > 0 ? static_cast<int>(b.w.size() / (static_cast<size_t>(b.tq) * b.tk)) : 0;
    for (int head = 0; head < h; ++head) b.images.push_back(thumbnail(b, head, side));
  }
}

// [title line]
// [          head 0  head 1 …]
// [row label  ▦       ▦     …]
// [legend line]
ModelView::Grid ModelView::grid() const {
  Grid g;
  const QFontMetricsF fm(font());
  const double lh = fm.height(), pad = std::ceil(lh / 2);
  for (const Block& b : blocks_)
    for (const QString& s : rowLabel(b.id)) g.labelW = std::max(g.labelW, fm.horizontalAdvance(s));
  g.labelW = std::min(std::ceil(g.labelW) + pad, width() * 0.35);
  g.headerH = lh + pad / 2;
  g.gap = std::max(3.0, std::ceil(lh / 4));
  const double top = lh + pad;
  const double availW = width() - g.labelW - 2 * pad, availH = height() - top - g.headerH - 2 * lh - pad;
  const int n = std::max(1, heads_), r = std::max(1, rows());
  g.cell = std::floor(std::min((availW - g.gap * (n - 1)) / n, (availH - g.gap * (r - 1)) / r));
  g.cell = std::max(4.0, std::min(g.cell, 12 * lh));
  const double gridW = n * g.cell + (n - 1) * g.gap;
  g.origin = QPointF(std::round(pad + g.labelW + std::max(0.0, (availW - gridW) / 2)), top + g.headerH);
  return g;
}

QRect ModelView::thumbnailRect(int row, int head) const {
  if (row < 0 || row >= rows() || head < 0 || head >= heads_) return {};
  const Grid g = grid();
  const int c = static_cast<int>(g.cell);
  return {static_cast<int>(g.origin.x() + head * (g.cell + g.gap)), static_cast<int>(g.origin.y() + row * (g.cell + g.gap)),
          c, c};
}

float ModelView::thumbnailValue(int row, int head, int i, int j) const {
  const Block& b = blocks_.at(static_cast<size_t>(row));
  return b.w.at((static_cast<size_t>(head) * b.tq + i) * b.tk + j);
}

QPoint ModelView::hitTest(QPointF pos) const {
  for (int r = 0; r < rows(); ++r)
    for (int h = 0; h < heads_; ++h)
      if (QRectF(thumbnailRect(r, h)).contains(pos)) return {h, r};
  return {-1, -1};
}

void ModelView::paintLabels(QPainter& p, const Grid& g) const {
  const QFontMetricsF fm(font());
  const double lh = fm.height(), pad = std::ceil(lh / 2);
  const QString title = sel_.result ? tr("Sentence %1 · rows: attention blocks · columns: heads · click one to open it")
                                          .arg(std::clamp(sel_.batch, 0, std::max(0, static_cast<int>(sel_.result->batch.text.batch()) - 1)))
                                    : tr("No model yet.");
  p.drawText(QRectF(pad, pad / 2, width() - 2 * pad, lh), Qt::AlignLeft | Qt::AlignVCenter,
             fm.elidedText(title, Qt::ElideRight, width() - 2 * pad));
  for (int h = 0; h < heads_; ++h) {
    const QRect r = thumbnailRect(0, h);
    const QString s = fm.elidedText(tr("head %1").arg(h), Qt::ElideRight, r.width() + g.gap);
    p.drawText(QRectF(r.left() - g.gap / 2, g.origin.y() - g.headerH, r.width() + g.gap, lh), Qt::AlignCenter, s);
  }
  for (int row = 0; row < rows(); ++row) {
    const QRect r = thumbnailRect(row, 0);
    const QStringList lines = rowLabel(blocks_[static_cast<size_t>(row)].id);
    const bool two = r.height() >= 2 * lh;
    const QString text = two ? lines.join(QLatin1Char('\n')) : lines.join(QStringLiteral(" · "));
    const QRectF box(g.origin.x() - g.labelW - pad / 2, r.center().y() - (two ? lh : lh / 2), g.labelW - pad / 2,
                     two ? 2 * lh : lh);  // right next to its row
    p.drawText(box, Qt::AlignRight | Qt::AlignVCenter,
               two ? text : fm.elidedText(text, Qt::ElideRight, box.width()));
  }
}

void ModelView::paintEvent(QPaintEvent*) {
  rebuildImages();  // a no-op unless the thumbnail size (resize, zoom) or the colour scheme changed
  QPainter p(this);
  p.setFont(font());
  p.setPen(palette().color(QPalette::WindowText));
  const Grid g = grid();
  paintLabels(p, g);
  if (blocks_.empty()) return;
  for (int row = 0; row < rows(); ++row) {
    const Block& b = blocks_[static_cast<size_t>(row)];
    for (int h = 0; h < static_cast<int>(b.images.size()); ++h) p.drawImage(thumbnailRect(row, h), b.images[static_cast<size_t>(h)]);
  }
  const QFontMetricsF fm(font());
  for (int row = 0; row < rows(); ++row) {
    const bool current = blocks_[static_cast<size_t>(row)].id == sel_.block;
    for (int h = 0; h < heads_; ++h) {
      const QRectF r = QRectF(thumbnailRect(row, h)).adjusted(-1.5, -1.5, 1.5, 1.5);
      if (current && h == sel_.head) p.setPen(QPen(palette().color(QPalette::Highlight), std::max(3.0, g.gap - 1)));
      else if (hover_ == QPoint(h, row)) p.setPen(QPen(palette().color(QPalette::WindowText), 2));
      else p.setPen(QPen(palette().color(QPalette::Mid), 1));
      p.setBrush(Qt::NoBrush);
      p.drawRect(r);
    }
  }
  paintKey(p, thumbnailRect(rows() - 1, 0).bottom() + fm.height() / 2 + 2);
}

// The shared scale and the grey of masked cells, wrapped onto a second line when narrow.
void ModelView::paintKey(QPainter& p, double y) const {
  const QFontMetricsF fm(font());
  const double lh = fm.height(), pad = std::ceil(lh / 2);
  p.setPen(palette().color(QPalette::WindowText));
  const QRectF bar(pad, y + lh * 0.1, std::min(8 * lh, width() / 4.0), lh * 0.8);
  QLinearGradient grad(bar.topLeft(), bar.topRight());
  for (int k = 0; k <= 8; ++k) grad.setColorAt(k / 8.0, map_.color(map_.lo + (map_.hi - map_.lo) * k / 8.0));
  p.fillRect(bar, grad);
  const QString key = tr("weight %1 … %2, one scale for every thumbnail").arg(map_.lo, 0, 'g', 3).arg(map_.hi, 0, 'g', 3);
  const double keyW = fm.horizontalAdvance(key) + 2;
  p.drawText(QRectF(bar.right() + lh / 2, y, keyW, lh), Qt::AlignVCenter, key);
  const QString label = tr("masked");
  QPointF at(bar.right() + lh + keyW, y);
  if (at.x() + lh + fm.horizontalAdvance(label) > width() - pad) at = QPointF(pad, y + lh * 1.2);
  p.fillRect(QRectF(at.x(), at.y() + lh * 0.1, lh * 0.8, lh * 0.8), ColorMap::maskedColor());  // too small to hatch
  p.drawText(QRectF(at.x() + lh, at.y(), fm.horizontalAdvance(label) + 2, lh), Qt::AlignVCenter, label);
}

void ModelView::mouseMoveEvent(QMouseEvent* e) {
  const QPoint hit = hitTest(e->position());
  if (hit == hover_) return;
  hover_ = hit;
  setToolTip(hit.x() < 0 ? QString()
                         : tr("%1, head %2 — click to open it").arg(blockName(rowBlock(hit.y()))).arg(hit.x()));
  update();
}

void ModelView::leaveEvent(QEvent*) {
  hover_ = {-1, -1};
  update();
}

void ModelView::mouseReleaseEvent(QMouseEvent* e) {
  if (e->button() != Qt::LeftButton) return;
  const QPoint hit = hitTest(e->position());
  if (hit.x() < 0) return;
  emit blockChosen(QString::fromStdString(rowBlock(hit.y())), hit.x());
}

void ModelView::resizeEvent(QResizeEvent*) { rebuildImages(); }

QSize ModelView::sizeHint() const {
  const int lh = fontMetrics().height();
  return {std::max(30 * lh, 12 * lh + heads_ * 5 * lh), std::clamp(rows() * 5 * lh + 5 * lh, 16 * lh, 60 * lh)};
}

QSize ModelView::minimumSizeHint() const {
  const int lh = fontMetrics().height();
  return {20 * lh, 10 * lh};
}

}  // namespace attnlab::ui
