// One renderer for a labelled heatmap, painting onto any QPainter at a given target size: PNG
// (a QImage at a chosen scale), SVG (QSvgGenerator: cells as rectangles, text as text), PDF
// (QPdfWriter) and the clipboard all draw through it, so every export looks the same.
//
//   [            title            ]
//   q  tok0 ▇▇▇▇▇▇▇▇▇▇   [legend: title, colour bar with ticks,
//   u  tok1 ▇▇▇▇▇▇▇▇▇▇    masked (−∞) and NaN swatches when present]
//   e  tok2 ▇▇▇▇▇▇▇▇▇▇
//      column labels (rotated when they would not fit; every k-th one when they would overlap)
//              key
//   [note: "downsampled from 4096×4096 …"]
//
// Rows are queries (Tq), columns keys (Tk). Masked cells (−∞, or flagged) are grey with a dark
// diagonal hatch, NaN cells magenta with "NaN" or ×. When there are more cells than device pixels
// the cells come from one downsampled image (block means) and the picture says so; vector targets
// draw one rectangle per cell up to a cap, beyond it one embedded image (also stated).
#pragma once

#include <QCoreApplication>
#include <QFont>
#include <QRectF>
#include <QSize>
#include <QString>

#include <string>
#include <vector>

#include "forward/model.h"
#include "model/trace.h"
#include "views/colormap.h"

class QPainter;

namespace attnlab::ui {

// What to draw.
struct HeatmapPicture {
  std::vector<float> values;  // rows × cols, row-major
  int rows = 0, cols = 0;
  std::vector<std::string> rowLabels, colLabels;  // query tokens (Tq), key tokens (Tk); may be empty
  std::vector<char> masked;  // rows × cols flags: hatch these even where finite (weights after the mask); or empty
  ColorMap map;
  QString title;        // on top
  QString legendTitle;  // above the colour bar, e.g. "weight"
  QString rowAxis, colAxis;  // axis captions, e.g. "query", "key"; may be empty

  float value(int r, int c) const { return values[static_cast<size_t>(r) * cols + c]; }
  bool isMasked(int r, int c) const;  // −∞ or flagged
};

// How to draw it.
struct RenderOptions {
  int fontPx = 13;          // text height in target units
  double deviceScale = 1;   // device pixels per target unit (PNG scale; PDF dpi / 96): how fine cells can get
  bool vectorCells = false; // one rectangle per cell (SVG, PDF) up to maxVectorCells; otherwise one image
  long long maxVectorCells = 200 * 200;
  bool legend = true;       // the colour key on the right
};

// Where everything goes for a picture, a target size and options.
struct HeatmapLayout {
  QRectF plot;  // the cells
  double cellW = 0, cellH = 0;
  int rowStep = 1, colStep = 1;  // a label every k-th row / column, so that labels never overlap
  bool colRotated = false;       // column labels vertical
  double labelMax = 0;           // labels longer than this are elided
  double rowLabelW = 0, colLabelH = 0;  // room taken by the row labels (left) and column labels (below)
  bool downsampled = false;      // more cells than device pixels: block means
  bool imageCells = false;       // cells drawn as one image rather than rectangles
  bool marks = false;            // cells large enough for hatching and NaN marks
  QRectF legend;         // the colour key's box
  double legendBar = 0;  // the colour bar's height
  QString note;  // "downsampled from …" / "drawn as an image …", empty otherwise
  QRectF cellRect(int r, int c) const { return {plot.left() + c * cellW, plot.top() + r * cellH, cellW, cellH}; }
};

class HeatmapRenderer {
  Q_DECLARE_TR_FUNCTIONS(HeatmapRenderer)
 public:
  static HeatmapLayout layout(const HeatmapPicture& pic, const QSizeF& size, const RenderOptions& opt = {});
  // Paints the picture into QRectF(0, 0, size) of the painter's current coordinates.
  static void paint(QPainter& p, const HeatmapPicture& pic, const QSizeF& size, const RenderOptions& opt = {});
  // A size at which a few tokens get ~28-unit cells and many tokens still fit on a page.
  static QSize naturalSize(const HeatmapPicture& pic, const RenderOptions& opt = {});
  // The colour key alone, top-left at `at`, for a map; returns its size. masked/nan: swatches.
  static QSizeF paintLegend(QPainter& p, QPointF at, double barHeight, const ColorMap& map, const QString& title,
                            bool masked, bool nan, const QFont& font);
  static double legendWidth(const ColorMap& map, const QString& title, bool masked, bool nan, const QFont& font);
  // The application's font at opt.fontPx pixels, hinting off (the same layout at every scale).
  static QFont font(const RenderOptions& opt);
  // Grey + dark diagonal hatch; magenta + "NaN" (or ×): the marks of masked and NaN cells.
  static void paintMaskedMarks(QPainter& p, const std::vector<QRectF>& cells);
  static void paintNanMarks(QPainter& p, const std::vector<QRectF>& cells);
};

// Indices into trace.steps() of every attention-weights step ((B, H, Tq, Tk), id "….weights"),
// and of every head of a tiled layer kept whole ((B, 1, Tq, Tk), "….weights_head_<h>").
std::vector<int> attentionWeightSteps(const Trace& trace);
// The model's head number of the step's head index h: h itself, or a kept head's own number (its
// step, "….weights_head_<k>", holds head k alone).
int64_t modelHead(const std::string& stepId, int h);
// "encoder.layers.0.self_attn.b0.head3": the file name of a head's heatmap, without extension
// (h: the step's head index; the file has the model's head number, modelHead).
std::string heatmapFileBase(const std::string& stepId, int b, int h);
// A kept head's step (ModelConfig::full_heads, "….weights_head_<h>"): the cells its own mask (the
// step's "mask" binding, (B, Tq, Tk)) hides in sentence b, `plane` = Tq·Tk; empty when it has none.
std::vector<char> keptHeadMask(const Trace& trace, const Step& s, int b, size_t plane);
// Head h of sentence b of an attention step (B, H, Tq, Tk): its values, query and key tokens,
// masked cells from the block's masked_scores, and a map fitted to every head of that sentence
// (as the GUI's grid does, so heads compare).
HeatmapPicture headPicture(const Batch& batch, const Trace& trace, int stepIndex, int b, int h);

}  // namespace attnlab::ui
