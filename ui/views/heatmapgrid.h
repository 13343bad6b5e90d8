// The attention heatmaps of one step (scores, masked scores or weights; (B, H, Tq, Tk)) for one
// sentence of the batch: one HeatmapView per head, laid out in the rows × columns that give the
// largest cells while every head fits (tilegrid.h), a shared colour legend, click a head to
// enlarge it into the same area (Esc or "All heads" to go back), hover a cell for a readout by the
// cursor: query token, key token, raw score (qk), scaled score and weight, read from the sibling
// steps of the same block. Cells the mask hides are hatched from the "Apply the mask" step on
// (before it the padded keys still show their real scores); pairs a variant's pattern skips are
// hatched as skipped.
#pragma once

#include <QWidget>

#include <atomic>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "explain/head_ablation.h"
#include "views/colormap.h"
#include "views/headdrawing.h"
#include "views/heatmapview.h"
#include "views/tilegrid.h"
#include "window/traceresult.h"

class QComboBox;
class QHBoxLayout;
class QLabel;
class QPushButton;

namespace attnlab::ui {

class ColorLegend;

class HeatmapGrid : public QWidget {
  Q_OBJECT
 public:
  explicit HeatmapGrid(QWidget* parent = nullptr);

  // stepIndex into result->trace.steps(); the step must be 4-D (B, H, Tq, Tk).
  void setStep(TraceResultPtr result, int stepIndex, int batchIndex);
  void enlargeHead(int head);  // -1 = show all heads
  int enlargedHead() const { return enlarged_; }  // the shown tensor's head index, −1 when none
  int firstHead() const { return firstHead_; }     // the model's head number of the tensor's head 0
  int headCount() const;
  HeatmapView* headView(int head) const;  // the view showing that head (the large one when enlarged)
  QString hoverText() const;               // the last hover description (for tests)
  QString explanation() const { return explanation_; }  // the note under the heads (masking, NaN, …)
  QString noteText() const;  // that note and how to use the maps (click, right-click, Esc) as shown
  // The text shown for cell (query i, key j) of a head: tokens, raw score, scaled score, weight.
  QString describeCell(int head, int i, int j) const;
  // A large step (more than HeatmapView::kLargeCells cells a head) is drawn on a worker thread:
  // true until its pictures are in (drawingDone then).
  bool drawing() const;
  // The reference beside that fast path (bench_gui): off, every step is drawn on the GUI thread
  // as small ones are.
  void setDrawOffThread(bool on);
  // One colour map for two grids compared side by side (a faulty run beside the correct one), so
  // that equal colours mean equal numbers; nullopt: fitted to this step (the default). A large step
  // drawn off the GUI thread keeps its own.
  void setSharedMap(std::optional<ColorMap> map, bool redraw = true);  // redraw false: from the next setStep
  const ColorMap& colorMap() const { return map_; }
  // The map covering both (diverging when either is; the larger range).
  static ColorMap unite(const ColorMap& a, const ColorMap& b);
  QComboBox* scaleBox() const { return scaleBox_; }  // the weights' colour scale (headdrawing.h)

 signals:
  void headEnlarged(int head);
  // A head's map was clicked: a small one (which enlarges it) or the enlarged one. Both signals
  // give the model's head number (a kept head's step holds one head: firstHead()).
  void headClicked(int head);
  // A right-click on a head of an attention step the window can knock out (the encoder's
  // self-attention; an encoder–decoder's decoder self-attention and cross-attention too): the
  // head, and where to show a menu.
  void headMenuRequested(explain::HeadRef head, QPoint globalPos);
  void drawingDone();

 protected:
  void keyPressEvent(QKeyEvent*) override;
  bool eventFilter(QObject* watched, QEvent* event) override;  // the tile area's resizes
  void changeEvent(QEvent* event) override;                     // a new font (zoom) lays the heads out again

 private:
  void rebuild();
  void layoutTiles();  // every head's view into the tile area, as large as they all fit
  TileGrid tileGrid(QSizeF area, bool labels = true) const;  // the best rows × columns for the heads in that area
  double tileCell(QSizeF area, int cols, int rows, HeatmapView::Margins* used, bool labels = true) const;
  void placeLegend();  // right of the heads or over them, whichever gives larger cells
  void loadMask(const std::string& id, size_t n, bool gradient);
  bool loadSkipped(const std::string& id, size_t n);  // a variant's pattern: pairs it skips
  void clearViews();
  void loadTokens(const std::string& id);
  void fillView(HeatmapView* view, int head, bool labels) const;
  void onHover(int head, int row, int col);
  void updateNote();
  QString explain(const RowFacts& facts) const;  // fully masked rows (NaN weights), other NaNs, masked keys
  const float* maskedScores() const;             // the block's masked_scores for the sentence, or null
  void drawLarge();
  void applyDrawn(std::shared_ptr<const HeadDrawing> drawn, quint64 generation);
  std::shared_ptr<const HeadDrawing> fromCache() const;
  struct Cached;
  void remember(Cached key, const std::shared_ptr<const HeadDrawing>& drawn);
  QString defaultInfo() const;
  const Step* shownStep() const;
  const Tensor* sibling(const std::string& name) const;  // `<block>.<name>`, same shape, or null
  // Element (batch_, head, i, j) of the sibling step `<block>.<name>`; false when absent.
  bool siblingValue(const std::string& name, int head, int i, int j, float* out) const;
  float shown(int head, int i, int j) const;  // (H, Tq, Tk) of the chosen sentence

  TraceResultPtr result_;
  int step_ = -1, batch_ = 0, enlarged_ = -1;
  int knockLayer_ = -1;  // the shown step's attention layer (headMenuRequested), else -1
  int firstHead_ = 0;    // the model's head number of the shown tensor's head 0 (a kept head: "weights_head_<h>")
  explain::HeadBlock knockBlock_ = explain::HeadBlock::Encoder;  // and which attention
  std::vector<HeatmapView*> views_;
  QHBoxLayout *top_ = nullptr, *middle_ = nullptr;
  QWidget* gridHost_ = nullptr;  // the tile area; the enlarged head takes the same place
  HeatmapView* large_ = nullptr;
  QPushButton* back_ = nullptr;
  QLabel* info_ = nullptr;
  QLabel* note_ = nullptr;
  ColorLegend* legend_ = nullptr;
  QLabel* caption_ = nullptr;
  QString hoverText_, explanation_;
  std::vector<char> masked_;  // (H, Tq, Tk): hatched (masked, or skipped by a variant's pattern)
  bool skipped_ = false;      // masked_ holds a variant's skipped pairs, not the mask
  QString maskChange_;        // on the "Apply the mask" step: how many cells it hid
  Tensor shownTensor_;          // the shown step, contiguous (the trace's own storage when it is)
  const float* data_ = nullptr;  // (H, Tq, Tk): the shown step for sentence batch_, inside shownTensor_
  size_t dataSize_ = 0;
  bool probabilities_ = false;
  bool offThread_ = true, largeStep_ = false;  // largeStep_: the shown step is drawn off the GUI thread
  ColorScale scale_ = ColorScale::Linear;
  std::optional<ColorMap> shared_;
  QComboBox* scaleBox_ = nullptr;
  std::vector<float> rowMax_;   // (H, Tq) for the per-row scale of a small step
  std::shared_ptr<const HeadDrawing> drawn_;  // a large step's pictures, once drawn
  quint64 generation_ = 0;      // the newest drawing asked for
  std::shared_ptr<std::atomic<quint64>> latest_ = std::make_shared<std::atomic<quint64>>(0);  // generation_, for workers
  std::shared_ptr<const Tensor> shownKeep_;  // keeps shownTensor_'s storage alive for the views and workers
  struct Cached {
    std::weak_ptr<const TraceResult> result;
    int step, batch;
    ColorScheme scheme;
    ColorScale scale;
    std::shared_ptr<const HeadDrawing> drawn;
  };
  std::deque<Cached> cache_;
  int heads_ = 0, tq_ = 0, tk_ = 0;
  std::vector<std::string> queryTokens_, keyTokens_;  // Tq and Tk labels
  ColorMap map_;
};

}  // namespace attnlab::ui
