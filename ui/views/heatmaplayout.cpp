// HeatmapGrid's layout: how many heads per row, how large their cells, where the colour key goes
// (the rest of the class is in heatmapgrid.cpp).
#include "views/heatmapgrid.h"

#include <QBoxLayout>
#include <QEvent>
#include <QTimer>

#include <algorithm>
#include <cmath>

#include "views/heatmapview.h"
#include "views/tilegrid.h"

namespace attnlab::ui {

namespace {

constexpr double kMinLabelledCell = 4;  // px: below it the heads drop their token labels

}  // namespace

void HeatmapGrid::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() == QEvent::FontChange) QTimer::singleShot(0, this, &HeatmapGrid::layoutTiles);  // once the views have it too
}

bool HeatmapGrid::eventFilter(QObject* watched, QEvent* event) {
  if (watched == gridHost_ && event->type() == QEvent::Resize) layoutTiles();
  return QWidget::eventFilter(watched, event);
}

// The rows × columns that give every head the largest cells while all of them fit, each with
// its "Head N" title whole. The heads share their tokens, so the rows are labelled left of the
// first column and the columns under the bottom tile of each column: the cells of every head line
// up and get the room that repeated labels would take.
void HeatmapGrid::layoutTiles() {
  if (views_.empty() || tq_ == 0 || tk_ == 0) return;
  const HeatmapView* probe = views_.back();  // the longest title ("Head 11" rather than "Head 0")
  // Moving the legend between layouts re-lays them out: never inside the layout pass that resized
  // the tiles (it would pull an item from under the running layout); right after it instead.
  QMetaObject::invokeMethod(this, &HeatmapGrid::placeLegend, Qt::QueuedConnection);
  const double sp = std::ceil(fontMetrics().height() / 3.0), lh = probe->fontMetrics().height();
  const double W = gridHost_->width(), H = gridHost_->height();
  TileGrid g = tileGrid(QSizeF(W, H), true);
  bool labels = true;
  // Too small to read with token labels, or no room for the titles with them: the heads without
  // labels (the enlarged head has them).
  if (g.cell < kMinLabelledCell || !g.fits) {
    const TileGrid bare = tileGrid(QSizeF(W, H), false);
    if ((bare.fits && !g.fits) || (bare.fits == g.fits && bare.cell > g.cell)) g = bare, labels = false;
  }
  HeatmapView::Margins m;
  const double cell = tileCell(QSizeF(W, H), g.cols, g.rows, &m, labels);
  const double plotW = tk_ * cell, plotH = tq_ * cell, padL = m.left - m.rowLabels;
  // A tile is at least as wide as its title (the cells are centred under it), never narrower.
  const double tileW = std::max(padL + plotW + m.right, m.titleWidth + padL + m.right);
  const int n = static_cast<int>(views_.size());
  for (int h = 0; h < n; ++h) {
    const int r = h / g.cols, c = h % g.cols;
    const bool rowLabels = c == 0, colLabels = h + g.cols >= n;  // no tile below
    views_[static_cast<size_t>(h)]->setLabelSides(labels && rowLabels, labels && colLabels);
    views_[static_cast<size_t>(h)]->setFixedCell(cell);
    const double x = c == 0 ? 0 : m.rowLabels + c * (tileW + sp);
    const double y = r * (m.top + plotH + m.bottomBare + sp);
    const double w = (rowLabels ? m.rowLabels : 0) + tileW;
    const double ht = m.top + plotH + (colLabels ? m.bottom : m.bottomBare) + (cell < 1 ? lh : 0);
    views_[static_cast<size_t>(h)]->setGeometry(QRectF(x, y, w, ht).toAlignedRect());
  }
}

// The cell side of `cols` × `rows` heads in an area: level column labels when they fit across
// that cell, else turned (the labels' room, with a view's padding, into *used).
double HeatmapGrid::tileCell(QSizeF area, int cols, int rows, HeatmapView::Margins* used, bool labels) const {
  const HeatmapView* probe = views_.back();
  const double W = area.width(), H = area.height();
  const double sp = std::ceil(fontMetrics().height() / 3.0), lh = probe->fontMetrics().height();
  const HeatmapView::Margins level = probe->marginsFor(1e9, labels), turned = probe->marginsFor(0, labels);
  const double bare = level.left - level.rowLabels + level.right;  // a tile's side padding
  const double fromW = (W - level.rowLabels - cols * bare - (cols - 1) * sp) / (cols * tk_);
  double cell = 0;
  for (const HeatmapView::Margins& m : {level, turned}) {
    const double chrome = rows * (m.top + m.bottomBare) + (m.bottom - m.bottomBare) + (rows - 1) * sp;
    double fromH = (H - chrome) / (rows * tq_);
    if (std::min(fromW, fromH) < 1) fromH = (H - chrome - rows * lh) / (rows * tq_);  // the "downsampled" note
    cell = std::max(0.0, std::min(fromW, fromH));
    if (cell >= 3) cell = std::floor(cell);
    *used = m;
    if (probe->marginsFor(cell, labels).turned == m.turned) break;  // the labels this cell gets fit the room
  }
  return cell;
}

// A layout fits when every tile can be as wide as its "Head N" title (the cells may be narrower:
// they are centred under it).
TileGrid HeatmapGrid::tileGrid(QSizeF area, bool labels) const {
  const HeatmapView::Margins level = views_.back()->marginsFor(1e9, labels);
  const double sp = std::ceil(fontMetrics().height() / 3.0);
  const double titleRoom = level.titleWidth + level.left - level.rowLabels + level.right;
  HeatmapView::Margins m;
  return bestTileGrid(
      static_cast<int>(views_.size()), [&](int cols, int rows) { return tileCell(area, cols, rows, &m, labels); },
      [&](int cols, int, double) { return level.rowLabels + cols * titleRoom + (cols - 1) * sp <= area.width(); });
}

// The colour key to the right of the heads, or in a band over them (horizontal) when that gives
// the heads larger cells: a wide screen of few tall heads wants it on the right, a row of many
// heads above.
void HeatmapGrid::placeLegend() {
  if (views_.empty() || enlarged_ >= 0) return;
  const bool onTop = top_->indexOf(legend_) >= 0;
  const double gap = middle_->spacing() > 0 ? middle_->spacing() : 6;
  const QSizeF now(gridHost_->size());
  const QSize vertical = legend_->sizeFor(Qt::Vertical), horizontal = legend_->sizeFor(Qt::Horizontal);
  const QSizeF right = onTop ? QSizeF(now.width() - vertical.width() - gap, now.height() + horizontal.height() + gap) : now;
  const QSizeF above = onTop ? now : QSizeF(now.width() + vertical.width() + gap, now.height() - horizontal.height() - gap);
  const TileGrid r = tileGrid(right), a = tileGrid(above);
  const bool wantTop = onTop ? a.cell >= r.cell : a.cell > r.cell * 1.05;  // a margin against flapping
  if (wantTop == onTop) return;
  legend_->setOrientation(wantTop ? Qt::Horizontal : Qt::Vertical);
  if (wantTop) top_->addWidget(legend_);
  else middle_->addWidget(legend_);
}

}  // namespace attnlab::ui
