#include "views/heatmapview.h"

#include <QMouseEvent>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <limits>

#include "words/qtstrings.h"

namespace attnlab::ui {

namespace {

// About how many Latin letters wide a UTF-8 label is: a wide (CJK) character counts 2.
size_t roughWidth(const std::string& s) {
  size_t w = 0;
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const size_t len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    w += len >= 3 ? 2 : 1;
    i += len;
  }
  return w;
}

// The widest label. A long text's axis has thousands: only the 64 roughly widest are measured.
double longest(const QFontMetricsF& fm, const std::vector<std::string>& labels) {
  constexpr size_t kMeasured = 64;
  std::vector<const std::string*> pick;
  pick.reserve(labels.size());
  for (const auto& s : labels) pick.push_back(&s);
  if (pick.size() > kMeasured) {
    std::nth_element(pick.begin(), pick.begin() + kMeasured, pick.end(),
                     [](const std::string* a, const std::string* b) { return roughWidth(*a) > roughWidth(*b); });
    pick.resize(kMeasured);
  }
  double w = 0;
  for (const std::string* s : pick) w = std::max(w, fm.horizontalAdvance(QString::fromStdString(*s)));
  return std::ceil(w);
}

double snap(double cell) { return cell >= 3 ? std::floor(cell) : cell; }  // equal, crisp cells

}  // namespace

HeatmapView::HeatmapView(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void HeatmapView::setMatrix(const float* values, int rows, int cols, const std::vector<std::string>& rowLabels,
                            const std::vector<std::string>& colLabels, const ColorMap& map) {
  owned_.assign(values, values + static_cast<size_t>(std::max(0, rows)) * std::max(0, cols));
  setMatrixShared(nullptr, owned_.data(), rows, cols, rowLabels, colLabels, map, false);
}

void HeatmapView::setMatrixShared(std::shared_ptr<const void> keep, const float* values, int rows, int cols,
                                  const std::vector<std::string>& rowLabels, const std::vector<std::string>& colLabels,
                                  const ColorMap& map, bool drawnElsewhere) {
  rows_ = std::max(0, rows);
  cols_ = std::max(0, cols);
  if (values != owned_.data()) owned_.clear();
  keep_ = std::move(keep);
  values_ = values;
  external_ = drawnElsewhere;
  overview_ = QImage();
  masked_.clear();
  rowMax_.clear();
  log_ = false;
  rowLabels_ = shownTokens(rowLabels);  // a 1 MiB token is drawn as its first 40 characters
  colLabels_ = shownTokens(colLabels);
  longestRow_ = longestCol_ = -1;
  map_ = map;
  hover_ = {-1, -1};
  rebuildImage();
  updateGeometry();
  update();
}

void HeatmapView::setOverview(QImage overview) {
  overview_ = std::move(overview);
  rebuildImage();
  update();
}

float HeatmapView::value(int r, int c) const {
  if (!values_ || r < 0 || c < 0 || r >= rows_ || c >= cols_) return std::numeric_limits<float>::quiet_NaN();
  return values_[static_cast<size_t>(r) * cols_ + c];
}

void HeatmapView::setTitle(const QString& title) {
  title_ = title;
  rebuildImage();
  update();
}

void HeatmapView::setShowLabels(bool on) {
  showLabels_ = on;
  rebuildImage();
  updateGeometry();
  update();
}

void HeatmapView::setHighlighted(bool on) {
  highlighted_ = on;
  update();
}

// Title on top; row labels left of the cells, column labels below them (vertical when they do
// not fit across a cell: Latin text turned to read upwards, Chinese characters kept upright and
// stacked); the downsampling note at the bottom.
double HeatmapView::labelCap() const {
  const QFontMetricsF fm(font());
  return std::max(3 * fm.height(), fm.averageCharWidth() * 10);
}

HeatmapView::Margins HeatmapView::marginsFor(double cell, bool labels) const {
  Margins m;
  const QFontMetricsF fm(font());
  const double lh = fm.height(), pad = std::ceil(lh / 4);
  const bool rowsOn = labels && showLabels_ && !rowLabels_.empty(), colsOn = labels && showLabels_ && !colLabels_.empty();
  const double rowW = rowsOn ? std::min(labelCap(), longestLabel(true)) + pad : 0;
  const double colW = colsOn ? std::min(labelCap(), longestLabel(false)) : 0;
  m.rowLabels = rowW;
  m.left = pad + rowW;
  m.top = title_.isEmpty() ? pad : lh + 2 * pad;
  m.right = pad;
  m.bottomBare = pad;
  m.turned = colsOn && colW + pad > cell;  // the column labels do not fit across a cell
  m.bottom = (colsOn ? (m.turned ? colW : lh) + pad : 0) + pad;
  QFont bold = font();
  bold.setBold(true);
  m.titleWidth = QFontMetricsF(bold).horizontalAdvance(title_);
  return m;
}

void HeatmapView::setFixedCell(double cell) {
  fixedCell_ = cell;
  rebuildImage();
  update();
}

void HeatmapView::setLabelSides(bool rows, bool cols) {
  rowSide_ = rows;
  colSide_ = cols;
  rebuildImage();
  update();
}

HeatmapView::Geometry HeatmapView::geometryFor(QSizeF size) const {
  Geometry g;
  if (rows_ == 0 || cols_ == 0) return g;
  const QFontMetricsF fm(font());
  const double lh = fm.height();
  g.labelW = labelCap();
  Margins m = marginsFor(0);
  const double left = m.left - (rowSide_ ? 0 : m.rowLabels), availW = std::max(1.0, size.width() - left - m.right);
  m = marginsFor(fixedCell_ > 0 ? fixedCell_ : availW / cols_);  // the cell the column labels must fit across
  const double pad = std::ceil(lh / 4);
  const double colW = showLabels_ && !colLabels_.empty() ? std::min(g.labelW, longestLabel(false)) : 0.0;
  g.colRotated = colSide_ && m.turned;
  double availH = std::max(1.0, size.height() - m.top - (colSide_ ? m.bottom : m.bottomBare));
  g.downsample = cols_ > availW || rows_ > availH;
  if (g.downsample) availH = std::max(1.0, availH - lh);
  double cw = availW / cols_, ch = availH / rows_;
  if (fixedCell_ > 0) cw = ch = fixedCell_;  // a grid's head: its cells are the grid's
  else if (maxCellLines_ > 0) cw = std::min(cw, maxCellLines_ * lh), ch = std::min(ch, maxCellLines_ * lh);
  cw = snap(std::min(cw, ch * maxAspect_));
  ch = snap(std::min(ch, cw * maxAspect_));
  g.plot = QRectF(std::round(left + (availW - cw * cols_) / 2), m.top, cw * cols_, ch * rows_);
  g.rowStep = std::max(1, static_cast<int>(std::ceil(lh / ch)));
  g.colStep = std::max(1, static_cast<int>(std::ceil((g.colRotated ? lh : colW + pad) / cw)));
  return g;
}

void HeatmapView::setCellShape(double maxAspect, double maxCellLines) {
  maxAspect_ = std::max(1.0, maxAspect);
  maxCellLines_ = std::max(0.0, maxCellLines);
  rebuildImage();
  update();
}

double HeatmapView::longestLabel(bool rows) const {
  if (measuredFont_ != font()) {
    measuredFont_ = font();
    longestRow_ = longestCol_ = -1;
  }
  double& w = rows ? longestRow_ : longestCol_;
  if (w < 0) w = longest(QFontMetricsF(font()), rows ? rowLabels_ : colLabels_);
  return w;
}

QRectF HeatmapView::plotRect() const { return geometry().plot; }

QPoint HeatmapView::cellAt(QPointF pos) const {
  const QRectF plot = plotRect();
  if (rows_ == 0 || cols_ == 0 || !plot.contains(pos)) return {-1, -1};
  const int c = std::clamp(static_cast<int>((pos.x() - plot.left()) / plot.width() * cols_), 0, cols_ - 1);
  const int r = std::clamp(static_cast<int>((pos.y() - plot.top()) / plot.height() * rows_), 0, rows_ - 1);
  return {c, r};
}

QRectF HeatmapView::cellRect(int r, int c) const {
  const QRectF plot = plotRect();
  if (rows_ == 0 || cols_ == 0) return {};
  const double cw = plot.width() / cols_, ch = plot.height() / rows_;
  return {plot.left() + c * cw, plot.top() + r * ch, cw, ch};
}

// One pixel per cell, or one pixel per block of cells when there are more cells than pixels:
// made at the next paint (a title, the labels or the size change it; made once, not each time).
void HeatmapView::rebuildImage() {
  const Geometry g = geometry();
  downsampled_ = g.downsample;
  setAccessibleDescription(downsampled_ ? tr("downsampled from %1×%2").arg(rows_).arg(cols_) : QString());
  imageStale_ = true;
}

void HeatmapView::makeImage() {
  imageStale_ = false;
  if (rows_ == 0 || cols_ == 0 || !values_) {
    image_ = QImage();
    return;
  }
  if (external_) {  // computed off the GUI thread (HeatmapGrid), scaled to the plot when painted
    image_ = overview_;
    return;
  }
  const Geometry g = geometry();
  const CellScale scale{rowMax_.size() == static_cast<size_t>(rows_) ? rowMax_.data() : nullptr, log_};
  image_ = ui::cellImage(values_, rows_, cols_, map_, g.downsample ? static_cast<int>(g.plot.width()) : cols_,
                     g.downsample ? static_cast<int>(g.plot.height()) : rows_, scale);
}

void HeatmapView::setCellScale(std::vector<float> rowMax, bool log) {
  rowMax_ = std::move(rowMax);
  log_ = log;
  rebuildImage();
  update();
}

void HeatmapView::setMaskedCells(std::vector<char> masked) {
  masked_ = masked.size() == static_cast<size_t>(rows_) * cols_ ? std::move(masked) : std::vector<char>{};
  update();
}

bool HeatmapView::cellMasked(int r, int c) const {
  const float v = value(r, c);
  return (std::isinf(v) && v < 0) || (!masked_.empty() && masked_[static_cast<size_t>(r) * cols_ + c]);
}

void HeatmapView::paintMarks(QPainter& p, const QRectF& plot) const {
  if (downsampled_ || plot.width() / cols_ < 4 || plot.height() / rows_ < 4) return;  // colour only
  for (int r = 0; r < rows_; ++r)
    for (int c = 0; c < cols_; ++c) {
      const float v = value(r, c);
      if (std::isnan(v))
        ColorLegend::paintNanMark(p, cellRect(r, c));
      else if (cellMasked(r, c))
        ColorLegend::paintMaskedMark(p, cellRect(r, c));
    }
}

void HeatmapView::paintLabels(QPainter& p, const Geometry& g) const {
  if (!showLabels_) return;
  const QFontMetricsF fm(font());
  const double lh = fm.height(), pad = std::ceil(lh / 4);
  auto text = [&](const std::string& s) {
    return fm.elidedText(QString::fromStdString(s), Qt::ElideRight, g.labelW);
  };
  const int nr = rowSide_ ? std::min<int>(rows_, static_cast<int>(rowLabels_.size())) : 0;
  for (int r = 0; r < nr; r += g.rowStep) {
    const double y = cellRect(r, 0).center().y();
    p.drawText(QRectF(0, y - lh / 2, g.plot.left() - pad, lh), Qt::AlignRight | Qt::AlignVCenter,
               text(rowLabels_[r]));
  }
  const int nc = colSide_ ? std::min<int>(cols_, static_cast<int>(colLabels_.size())) : 0;
  for (int c = 0; c < nc; c += g.colStep) {
    const double x = cellRect(0, c).center().x(), y = g.plot.bottom() + pad / 2;
    if (!g.colRotated) {
      const double w = g.plot.width() / cols_ * g.colStep;
      p.drawText(QRectF(x - w / 2, y, w, lh), Qt::AlignHCenter | Qt::AlignTop, text(colLabels_[c]));
      continue;
    }
    paintColumnLabel(p, g, x, y, QString::fromStdString(colLabels_[c]));
  }
}

// A vertical column label under x, starting at y: Chinese (or Japanese, Korean) characters
// upright, one under the other, as they are written vertically; other text turned to read
// upwards, ending just under the cells.
void HeatmapView::paintColumnLabel(QPainter& p, const Geometry& g, double x, double y, const QString& label) const {
  const QFontMetricsF fm(font());
  const double lh = fm.height();
  if (hasWideCharacters(label)) {
    const QStringList chars = graphemes(label);
    const int fit = std::max(1, static_cast<int>(g.labelW / lh));
    for (int i = 0; i < std::min<int>(fit, chars.size()); ++i) {
      const QString ch = (i == fit - 1 && chars.size() > fit) ? QString(QChar(0x2026)) : chars[i];
      p.drawText(QRectF(x - lh / 2, y + i * lh, lh, lh), Qt::AlignCenter, ch);
    }
    return;
  }
  p.save();
  p.translate(x, y);
  p.rotate(-90);
  p.drawText(QRectF(-g.labelW, -lh / 2, g.labelW, lh), Qt::AlignRight | Qt::AlignVCenter,
             fm.elidedText(label, Qt::ElideRight, g.labelW));
  p.restore();
}

// A thin two-tone outline (black outside, white inside): visible on every colour of the map.
void HeatmapView::paintHover(QPainter& p) const {
  if (hover_.x() < 0 || hover_.y() < 0 || hover_.y() >= rows_ || hover_.x() >= cols_) return;
  QRectF r = cellRect(hover_.y(), hover_.x());
  if (r.width() < 3) r.adjust(-(3 - r.width()) / 2, 0, (3 - r.width()) / 2, 0);
  if (r.height() < 3) r.adjust(0, -(3 - r.height()) / 2, 0, (3 - r.height()) / 2);
  p.save();
  p.setBrush(Qt::NoBrush);
  p.setPen(QPen(Qt::black, 1));
  p.drawRect(r.adjusted(-1, -1, 0, 0));
  p.setPen(QPen(Qt::white, 1));
  p.drawRect(r.adjusted(0, 0, -1, -1));
  p.restore();
}

void HeatmapView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setFont(font());
  const QColor text = palette().color(QPalette::WindowText);
  const QFontMetricsF fm(font());
  const double lh = fm.height(), pad = std::ceil(lh / 4);
  if (highlighted_) {
    p.setPen(QPen(palette().color(QPalette::Highlight), 3));
    p.drawRect(QRectF(rect()).adjusted(1.5, 1.5, -1.5, -1.5));
  }
  p.setPen(text);
  if (!title_.isEmpty()) {
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    const QString t = QFontMetricsF(bold).elidedText(title_, Qt::ElideRight, width() - 2 * pad);
    p.drawText(QRectF(pad, pad, width() - 2 * pad, lh), Qt::AlignHCenter | Qt::AlignVCenter, t);
    p.setFont(font());
  }
  if (imageStale_) makeImage();
  const Geometry g = geometry();
  if (image_.isNull()) {
    if (waitingForOverview()) {  // a large matrix is being drawn off the GUI thread
      p.setPen(palette().color(QPalette::Mid));
      p.drawRect(g.plot);
      p.setPen(text);
      p.drawText(g.plot, Qt::AlignCenter | Qt::TextWordWrap, tr("Drawing %1 × %2 cells…").arg(rows_).arg(cols_));
    }
    return;
  }
  p.setRenderHint(QPainter::SmoothPixmapTransform, false);
  p.drawImage(g.plot, image_);
  paintMarks(p, g.plot);
  p.setPen(palette().color(QPalette::Mid));
  p.drawRect(g.plot.adjusted(-0.5, -0.5, 0.5, 0.5));
  p.setPen(text);
  paintLabels(p, g);
  if (downsampled_) {
    QFont italic = font();
    italic.setItalic(true);
    p.setFont(italic);
    const QFontMetrics fm(italic);  // the note shortened to the view's width, never clipped
    QString note = accessibleDescription();
    if (fm.horizontalAdvance(note) > width()) note = tr("%1×%2, averaged").arg(rows_).arg(cols_);
    p.drawText(QRectF(0, height() - lh - pad / 2, width(), lh), Qt::AlignCenter,
               fm.elidedText(note, Qt::ElideRight, width()));
  }
  paintHover(p);
}

QSize HeatmapView::sizeHint() const {
  const QFontMetrics fm = fontMetrics();
  const int lh = fm.height(), cell = lh + lh / 2;
  const int labels = showLabels_ ? 8 * fm.averageCharWidth() : 0;
  const int w = std::clamp(cols_ * cell + labels + lh, 12 * lh, 40 * lh);
  const int h = std::clamp(rows_ * cell + (showLabels_ ? 3 : 2) * lh + labels, 10 * lh, 30 * lh);
  return {w, h};
}

QSize HeatmapView::minimumSizeHint() const {
  const int lh = fontMetrics().height();
  return {7 * lh, 6 * lh};
}

void HeatmapView::mouseMoveEvent(QMouseEvent* e) {
  const QPoint cell = cellAt(e->position());
  if (cell == hover_) return;
  hover_ = cell;
  update();
  emit cellHovered(cell.y(), cell.x());
}

void HeatmapView::leaveEvent(QEvent*) {
  if (hover_ == QPoint(-1, -1)) return;
  hover_ = {-1, -1};
  update();
  emit cellHovered(-1, -1);
}

void HeatmapView::mouseReleaseEvent(QMouseEvent* e) {
  if (e->button() == Qt::LeftButton && rect().contains(e->position().toPoint())) emit clicked();
}

void HeatmapView::changeEvent(QEvent* e) {
  if (e->type() == QEvent::FontChange) {
    rebuildImage();
    updateGeometry();
  }
  QWidget::changeEvent(e);
}

void HeatmapView::resizeEvent(QResizeEvent*) {
  const Geometry g = geometry();
  const bool sameSize = !g.downsample && !downsampled_;  // one pixel per cell either way
  if (!sameSize && !external_) rebuildImage();  // an overview is scaled, not made again
  else downsampled_ = g.downsample;
}

}  // namespace attnlab::ui
