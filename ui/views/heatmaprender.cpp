#include "views/heatmaprender.h"

#include "forward/attention.h"
#include "views/headdrawing.h"
#include "words/steptext.h"

#include <QFontMetricsF>
#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

namespace attnlab::ui {

namespace {

const QColor kText(0x1e, 0x1e, 0x1e);
const QColor kMuted(0x55, 0x55, 0x55);
const QColor kHatch(0x4a, 0x4a, 0x4a);


double longest(const QFontMetricsF& fm, const std::vector<std::string>& labels) {
  double w = 0;
  for (const auto& s : labels) w = std::max(w, fm.horizontalAdvance(QString::fromStdString(s)));
  return std::ceil(w);
}

double padFor(double lh) { return std::ceil(lh / 3); }
// A text line with room for fallback fonts (CJK glyphs stand taller than the Latin font's height).
double lineH(const QFontMetricsF& fm) { return std::ceil(fm.height() * 1.2); }
QString tickText(double v) { return QString::number(v, 'g', 3); }

// Round values (steps of 1, 2, 2.5 or 5 × 10^k) inside [lo, hi], at most about n of them.
std::vector<double> niceTicks(double lo, double hi, int n) {
  if (!(hi > lo) || !std::isfinite(hi - lo)) return {lo};
  const double raw = (hi - lo) / std::max(1, n - 1), mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = 10 * mag;
  for (double k : {5.0, 2.5, 2.0, 1.0}) step = k * mag >= raw ? k * mag : step;  // the smallest that fits
  std::vector<double> out;
  for (double i = std::ceil(lo / step - 1e-9); i * step <= hi + step * 1e-9; ++i) out.push_back(std::abs(i) < 0.5 ? 0.0 : i * step);
  return out;
}
QString maskedLabel() { return QCoreApplication::translate("HeatmapRenderer", "masked (−∞)"); }
QString nanLabel() { return QCoreApplication::translate("HeatmapRenderer", "NaN"); }

// w × h pixels for the rows × cols cells: one per cell, or the mean of a block of cells when
// there are more cells than pixels. Any NaN wins (a bug worth seeing); a block whose cells are
// all masked stays masked grey (hatched pixel by pixel when `hatch`: the image is at device
// resolution). Notes whether any cell is masked or NaN (for the legend).
QImage cellImage(const HeatmapPicture& pic, int w, int h, bool hatch, bool& anyMasked, bool& anyNan) {
  QImage img(w, h, QImage::Format_RGB32);
  uchar* const bits = img.bits();  // detached once, before the rows are filled in parallel
  const qsizetype stride = img.bytesPerLine();
  std::vector<int> c0(static_cast<size_t>(w) + 1);  // columns [c0[x], c0[x+1]) make pixel x
  for (int x = 0; x <= w; ++x) c0[static_cast<size_t>(x)] = static_cast<int>(static_cast<long long>(x) * pic.cols / w);
  const QRgb nanRgb = ColorMap::nanColor().rgb(), maskedRgb = ColorMap::maskedColor().rgb();
  bool masked = false, nans = false;
#pragma omp parallel for schedule(dynamic, 16) reduction(|| : masked, nans) if (static_cast<long long>(pic.rows) * pic.cols > (1 << 22))
  for (int y = 0; y < h; ++y) {
    const int r0 = static_cast<int>(static_cast<long long>(y) * pic.rows / h);
    const int r1 = std::max(r0 + 1, static_cast<int>(static_cast<long long>(y + 1) * pic.rows / h));
    auto* line = reinterpret_cast<QRgb*>(bits + y * stride);
    for (int x = 0; x < w; ++x) {
      const int ca = c0[static_cast<size_t>(x)], cb = std::max(ca + 1, c0[static_cast<size_t>(x) + 1]);
      double sum = 0;
      int finite = 0, open = 0;
      bool nan = false;
      for (int r = r0; r < r1; ++r) {
        const size_t at = static_cast<size_t>(r) * pic.cols;
        const float* row = pic.values.data() + at;
        const char* flags = pic.masked.empty() ? nullptr : pic.masked.data() + at;
        for (int c = ca; c < cb; ++c) {
          const float v = row[c];
          const bool isOpen = !isNegInf(v) && !(flags && flags[c]);
          nan = nan || std::isnan(v);
          masked = masked || (!isOpen && !std::isnan(v));
          open += isOpen;
          if (std::isfinite(v)) sum += v, ++finite;
        }
      }
      nans = nans || nan;
      line[x] = nan ? nanRgb : (open == 0 || finite == 0) ? maskedRgb : pic.map.color(sum / finite).rgb();
      if (hatch && line[x] == maskedRgb && (x + y) % 6 == 0) line[x] = kHatch.rgb();
    }
  }
  anyMasked = masked;
  anyNan = nans;
  return img;
}

// The cells; anyMasked / anyNan: whether the legend needs those swatches.
void paintCells(QPainter& p, const HeatmapPicture& pic, const HeatmapLayout& g, const RenderOptions& opt, bool& anyMasked,
                bool& anyNan) {
  p.save();
  if (!g.imageCells) {  // one rectangle per cell
    p.setPen(Qt::NoPen);
    p.setRenderHint(QPainter::Antialiasing, false);
    for (int r = 0; r < pic.rows; ++r)
      for (int c = 0; c < pic.cols; ++c) {
        const float v = pic.value(r, c);
        const bool masked = !std::isnan(v) && pic.isMasked(r, c);
        anyMasked = anyMasked || masked;
        anyNan = anyNan || std::isnan(v);
        p.setBrush(masked ? ColorMap::maskedColor() : pic.map.color(v));
        p.drawRect(g.cellRect(r, c));
      }
    p.restore();
    return;
  }
  const auto fit = [&](double side, int n) { return std::clamp(static_cast<int>(std::ceil(side * opt.deviceScale)), 1, n); };
  const int w = g.downsampled ? fit(g.plot.width(), pic.cols) : pic.cols;
  const int h = g.downsampled ? fit(g.plot.height(), pic.rows) : pic.rows;
  QImage img = cellImage(pic, w, h, g.downsampled, anyMasked, anyNan);
  if (opt.vectorCells && !g.downsampled) {  // viewers smooth a small embedded image: enlarge it pixel for pixel
    const int k = std::clamp(static_cast<int>(g.cellW * opt.deviceScale), 1, std::max(1, 4096 / std::max(w, h)));
    if (k > 1) img = img.scaled(w * k, h * k, Qt::IgnoreAspectRatio, Qt::FastTransformation);
  }
  p.setRenderHint(QPainter::SmoothPixmapTransform, false);
  p.drawImage(g.plot, img);
  p.restore();
}

void paintLabels(QPainter& p, const HeatmapPicture& pic, const HeatmapLayout& g, const QFontMetricsF& fm) {
  const double lh = lineH(fm), pad = padFor(lh);
  auto text = [&](const std::string& s) { return fm.elidedText(QString::fromStdString(s), Qt::ElideRight, g.labelMax); };
  const int nr = std::min(pic.rows, static_cast<int>(pic.rowLabels.size()));
  for (int r = 0; r < nr; r += g.rowStep) {
    const double y = g.plot.top() + (r + 0.5) * g.cellH;
    p.drawText(QRectF(g.plot.left() - pad - g.labelMax, y - lh / 2, g.labelMax, lh), Qt::AlignRight | Qt::AlignVCenter | Qt::TextDontClip,
               text(pic.rowLabels[static_cast<size_t>(r)]));
  }
  const int nc = std::min(pic.cols, static_cast<int>(pic.colLabels.size()));
  for (int c = 0; c < nc; c += g.colStep) {
    const double x = g.plot.left() + (c + 0.5) * g.cellW, y = g.plot.bottom() + pad / 2;
    if (!g.colRotated) {
      const double w = g.cellW * g.colStep;
      p.drawText(QRectF(x - w / 2, y, w, lh), Qt::AlignHCenter | Qt::AlignTop | Qt::TextDontClip, text(pic.colLabels[static_cast<size_t>(c)]));
      continue;
    }
    p.save();  // vertical, reading upwards, ending just under the cells
    p.translate(x, y);
    p.rotate(-90);
    p.drawText(QRectF(-g.labelMax, -lh / 2, g.labelMax, lh), Qt::AlignRight | Qt::AlignVCenter | Qt::TextDontClip,
               text(pic.colLabels[static_cast<size_t>(c)]));
    p.restore();
  }
  p.save();  // the axis captions: "query" rotated left of the row labels, "key" under the columns
  QFont italic = p.font();
  italic.setItalic(true);
  p.setFont(italic);
  p.setPen(kMuted);
  if (!pic.colAxis.isEmpty())
    p.drawText(QRectF(g.plot.left() - lh * 4, g.plot.bottom() + g.colLabelH, g.plot.width() + lh * 8, lh),
               Qt::AlignHCenter | Qt::AlignTop, pic.colAxis);
  if (!pic.rowAxis.isEmpty()) {
    p.translate(g.plot.left() - g.rowLabelW - pad - lh / 2, g.plot.center().y());
    p.rotate(-90);
    p.drawText(QRectF(-g.plot.height() / 2 - lh * 4, -lh / 2, g.plot.height() + lh * 8, lh), Qt::AlignCenter, pic.rowAxis);
  }
  p.restore();
}

}  // namespace

bool HeatmapPicture::isMasked(int r, int c) const {
  const size_t i = static_cast<size_t>(r) * cols + c;
  return isNegInf(values[i]) || (!masked.empty() && masked[i]);
}

QFont HeatmapRenderer::font(const RenderOptions& opt) {
  QFont f = qobject_cast<QGuiApplication*>(QCoreApplication::instance()) ? QGuiApplication::font() : QFont();
  f.setPixelSize(std::max(4, opt.fontPx));
  f.setHintingPreference(QFont::PreferNoHinting);
  return f;
}

void HeatmapRenderer::paintMaskedMarks(QPainter& p, const std::vector<QRectF>& cells) {
  QPainterPath path;  // "/" lines x + y = k, clipped to each cell by hand (no clip paths in the SVG)
  double width = 1;
  for (const QRectF& r : cells) {
    const double s = std::clamp(std::min(r.width(), r.height()) / 3.5, 2.5, 7.0);
    width = std::min(width, std::max(0.5, s / 5));
    // On a grid shared by every cell of the same size, so the lines run on across neighbours.
    for (double k = s * (std::floor((r.left() + r.top()) / s) + 0.5); k < r.right() + r.bottom(); k += s) {
      const double x0 = std::max(r.left(), k - r.bottom()), x1 = std::min(r.right(), k - r.top());
      if (x1 <= x0) continue;
      path.moveTo(x0, k - x0);
      path.lineTo(x1, k - x1);
    }
  }
  if (path.isEmpty()) return;
  p.save();
  p.setBrush(Qt::NoBrush);
  p.setPen(QPen(kHatch, width, Qt::SolidLine, Qt::FlatCap));
  p.drawPath(path);
  p.restore();
}

void HeatmapRenderer::paintNanMarks(QPainter& p, const std::vector<QRectF>& cells) {
  const QFontMetricsF fm(p.font());
  const QString text = nanLabel();
  QPainterPath crosses;
  p.save();
  p.setPen(Qt::black);  // black on magenta: contrast 6.7:1
  for (const QRectF& r : cells) {
    if (r.width() >= fm.horizontalAdvance(text) + 2 && r.height() >= fm.height()) {
      p.drawText(r, Qt::AlignCenter, text);
    } else {
      const QRectF in = r.adjusted(r.width() / 4, r.height() / 4, -r.width() / 4, -r.height() / 4);
      crosses.moveTo(in.topLeft());
      crosses.lineTo(in.bottomRight());
      crosses.moveTo(in.bottomLeft());
      crosses.lineTo(in.topRight());
    }
  }
  p.setBrush(Qt::NoBrush);
  if (!crosses.isEmpty()) p.drawPath(crosses);
  p.restore();
}

double HeatmapRenderer::legendWidth(const ColorMap& map, const QString& title, bool masked, bool nan, const QFont& font) {
  const QFontMetricsF fm(font);
  const double lh = lineH(fm), pad = padFor(lh);
  double ticks = std::max(fm.horizontalAdvance(tickText(map.lo)), fm.horizontalAdvance(tickText(map.hi)));
  for (double v : niceTicks(map.lo, map.hi, 6)) ticks = std::max(ticks, fm.horizontalAdvance(tickText(v)));
  double w = std::max(fm.horizontalAdvance(title), lh + 2.5 * pad + ticks);
  if (masked) w = std::max(w, lh + pad + fm.horizontalAdvance(maskedLabel()));
  if (nan) w = std::max(w, lh + pad + fm.horizontalAdvance(nanLabel()));
  return std::ceil(w + 2);
}

// Title, the bar (high values on top) with ticks on its right, then the swatches.
QSizeF HeatmapRenderer::paintLegend(QPainter& p, QPointF at, double barHeight, const ColorMap& map,
                                    const QString& title, bool masked, bool nan, const QFont& font) {
  const QFontMetricsF fm(font);
  const double lh = lineH(fm), pad = padFor(lh), w = legendWidth(map, title, masked, nan, font);
  p.save();
  p.setFont(font);
  p.setPen(kText);
  double y = at.y();
  if (!title.isEmpty()) {
    p.drawText(QRectF(at.x(), y, w, lh), Qt::AlignLeft | Qt::AlignVCenter, title);
    y += lh + pad;
  }
  // The bar as thin strips, not a gradient: every SVG viewer and printer shows them alike.
  const QRectF bar(at.x(), y + lh / 2, lh, std::max(lh, barHeight));
  const int strips = std::clamp(static_cast<int>(std::ceil(bar.height() / 2)), 8, 128);
  const double sh = bar.height() / strips;
  for (int i = 0; i < strips; ++i)  // each overlaps the one below by half a unit: no hairline seams
    p.fillRect(QRectF(bar.left(), bar.bottom() - (i + 1) * sh, bar.width(), sh + (i > 0 ? 0.5 : 0)),
               map.color(map.lo + (map.hi - map.lo) * (i + 0.5) / strips));
  p.setBrush(Qt::NoBrush);
  p.setPen(QPen(kText, 0.8));
  p.drawRect(bar);
  const double span = map.hi > map.lo ? map.hi - map.lo : 1;
  auto yOf = [&](double v) { return bar.bottom() - (v - map.lo) / span * bar.height(); };
  std::vector<double> ticks = niceTicks(map.lo, map.hi, std::clamp(static_cast<int>(bar.height() / (1.5 * lh)) + 1, 2, 6));
  for (double end : {map.lo, map.hi})  // the ends too, where they do not crowd a round value
    if (std::all_of(ticks.begin(), ticks.end(), [&](double t) { return std::abs(yOf(t) - yOf(end)) >= lh; })) ticks.push_back(end);
  for (double v : ticks) {
    const double ty = yOf(v);
    p.drawLine(QPointF(bar.right(), ty), QPointF(bar.right() + pad, ty));
    p.drawText(QRectF(bar.right() + 1.5 * pad, ty - lh / 2, w, lh), Qt::AlignLeft | Qt::AlignVCenter, tickText(v));
  }
  y = bar.bottom() + lh / 2 + pad;
  const double side = std::round(lh * 0.9);
  auto swatch = [&](bool isMasked, const QString& label) {
    const QRectF box(at.x(), y + (lh - side) / 2, side, side);
    p.fillRect(box, isMasked ? ColorMap::maskedColor() : ColorMap::nanColor());
    isMasked ? paintMaskedMarks(p, {box}) : paintNanMarks(p, {box});
    p.setPen(kText);
    p.drawText(QRectF(box.right() + pad, y, w, lh), Qt::AlignLeft | Qt::AlignVCenter, label);
    y += lh + pad;
  };
  if (masked) swatch(true, maskedLabel());
  if (nan) swatch(false, nanLabel());
  p.restore();
  return {w, y - at.y()};
}

namespace {

// The room around the cells for a canvas width and a cell size (labels, axis captions, legend,
// title, note), filling in g's label and note fields. Column labels, once vertical, stay so.
struct Room {
  double left = 0, right = 0, top = 0, bottom = 0, legendH = 0;
};
Room roomAround(const HeatmapPicture& pic, const RenderOptions& opt, double width, double cell, HeatmapLayout& g) {
  const QFont f = HeatmapRenderer::font(opt);
  QFont bold = f;
  bold.setBold(true);
  const QFontMetricsF fm(f), fmb(bold);
  const double lh = lineH(fm), pad = padFor(lh), m = std::ceil(lh * 0.6);
  g.labelMax = std::max(3 * lh, std::min(fm.averageCharWidth() * 12, width * 0.22));
  g.rowLabelW = pic.rowLabels.empty() ? 0 : std::min(g.labelMax, longest(fm, pic.rowLabels)) + pad;
  const double colW = pic.colLabels.empty() ? 0 : std::min(g.labelMax, longest(fm, pic.colLabels));
  g.colRotated = g.colRotated || (!pic.colLabels.empty() && colW + pad > cell);
  g.colLabelH = pic.colLabels.empty() ? 0 : (g.colRotated ? colW : lh) + pad;
  g.rowStep = std::max(1, static_cast<int>(std::ceil(lh / cell)));
  g.colStep = std::max(1, static_cast<int>(std::ceil((g.colRotated ? lh : colW + pad) / cell)));
  g.downsampled = cell * opt.deviceScale < 1;
  g.imageCells = !opt.vectorCells || g.downsampled || static_cast<long long>(pic.rows) * pic.cols > opt.maxVectorCells;
  g.marks = !g.downsampled && cell >= 4;
  g.note = g.downsampled ? HeatmapRenderer::tr("downsampled from %1×%2 cells: each pixel is the mean of a block").arg(pic.rows).arg(pic.cols)
           : opt.vectorCells && g.imageCells
               ? HeatmapRenderer::tr("%1×%2 cells drawn as an image (more than %3 rectangles)").arg(pic.rows).arg(pic.cols).arg(opt.maxVectorCells)
               : QString();
  Room room;
  room.left = m + (pic.rowAxis.isEmpty() ? 0 : lh + pad) + g.rowLabelW;
  room.right = m + (opt.legend ? HeatmapRenderer::legendWidth(pic.map, pic.legendTitle, true, true, f) + 2 * pad : 0);
  room.top = m + (pic.title.isEmpty() ? 0 : fmb.height() + pad);
  room.bottom = g.colLabelH + (pic.colAxis.isEmpty() ? 0 : lh) + (g.note.isEmpty() ? 0 : lh + pad) + m;
  room.legendH = opt.legend ? (pic.legendTitle.isEmpty() ? 0 : lh + pad) + lh + lh / 2 + pad + 2 * (lh + pad) : 0;
  return room;
}

}  // namespace

HeatmapLayout HeatmapRenderer::layout(const HeatmapPicture& pic, const QSizeF& size, const RenderOptions& opt) {
  HeatmapLayout g;
  if (pic.rows <= 0 || pic.cols <= 0) return g;
  double cell = 1e9, availW = 1, availH = 1;
  Room room;
  for (int pass = 0; pass < 3; ++pass) {  // column labels may turn vertical; a note may need a line
    room = roomAround(pic, opt, size.width(), cell, g);
    availW = std::max(1.0, size.width() - room.left - room.right);
    availH = std::max(1.0, size.height() - room.top - room.bottom);
    cell = std::min(availW / pic.cols, availH / pic.rows);
    if (cell >= 3) cell = std::floor(cell);
  }
  room = roomAround(pic, opt, size.width(), cell, g);  // steps and marks for the final cell size
  g.cellW = g.cellH = cell;
  const double plotW = cell * pic.cols, plotH = cell * pic.rows;
  g.plot = QRectF(std::round(room.left + (availW - plotW) / 2), std::round(room.top + std::max(0.0, availH - plotH) / 2),
                  plotW, plotH);
  if (opt.legend) {
    const double lh = lineH(QFontMetricsF(font(opt))), pad = padFor(lh);
    g.legendBar = std::clamp(plotH - room.legendH, 2 * lh, 12 * lh);
    g.legend = QRectF(g.plot.right() + 2 * pad, g.plot.top(), room.right - 2 * pad, room.legendH + g.legendBar);
  }
  return g;
}

QSize HeatmapRenderer::naturalSize(const HeatmapPicture& pic, const RenderOptions& opt) {
  const int n = std::max({pic.rows, pic.cols, 1});
  double cell = std::clamp(720.0 / n, 1.0, 32.0);
  if (n * cell > 1024) cell = 1024.0 / n;
  HeatmapLayout g;
  const Room room = roomAround(pic, opt, 1e9, cell, g);
  QFont bold = font(opt);
  bold.setBold(true);
  const double lh = lineH(QFontMetricsF(font(opt))), pad = padFor(lh);
  const double w = std::max(room.left + cell * pic.cols + room.right, QFontMetricsF(bold).horizontalAdvance(pic.title) + 2 * lh);
  const double h = room.top + std::max(cell * pic.rows + room.bottom, room.legendH + 2 * lh + lh);
  return {static_cast<int>(std::ceil(w + 2 * pad)), static_cast<int>(std::ceil(h + pad))};  // a few spare units
}

void HeatmapRenderer::paint(QPainter& p, const HeatmapPicture& pic, const QSizeF& size, const RenderOptions& opt) {
  p.save();
  const QFont f = font(opt);
  QFont bold = f;
  bold.setBold(true);
  const QFontMetricsF fm(f), fmb(bold);
  const double lh = lineH(fm), m = std::ceil(lh * 0.6);
  p.fillRect(QRectF(QPointF(0, 0), size), Qt::white);
  p.setPen(kText);
  const HeatmapLayout g = layout(pic, size, opt);
  if (!pic.title.isEmpty()) {  // just above the cells: spare height goes above the title and below the note
    p.setFont(bold);
    const QString t = fmb.elidedText(pic.title, Qt::ElideRight, size.width() - 2 * m);
    const double tw = fmb.horizontalAdvance(t) + 2, cx = g.plot.isNull() ? size.width() / 2 : g.plot.center().x();
    const double y = g.plot.isNull() ? m : std::max(m, g.plot.top() - std::ceil(lh / 3) - fmb.height());
    p.drawText(QRectF(std::clamp(cx - tw / 2, m, std::max(m, size.width() - m - tw)), y, tw, fmb.height()), Qt::AlignCenter, t);
  }
  p.setFont(f);
  if (pic.rows <= 0 || pic.cols <= 0 || static_cast<long long>(pic.values.size()) < static_cast<long long>(pic.rows) * pic.cols) {
    p.restore();
    return;
  }
  bool anyMasked = false, anyNan = false;
  paintCells(p, pic, g, opt, anyMasked, anyNan);
  if (g.marks && (anyMasked || anyNan)) {  // cells of 4 units or more: at most a few thousand
    std::vector<QRectF> maskedCells, nanCells;
    for (int r = 0; r < pic.rows; ++r)
      for (int c = 0; c < pic.cols; ++c) {
        const bool nan = std::isnan(pic.value(r, c));
        if (nan || pic.isMasked(r, c)) (nan ? nanCells : maskedCells).push_back(g.cellRect(r, c));
      }
    paintMaskedMarks(p, maskedCells);
    paintNanMarks(p, nanCells);
  }
  p.setBrush(Qt::NoBrush);
  p.setPen(QPen(kMuted, 0.8));
  p.drawRect(g.plot);
  p.setPen(kText);
  paintLabels(p, pic, g, fm);
  if (opt.legend) paintLegend(p, g.legend.topLeft(), g.legendBar, pic.map, pic.legendTitle, anyMasked, anyNan, f);
  if (!g.note.isEmpty()) {
    QFont italic = f;
    italic.setItalic(true);
    p.setFont(italic);
    p.setPen(kMuted);
    const double y = g.plot.bottom() + g.colLabelH + (pic.colAxis.isEmpty() ? 0 : lh) + std::ceil(lh / 3);
    p.drawText(QRectF(m, std::min(y, size.height() - m - lh), size.width() - 2 * m, lh), Qt::AlignCenter, g.note);
  }
  p.restore();
}

// ---- pictures of a trace ------------------------------------------------------------------

std::vector<int> attentionWeightSteps(const Trace& trace) {
  std::vector<int> out;
  const auto& steps = trace.steps();
  for (size_t i = 0; i < steps.size(); ++i)
    if ((steps[i].info.id.ends_with(".weights") || kept_head(steps[i].info.id) >= 0) && steps[i].tensor.dim() == 4)
      out.push_back(static_cast<int>(i));
  return out;
}

int64_t modelHead(const std::string& stepId, int h) {
  const int64_t kept = kept_head(stepId);
  return kept >= 0 ? kept + h : h;
}

std::string heatmapFileBase(const std::string& stepId, int b, int h) {
  const auto dot = stepId.rfind('.');
  const std::string block = dot == std::string::npos ? stepId : stepId.substr(0, dot);
  return block + ".b" + std::to_string(b) + ".head" + std::to_string(modelHead(stepId, h));  // as a full layer's file
}

std::vector<char> keptHeadMask(const Trace& trace, const Step& s, int b, size_t plane) {
  for (const auto& bind : s.info.bindings)
    if (const Step* m = bind.var == "mask" && !bind.weight ? trace.find(bind.source) : nullptr;
        m && m->tensor.defined() && m->tensor.dim() == 3 && static_cast<size_t>(m->tensor.size(1) * m->tensor.size(2)) == plane) {
      const Tensor t = m->tensor.contiguous();
      const float* p = t.data() + static_cast<size_t>(b) * plane;
      std::vector<char> out(plane);
      for (size_t i = 0; i < plane; ++i) out[i] = p[i] == 0.0f;
      return out;
    }
  return {};
}

HeatmapPicture headPicture(const Batch& batch, const Trace& trace, int stepIndex, int b, int h) {
  HeatmapPicture pic;
  const Step& s = trace.steps().at(static_cast<size_t>(stepIndex));
  const int64_t kept = kept_head(s.info.id);  // a kept head's step holds that head alone, at index 0
  const int64_t head = kept >= 0 ? kept + h : h;  // the model's head number
  if (s.tensor.dim() != 4 || b < 0 || b >= s.tensor.size(0) || h < 0 || h >= s.tensor.size(1)) return pic;
  const Tensor t = s.tensor.contiguous();
  const auto heads = static_cast<size_t>(t.size(1)), plane = static_cast<size_t>(t.size(2) * t.size(3));
  const float* sentence = t.data() + static_cast<size_t>(b) * heads * plane;
  pic.rows = static_cast<int>(t.size(2));
  pic.cols = static_cast<int>(t.size(3));
  pic.values.assign(sentence + h * plane, sentence + (h + 1) * plane);
  const std::string& id = s.info.id;
  const auto dot = id.rfind('.');
  const std::string block = dot == std::string::npos ? id : id.substr(0, dot), kind = id.substr(dot + 1);
  const bool weights = kind == "weights" || kept >= 0;
  pic.map = ColorMap::fitted(sentence, static_cast<long long>(heads * plane), weights);
  try {
    AxisTokens a = attention_tokens(batch, id, b);
    pic.rowLabels = std::move(a.query);
    pic.colLabels = std::move(a.key);
  } catch (const std::exception&) {  // a hand-made trace without its sentences: numbered axes
  }
  for (auto [labels, n] : {std::pair{&pic.rowLabels, pic.rows}, std::pair{&pic.colLabels, pic.cols}})
    for (int i = 0; static_cast<int>(labels->size()) != n; ++i) {  // numbered axes instead
      if (i == 0) labels->clear();
      labels->push_back(std::to_string(i));
    }
  if (const Step* ms = trace.find(block + ".masked_scores"); ms && ms->tensor.shape() == s.tensor.shape()) {
    const Tensor m = ms->tensor.contiguous();
    const float* p = m.data() + (static_cast<size_t>(b) * heads + h) * plane;
    pic.masked.resize(plane);
    for (size_t i = 0; i < plane; ++i) pic.masked[i] = isNegInf(p[i]);
  } else if (kept >= 0) {
    pic.masked = keptHeadMask(trace, s, b, plane);
  }
  // Titled by the step's name as the navigator shows it (the file name keeps the block's id);
  // sentence and head from 0, as in the file name (b{b}.head{h}).
  pic.title = HeatmapRenderer::tr("%1 · sentence %2 · head %3").arg(StepText::title(s.info)).arg(b).arg(head);
  pic.legendTitle = weights ? HeatmapRenderer::tr("weight")
                    : kind == "qk"    ? HeatmapRenderer::tr("raw score")
                                      : HeatmapRenderer::tr("score");
  pic.rowAxis = HeatmapRenderer::tr("query");
  pic.colAxis = HeatmapRenderer::tr("key");
  return pic;
}

}  // namespace attnlab::ui
