// Colour maps with a legend's worth of metadata. Weights use a perceptual sequential map
// (viridis-like); logits a diverging one; masked cells and NaN get their own distinct marks.
#pragma once

#include <QColor>
#include <QString>
#include <QWidget>

class QPainter;

namespace attnlab::ui {

enum class ColorMapKind { Sequential, Diverging };

// The colours of the sequential map (weights). Cividis is the one made for colour-vision
// deficiency (it reads the same with red-green blindness); Grayscale runs from white (0) to black
// (high), for black-and-white printing. Diverging maps follow the scheme too: blue–red (RdBu) with
// Viridis, blue–orange with Cividis, near black (negative) to white (positive) with Grayscale.
// Process-wide: every ColorMap::color uses the current scheme (Viridis unless changed); safe to
// read from worker threads.
enum class ColorScheme { Viridis, Cividis, Grayscale };
ColorScheme colorScheme();
void setColorScheme(ColorScheme scheme);
QString colorSchemeName(ColorScheme scheme);  // translated, for menus

// Black or white, whichever reads on `background` (its luma above or below 0.55).
QColor inkOn(const QColor& background);

struct ColorMap {
  ColorMapKind kind = ColorMapKind::Sequential;
  double lo = 0, hi = 1;  // value range mapped to the ends (diverging: symmetric around 0)
  QColor color(double v) const;  // clamps to [lo, hi]; Sequential uses colorScheme()
  static QColor maskedColor();   // −∞ (masked) cells
  static QColor nanColor();      // NaN cells
  // A map fitted to the finite values of data[0..n): weights in [0, 1] → Sequential [0, max];
  // anything with negatives → Diverging [−m, m].
  static ColorMap fitted(const float* data, long long n, bool probabilities);
};

// The key to a ColorMap: a gradient bar with its end (and middle) values, plus swatches for the
// two special marks, "masked (−∞)" (grey, hatched) and "NaN" (magenta). Text uses the widget's
// font, so it grows with the application's zoom.
class ColorLegend : public QWidget {
  Q_OBJECT
 public:
  explicit ColorLegend(QWidget* parent = nullptr);
  void setMap(const ColorMap& map);
  const ColorMap& map() const { return map_; }
  void setTitle(const QString& title);  // e.g. "weight", drawn above the bar
  void setOrientation(Qt::Orientation o);
  void setMarks(bool masked, bool nan);  // which special swatches to show (both by default)
  // What the hatched swatch stands for: "masked (−∞)" unless said otherwise ("" restores it).
  void setMaskedLabel(const QString& label);
  QSize sizeHint() const override { return sizeFor(orientation_); }
  QSize minimumSizeHint() const override;
  QSize sizeFor(Qt::Orientation o) const;  // the size it asks for in that orientation

  // The marks, shared with HeatmapView so the legend and the cells look the same.
  static void paintMaskedMark(QPainter& p, const QRectF& r);  // grey + diagonal hatch
  static void paintNanMark(QPainter& p, const QRectF& r);     // magenta (+ "NaN" if it fits)

 protected:
  void paintEvent(QPaintEvent*) override;

 private:
  void paintVertical(QPainter& p);
  void paintHorizontal(QPainter& p);
  QStringList tickTexts() const;  // hi, middle, lo
  QString maskedLabel() const;
  int paintSwatches(QPainter& p, QPointF origin, bool vertical);  // returns the extent used

  ColorMap map_;
  QString title_, maskedLabel_;
  Qt::Orientation orientation_ = Qt::Vertical;
  bool showMasked_ = true, showNan_ = true;
};

}  // namespace attnlab::ui
