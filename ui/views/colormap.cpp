#include "views/colormap.h"

#include <QCoreApplication>
#include <QLinearGradient>
#include <QPainter>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>

namespace attnlab::ui {

namespace {

struct Stop {
  double t;
  QRgb rgb;
};

// viridis, sampled at nine points (perceptually uniform, readable in grey, colour-blind safe).
constexpr std::array<Stop, 9> kViridis{{{0.000, 0x440154}, {0.125, 0x472d7b}, {0.250, 0x3b528b},
                                        {0.375, 0x2c728e}, {0.500, 0x21918c}, {0.625, 0x28ae80},
                                        {0.750, 0x5ec962}, {0.875, 0xaddc30}, {1.000, 0xfde725}}};
// cividis (Nuñez, Anderton & Renslow 2018; matplotlib's table at the same nine points): blue to
// yellow, designed to look the same to people with red-green colour-vision deficiency.
constexpr std::array<Stop, 9> kCividis{{{0.000, 0x00224e}, {0.125, 0x1a386f}, {0.250, 0x434e6c},
                                        {0.375, 0x61656f}, {0.500, 0x7d7c78}, {0.625, 0x9b9476},
                                        {0.750, 0xbcae6c}, {0.875, 0xdec958}, {1.000, 0xfee838}}};
// White (0) to near black (high): low weights cost no ink on paper.
constexpr std::array<Stop, 2> kGrayscale{{{0.000, 0xffffff}, {1.000, 0x141414}}};
std::atomic<int> gScheme{static_cast<int>(ColorScheme::Viridis)};
// Blue (negative) – near white (0) – red (positive), after ColorBrewer's RdBu.
constexpr std::array<Stop, 7> kDiverging{{{0.000, 0x2166ac}, {0.167, 0x67a9cf}, {0.333, 0xd1e5f0},
                                          {0.500, 0xf7f7f7}, {0.667, 0xfddbc7}, {0.833, 0xef8a62},
                                          {1.000, 0xb2182b}}};
// The colour-blind-safe choice (with Cividis): RdBu's blue half, then PuOr's orange half. Under
// simulated protanopia, deuteranopia and tritanopia (Machado et al. 2009) its ends and its ±half
// points stay at least ΔE 52 apart, RdBu's 37 (test_export::colourSchemes measures both).
constexpr std::array<Stop, 7> kDivergingBlueOrange{{{0.000, 0x2166ac}, {0.167, 0x67a9cf}, {0.333, 0xd1e5f0},
                                                    {0.500, 0xf7f7f7}, {0.667, 0xfee0b6}, {0.833, 0xf1a340},
                                                    {1.000, 0xb35806}}};
// For printing: the sign as lightness, near black (most negative) through grey (0) to white.
constexpr std::array<Stop, 3> kDivergingGray{{{0.000, 0x141414}, {0.500, 0x8a8a8a}, {1.000, 0xffffff}}};

template <size_t N>
QColor interpolate(const std::array<Stop, N>& stops, double t) {
  t = std::clamp(t, 0.0, 1.0);
  size_t i = 1;
  while (i + 1 < N && stops[i].t < t) ++i;
  const Stop& a = stops[i - 1];
  const Stop& b = stops[i];
  const double f = (t - a.t) / (b.t - a.t);
  auto mix = [f](int x, int y) { return static_cast<int>(std::lround(x + (y - x) * f)); };
  return QColor(mix(qRed(a.rgb), qRed(b.rgb)), mix(qGreen(a.rgb), qGreen(b.rgb)),
                mix(qBlue(a.rgb), qBlue(b.rgb)));
}

QString tick(double v) { return QString::number(v, 'g', 3); }

}  // namespace

QColor ColorMap::color(double v) const {
  if (std::isnan(v)) return nanColor();
  if (std::isinf(v) && v < 0) return maskedColor();  // −∞ only ever comes from a mask here
  const double span = hi - lo;
  const double t = span > 0 ? (std::clamp(v, lo, hi) - lo) / span : 0.5;
  if (kind == ColorMapKind::Diverging) {
    switch (colorScheme()) {
      case ColorScheme::Cividis: return interpolate(kDivergingBlueOrange, t);
      case ColorScheme::Grayscale: return interpolate(kDivergingGray, t);
      case ColorScheme::Viridis: break;
    }
    return interpolate(kDiverging, t);
  }
  switch (colorScheme()) {
    case ColorScheme::Cividis: return interpolate(kCividis, t);
    case ColorScheme::Grayscale: return interpolate(kGrayscale, t);
    case ColorScheme::Viridis: break;
  }
  return interpolate(kViridis, t);
}

ColorScheme colorScheme() { return static_cast<ColorScheme>(gScheme.load(std::memory_order_relaxed)); }
void setColorScheme(ColorScheme scheme) { gScheme.store(static_cast<int>(scheme), std::memory_order_relaxed); }

QString colorSchemeName(ColorScheme scheme) {
  switch (scheme) {
    case ColorScheme::Cividis: return QCoreApplication::translate("ColorScheme", "Cividis (colour-blind safe)");
    case ColorScheme::Grayscale: return QCoreApplication::translate("ColorScheme", "Grayscale (for printing)");
    case ColorScheme::Viridis: break;
  }
  return QCoreApplication::translate("ColorScheme", "Viridis");
}

QColor ColorMap::maskedColor() { return QColor(0x9a, 0x9a, 0x9a); }
QColor ColorMap::nanColor() { return QColor(0xff, 0x00, 0xff); }

ColorMap ColorMap::fitted(const float* data, long long n, bool probabilities) {
  double mn = 0, mx = 0;
  bool any = false;
  for (long long i = 0; i < n; ++i) {
    const double v = data[i];
    if (!std::isfinite(v)) continue;
    mn = any ? std::min(mn, v) : v;
    mx = any ? std::max(mx, v) : v;
    any = true;
  }
  ColorMap m;
  if (!any) return m;  // nothing finite: Sequential [0, 1]
  if (probabilities || mn >= 0) {
    m.kind = ColorMapKind::Sequential;
    m.lo = 0;
    m.hi = mx > 0 ? mx : 1;
  } else {
    const double a = std::max(std::abs(mn), std::abs(mx));
    m.kind = ColorMapKind::Diverging;
    m.lo = -(a > 0 ? a : 1);
    m.hi = -m.lo;
  }
  return m;
}

// ---- ColorLegend ---------------------------------------------------------------------------

ColorLegend::ColorLegend(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Expanding);
}

void ColorLegend::setMap(const ColorMap& map) {
  map_ = map;
  updateGeometry();
  update();
}

void ColorLegend::setTitle(const QString& title) {
  title_ = title;
  updateGeometry();
  update();
}

void ColorLegend::setOrientation(Qt::Orientation o) {
  orientation_ = o;
  setSizePolicy(o == Qt::Vertical ? QSizePolicy::Fixed : QSizePolicy::Expanding,
                o == Qt::Vertical ? QSizePolicy::Expanding : QSizePolicy::Fixed);
  updateGeometry();
  update();
}

void ColorLegend::setMarks(bool masked, bool nan) {
  showMasked_ = masked;
  showNan_ = nan;
  updateGeometry();
  update();
}

void ColorLegend::setMaskedLabel(const QString& label) {
  maskedLabel_ = label;
  updateGeometry();
  update();
}

QString ColorLegend::maskedLabel() const { return maskedLabel_.isEmpty() ? tr("masked (−∞)") : maskedLabel_; }

QStringList ColorLegend::tickTexts() const {
  return {tick(map_.hi), tick((map_.lo + map_.hi) / 2), tick(map_.lo)};
}

QSize ColorLegend::sizeFor(Qt::Orientation o) const {
  const QFontMetrics fm = fontMetrics();
  const int lh = fm.height(), pad = lh / 3;
  int text = fm.horizontalAdvance(title_);
  for (const QString& t : tickTexts()) text = std::max(text, lh + pad + fm.horizontalAdvance(t));
  const int sw = lh + pad;  // swatch + gap
  const int masked = showMasked_ ? sw + fm.horizontalAdvance(maskedLabel()) : 0;
  const int nan = showNan_ ? sw + fm.horizontalAdvance(tr("NaN")) : 0;
  if (o == Qt::Vertical)
    return {2 * pad + std::max({text, masked, nan}), 10 * lh};
  return {fm.horizontalAdvance(title_) + 14 * lh + masked + nan + 4 * pad, 2 * lh + 3 * pad};
}

QSize ColorLegend::minimumSizeHint() const {
  const QSize s = sizeHint();
  const int lh = fontMetrics().height();
  return orientation_ == Qt::Vertical ? QSize(s.width(), 6 * lh) : QSize(8 * lh, s.height());
}

void ColorLegend::paintMaskedMark(QPainter& p, const QRectF& r) {
  p.fillRect(r, ColorMap::maskedColor());
  p.fillRect(r, QBrush(QColor(0x4a, 0x4a, 0x4a), Qt::BDiagPattern));
}

void ColorLegend::paintNanMark(QPainter& p, const QRectF& r) {
  p.fillRect(r, ColorMap::nanColor());
  const QString text = QCoreApplication::translate("ColorLegend", "NaN");
  const QFontMetricsF fm(p.font());
  p.save();
  p.setPen(Qt::black);  // black on magenta: contrast 6.7:1 (white would be 3:1)
  if (r.width() >= fm.horizontalAdvance(text) + 2 && r.height() >= fm.height()) {
    p.drawText(r, Qt::AlignCenter, text);
  } else if (r.width() >= 6 && r.height() >= 6) {  // too small for text: a ×
    const QRectF in = r.adjusted(r.width() / 4, r.height() / 4, -r.width() / 4, -r.height() / 4);
    p.drawLine(in.topLeft(), in.bottomRight());
    p.drawLine(in.bottomLeft(), in.topRight());
  }
  p.restore();
}

void ColorLegend::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing, false);
  p.setPen(palette().color(QPalette::WindowText));
  if (orientation_ == Qt::Vertical)
    paintVertical(p);
  else
    paintHorizontal(p);
}

// Swatches stacked (vertical) or side by side (horizontal) from origin; returns the extent.
int ColorLegend::paintSwatches(QPainter& p, QPointF origin, bool vertical) {
  const QFontMetrics fm = fontMetrics();
  const int lh = fm.height(), pad = lh / 3, side = lh - 2;
  QPointF at = origin;
  auto one = [&](bool masked, const QString& label) {
    const QRectF box(at.x(), at.y() + (lh - side) / 2.0, side, side);
    masked ? paintMaskedMark(p, box) : paintNanMark(p, box);
    p.drawText(QRectF(box.right() + pad, at.y(), fm.horizontalAdvance(label) + 2, lh),
               Qt::AlignLeft | Qt::AlignVCenter, label);
    if (vertical)
      at.ry() += lh + pad;
    else
      at.rx() += side + 2 * pad + fm.horizontalAdvance(label) + 2 * pad;
  };
  if (showMasked_) one(true, maskedLabel());
  if (showNan_) one(false, tr("NaN"));
  return static_cast<int>(vertical ? at.y() - origin.y() : at.x() - origin.x());
}

// Title, then the bar (high values on top) with three ticks to its right, then the swatches.
void ColorLegend::paintVertical(QPainter& p) {
  const QFontMetrics fm = fontMetrics();
  const int lh = fm.height(), pad = lh / 3;
  int y = pad;
  if (!title_.isEmpty()) {
    p.drawText(QRect(pad, y, width() - 2 * pad, lh), Qt::AlignLeft | Qt::AlignVCenter, title_);
    y += lh + pad;
  }
  const int swatches = (showMasked_ + showNan_) * (lh + pad);
  const QRectF bar(pad, y + lh / 2, lh * 0.8, std::max(lh, height() - y - lh - swatches - pad));
  QLinearGradient g(bar.bottomLeft(), bar.topLeft());
  for (int i = 0; i <= 32; ++i) g.setColorAt(i / 32.0, map_.color(map_.lo + (map_.hi - map_.lo) * i / 32.0));
  p.fillRect(bar, g);
  p.drawRect(bar);
  const QStringList ticks = tickTexts();
  for (int i = 0; i < 3; ++i) {
    const double ty = bar.top() + bar.height() * i / 2.0;
    p.drawLine(QPointF(bar.right(), ty), QPointF(bar.right() + pad, ty));
    p.drawText(QRectF(bar.right() + 2 * pad, ty - lh / 2.0, width(), lh), Qt::AlignLeft | Qt::AlignVCenter,
               ticks[i]);
  }
  paintSwatches(p, QPointF(pad, bar.bottom() + lh / 2.0 + pad), true);
}

// [title] [bar with ticks below] [swatches], on one band.
void ColorLegend::paintHorizontal(QPainter& p) {
  const QFontMetrics fm = fontMetrics();
  const int lh = fm.height(), pad = lh / 3;
  int x = pad;
  if (!title_.isEmpty()) {
    p.drawText(QRect(x, pad, fm.horizontalAdvance(title_) + 2, lh), Qt::AlignVCenter, title_);
    x += fm.horizontalAdvance(title_) + 2 * pad;
  }
  int swatchW = 0;
  if (showMasked_) swatchW += lh + 4 * pad + fm.horizontalAdvance(maskedLabel());
  if (showNan_) swatchW += lh + 4 * pad + fm.horizontalAdvance(tr("NaN"));
  const QStringList ticks = tickTexts();
  const int half = fm.horizontalAdvance(ticks[2]) / 2 + pad;
  const QRectF bar(x + half, pad, std::max(lh, width() - x - 2 * half - swatchW - pad), lh * 0.8);
  QLinearGradient g(bar.topLeft(), bar.topRight());
  for (int i = 0; i <= 32; ++i) g.setColorAt(i / 32.0, map_.color(map_.lo + (map_.hi - map_.lo) * i / 32.0));
  p.fillRect(bar, g);
  p.drawRect(bar);
  for (int i = 0; i < 3; ++i) {  // ticks[0] is hi: on the right
    const double tx = bar.right() - bar.width() * i / 2.0;
    const int w = fm.horizontalAdvance(ticks[i]) + 2;
    p.drawLine(QPointF(tx, bar.bottom()), QPointF(tx, bar.bottom() + pad));
    p.drawText(QRectF(tx - w / 2.0, bar.bottom() + pad, w, lh), Qt::AlignCenter, ticks[i]);
  }
  paintSwatches(p, QPointF(bar.right() + half + 2 * pad, pad), false);
}

QColor inkOn(const QColor& c) {
  return 0.299 * c.redF() + 0.587 * c.greenF() + 0.114 * c.blueF() > 0.55 ? QColor(Qt::black) : QColor(Qt::white);
}

}  // namespace attnlab::ui
