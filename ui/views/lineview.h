// BertViz's line view of one attention block for one sentence: query tokens in a left column,
// key tokens in a right column, a line from every query i to every key j for every visible head
// h, one colour per head (Paul Tol's "vibrant" palette, colour-blind safe; dashed from head 7).
//
// Opacity mapping (what lineOpacity returns and what is painted):
//   opacity(h, i, j) = weights[b, h, i, j] × (query i is [PAD] ? kPadFade : 1)
// and 0 when head h is hidden, when the weight is not finite, when a hovered token isolates
// other lines (hovering query i keeps only row i; hovering key j keeps only column j), or when
// it is under kFloorWhenMany in a very large matrix. While a token is hovered the weights of its
// lines are written beside the other column, one number per visible head in the head's colour.
//
// Shapes: weights (B, H, Tq, Tk) from `<block>.weights`; this view keeps (H, Tq, Tk) of one
// sentence.
#pragma once

#include <QColor>
#include <QImage>
#include <QVector>
#include <QWidget>

#include <string>
#include <vector>

#include "window/selection.h"

class QLabel;
class QHBoxLayout;
class QToolButton;

namespace attnlab::ui {

class LineView : public QWidget {
  Q_OBJECT
 public:
  static constexpr double kPadFade = 0.3;  // lines from a [PAD] query are drawn this much fainter
  // Beyond kManyLines candidate lines (Tq·Tk·visible heads), opacities under kFloorWhenMany are 0.
  static constexpr double kManyLines = 100000, kFloorWhenMany = 0.02;

  explicit LineView(QWidget* parent = nullptr);
  void setSelection(const ViewSelection& sel);

  static QColor headColor(int head);  // the palette, repeated (dashed lines) beyond 7 heads

  QVector<int> visibleHeads() const;
  void setHeadVisible(int head, bool visible);
  int heads() const { return heads_; }
  // What is drawn for the line query → key of a head (see the mapping above).
  double lineOpacity(int head, int query, int key) const;
  // The slot of token `index` in the query (left) or key (right) column, in widget coordinates.
  QRectF tokenRect(bool queryColumn, int index) const;
  int hoveredToken() const { return hover_; }  // -1 when no token is hovered
  bool hoveredIsQuery() const { return hoverQuery_; }

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 signals:
  void headsChanged();
  void queryChosen(int query);  // a click on a query token

 protected:
  void paintEvent(QPaintEvent*) override;
  void mouseMoveEvent(QMouseEvent*) override;
  void mousePressEvent(QMouseEvent*) override;
  void leaveEvent(QEvent*) override;
  void changeEvent(QEvent*) override;

 private:
  // Where the columns go for the current size and font.
  struct Layout {
    QRectF area;           // the whole drawing area (below the chips, above the note)
    double qLeft = 0, qRight = 0, kLeft = 0, kRight = 0;  // the two token columns
    double rowH = 0, top = 0;
    int labelStep = 1;     // label every k-th token when rows are thinner than a line of text
    double numW = 0;       // one weight number in the gutters
    int pills = 0;         // numbers shown per token: the first `pills` visible heads
    bool compact = false;  // ".42" instead of "0.42"
  };
  Layout layout() const;
  static QRectF slot(const Layout& l, bool queryColumn, int index);  // tokenRect for a given layout
  void rebuildChips();
  bool numbersFit(const Layout& l) const;
  double drawFloor() const;  // rows tall enough for one line of text
  void setHover(int index, bool query);
  float weight(int head, int i, int j) const;  // (H, Tq, Tk) of the chosen sentence
  bool isPad(bool query, int index) const;
  void paintLines(QPainter& p, const Layout& l) const;
  void paintTokens(QPainter& p, const Layout& l, bool query) const;
  void paintNumbers(QPainter& p, const Layout& l) const;
  void updateNote();

  ViewSelection sel_;
  std::vector<float> w_;  // (H, Tq, Tk)
  int heads_ = 0, tq_ = 0, tk_ = 0;
  std::vector<std::string> qTokens_, kTokens_;
  std::vector<char> padQuery_;  // (Tq): the query is [PAD]
  std::vector<char> visible_;  // per head
  int hover_ = -1;
  bool hoverQuery_ = true;
  QLabel* caption_ = nullptr;
  QLabel* note_ = nullptr;
  QWidget* chipRow_ = nullptr;
  QHBoxLayout* chipLayout_ = nullptr;
  std::vector<QToolButton*> chips_;
  QImage linesCache_;  // every line, no hover: rebuilt when the data, heads or geometry change
  QRectF linesKey_;    // the line area it was drawn for
  bool linesDirty_ = true;
};

}  // namespace attnlab::ui
