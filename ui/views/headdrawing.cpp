#include "views/headdrawing.h"

#include <QCoreApplication>
#include <QThread>
#include <QThreadPool>

#include <algorithm>
#include <cmath>


namespace attnlab::ui {

QThreadPool* backgroundPool() {
  static QThreadPool* pool = [] {
    auto* p = new QThreadPool;  // lives as long as the process (threads end when idle)
    p->setMaxThreadCount(std::max(1, QThread::idealThreadCount() - 1));
    if (QCoreApplication* app = QCoreApplication::instance())  // nothing left running as the application ends
      QObject::connect(app, &QCoreApplication::aboutToQuit, p, [p] {
        p->clear();
        p->waitForDone();
      });
    return p;
  }();
  return pool;
}

QImage cellImage(const float* values, int rows, int cols, const ColorMap& map, int w, int h,
                              const CellScale& scale) {
  const bool scaled = scale.rowMax || scale.log;
  w = std::clamp(w, 1, std::max(1, cols));
  h = std::clamp(h, 1, std::max(1, rows));
  QImage image(w, h, QImage::Format_RGB32);
  if (rows == 0 || cols == 0) return image;
  const bool blocks = w < cols || h < rows;
  const QRgb masked = ColorMap::maskedColor().rgb(), hatch = qRgb(0x4a, 0x4a, 0x4a), nan = ColorMap::nanColor().rgb();
  std::vector<int> c0(static_cast<size_t>(w) + 1);  // columns [c0[x], c0[x + 1]) make pixel x
  for (int x = 0; x <= w; ++x) c0[static_cast<size_t>(x)] = static_cast<int>(static_cast<long long>(x) * cols / w);
  for (int y = 0; y < h; ++y) {
    auto* line = reinterpret_cast<QRgb*>(image.scanLine(y));
    const int r0 = static_cast<int>(static_cast<long long>(y) * rows / h);
    const int r1 = std::max(r0 + 1, static_cast<int>(static_cast<long long>(y + 1) * rows / h));
    for (int x = 0; x < w; ++x) {
      const int a = c0[static_cast<size_t>(x)], b = std::max(a + 1, c0[static_cast<size_t>(x) + 1]);
      double sum = 0;
      long long n = 0;
      bool isNan = false;
      for (int r = r0; r < r1; ++r)
        for (const float *v = values + static_cast<size_t>(r) * cols + a, *e = values + static_cast<size_t>(r) * cols + b; v < e; ++v) {
          const float x = scaled ? scale.apply(*v, r) : *v;
          if (std::isnan(x)) isNan = true;
          else if (std::isfinite(x)) sum += x, ++n;
        }
      line[x] = isNan ? nan : n == 0 ? masked : map.color(sum / static_cast<double>(n)).rgb();
      if (blocks && line[x] == masked && (x + y) % 6 == 0) line[x] = hatch;  // image ≈ screen px
    }
  }
  return image;
}

float CellScale::apply(float v, int row) const {
  if (!std::isfinite(v)) return v;
  if (rowMax && rowMax[row] > 0) v /= rowMax[row];
  if (log) v = static_cast<float>(std::log10(std::max(static_cast<double>(v), std::pow(10.0, kLogFloor))));
  return v;
}

ColorMap scaledMap(ColorScale scale, const ColorMap& linear) {
  if (scale == ColorScale::Linear) return linear;
  ColorMap m;
  m.kind = ColorMapKind::Sequential;
  m.lo = scale == ColorScale::Log ? kLogFloor : 0;
  m.hi = scale == ColorScale::Log ? 0 : 1;
  return m;
}

RowFacts rowFacts(const float* data, const float* masked, int heads, int tq, int tk) {
  RowFacts f;
  for (int i = 0; i < tq; ++i) {
    bool full = false;
    for (int h = 0; h < heads; ++h) {
      int rowNan = 0, rowMasked = 0;
      for (int j = 0; j < tk; ++j) {
        const size_t k = (static_cast<size_t>(h) * tq + i) * tk + j;
        rowNan += std::isnan(data[k]) ? 1 : 0;
        rowMasked += (isNegInf(data[k]) || (masked && isNegInf(masked[k]))) ? 1 : 0;
      }
      const bool allMasked = tk > 0 && rowMasked == tk;
      f.anyMasked = f.anyMasked || (rowMasked > 0 && !allMasked);
      const bool nanFromMask = tk > 0 && rowNan == tk && (!masked || allMasked);
      full = full || allMasked || nanFromMask;
      if (!nanFromMask) f.nans += rowNan;
    }
    if (full) f.fullRows.push_back(i);
  }
  return f;
}

std::vector<float> rowMaxima(const float* data, int heads, int tq, int tk) {
  std::vector<float> out(static_cast<size_t>(heads) * tq, 0.0f);
  for (size_t r = 0; r < out.size(); ++r) {
    float m = 0;
    for (const float* v = data + r * tk; v < data + (r + 1) * tk; ++v)
      if (std::isfinite(*v)) m = std::max(m, *v);
    out[r] = m;
  }
  return out;
}

HeadDrawing drawHeads(const float* data, const float* masked, int heads, int tq, int tk, bool probabilities,
                      ColorScale scale) {
  HeadDrawing d;
  const long long n = static_cast<long long>(heads) * tq * tk;
  d.map = scaledMap(scale, ColorMap::fitted(data, n, probabilities));
  d.facts = rowFacts(data, masked, heads, tq, tk);
  const std::vector<float> maxima = scale == ColorScale::Linear ? std::vector<float>{} : rowMaxima(data, heads, tq, tk);
  const int w = std::min(tk, kOverviewSide), h = std::min(tq, kOverviewSide);
  for (int head = 0; head < heads; ++head) {
    const CellScale cs{scale == ColorScale::PerRow ? maxima.data() + static_cast<size_t>(head) * tq : nullptr,
                       scale == ColorScale::Log};
    d.images.push_back(cellImage(data + static_cast<size_t>(head) * tq * tk, tq, tk, d.map, w, h, cs));
  }
  return d;
}

}  // namespace attnlab::ui
