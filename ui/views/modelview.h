// BertViz's model view: every attention block × every head of one sentence as a grid of small
// heatmaps. Rows are the attention blocks in trace order (encoder layers' self-attention, then
// per decoder layer its self-attention and cross-attention), columns the heads. Each thumbnail
// is weights[b, h] (Tq, Tk) of its block, painted from a QImage with one colour map shared by
// the whole grid (so heads can be compared); masked (−∞) cells grey, NaN magenta. The focused
// block/head is outlined; a click chooses a block and head.
#pragma once

#include <QImage>
#include <QString>
#include <QWidget>

#include <string>
#include <vector>

#include "views/colormap.h"
#include "window/selection.h"

namespace attnlab::ui {

class ModelView : public QWidget {
  Q_OBJECT
 public:
  explicit ModelView(QWidget* parent = nullptr);
  void setSelection(const ViewSelection& sel);

  // "Encoder layer 0 · Self-attention" for "encoder.layers.0.self_attn" (layers count from 0, as the ids).
  static QString blockName(const std::string& block);

  int rows() const { return static_cast<int>(blocks_.size()); }
  int heads() const { return heads_; }
  const std::string& rowBlock(int row) const { return blocks_.at(static_cast<size_t>(row)).id; }
  int thumbnailCount() const { return rows() * heads_; }
  QRect thumbnailRect(int row, int head) const;
  // weights[b, head, i, j] of the row's block, as shown.
  float thumbnailValue(int row, int head, int i, int j) const;
  const ColorMap& colorMap() const { return map_; }

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 signals:
  void blockChosen(const QString& blockId, int head);

 protected:
  void paintEvent(QPaintEvent*) override;
  void mouseMoveEvent(QMouseEvent*) override;
  void mouseReleaseEvent(QMouseEvent*) override;
  void leaveEvent(QEvent*) override;
  void resizeEvent(QResizeEvent*) override;

 private:
  struct Block {
    std::string id;            // "decoder.layers.0.multihead_attn"
    int tq = 0, tk = 0;
    std::vector<float> w;      // (H, Tq, Tk) of the chosen sentence
    std::vector<char> masked;  // (H, Tq, Tk): −∞ in masked_scores
    std::vector<QImage> images;  // one per head
  };
  struct Grid {
    double labelW = 0, headerH = 0, cell = 0, gap = 0;
    QPointF origin;  // top-left of thumbnail (0, 0)
  };
  Grid grid() const;
  void load();
  void rebuildImages();
  QImage thumbnail(const Block& b, int head, int side) const;  // averaged when Tq or Tk > side
  QPoint hitTest(QPointF pos) const;                           // (head, row) or (-1, -1)
  void paintLabels(QPainter& p, const Grid& g) const;
  void paintKey(QPainter& p, double y) const;

  ViewSelection sel_;
  std::vector<Block> blocks_;
  int heads_ = 0;
  ColorMap map_;
  QPoint hover_{-1, -1};  // (head, row)
  int imageSide_ = -1;    // the thumbnail size the images were built for
  ColorScheme imageScheme_ = ColorScheme::Viridis;  // and the colour scheme
};

}  // namespace attnlab::ui
