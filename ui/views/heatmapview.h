// One matrix as a heatmap: painted from a QImage (not a widget per cell), tokens on both axes
// (labels thin out instead of overlapping), masked (−∞) cells hatched, NaN cells marked, large
// matrices downsampled with a visible note. Hover reports the cell.
#pragma once

#include <QImage>
#include <QWidget>

#include <memory>
#include <string>
#include <vector>

#include "views/colormap.h"
#include "views/headdrawing.h"

namespace attnlab::ui {

class HeatmapView : public QWidget {
  Q_OBJECT
 public:
  explicit HeatmapView(QWidget* parent = nullptr);

  // values: rows × cols, row-major (copied). rowLabels/colLabels may be empty.
  void setMatrix(const float* values, int rows, int cols, const std::vector<std::string>& rowLabels,
                 const std::vector<std::string>& colLabels, const ColorMap& map);
  // The same without copying, for a trace's large tensors: `values` stays valid while `keep`
  // lives. drawnElsewhere: the view paints a picture computed off the GUI thread (setOverview)
  // instead of one of its own, and says "drawing…" until it comes — HeatmapGrid does so above
  // kLargeCells cells a head.
  static constexpr long long kLargeCells = 1 << 18;
  void setMatrixShared(std::shared_ptr<const void> keep, const float* values, int rows, int cols,
                       const std::vector<std::string>& rowLabels, const std::vector<std::string>& colLabels,
                       const ColorMap& map, bool drawnElsewhere);
  void setOverview(QImage overview);
  bool waitingForOverview() const { return external_ && overview_.isNull(); }
  // The colour scale of this view's own picture: row maxima (rows of them, or empty) and log.
  void setCellScale(std::vector<float> rowMax, bool log);
  void setTitle(const QString& title);
  // Cells to hatch as masked even where their value is finite (the weights after masking are 0,
  // the scores before it still hold numbers): rows × cols flags, or empty for none.
  void setMaskedCells(std::vector<char> masked);
  bool cellMasked(int r, int c) const;
  void setShowLabels(bool on);  // off for thumbnails
  void setHighlighted(bool on);
  // How the cells may be shaped: their width : height stays within 1 : maxAspect … maxAspect : 1
  // (1 = square, for attention maps; 3 for value maps, so that a 14 × 256 map is not a thin
  // strip), and no side grows past maxCellLines line heights (0 = no limit), so that a 14 × 8
  // map or an 8 × 1 column does not become a few giant rectangles.
  void setCellShape(double maxAspect, double maxCellLines);
  // Which axes this view labels (both by default; a grid of heads labels the rows of its first
  // column and the columns of its bottom tiles only, as the heads share their tokens).
  void setLabelSides(bool rows, bool cols);
  // A grid's head: its cells are this side (the grid's one choice for every head), not worked
  // out again from the view's own size; 0: from the size.
  void setFixedCell(double cell);
  // The room around the cells for a cell side (column labels turn vertical when they do not fit
  // across a cell), with every label on: a grid lines its views' cells up with it.
  struct Margins {
    double left = 0, top = 0, right = 0, bottom = 0;  // bottom: with the column labels
    double bottomBare = 0;                            // bottom without them
    double rowLabels = 0;                             // the part of `left` the row labels take
    double titleWidth = 0;                            // the bold title's width
    bool turned = false;                              // the column labels run vertically
  };
  Margins marginsFor(double cell, bool labels = true) const;  // labels false: as if none

  int rows() const { return rows_; }
  int cols() const { return cols_; }
  float value(int r, int c) const;
  // The cell under a widget position as QPoint(x = column, y = row), or (-1, -1).
  QPoint cellAt(QPointF pos) const;
  // The widget-space rectangle of cell (r, c) (for tests and hover marks).
  QRectF cellRect(int r, int c) const;
  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 signals:
  void cellHovered(int row, int col);  // (-1, -1) when leaving
  void clicked();

 protected:
  void paintEvent(QPaintEvent*) override;
  void mouseMoveEvent(QMouseEvent*) override;
  void leaveEvent(QEvent*) override;
  void mouseReleaseEvent(QMouseEvent*) override;
  void resizeEvent(QResizeEvent*) override;

 private:
  void changeEvent(QEvent*) override;  // a new font (zoom) moves labels and may change downsampling

  // Where everything goes for the current size, font and matrix.
  struct Geometry {
    QRectF plot;                  // the cells
    int rowStep = 1, colStep = 1; // label every k-th row / column so labels never overlap
    bool colRotated = false;      // column labels drawn vertically
    double labelW = 0;            // longest label allowed (elided beyond)
    bool downsample = false;      // more cells than pixels
  };
  Geometry geometry() const { return geometryFor(QSizeF(size())); }
  Geometry geometryFor(QSizeF size) const;
  // The widest row (or column) label at the current font: measured once per matrix and font, as a
  // trained model's vocabulary axis has thousands of labels and geometry() runs for every cell rect.
  double longestLabel(bool rows) const;
  QRectF plotRect() const;
  void rebuildImage();  // marks the image stale
  void makeImage();
  void paintMarks(QPainter& p, const QRectF& plot) const;  // hatch masked, mark NaN
  void paintLabels(QPainter& p, const Geometry& g) const;
  void paintColumnLabel(QPainter& p, const Geometry& g, double x, double y, const QString& text) const;
  void paintHover(QPainter& p) const;

  const float* values_ = nullptr;   // rows × cols: owned_ or a trace's, kept alive by keep_
  std::vector<float> owned_;
  std::shared_ptr<const void> keep_;
  bool external_ = false;           // the picture comes from setOverview
  QImage overview_;
  bool imageStale_ = true;          // image_ is made again at the next paint
  std::vector<float> rowMax_;       // setCellScale
  bool log_ = false;
  std::vector<char> masked_;  // rows × cols, or empty
  int rows_ = 0, cols_ = 0;
  std::vector<std::string> rowLabels_, colLabels_;
  ColorMap map_;
  QImage image_;
  QString title_;
  bool showLabels_ = true, highlighted_ = false, downsampled_ = false;
  double maxAspect_ = 1, maxCellLines_ = 0;
  bool rowSide_ = true, colSide_ = true;  // setLabelSides
  double fixedCell_ = 0;                  // setFixedCell
  double labelCap() const;                // the longest a label may be before it is elided
  QPoint hover_{-1, -1};
  mutable QFont measuredFont_;
  mutable double longestRow_ = -1, longestCol_ = -1;  // -1: not measured for this matrix and font
};

}  // namespace attnlab::ui
