// Rendering a labelled heatmap (ui/heatmaprender) into an image, as PNG export and the clipboard
// do: a 4096×4096 matrix into 1200×1200 (downsampled: block means, one drawImage) and a 64×64
// one at its natural size (one pixel per cell, labels, hatched masked cells).
//
//   cmake -DATTNLAB_BENCH=ON … && ./bench/bench_heatmap
#include <benchmark/benchmark.h>

#include <QGuiApplication>
#include <QImage>
#include <QPainter>

#include <cmath>
#include <string>

#include "views/heatmaprender.h"

using namespace attnlab::ui;

namespace {

// n × n causal weights (−∞ above the diagonal), tokens "t0" … on both axes.
HeatmapPicture causal(int n) {
  HeatmapPicture pic;
  pic.rows = pic.cols = n;
  pic.values.resize(static_cast<size_t>(n) * n);
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c)
      pic.values[static_cast<size_t>(r) * n + c] = c > r ? -INFINITY : static_cast<float>((r * 7 + c * 13) % 101) / 100.0f;
  for (int i = 0; i < n; ++i) pic.rowLabels.push_back(std::string(1, 't').append(std::to_string(i)));
  pic.colLabels = pic.rowLabels;
  pic.map.hi = 1;
  pic.title = QStringLiteral("bench %1×%1").arg(n);
  pic.legendTitle = QStringLiteral("weight");
  pic.rowAxis = QStringLiteral("query");
  pic.colAxis = QStringLiteral("key");
  return pic;
}

void render(benchmark::State& state, const HeatmapPicture& pic, QSize size) {
  QImage img(size, QImage::Format_RGB32);
  for (auto _ : state) {
    QPainter p(&img);
    p.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    HeatmapRenderer::paint(p, pic, size);
    p.end();
    benchmark::DoNotOptimize(img.constBits());
  }
  state.counters["cells"] = static_cast<double>(pic.rows) * pic.cols;
}

void BM_Heatmap4096To1200(benchmark::State& state) {
  static const HeatmapPicture pic = causal(4096);
  render(state, pic, QSize(1200, 1200));
}

void BM_Heatmap64Natural(benchmark::State& state) {
  static const HeatmapPicture pic = causal(64);
  render(state, pic, HeatmapRenderer::naturalSize(pic));
}

}  // namespace

BENCHMARK(BM_Heatmap4096To1200)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Heatmap64Natural)->Unit(benchmark::kMillisecond);

// Text needs a QGuiApplication; the offscreen platform needs no display.
int main(int argc, char** argv) {
  static int qargc = 3;
  static char a0[] = "bench_heatmap", a1[] = "-platform", a2[] = "offscreen";
  static char* qargv[] = {a0, a1, a2, nullptr};
  QGuiApplication app(qargc, qargv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
