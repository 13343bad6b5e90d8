// The "seeing attention" views on real forward passes: LineView (lines whose opacity is the
// weight, head chips, hover isolation), ModelView (one thumbnail per block × head, click to
// choose), NeuronView (q, k_j, q∘k_j, Σ, ÷√Dh, softmax equal to the trace) and MaskComparison
// (the four masks recomputed off the GUI thread). Screenshots at 900×600 go to
// ATTNLAB_SCREENSHOT_DIR.
#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QSet>
#include <QSignalSpy>
#include <QThreadPool>
#include <QToolButton>
#include <QtTest>

#include <cmath>

#include "forward/model.h"
#include "model/weights.h"
#include "views/heatmapview.h"
#include "views/lineview.h"
#include "views/maskcompare.h"
#include "views/modelview.h"
#include "views/neuronview.h"
#include "window/selection.h"

Q_DECLARE_METATYPE(attnlab::ui::ViewSelection)

#include "fixtures.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

// Two sentences of different lengths (the second padded with 3 [PAD]); d_model 16, 4 heads, 2 layers.
TraceResultPtr encoderResult(std::vector<std::string> texts = {"the cat sat on the mat", "a dog ran"}) {
  return test::makeResult(texts, 2);
}

// Encoder–decoder: decoder self-attention under padding + causal, cross-attention over the source.
TraceResultPtr crossResult() {
  return test::makeResult({"le chat dort", "un chien court très vite"}, 2, MaskKind::PaddingCausal,
                          {"the cat sleeps now", "a dog runs"});
}

ViewSelection selectBlock(const TraceResultPtr& r, const std::string& block, int batch, int head, int query = 0) {
  ViewSelection s;
  s.result = r;
  s.stepIndex = r->indexOf(block + ".weights");
  s.block = focusBlock(r->trace, block + ".weights");
  s.batch = batch;
  s.head = head;
  s.query = query;
  return s;
}

// Whether one of a view's labels (its caption among them) reads exactly `text`.
bool showsLabel(const QWidget& w, const QString& text) {
  for (const QLabel* l : w.findChildren<QLabel*>())
    if (l->text() == text) return true;
  return false;
}

// A block's name says its layer as the id does, from 0: "encoder.layers.1.self_attn" is
// "Encoder layer 1 · Self-attention".
void checkBlockName(const std::string& block) {
  const size_t at = block.find(".layers.") + 8;
  const QString layer = QString::fromStdString(block.substr(at, block.find('.', at) - at));
  const QString name = ModelView::blockName(block);
  QVERIFY2(name.contains(QStringLiteral(" layer %1 · ").arg(layer)), qPrintable(name));
}

float at(const ViewSelection& s, const char* name, int h, int i, int j) {
  return s.result->trace.find(s.blockStep(name))->tensor.at({s.batch, h, i, j});
}

std::vector<std::string> attentionBlocks(const Trace& t) {
  std::vector<std::string> out;
  for (const auto& s : t.steps())
    if (s.info.id.ends_with(".weights")) out.push_back(s.info.id.substr(0, s.info.id.size() - 8));
  return out;
}

// What LineView documents: weight × (query is [PAD] ? kPadFade : 1).
double expectedOpacity(const ViewSelection& s, int h, int i, int j) {
  const auto tokens = attention_tokens(s.result->batch, s.blockStep("weights"), s.batch);
  return static_cast<double>(at(s, "weights", h, i, j)) * (tokens.query[i] == kPadToken ? LineView::kPadFade : 1.0);
}

void showAt(QWidget& w) {
  w.resize(900, 600);
  w.show();
  QVERIFY(QTest::qWaitForWindowExposed(&w));
}

void screenshot(QWidget& w, const QString& name) {
  QDir().mkpath(QStringLiteral(ATTNLAB_SCREENSHOT_DIR));
  const QImage img = w.grab().toImage();
  QCOMPARE(img.size(), QSize(900, 600));
  QSet<QRgb> colours;
  for (int y = 0; y < img.height(); y += 3)
    for (int x = 0; x < img.width(); x += 3) colours.insert(img.pixel(x, y));
  QVERIFY2(colours.size() > 20, qPrintable(name + QStringLiteral(" looks blank")));
  QVERIFY(img.save(QStringLiteral(ATTNLAB_SCREENSHOT_DIR "/") + name));
}

void addSelections() {
  QTest::addColumn<ViewSelection>("sel");
  const TraceResultPtr enc = encoderResult(), cross = crossResult();
  QTest::newRow("encoder, padded sentence") << selectBlock(enc, "encoder.layers.1.self_attn", 1, 2, 1);
  QTest::newRow("decoder self, causal") << selectBlock(cross, "decoder.layers.0.self_attn", 1, 1, 1);
  QTest::newRow("cross-attention") << selectBlock(cross, "decoder.layers.1.multihead_attn", 0, 3, 2);
}

}  // namespace

class TestViews : public QObject {
  Q_OBJECT

 private slots:
  void lineOpacityIsWeight_data() { addSelections(); }
  void lineOpacityIsWeight();
  void lineHeadChipsToggle();
  void lineHoverIsolates();
  void modelThumbnails_data() { addSelections(); }
  void modelThumbnails();
  void neuronNumbers_data() { addSelections(); }
  void neuronNumbers();
  void neuronQueryChooser();
  void maskComparison();
  void maskComparisonCachesAndDropsStale();
  void maskComparisonCross();
  void sampleScreenshots_data();
  void sampleScreenshots();
};

void TestViews::lineOpacityIsWeight() {
  QFETCH(ViewSelection, sel);
  LineView v;
  v.setSelection(sel);
  const Tensor& w = sel.result->trace.find(sel.blockStep("weights"))->tensor;  // (B, H, Tq, Tk)
  QCOMPARE(v.heads(), static_cast<int>(w.size(1)));
  QCOMPARE(v.visibleHeads().size(), v.heads());
  const auto tokens = attention_tokens(sel.result->batch, sel.blockStep("weights"), sel.batch);
  const bool padQuery = std::find(tokens.query.begin(), tokens.query.end(), kPadToken) != tokens.query.end();
  int faded = 0, zero = 0;
  for (int h = 0; h < v.heads(); ++h)
    for (int i = 0; i < w.size(2); ++i)
      for (int j = 0; j < w.size(3); ++j) {
        QCOMPARE(v.lineOpacity(h, i, j), expectedOpacity(sel, h, i, j));
        faded += expectedOpacity(sel, h, i, j) != static_cast<double>(at(sel, "weights", h, i, j));
        zero += at(sel, "weights", h, i, j) == 0.0f;
      }
  QCOMPARE(faded > 0, padQuery);  // lines from [PAD] queries are fainter
  if (sel.block.starts_with("encoder")) QVERIFY(zero > 0);  // masked [PAD] keys get no line
  // The caption: the block by its layer and the sentence, both from 0 as in the ids and file names.
  checkBlockName(sel.block);
  const QString caption = QStringLiteral("%1 · sentence %2 · queries (left) attend to keys (right)")
                              .arg(ModelView::blockName(sel.block))
                              .arg(sel.batch);
  QVERIFY2(showsLabel(v, caption), qPrintable(caption));
}

void TestViews::lineHeadChipsToggle() {
  const ViewSelection sel = selectBlock(encoderResult(), "encoder.layers.0.self_attn", 0, 0);
  LineView v;
  v.setSelection(sel);
  showAt(v);
  QSignalSpy spy(&v, &LineView::headsChanged);
  auto* chip = v.findChild<QToolButton*>(QStringLiteral("headChip1"));
  QVERIFY(chip && chip->isChecked());
  QTest::mouseClick(chip, Qt::LeftButton);
  QCOMPARE(spy.count(), 1);
  QCOMPARE(v.visibleHeads(), QVector<int>({0, 2, 3}));
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) {
      QCOMPARE(v.lineOpacity(1, i, j), 0.0);
      QCOMPARE(v.lineOpacity(2, i, j), expectedOpacity(sel, 2, i, j));
    }
  v.setHeadVisible(1, true);
  QCOMPARE(spy.count(), 2);
  QVERIFY(chip->isChecked());
  QCOMPARE(v.lineOpacity(1, 2, 3), expectedOpacity(sel, 1, 2, 3));
  v.setHeadVisible(3, false);
  screenshot(v, QStringLiteral("lineview.png"));
}

void TestViews::lineHoverIsolates() {
  const ViewSelection sel = selectBlock(encoderResult(), "encoder.layers.1.self_attn", 1, 0);
  LineView v;
  v.setSelection(sel);
  showAt(v);
  const int t = 6;  // tokens per column
  QTest::mouseMove(&v, v.tokenRect(true, 2).center().toPoint());
  QTRY_COMPARE(v.hoveredToken(), 2);
  QVERIFY(v.hoveredIsQuery());
  for (int h = 0; h < 4; ++h)
    for (int i = 0; i < t; ++i)
      for (int j = 0; j < t; ++j) QCOMPARE(v.lineOpacity(h, i, j), i == 2 ? expectedOpacity(sel, h, i, j) : 0.0);
  screenshot(v, QStringLiteral("lineview_hover_query.png"));
  QTest::mouseMove(&v, v.tokenRect(false, 1).center().toPoint());
  QTRY_COMPARE(v.hoveredToken(), 1);
  QVERIFY(!v.hoveredIsQuery());
  for (int h = 0; h < 4; ++h)
    for (int i = 0; i < t; ++i)
      for (int j = 0; j < t; ++j) QCOMPARE(v.lineOpacity(h, i, j), j == 1 ? expectedOpacity(sel, h, i, j) : 0.0);
  const QRectF q = v.tokenRect(true, 0), k = v.tokenRect(false, 0);
  QTest::mouseMove(&v, QPointF((q.right() + k.left()) / 2, q.center().y()).toPoint());  // between the columns
  QTRY_COMPARE(v.hoveredToken(), -1);
  QCOMPARE(v.lineOpacity(3, 4, 1), expectedOpacity(sel, 3, 4, 1));
}

void TestViews::modelThumbnails() {
  QFETCH(ViewSelection, sel);
  ModelView v;
  v.setSelection(sel);
  const std::vector<std::string> blocks = attentionBlocks(sel.result->trace);
  QCOMPARE(v.rows(), static_cast<int>(blocks.size()));
  QCOMPARE(v.thumbnailCount(), static_cast<int>(blocks.size()) * sel.result->cfg.heads);
  for (int r = 0; r < v.rows(); ++r) {
    QCOMPARE(v.rowBlock(r), blocks[static_cast<size_t>(r)]);
    checkBlockName(v.rowBlock(r));  // the row's label: "Encoder layer 0", … from 0
    const Tensor& w = sel.result->trace.find(blocks[static_cast<size_t>(r)] + ".weights")->tensor;
    for (int h = 0; h < v.heads(); ++h)
      for (int i = 0; i < w.size(2); ++i)
        for (int j = 0; j < w.size(3); ++j) QCOMPARE(v.thumbnailValue(r, h, i, j), w.at({sel.batch, h, i, j}));
  }
  showAt(v);
  QSignalSpy spy(&v, &ModelView::blockChosen);
  const int row = v.rows() - 1, head = 2;
  QVERIFY(v.thumbnailRect(row, head).width() >= 8);
  QTest::mouseClick(&v, Qt::LeftButton, {}, v.thumbnailRect(row, head).center());
  QCOMPARE(spy.count(), 1);
  QCOMPARE(spy.at(0).at(0).toString(), QString::fromStdString(blocks.back()));
  QCOMPARE(spy.at(0).at(1).toInt(), head);
  QTest::mouseClick(&v, Qt::LeftButton, {}, QPoint(2, 2));  // outside every thumbnail
  QCOMPARE(spy.count(), 1);
  if (sel.result->cfg.cross) screenshot(v, QStringLiteral("modelview_cross.png"));
  else screenshot(v, QStringLiteral("modelview.png"));
}

void TestViews::neuronNumbers() {
  QFETCH(ViewSelection, sel);
  NeuronView v;
  v.setSelection(sel);
  const Tensor& q = sel.result->trace.find(sel.blockStep("q"))->tensor;  // (B, H, Tq, Dh)
  const Tensor& k = sel.result->trace.find(sel.blockStep("k"))->tensor;  // (B, H, Tk, Dh)
  const int dh = static_cast<int>(q.size(3)), h = sel.head, i = sel.query;
  const QString caption =
      QStringLiteral("%1 · head %2 · sentence %3").arg(ModelView::blockName(sel.block)).arg(h).arg(sel.batch);  // from 0
  QVERIFY2(showsLabel(v, caption), qPrintable(caption));
  QCOMPARE(v.rows(), static_cast<int>(k.size(2)));
  QCOMPARE(v.dHead(), dh);
  int masked = 0;
  for (int j = 0; j < v.rows(); ++j) {
    double dot = 0, mag = 0;
    const QVector<double> prod = v.product(j);
    QCOMPARE(prod.size(), dh);
    for (int d = 0; d < dh; ++d) {
      const double p = static_cast<double>(q.at({sel.batch, h, i, d})) * k.at({sel.batch, h, j, d});
      QCOMPARE(prod[d], p);
      dot += p;
      mag += std::abs(p);
    }
    const double qk = at(sel, "qk", h, i, j);
    QVERIFY2(std::abs(v.dotProduct(j) - dot) <= 1e-12 * std::max(1.0, mag), "dot product = Σ q∘k");
    QVERIFY2(std::abs(v.dotProduct(j) - qk) <= 1e-4 * std::max(std::abs(qk), mag), "dot product = trace qk");
    QCOMPARE(v.scaledScore(j), static_cast<double>(at(sel, "scores", h, i, j)));
    QVERIFY(std::abs(v.scaledScore(j) - qk / std::sqrt(dh)) <= 1e-5 * std::max(1.0, std::abs(qk)));
    QCOMPARE(v.weight(j), static_cast<double>(at(sel, "weights", h, i, j)));
    const float ms = at(sel, "masked_scores", h, i, j);
    QCOMPARE(v.keyMasked(j), std::isinf(ms) && ms < 0);
    if (!v.keyMasked(j)) continue;
    QCOMPARE(v.weight(j), 0.0);
    ++masked;
  }
  if (sel.result->cfg.mask == MaskKind::PaddingCausal && !sel.blockStep("").ends_with("multihead_attn."))
    QVERIFY(masked > 0);  // the keys after the query
}

void TestViews::neuronQueryChooser() {
  const ViewSelection sel = selectBlock(encoderResult(), "encoder.layers.0.self_attn", 1, 3, 0);
  NeuronView v;
  v.setSelection(sel);
  showAt(v);
  QSignalSpy spy(&v, &NeuronView::queryChosen);
  auto* chooser = v.findChild<QComboBox*>(QStringLiteral("query"));
  QVERIFY(chooser);
  QCOMPARE(chooser->count(), 6);
  chooser->setCurrentIndex(4);  // a [PAD] query: padding hides keys only, its row is still a softmax
  QCOMPARE(spy.count(), 1);
  QCOMPARE(spy.at(0).at(0).toInt(), 4);
  QCOMPARE(v.query(), 4);
  for (int j = 0; j < v.rows(); ++j) QCOMPARE(v.weight(j), static_cast<double>(at(sel, "weights", 3, 4, j)));
  chooser->setCurrentIndex(1);
  QCOMPARE(spy.count(), 2);
  screenshot(v, QStringLiteral("neuronview.png"));
}

void TestViews::maskComparison() {
  const ViewSelection sel = selectBlock(encoderResult(), "encoder.layers.1.self_attn", 1, 2);  // "a dog ran" + 3 [PAD]
  MaskComparison m;
  QSignalSpy spy(&m, &MaskComparison::comparisonReady);
  m.setSelection(sel);
  QVERIFY(!m.ready());
  QVERIFY(spy.wait(60000));
  QVERIFY(m.ready());
  const QString caption = QStringLiteral("%1 · head 2 · sentence 1: the same input under each mask")
                              .arg(ModelView::blockName(sel.block));  // head and sentence from 0, as selected
  QVERIFY2(showsLabel(m, caption), qPrintable(caption));
  const int len = 3, t = 6;
  QCOMPARE(m.shownRows(), t);
  QCOMPARE(m.shownCols(), t);
  const int none = 0, padding = 1, causal = 2, both = 3;
  for (int i = 0; i < t; ++i)
    for (int j = 0; j < t; ++j) {
      QVERIFY(m.value(none, i, j) > 0.0f);  // nothing hidden
      QCOMPARE(m.value(padding, i, j) == 0.0f, j >= len);
      QCOMPARE(m.value(causal, i, j) == 0.0f, j > i);
      QCOMPARE(m.value(both, i, j) == 0.0f, j > i || j >= len);
      QCOMPARE(m.map(both)->cellMasked(i, j), j > i || j >= len);
      // The result's own mask (padding) reproduces the trace on show.
      QCOMPARE(m.value(padding, i, j), at(sel, "weights", 2, i, j));
    }
  m.resize(900, 600);
  m.show();
  QVERIFY(QTest::qWaitForWindowExposed(&m));
  screenshot(m, QStringLiteral("maskcompare.png"));
}

void TestViews::maskComparisonCachesAndDropsStale() {
  const TraceResultPtr a = encoderResult(), b = encoderResult({"one two", "three four five six seven"});
  MaskComparison m;
  QSignalSpy spy(&m, &MaskComparison::comparisonReady);
  m.setSelection(selectBlock(a, "encoder.layers.0.self_attn", 0, 0));
  m.setSelection(selectBlock(b, "encoder.layers.0.self_attn", 0, 1));  // replaces a while it computes
  QVERIFY(spy.wait(60000));
  QThreadPool::globalInstance()->waitForDone();
  QCoreApplication::processEvents();
  QCOMPARE(spy.count(), 1);  // a's late answer was dropped
  QVERIFY(m.ready());
  QCOMPARE(m.shownCols(), 5);
  const ViewSelection head3 = selectBlock(b, "encoder.layers.1.self_attn", 1, 3);
  m.setSelection(head3);  // same result: from the cache, at once
  QVERIFY(m.ready());
  QVERIFY(!m.computing());
  QCOMPARE(spy.count(), 2);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 5; ++j) QCOMPARE(m.value(1, i, j), at(head3, "weights", 3, i, j));
}

void TestViews::maskComparisonCross() {
  const TraceResultPtr r = crossResult();
  MaskComparison m;
  QSignalSpy spy(&m, &MaskComparison::comparisonReady);
  const ViewSelection self = selectBlock(r, "decoder.layers.0.self_attn", 1, 0);  // 5 decoder tokens, no [PAD]
  m.setSelection(self);
  QVERIFY(spy.wait(60000));
  for (int i = 0; i < m.shownRows(); ++i)
    for (int j = 0; j < m.shownCols(); ++j) {
      QCOMPARE(m.value(2, i, j) == 0.0f, j > i);
      QCOMPARE(m.value(3, i, j), at(self, "weights", 0, i, j));  // the result's own mask
    }
  const ViewSelection enc = selectBlock(r, "encoder.layers.0.self_attn", 1, 0);  // the encoder is always padding-masked
  m.setSelection(enc);
  QVERIFY(m.ready());
  for (int k = 0; k < MaskComparison::kMasks; ++k)
    for (int j = 0; j < m.shownCols(); ++j) QCOMPARE(m.value(k, 0, j), at(enc, "weights", 0, 0, j));
}

// The built-in sample at the window's default size (d_model 64, 8 heads; Chinese included):
// every view must stay readable with 8 heads and 13 tokens.
void TestViews::sampleScreenshots_data() {
  QTest::addColumn<double>("zoom");
  QTest::newRow("100%") << 1.0;
  QTest::newRow("160%") << 1.6;  // projector zoom: every text follows the widget's font
}

void TestViews::sampleScreenshots() {
  QFETCH(double, zoom);
  auto r = std::make_shared<TraceResult>();
  r->cfg.layers = 2;
  r->cfg.validate();
  r->batch = make_batch(builtin_sample(), {});
  forward(r->cfg, init_weights(r->cfg), r->batch, r->trace);
  const ViewSelection sel = selectBlock(r, "encoder.layers.1.self_attn", 2, 5, 3);
  QFont font = QApplication::font();
  font.setPointSizeF(font.pointSizeF() * zoom);
  const QString suffix = zoom == 1.0 ? QString() : QStringLiteral("_zoom");
  LineView line;
  line.setFont(font);
  line.setSelection(sel);
  showAt(line);
  QTest::mouseMove(&line, line.tokenRect(true, 3).center().toPoint());
  QTRY_COMPARE(line.hoveredToken(), 3);
  screenshot(line, QStringLiteral("sample_lineview%1.png").arg(suffix));
  ModelView model;
  model.setFont(font);
  model.setSelection(sel);
  showAt(model);
  screenshot(model, QStringLiteral("sample_modelview%1.png").arg(suffix));
  NeuronView neuron;
  neuron.setFont(font);
  neuron.setSelection(sel);
  showAt(neuron);
  screenshot(neuron, QStringLiteral("sample_neuronview%1.png").arg(suffix));
  MaskComparison masks;
  masks.setFont(font);
  QSignalSpy spy(&masks, &MaskComparison::comparisonReady);
  masks.setSelection(selectBlock(r, "encoder.layers.1.self_attn", 1, 5));
  QVERIFY(spy.wait(60000));
  showAt(masks);
  screenshot(masks, QStringLiteral("sample_maskcompare%1.png").arg(suffix));
}

QTEST_MAIN(TestViews)
#include "test_views.moc"
