// HeatmapGrid / HeatmapView / ColorMap on a real forward pass: values shown are the trace's,
// hover describes the cell from the sibling steps, masked and NaN cells are explained, click
// enlarges a head, large matrices are painted from a downsampled image.
#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QPushButton>
#include <QSet>
#include <QSignalSpy>
#include <QToolTip>
#include <QtTest>

#include <bit>
#include <cmath>
#include <limits>
#include <tuple>

#include "fixtures.h"
#include "forward/model.h"
#include "model/weights.h"
#include "step/steppanel.h"
#include "views/colormap.h"
#include "views/headdrawing.h"
#include "views/heatmapgrid.h"
#include "views/heatmaprender.h"
#include "views/heatmapview.h"
#include "window/traceresult.h"
#include "words/stepnames.h"
#include "words/steptext.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

const std::string kBlock = "encoder.layers.0.self_attn";
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// Two sentences of different lengths (the second padded with 3 [PAD]), d_model 16, 4 heads.
TraceResultPtr realResult() {
  return test::makeResult({"the cat sat on the mat", "a dog ran"}, 1);
}

void record(Trace& t, const std::string& name, const std::vector<float>& v) {
  StepInfo info;
  info.id = kBlock + "." + name;
  info.title = verbatim(name);
  t.record(info, Tensor::from({1, 1, 3, 3}, v));
}

// A hand-made (1, 1, 3, 3) block whose query row 1 ('y') has every key masked.
TraceResultPtr fullyMaskedResult() {
  auto r = std::make_shared<TraceResult>();
  r->cfg.d_model = 4;
  r->cfg.heads = 1;
  r->batch = make_batch({"x y z"}, {});
  const std::vector<float> qk{2, 0, -2, 1, 1, 1, 0, 4, 0};
  std::vector<float> scores, masked, weights(9);
  for (float v : qk) scores.push_back(v / 2);
  masked = scores;
  for (int j = 0; j < 3; ++j) masked[3 + j] = kNegInf;
  for (int i = 0; i < 3; ++i) {
    double sum = 0;
    for (int j = 0; j < 3; ++j) sum += std::exp(masked[i * 3 + j]);
    for (int j = 0; j < 3; ++j) weights[i * 3 + j] = static_cast<float>(std::exp(masked[i * 3 + j]) / sum);
  }
  record(r->trace, "qk", qk);
  record(r->trace, "scores", scores);
  record(r->trace, "masked_scores", masked);
  record(r->trace, "weights", weights);
  return r;
}

bool sameBits(float a, float b) { return std::bit_cast<quint32>(a) == std::bit_cast<quint32>(b); }

int distinctColours(const QImage& img) {
  QSet<QRgb> seen;
  const QImage rgb = img.convertToFormat(QImage::Format_RGB32);
  for (int y = 0; y < rgb.height(); ++y)
    for (int x = 0; x < rgb.width(); ++x) seen.insert(rgb.pixel(x, y));
  return static_cast<int>(seen.size());
}

QString screenshot(QWidget& w, const QString& name) {
  QDir().mkpath(QStringLiteral(ATTNLAB_SCREENSHOT_DIR));
  const QString path = QStringLiteral(ATTNLAB_SCREENSHOT_DIR) + QLatin1Char('/') + name;
  const QImage img = w.grab().toImage();
  if (!img.save(path)) return {};
  return path;
}

QString labelText(const QWidget& w, const char* name) {
  const auto* l = w.findChild<QLabel*>(QString::fromLatin1(name));
  return l ? l->text() : QString();
}

}  // namespace

class TestHeatmap : public QObject {
  Q_OBJECT

 private slots:
  void colorMapFits();
  void headsShowTheTraceValues_data();
  void headsShowTheTraceValues();
  void hoverDescribesCell();
  void maskedKeysAreZeroAndDescribed();
  void clickEnlargesAndEscReturns();
  void fullyMaskedRowIsExplained();
  void largeMatrixIsDownsampled();
  void screenshotsAreNotBlank();
  void manyTokensAndHeads();
  void exportedPictureIsTitledByTheStepName();
  void largeStepIsDrawnOffTheGuiThread();
  void colourScaleShowsStructure();
  void maskIsHatchedFromTheMaskStepOn();
};

void TestHeatmap::colorMapFits() {
  {  // two runs on one scale: diverging wins, the larger range
    ColorMap seqA, seqB, div;
    seqA.hi = 0.4, seqB.hi = 0.9;
    div.kind = ColorMapKind::Diverging, div.lo = -2, div.hi = 2;
    QCOMPARE(HeatmapGrid::unite(seqA, seqB).hi, 0.9);
    QCOMPARE(HeatmapGrid::unite(seqA, seqB).kind, ColorMapKind::Sequential);
    QCOMPARE(HeatmapGrid::unite(seqB, div).kind, ColorMapKind::Diverging);
    QCOMPARE(HeatmapGrid::unite(seqB, div).lo, -2.0);
    QCOMPARE(HeatmapGrid::unite(seqB, div).hi, 2.0);
  }
  const std::vector<float> w{0.f, 0.25f, 0.5f, kNegInf, kNaN};
  const ColorMap seq = ColorMap::fitted(w.data(), static_cast<long long>(w.size()), true);
  QCOMPARE(seq.kind, ColorMapKind::Sequential);
  QCOMPARE(seq.lo, 0.0);
  QCOMPARE(seq.hi, 0.5);
  const std::vector<float> s{-3.f, 1.f, 2.f};
  const ColorMap div = ColorMap::fitted(s.data(), 3, false);
  QCOMPARE(div.kind, ColorMapKind::Diverging);
  QCOMPARE(div.lo, -3.0);
  QCOMPARE(div.hi, 3.0);
  QCOMPARE(seq.color(kNaN), ColorMap::nanColor());
  QCOMPARE(div.color(kNegInf), ColorMap::maskedColor());
  QVERIFY(seq.color(0) != seq.color(0.5));
  QCOMPARE(seq.color(7), seq.color(0.5));  // clamps
  QVERIFY(ColorMap::maskedColor() != ColorMap::nanColor());
}

void TestHeatmap::headsShowTheTraceValues_data() {
  QTest::addColumn<QString>("step");
  QTest::addColumn<int>("batch");
  for (const char* s : {"weights", "scores", "masked_scores", "qk"})
    for (int b : {0, 1}) QTest::addRow("%s/%d", s, b) << QString::fromLatin1(s) << b;
}

void TestHeatmap::headsShowTheTraceValues() {
  QFETCH(QString, step);
  QFETCH(int, batch);
  const TraceResultPtr r = realResult();
  const int index = r->indexOf(kBlock + "." + step.toStdString());
  QVERIFY(index >= 0);
  const Tensor& t = r->trace.steps()[static_cast<size_t>(index)].tensor;  // (B, H, Tq, Tk)
  HeatmapGrid grid;
  grid.setStep(r, index, batch);
  QCOMPARE(grid.headCount(), 4);
  for (int h = 0; h < 4; ++h) {
    const HeatmapView* v = grid.headView(h);
    QVERIFY(v);
    QCOMPARE(v->rows(), static_cast<int>(t.size(2)));
    QCOMPARE(v->cols(), static_cast<int>(t.size(3)));
    for (int i = 0; i < v->rows(); ++i)
      for (int j = 0; j < v->cols(); ++j)
        if (!sameBits(v->value(i, j), t.at({batch, h, i, j})))
          QFAIL(qPrintable(QStringLiteral("head %1 cell (%2, %3): %4 vs %5")
                               .arg(h).arg(i).arg(j).arg(v->value(i, j)).arg(t.at({batch, h, i, j}))));
  }
  QVERIFY(!grid.headView(4));
}

void TestHeatmap::hoverDescribesCell() {
  const TraceResultPtr r = realResult();
  HeatmapGrid grid;
  grid.setStep(r, r->indexOf(kBlock + ".weights"), 0);
  grid.resize(900, 650);
  grid.show();
  QVERIFY(QTest::qWaitForWindowExposed(&grid));
  HeatmapView* v = grid.headView(1);
  QSignalSpy hovered(v, &HeatmapView::cellHovered);
  const QPoint at = v->cellRect(2, 1).center().toPoint();
  QCOMPARE(v->cellAt(at), QPoint(1, 2));  // x = column, y = row
  QTest::mouseMove(v, at);
  QTRY_COMPARE(hovered.count(), 1);
  QCOMPARE(hovered.at(0).at(0).toInt(), 2);
  QCOMPARE(hovered.at(0).at(1).toInt(), 1);
  const float qk = r->trace.find(kBlock + ".qk")->tensor.at({0, 1, 2, 1});
  const float scaled = r->trace.find(kBlock + ".scores")->tensor.at({0, 1, 2, 1});
  const float w = r->trace.find(kBlock + ".weights")->tensor.at({0, 1, 2, 1});
  const QString text = grid.hoverText();
  QVERIFY2(text.startsWith(QStringLiteral("query ‘sat’ (row 2) → key ‘cat’ (col 1): ")), qPrintable(text));
  QVERIFY2(text.contains(QStringLiteral("raw score qk = ") + QString::number(qk, 'g', 4)), qPrintable(text));
  QVERIFY2(text.contains(QStringLiteral("scaled = ") + QString::number(scaled, 'g', 4)), qPrintable(text));
  QVERIFY2(text.contains(QStringLiteral("weight = ") + QString::number(w, 'g', 4)), qPrintable(text));
  QCOMPARE(labelText(grid, "info"), text);
  QCOMPARE(grid.describeCell(1, 2, 1), text);
}

void TestHeatmap::maskedKeysAreZeroAndDescribed() {
  const TraceResultPtr r = realResult();  // sentence 1: "a dog ran" + 3 × [PAD]
  HeatmapGrid grid;
  grid.setStep(r, r->indexOf(kBlock + ".weights"), 1);
  grid.resize(900, 650);
  grid.show();
  QVERIFY(QTest::qWaitForWindowExposed(&grid));
  for (int h = 0; h < 4; ++h)
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j) {
        const QString d = grid.describeCell(h, i, j);
        if (j >= 3) {
          QCOMPARE(grid.headView(h)->value(i, j), 0.0f);
          QVERIFY2(d.contains(QStringLiteral("key ‘[PAD]’")) && d.contains(QStringLiteral("masked (−∞) → weight 0")),
                   qPrintable(d));
        } else {
          QVERIFY(grid.headView(h)->value(i, j) > 0.0f);
          QVERIFY2(!d.contains(QStringLiteral("masked")), qPrintable(d));
        }
      }
  HeatmapView* v = grid.headView(3);
  QTest::mouseMove(v, v->cellRect(0, 4).center().toPoint());
  QTRY_VERIFY(grid.hoverText().startsWith(QStringLiteral("query ‘a’ (row 0) → key ‘[PAD]’ (col 4)")));
  QVERIFY(grid.hoverText().contains(QStringLiteral("masked (−∞) → weight 0")));
  QVERIFY(labelText(grid, "note").contains(QStringLiteral("weight exactly 0")));
  QVERIFY(!labelText(grid, "note").contains(QStringLiteral("NaN")));
}

void TestHeatmap::clickEnlargesAndEscReturns() {
  const TraceResultPtr r = realResult();
  HeatmapGrid grid;
  grid.setStep(r, r->indexOf(kBlock + ".weights"), 0);
  grid.resize(900, 650);
  grid.show();
  QVERIFY(QTest::qWaitForWindowExposed(&grid));
  QSignalSpy spy(&grid, &HeatmapGrid::headEnlarged);
  auto* back = grid.findChild<QPushButton*>(QStringLiteral("allHeads"));
  QVERIFY(back);
  QVERIFY(!back->isVisible());
  HeatmapView* thumb = grid.headView(2);
  QTest::mouseClick(thumb, Qt::LeftButton, {}, thumb->rect().center());
  QCOMPARE(grid.enlargedHead(), 2);
  QCOMPARE(spy.count(), 1);
  QCOMPARE(spy.at(0).at(0).toInt(), 2);
  HeatmapView* large = grid.headView(2);
  QVERIFY(large != thumb);
  QVERIFY(large->isVisible());
  QVERIFY(!thumb->isVisible());
  QVERIFY(back->isVisible());
  QVERIFY(large->width() > thumb->width());
  const Tensor& t = r->trace.find(kBlock + ".weights")->tensor;
  for (int i = 0; i < large->rows(); ++i)
    for (int j = 0; j < large->cols(); ++j) QVERIFY(sameBits(large->value(i, j), t.at({0, 2, i, j})));
  QTest::mouseMove(large, large->cellRect(5, 0).center().toPoint());
  QTRY_VERIFY(grid.hoverText().startsWith(QStringLiteral("query ‘mat’ (row 5) → key ‘the’ (col 0)")));
  QVERIFY(!screenshot(grid, QStringLiteral("heatmap_enlarged_900x650.png")).isEmpty());

  QTest::keyClick(&grid, Qt::Key_Escape);
  QCOMPARE(grid.enlargedHead(), -1);
  QCOMPARE(spy.count(), 2);
  QCOMPARE(spy.at(1).at(0).toInt(), -1);
  QVERIFY(grid.headView(2)->isVisible());
  QVERIFY(!back->isVisible());

  QTest::mouseClick(grid.headView(2), Qt::LeftButton, {}, grid.headView(2)->rect().center());
  QCOMPARE(grid.enlargedHead(), 2);
  QTest::mouseClick(back, Qt::LeftButton);
  QCOMPARE(grid.enlargedHead(), -1);
  QCOMPARE(spy.count(), 4);
}

void TestHeatmap::fullyMaskedRowIsExplained() {
  const TraceResultPtr r = fullyMaskedResult();
  HeatmapGrid grid;
  grid.setStep(r, r->indexOf(kBlock + ".weights"), 0);
  grid.resize(700, 500);
  grid.show();
  QVERIFY(QTest::qWaitForWindowExposed(&grid));
  QCOMPARE(grid.headCount(), 1);
  for (int j = 0; j < 3; ++j) QVERIFY(std::isnan(grid.headView(0)->value(1, j)));
  const QString note = labelText(grid, "note");
  QVERIFY2(note.contains(QStringLiteral("Row ‘y’ has every key masked: softmax of all −∞ is 0/0 = NaN")),
           qPrintable(note));
  QVERIFY2(note.contains(QStringLiteral("Unmask at least one key")), qPrintable(note));
  QVERIFY2(!note.contains(QStringLiteral("is NaN (magenta)")) && !note.contains(QStringLiteral("are NaN (magenta)")),
           qPrintable(note));  // the NaNs are explained, not counted as unexplained
  const QString d = grid.describeCell(0, 1, 2);
  QVERIFY2(d.startsWith(QStringLiteral("query ‘y’ (row 1) → key ‘z’ (col 2): raw score qk = 1, scaled = 0.5")),
           qPrintable(d));
  QVERIFY2(d.contains(QStringLiteral("masked (−∞) → weight NaN")), qPrintable(d));
  QVERIFY(grid.describeCell(0, 0, 0).contains(QStringLiteral("weight = ")));
  // NaN cells are painted magenta, distinct from the colour map.
  const QImage img = grid.grab().toImage().convertToFormat(QImage::Format_RGB32);
  int magenta = 0;
  for (int y = 0; y < img.height(); ++y)
    for (int x = 0; x < img.width(); ++x) magenta += img.pixel(x, y) == ColorMap::nanColor().rgb() ? 1 : 0;
  QVERIFY(magenta > 100);
  QVERIFY(!screenshot(grid, QStringLiteral("heatmap_nan_row_700x500.png")).isEmpty());
  // The masked scores show the same row hatched (−∞) and explain it too.
  grid.setStep(r, r->indexOf(kBlock + ".masked_scores"), 0);
  QVERIFY(std::isinf(grid.headView(0)->value(1, 0)));
  QVERIFY(labelText(grid, "note").contains(QStringLiteral("Row ‘y’ has every key masked")));
  QVERIFY(!screenshot(grid, QStringLiteral("heatmap_masked_scores_700x500.png")).isEmpty());
}

void TestHeatmap::largeMatrixIsDownsampled() {
  constexpr int n = 600;
  std::vector<float> values(static_cast<size_t>(n) * n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      values[static_cast<size_t>(i) * n + j] = j > i ? kNegInf : std::sin(i * 0.02f) * std::cos(j * 0.03f);
  HeatmapView view;
  view.setTitle(QStringLiteral("600 × 600"));
  view.setMatrix(values.data(), n, n, {}, {}, ColorMap::fitted(values.data(), n * n, false));
  view.resize(300, 300);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  QVERIFY(view.findChildren<QWidget*>().isEmpty());  // painted, not a widget per cell
  QCOMPARE(view.rows(), n);
  QCOMPARE(view.value(10, 599), kNegInf);
  QCOMPARE(view.accessibleDescription(), QStringLiteral("downsampled from 600×600"));
  const QImage small = view.grab().toImage();
  QVERIFY(distinctColours(small) > 20);
  QVERIFY(!screenshot(view, QStringLiteral("heatmap_600x600_downsampled.png")).isEmpty());
  const QPoint last = view.cellRect(n - 1, 0).center().toPoint();
  QCOMPARE(view.cellAt(last).y(), n - 1);

  view.resize(760, 760);  // room for one pixel per cell
  QTRY_COMPARE(view.width(), 760);
  QVERIFY(view.accessibleDescription().isEmpty());
  QVERIFY(view.cellRect(0, n - 1).right() - view.cellRect(0, 0).left() >= n);  // ≥ 1 px per cell
  QCOMPARE(view.cellAt(view.cellRect(n - 1, n - 2).center()), QPoint(n - 2, n - 1));
}

void TestHeatmap::screenshotsAreNotBlank() {
  const TraceResultPtr r = realResult();
  HeatmapGrid grid;
  grid.show();
  QVERIFY(QTest::qWaitForWindowExposed(&grid));
  struct Shot { const char* step; int batch, w, h; };
  for (const Shot& s : {Shot{"weights", 1, 1000, 700}, Shot{"weights", 0, 520, 380}, Shot{"masked_scores", 1, 1000, 700}}) {
    grid.setStep(r, r->indexOf(kBlock + "." + s.step), s.batch);
    grid.resize(s.w, s.h);
    QTRY_COMPARE(grid.size(), QSize(s.w, s.h));
    for (int h = 0; h < grid.headCount(); ++h) QVERIFY(grid.headView(h)->isVisible());
    const QImage img = grid.grab().toImage();
    QVERIFY(!img.isNull());
    QVERIFY2(distinctColours(img) > 12, s.step);
    const QString name = QStringLiteral("heatmap_grid_%1_b%2_%3x%4.png").arg(QLatin1String(s.step)).arg(s.batch).arg(s.w).arg(s.h);
    const QString path = screenshot(grid, name);
    QVERIFY2(!path.isEmpty(), qPrintable(name));
    qInfo("screenshot: %s", qPrintable(path));
  }
  // Projector zoom: the app scales the widget font; labels, legend and note grow with it.
  QFont big = grid.font();
  big.setPointSizeF(big.pointSizeF() * 1.6);
  grid.setFont(big);
  grid.setStep(r, r->indexOf(kBlock + ".weights"), 0);
  grid.resize(1000, 700);
  QTRY_COMPARE(grid.width(), 1000);
  QCOMPARE(grid.headView(0)->font().pointSizeF(), big.pointSizeF());
  QVERIFY(distinctColours(grid.grab().toImage()) > 12);
  QVERIFY(!screenshot(grid, QStringLiteral("heatmap_grid_zoomed_1000x700.png")).isEmpty());
}

// 8 heads and a 30-token sentence: thumbnails without labels, the enlarged head's labels thin out.
void TestHeatmap::manyTokensAndHeads() {
  auto r = std::make_shared<TraceResult>();
  r->cfg.d_model = 16;
  r->cfg.heads = 8;
  r->cfg.d_ff = 32;
  r->cfg.mask = MaskKind::PaddingCausal;
  QStringList words;
  for (int i = 0; i < 30; ++i) words << QStringLiteral("word%1").arg(i);
  r->batch = make_batch({words.join(QLatin1Char(' ')).toStdString(), "short one"}, {});
  forward(r->cfg, init_weights(r->cfg), r->batch, r->trace);
  HeatmapGrid grid;
  grid.resize(1000, 700);
  grid.show();
  QVERIFY(QTest::qWaitForWindowExposed(&grid));
  grid.setStep(r, r->indexOf(kBlock + ".weights"), 0);
  QCOMPARE(grid.headCount(), 8);
  QVERIFY(distinctColours(grid.grab().toImage()) > 12);
  QVERIFY(!screenshot(grid, QStringLiteral("heatmap_grid_8heads_30tokens_1000x700.png")).isEmpty());
  grid.enlargeHead(5);
  QCOMPARE(grid.headView(5)->rows(), 30);
  grid.resize(600, 420);
  QTRY_COMPARE(grid.width(), 600);
  QVERIFY(!screenshot(grid, QStringLiteral("heatmap_enlarged_30tokens_600x420.png")).isEmpty());
  HeatmapView* v = grid.headView(5);
  QTest::mouseMove(v, v->cellRect(29, 0).center().toPoint());
  QTRY_VERIFY(grid.hoverText().startsWith(QStringLiteral("query ‘word29’ (row 29) → key ‘word0’ (col 0)")));
  QTRY_COMPARE(QToolTip::text(), grid.hoverText());  // the readout by the cursor, not only under the grid
  QVERIFY(grid.describeCell(5, 0, 1).contains(QStringLiteral("masked (−∞) → weight 0")));  // causal
}

// An exported heatmap says which step it is by the name the navigator shows.
void TestHeatmap::exportedPictureIsTitledByTheStepName() {
  const TraceResultPtr r = realResult();
  const int index = r->indexOf(kBlock + ".weights");
  const HeatmapPicture pic = headPicture(r->batch, r->trace, index, 1, 2);
  const QString name = StepText::title(r->trace.steps()[static_cast<size_t>(index)].info);
  // sentence and head from 0, as in the file name (….b1.head2.png)
  QCOMPARE(pic.title, name + QStringLiteral(" · sentence 1 · head 2"));
  QVERIFY(!name.contains(QStringLiteral("layers.")));  // a name, not the block's id
}

// A step with more cells a head than HeatmapView::kLargeCells is drawn on a worker thread: the
// grid is there at once with a placeholder in each head, the pictures arrive (drawingDone), hover
// reads the trace's own numbers, and coming back to the step is served from the cache.
void TestHeatmap::largeStepIsDrawnOffTheGuiThread() {
  auto r = std::make_shared<TraceResult>();
  r->cfg.d_model = 8;
  r->cfg.heads = 2;
  r->cfg.d_ff = 16;
  QStringList words;
  for (int i = 0; i < 600; ++i) words << QStringLiteral("w%1").arg(i % 37);
  r->batch = make_batch({words.join(QLatin1Char(' ')).toStdString()}, {});
  forward(r->cfg, init_weights(r->cfg), r->batch, r->trace);
  const int weights = r->indexOf(kBlock + ".weights"), scores = r->indexOf(kBlock + ".scores");
  QVERIFY(600LL * 600 > HeatmapView::kLargeCells);
  HeatmapGrid grid;
  grid.resize(900, 650);
  grid.show();
  QVERIFY(QTest::qWaitForWindowExposed(&grid));
  QSignalSpy done(&grid, &HeatmapGrid::drawingDone);
  grid.setStep(r, weights, 0);
  QVERIFY(grid.drawing());
  QCOMPARE(grid.headCount(), 2);
  QVERIFY(grid.headView(0)->waitingForOverview());
  QVERIFY(labelText(grid, "note").contains(QStringLiteral("Drawing 2 heatmaps of 600 × 600")));
  QVERIFY(done.wait(30000));
  QVERIFY(!grid.drawing());
  QVERIFY(!grid.headView(0)->waitingForOverview() && !grid.headView(1)->waitingForOverview());
  QVERIFY(!labelText(grid, "note").contains(QStringLiteral("Drawing")));
  QVERIFY(distinctColours(grid.grab().toImage()) > 12);
  const Tensor& t = r->trace.steps()[static_cast<size_t>(weights)].tensor;
  for (const auto& [h, i, j] : {std::tuple{0, 5, 3}, std::tuple{1, 599, 598}, std::tuple{1, 300, 0}})
    QVERIFY(sameBits(grid.headView(h)->value(i, j), t.at({0, h, i, j})));
  grid.setStep(r, scores, 0);  // another large step: drawn anew
  QVERIFY(grid.drawing());
  grid.setStep(r, weights, 0);  // back: from the cache, at once
  QVERIFY(!grid.drawing());
  QVERIFY(!grid.headView(0)->waitingForOverview());
  const ColorMap weightsMap = grid.colorMap();
  const QImage weightsPicture = grid.headView(1)->grab().toImage();
  backgroundPool()->waitForDone();  // the scores' drawing (if it started at all) ends: it is for another step
  QCoreApplication::processEvents();
  QVERIFY(!grid.drawing());
  QCOMPARE(grid.colorMap().lo, weightsMap.lo);  // not applied here
  QCOMPARE(grid.colorMap().hi, weightsMap.hi);
  QCOMPARE(grid.headView(1)->grab().toImage(), weightsPicture);

  // A small step, then this large one, with the per-row scale on: the large step's own row maxima.
  grid.setStep(realResult(), realResult()->indexOf(kBlock + ".weights"), 0);
  grid.scaleBox()->setCurrentIndex(1);
  grid.setStep(r, weights, 0);
  QVERIFY(done.wait(30000) || !grid.drawing());
  QVERIFY(!grid.headView(0)->waitingForOverview());
  QCOMPARE(grid.colorMap().hi, 1.0);
  grid.scaleBox()->setCurrentIndex(0);

  // The step panel's what-changed sentence of such a step is measured on a worker too.
  StepPanel panel;
  panel.resize(1000, 700);
  panel.show();
  panel.setStep(r, weights);
  QVERIFY(panel.changeText().startsWith(QStringLiteral("Measuring what changed in")));
  QTRY_COMPARE_WITH_TIMEOUT(panel.changeText(), StepNames::whatChanged(r->trace, weights), 30000);
  panel.setStep(r, scores);
  panel.setStep(r, weights);  // kept for the result: at once
  QCOMPARE(panel.changeText(), StepNames::whatChanged(r->trace, weights));
}

// Per row, each query row's largest weight takes the top colour of the map; log spans 10⁻⁴ … 1;
// the hover readout keeps the true weights.
void TestHeatmap::colourScaleShowsStructure() {
  const TraceResultPtr r = realResult();
  const int index = r->indexOf(kBlock + ".weights");
  HeatmapGrid grid;
  grid.resize(900, 650);
  grid.show();
  QVERIFY(QTest::qWaitForWindowExposed(&grid));
  grid.setStep(r, index, 0);
  QComboBox* scale = grid.scaleBox();
  QVERIFY(scale->isVisible());
  const QString linearHover = grid.describeCell(2, 1, 3);
  scale->setCurrentIndex(1);  // per row
  auto* legend = grid.findChild<ColorLegend*>();
  QCOMPARE(legend->map().lo, 0.0);
  QCOMPARE(legend->map().hi, 1.0);
  const Tensor& t = r->trace.steps()[static_cast<size_t>(index)].tensor;
  for (int h : {0, 3}) {
    HeatmapView* v = grid.headView(h);
    const QImage img = v->grab().toImage();
    for (int i = 0; i < 6; ++i) {
      int best = 0;
      for (int j = 1; j < 6; ++j)
        if (t.at({0, h, i, j}) > t.at({0, h, i, best})) best = j;
      const QPoint at = (v->cellRect(i, best).center() * img.devicePixelRatio()).toPoint();
      QCOMPARE(QColor(img.pixel(at)), legend->map().color(1.0));
    }
  }
  QCOMPARE(grid.describeCell(2, 1, 3), linearHover);
  scale->setCurrentIndex(2);  // log
  QCOMPARE(legend->map().lo, kLogFloor);
  QCOMPARE(legend->map().hi, 0.0);
  QCOMPARE(grid.describeCell(2, 1, 3), linearHover);
  grid.setStep(r, r->indexOf(kBlock + ".scores"), 0);
  QVERIFY(!scale->isVisible());  // scores are not weights: as they are
}

// Before "Apply the mask" the padded keys show their real scores (not hatched); the mask step
// hatches them and says how many; the weights keep them hatched.
void TestHeatmap::maskIsHatchedFromTheMaskStepOn() {
  const TraceResultPtr r = realResult();  // sentence 1: "a dog ran" + 3 × [PAD]
  HeatmapGrid grid;
  grid.resize(900, 650);
  grid.show();
  QVERIFY(QTest::qWaitForWindowExposed(&grid));
  for (const char* step : {"qk", "scores"}) {
    grid.setStep(r, r->indexOf(kBlock + "." + step), 1);
    QVERIFY2(std::isfinite(grid.headView(0)->value(0, 4)), step);
    QVERIFY2(!grid.headView(0)->cellMasked(0, 4), step);
    QVERIFY(!labelText(grid, "note").contains(QStringLiteral("−∞")));
  }
  grid.setStep(r, r->indexOf(kBlock + ".masked_scores"), 1);
  QVERIFY(grid.headView(0)->cellMasked(0, 4));
  QVERIFY(!grid.headView(0)->cellMasked(0, 2));
  QVERIFY2(labelText(grid, "note").contains(QStringLiteral("The mask set 18 of the 36 scores of each head to −∞")),
           qPrintable(labelText(grid, "note")));
  grid.setStep(r, r->indexOf(kBlock + ".weights"), 1);
  QVERIFY(grid.headView(0)->cellMasked(0, 4));
  QCOMPARE(grid.headView(0)->value(0, 4), 0.0f);
}

QTEST_MAIN(TestHeatmap)
#include "test_heatmap.moc"
