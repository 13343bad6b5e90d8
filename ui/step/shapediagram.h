// The shape of a step drawn as boxes: each input tensor and the output, axes labelled with
// their names and sizes (B 2 · S 5 · H 8 · Dh 8), strides underneath, a "contiguous?" badge; for
// view / transpose / contiguous steps the move itself is named on the arrow ("view: split D into
// H × Dh", "transpose(1, 2): swap S and H — no data moves").
#pragma once

#include <QWidget>

#include "window/traceresult.h"

class QPainter;

namespace attnlab::ui {

class ShapeDiagram : public QWidget {
  Q_OBJECT
 public:
  explicit ShapeDiagram(QWidget* parent = nullptr);
  void setStep(TraceResultPtr result, int stepIndex);
  // A step whose shape, strides and contiguity are drawn as "?" wherever it appears (the
  // predict-the-shape exercises); empty: none. Takes effect at the next setStep.
  void setConcealed(const std::string& stepId) { concealed_ = stepId; }
  // What the diagram shows, as text (for tests and accessibility): one line per box.
  QStringList boxTexts() const;
  QString moveText() const;
  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 protected:
  void paintEvent(QPaintEvent*) override;

 private:
  struct Box {
    QString name;          // "q_proj"
    QStringList axes;      // {"B 2", "S 5", "D 64"}
    QString strides;       // "strides (320, 64, 1)"
    bool contiguous = true;
    bool hidden = false;   // concealed for an exercise: "?" for sizes, strides and contiguity
    QStringList names;     // {"B", "S", "D"}: the axes' names alone (colours)
    std::vector<qint64> sizes;  // {2, 5, 64}: segment widths grow with log2(size)
  };
  // One drawn item: an input box (index >= 0), the arrow with the move (-1) or the output (-2).
  struct Placed {
    QRectF rect;
    int item = 0;
  };
  Box makeBox(const QString& name, const Step& step) const;
  QSizeF boxSize(const Box& b) const;
  QSizeF arrowSize(qreal maxWidth) const;
  std::vector<Placed> layout(qreal width, QSizeF* total) const;
  void paintBox(QPainter& p, const Box& b, const QRectF& r, bool output) const;
  void paintArrow(QPainter& p, const QRectF& r) const;
  static QString badge(const Box& b);

  std::vector<Box> inputs_;
  Box output_;
  QString move_;
  bool hasOutput_ = false;
  std::string concealed_;
};

}  // namespace attnlab::ui
