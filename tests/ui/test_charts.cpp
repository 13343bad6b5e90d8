// ChartsPanel on a real forward pass: the softmax bars are the trace's weights row, the
// temperature slider sharpens them exactly as core's softmax_with_temperature, the entropy bars
// and patterns are core's head diagnostics, the histogram holds every finite logit, and clicks
// choose a head or a query row. Screenshots at two sizes (and a projector font) for a look.
#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QSignalSpy>
#include <QSlider>
#include <QtTest>

#include <cmath>
#include <limits>
#include <numeric>

#include "analysis/analysis.h"
#include "fixtures.h"
#include "forward/model.h"
#include "model/weights.h"
#include "views/chartspanel.h"
#include "window/selection.h"
#include "window/traceresult.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

// Two sentences of different lengths (the second padded with 3 [PAD]), d_model 16, 4 heads.
TraceResultPtr realResult() {
  return test::makeResult({"the cat sat on the mat", "a dog ran"}, 1);
}

ViewSelection selectionOf(const TraceResultPtr& r, const std::string& step, int batch, int head, int query) {
  ViewSelection sel;
  sel.result = r;
  sel.stepIndex = r->indexOf(step);
  sel.block = focusBlock(r->trace, step);
  sel.batch = batch;
  sel.head = head;
  sel.query = query;
  return sel;
}

const Tensor& tensorOf(const ViewSelection& sel, const char* name) {
  return sel.result->trace.find(sel.blockStep(name))->tensor;
}

double maxOf(const QVector<double>& v) { return *std::max_element(v.begin(), v.end()); }

void saveShot(QWidget& w, const QString& name) {
  QDir().mkpath(QStringLiteral(ATTNLAB_SCREENSHOT_DIR));
  const QString path = QStringLiteral(ATTNLAB_SCREENSHOT_DIR) + QLatin1Char('/') + name;
  QVERIFY2(w.grab().save(path), qPrintable(path));
  qInfo("screenshot: %s", qPrintable(path));
}

}  // namespace

class TestCharts : public QObject {
  Q_OBJECT
 private:
  TraceResultPtr result_ = realResult();

 private slots:
  void softmaxBarsAreTheTraceWeightsRow() {
    ChartsPanel panel;
    const auto sel = selectionOf(result_, "encoder.layers.0.self_attn.weights", 1, 2, 1);
    QCOMPARE(sel.block, std::string("encoder.layers.0.self_attn"));
    panel.setSelection(sel);
    QCOMPARE(panel.temperature(), 1.0);
    const QVector<double> bars = panel.softmaxBars();
    const Tensor& w = tensorOf(sel, "weights");
    QCOMPARE(bars.size(), static_cast<int>(w.size(3)));
    for (int j = 0; j < bars.size(); ++j) QCOMPARE(bars[j], static_cast<double>(w.at({1, 2, 1, j})));
    QVERIFY(std::abs(std::accumulate(bars.begin(), bars.end(), 0.0) - 1.0) < 1e-6);
    // "a dog ran" + 3 [PAD]: the padded keys are masked and exactly 0.
    QCOMPARE(panel.keyLabels(), (QStringList{"a", "dog", "ran", "[PAD]", "[PAD]", "[PAD]"}));
    QCOMPARE(panel.maskedKeys(), (QVector<bool>{false, false, false, true, true, true}));
    for (int j = 3; j < 6; ++j) QCOMPARE(bars[j], 0.0);
  }

  void temperatureSharpensLikeCore() {
    ChartsPanel panel;
    const auto sel = selectionOf(result_, "encoder.layers.0.self_attn.scores", 0, 1, 3);
    panel.setSelection(sel);
    const double before = maxOf(panel.softmaxBars());
    panel.setTemperature(0.2);
    QCOMPARE(panel.temperature(), 0.2);
    const QVector<double> sharp = panel.softmaxBars();
    QVERIFY2(maxOf(sharp) > before, qPrintable(QStringLiteral("%1 vs %2").arg(maxOf(sharp)).arg(before)));
    const std::vector<float> row = [&] {
      std::vector<float> r;
      for (int64_t j = 0; j < tensorOf(sel, "masked_scores").size(3); ++j) r.push_back(tensorOf(sel, "masked_scores").at({0, 1, 3, j}));
      return r;
    }();
    const auto expected = softmax_with_temperature(row.data(), static_cast<int>(row.size()), 0.2);
    QCOMPARE(sharp, QVector<double>(expected.begin(), expected.end()));
    panel.setTemperature(100);  // clamped to the slider's end
    QCOMPARE(panel.temperature(), ChartsPanel::kMaxTemperature);
    QVERIFY(maxOf(panel.softmaxBars()) < before);
    // Hotter logits saturate less; the explanation names √Dh = 2.
    QVERIFY(panel.explanation().contains(QStringLiteral("√Dh = 2")));
  }

  void entropyBarsAreCoreDiagnostics() {
    ChartsPanel panel;
    for (int b : {0, 1}) {
      const auto sel = selectionOf(result_, "encoder.layers.0.self_attn.weights", b, 0, 0);
      panel.setSelection(sel);
      const int real = result_->batch.text.lengths[static_cast<size_t>(b)];
      const auto stats = head_diagnostics(tensorOf(sel, "weights"), &tensorOf(sel, "masked_scores"), b, real);
      const QVector<double> bars = panel.entropyBars();
      QCOMPARE(bars.size(), 4);
      QCOMPARE(panel.patternLabels().size(), 4);
      for (int h = 0; h < 4; ++h) {
        QCOMPARE(bars[h], stats[h].entropy);
        QVERIFY(bars[h] >= 0 && bars[h] <= 1);
        QCOMPARE(panel.patternLabels()[h].isEmpty(), false);
      }
    }
  }

  void histogramHoldsEveryFiniteLogit() {
    ChartsPanel panel;
    for (int b : {0, 1}) {
      const auto sel = selectionOf(result_, "encoder.layers.0.self_attn.qk", b, 3, 0);
      panel.setSelection(sel);
      const Tensor& masked = tensorOf(sel, "masked_scores");
      const int real = result_->batch.text.lengths[static_cast<size_t>(b)];
      int finite = 0;
      for (int i = 0; i < real; ++i)
        for (int64_t j = 0; j < masked.size(3); ++j) finite += std::isfinite(masked.at({b, 3, i, j}));
      QCOMPARE(panel.histogramCounts(), qMakePair(finite, finite));
      QCOMPARE(finite, real * real);  // padding masks keys: real × real entries
      const auto core = logit_stats(tensorOf(sel, "qk"), masked, b, 3, 1.0, real);
      QCOMPARE(panel.saturatedFractions(), qMakePair(core.saturated_scaled, core.saturated_unscaled));
    }
  }

  void crossAttentionKeysAreTheSourceTokens() {
    auto r = std::make_shared<TraceResult>();
    r->cfg.d_model = 16;
    r->cfg.heads = 2;
    r->cfg.d_ff = 32;
    r->cfg.cross = true;
    r->cfg.mask = MaskKind::PaddingCausal;
    r->cfg.validate();
    r->batch = make_batch({"le chat", "un chien noir"}, {"the black cat sat"});
    forward(r->cfg, init_weights(r->cfg), r->batch, r->trace);
    ChartsPanel panel;
    const auto sel = selectionOf(r, "decoder.layers.0.multihead_attn.weights", 0, 1, 1);
    panel.setSelection(sel);
    QCOMPARE(panel.keyLabels(), (QStringList{"the", "black", "cat", "sat"}));
    QCOMPARE(panel.softmaxBars().size(), 4);
    for (int j = 0; j < 4; ++j) QCOMPARE(panel.softmaxBars()[j], static_cast<double>(tensorOf(sel, "weights").at({0, 1, 1, j})));
    QCOMPARE(panel.entropyBars().size(), 2);
    QCOMPARE(panel.histogramCounts(), qMakePair(2 * 4, 2 * 4));  // 2 real decoder rows × 4 source keys
  }

  void fullyMaskedRowIsShownAsNaN() {
    // A hand-made (1, 1, 3, 3) block whose query row 1 has every key masked.
    auto r = std::make_shared<TraceResult>();
    r->cfg.d_model = 4;
    r->cfg.heads = 1;
    r->batch = make_batch({"x y z"}, {});
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    const std::vector<std::pair<const char*, std::vector<float>>> steps{
        {"qk", {2, 0, -2, 1, 1, 1, 0, 4, 0}},
        {"masked_scores", {1, 0, -1, -inf, -inf, -inf, 0, 2, 0}},
        {"weights", {0.665f, 0.245f, 0.090f, nan, nan, nan, 0.107f, 0.787f, 0.107f}}};
    for (const auto& [name, values] : steps) {
      StepInfo info;
      info.id = std::string("encoder.layers.0.self_attn.") + name;
      r->trace.record(info, Tensor::from({1, 1, 3, 3}, values));
    }
    ChartsPanel panel;
    panel.setSelection(selectionOf(r, "encoder.layers.0.self_attn.weights", 0, 0, 1));
    for (double v : panel.softmaxBars()) QVERIFY(std::isnan(v));
    QCOMPARE(panel.maskedKeys(), (QVector<bool>{true, true, true}));
    panel.setTemperature(2.0);
    for (double v : panel.softmaxBars()) QVERIFY(std::isnan(v));
    QCOMPARE(panel.histogramCounts(), qMakePair(6, 6));  // rows 0 and 2 only
    QCOMPARE(panel.entropyBars().size(), 1);
    QVERIFY(std::isfinite(panel.entropyBars()[0]));
  }

  // The sentence under the histogram says what its numbers say: rows counted, not rounded to
  // percentages; "saturates more often without the ÷√Dh" only when more rows do; and when no row
  // saturates, it says so instead of "softmax saturates".
  void theSentenceAgreesWithItsNumbers() {
    ChartsPanel panel;
    bool sawNone = false, sawSome = false;
    for (int b : {0, 1})
      for (int h = 0; h < 4; ++h)
        for (double t : {0.1, 0.3, 1.0, 5.0}) {
          const auto sel = selectionOf(result_, "encoder.layers.0.self_attn.weights", b, h, 0);
          panel.setSelection(sel);
          panel.setTemperature(t);
          const int real = result_->batch.text.lengths[static_cast<size_t>(b)];
          const auto core = logit_stats(tensorOf(sel, "qk"), tensorOf(sel, "masked_scores"), b, h, panel.temperature(), real);
          const int raw = static_cast<int>(std::lround(core.saturated_unscaled * core.rows));
          const int scaled = static_cast<int>(std::lround(core.saturated_scaled * core.rows));
          QVERIFY(raw >= scaled);  // ÷√Dh never sharpens
          const QString text = panel.explanation();
          const QString where = QStringLiteral("b %1 h %2 T %3: %4").arg(b).arg(h).arg(t).arg(text);
          QVERIFY2(text.contains(QStringLiteral("√Dh = 2")), qPrintable(where));
          QVERIFY2(text.contains(QStringLiteral("T = %1").arg(t, 0, 'f', 2)), qPrintable(where));
          QVERIFY2(!text.contains(QLatin1Char('%')), qPrintable(where));
          if (raw == 0) {
            sawNone = true;
            QVERIFY2(text.contains(QStringLiteral("no query row (of %1)").arg(core.rows)), qPrintable(where));
            QVERIFY2(!text.contains(QStringLiteral("saturates")), qPrintable(where));
          } else if (raw == scaled) {
            sawSome = true;
            QVERIFY2(text.contains(QStringLiteral("%1 of %2 query rows").arg(raw).arg(core.rows)), qPrintable(where));
            QVERIFY2(text.contains(QStringLiteral("with or without it")) && !text.contains(QStringLiteral("more often")), qPrintable(where));
          } else {
            sawSome = true;
            QVERIFY2(text.contains(QStringLiteral("saturates more often without the ÷√Dh")), qPrintable(where));
            QVERIFY2(text.contains(QStringLiteral("%1 of %2 query rows").arg(raw).arg(core.rows)), qPrintable(where));
            QVERIFY2(text.endsWith(QStringLiteral(", %1 with it.").arg(scaled)), qPrintable(where));
          }
        }
    QVERIFY(sawNone && sawSome);  // both kinds of sentence were checked
  }

  // A head whose every logit is equal is called uniform and its rows are never said to saturate,
  // at any temperature; with Dh = 1 the sentence says the scaling changes nothing (not "1 times
  // wider").
  void aUniformHeadIsNeverCalledPeaked() {
    const auto handMade = [](int64_t dModel, const std::vector<float>& logits) {
      auto r = std::make_shared<TraceResult>();
      r->cfg.d_model = dModel;
      r->cfg.heads = 1;
      r->batch = make_batch({"x y z"}, {});
      std::vector<float> weights;
      for (int i = 0; i < 3; ++i) {
        const auto row = softmax_with_temperature(logits.data() + 3 * i, 3, 1.0);
        weights.insert(weights.end(), row.begin(), row.end());
      }
      for (const auto& [name, values] : std::vector<std::pair<const char*, std::vector<float>>>{
               {"qk", logits}, {"masked_scores", logits}, {"weights", weights}}) {
        StepInfo info;
        info.id = std::string("encoder.layers.0.self_attn.") + name;
        r->trace.record(info, Tensor::from({1, 1, 3, 3}, values));
      }
      return r;
    };
    ChartsPanel panel;
    panel.setSelection(selectionOf(handMade(4, std::vector<float>(9, 0.5f)), "encoder.layers.0.self_attn.weights", 0, 0, 1));
    QCOMPARE(panel.patternLabels(), QStringList{QStringLiteral("uniform (dead)")});
    QVERIFY(panel.entropyBars()[0] > kDeadEntropy);
    for (double t : {ChartsPanel::kMinTemperature, 1.0, ChartsPanel::kMaxTemperature}) {
      panel.setTemperature(t);
      for (double w : panel.softmaxBars()) QVERIFY(std::abs(w - 1.0 / 3) < 1e-6);
      QCOMPARE(panel.saturatedFractions(), qMakePair(0.0, 0.0));
      QVERIFY2(panel.explanation().contains(QStringLiteral("no query row (of 3)")), qPrintable(panel.explanation()));
      QVERIFY2(!panel.explanation().contains(QStringLiteral("saturates")), qPrintable(panel.explanation()));
    }
    panel.setTemperature(1.0);
    panel.setSelection(selectionOf(handMade(1, {10, 0, 0, 0, 10, 0, 0, 0, 10}), "encoder.layers.0.self_attn.weights", 0, 0, 0));
    QCOMPARE(panel.saturatedFractions(), qMakePair(1.0, 1.0));
    const QString one = panel.explanation();
    QVERIFY2(one.contains(QStringLiteral("√Dh = 1")) && one.contains(QStringLiteral("changes nothing")) &&
                 one.contains(QStringLiteral("3 of 3 query rows")),
             qPrintable(one));
    QVERIFY2(!one.contains(QStringLiteral("times")), qPrintable(one));
  }

  // What reads "T = 1.00" is the model's own softmax: the slider's steps next to 1 give exactly the
  // trace's weights (no tempered bars beside "T = 1" dots), and the entropy chart, which always
  // reads the model's own weights, says it is at T = 1.
  void theSliderAtOneIsTheModelsSoftmax() {
    ChartsPanel panel;
    const auto sel = selectionOf(result_, "encoder.layers.0.self_attn.weights", 0, 1, 2);
    panel.setSelection(sel);
    auto* slider = panel.findChild<QSlider*>();
    QVERIFY(slider);
    QLabel* label = nullptr;
    for (QLabel* l : panel.findChildren<QLabel*>())
      if (l->text().startsWith(QStringLiteral("T = "))) label = l;
    QVERIFY(label);
    int near = 0;
    for (int v = slider->minimum(); v <= slider->maximum(); ++v) {
      const double t = ChartsPanel::kMinTemperature *
                       std::pow(ChartsPanel::kMaxTemperature / ChartsPanel::kMinTemperature, double(v) / slider->maximum());
      if (QString::number(t, 'f', 2) != QStringLiteral("1.00")) continue;
      ++near;
      slider->setValue(v);
      QCOMPARE(label->text(), QStringLiteral("T = 1.00"));
      QCOMPARE(panel.temperature(), 1.0);
      const Tensor& w = tensorOf(sel, "weights");
      for (int j = 0; j < panel.softmaxBars().size(); ++j) QCOMPARE(panel.softmaxBars()[j], static_cast<double>(w.at({0, 1, 2, j})));
    }
    QVERIFY(near >= 1);
    slider->setValue(slider->minimum());
    QVERIFY(panel.temperature() < 1.0);
    QVERIFY2(panel.chartTitles().value(2).contains(QStringLiteral("at T = 1")), qPrintable(panel.chartTitles().value(2)));
    QVERIFY2(panel.chartTitles().value(0).contains(QStringLiteral("head 1")), qPrintable(panel.chartTitles().value(0)));
  }

  void clickingABarChoosesTheHead() {
    ChartsPanel panel;
    panel.resize(1000, 700);
    panel.setSelection(selectionOf(result_, "encoder.layers.0.self_attn.weights", 0, 0, 0));
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QSignalSpy heads(&panel, &ChartsPanel::headChosen);
    const QPoint at = panel.entropyBarCenter(2);
    QWidget* target = panel.childAt(at);
    QVERIFY(target);
    QTest::mouseClick(target, Qt::LeftButton, {}, target->mapFrom(&panel, at));
    QCOMPARE(heads.count(), 1);
    QCOMPARE(heads.at(0).at(0).toInt(), 2);
    QCOMPARE(panel.selection().head, 2);
    // The bars now show head 2's row; the API does the same as a click.
    QCOMPARE(panel.softmaxBars()[0], static_cast<double>(tensorOf(panel.selection(), "weights").at({0, 2, 0, 0})));
    panel.chooseHead(3);
    QCOMPARE(heads.count(), 2);
    QCOMPARE(heads.at(1).at(0).toInt(), 3);
    panel.chooseHead(9);  // no such head: ignored
    QCOMPARE(heads.count(), 2);
  }

  void pickingAQueryRow() {
    ChartsPanel panel;
    panel.setSelection(selectionOf(result_, "encoder.layers.0.self_attn.weights", 0, 1, 0));
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QSignalSpy queries(&panel, &ChartsPanel::queryChosen);
    auto* combo = panel.findChild<QComboBox*>();
    QVERIFY(combo);
    QCOMPARE(combo->count(), 6);
    combo->setFocus();
    QTest::keyClick(combo, Qt::Key_Down);
    QCOMPARE(queries.count(), 1);
    QCOMPARE(queries.at(0).at(0).toInt(), 1);
    const Tensor& w = tensorOf(panel.selection(), "weights");
    for (int j = 0; j < 6; ++j) QCOMPARE(panel.softmaxBars()[j], static_cast<double>(w.at({0, 1, 1, j})));
    panel.setSelection(panel.selection());  // a selection from outside emits nothing
    QCOMPARE(queries.count(), 1);
  }

  void screenshots() {
    ChartsPanel panel;
    panel.setSelection(selectionOf(result_, "encoder.layers.0.self_attn.weights", 1, 1, 1));
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    for (QSize size : {QSize(900, 600), QSize(1400, 800)}) {
      panel.resize(size);
      QTest::qWait(50);
      saveShot(panel, QStringLiteral("charts_%1x%2.png").arg(size.width()).arg(size.height()));
    }
    panel.setTemperature(0.3);
    QFont big = panel.font();
    big.setPointSizeF(big.pointSizeF() * 1.5);  // projector zoom
    panel.setFont(big);
    panel.resize(1400, 800);
    QTest::qWait(50);
    saveShot(panel, QStringLiteral("charts_zoom_1400x800.png"));
    QPalette dark = panel.palette();  // dark mode: the charts follow the palette
    dark.setColor(QPalette::Window, QColor(0x2b, 0x2b, 0x2b));
    dark.setColor(QPalette::WindowText, Qt::white);
    dark.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
    dark.setColor(QPalette::Text, Qt::white);
    panel.setPalette(dark);
    QCOMPARE(panel.softmaxBars().size(), 6);  // the redraw kept the data
    QTest::qWait(50);
    saveShot(panel, QStringLiteral("charts_dark_1400x800.png"));
  }

  void manyKeysAndHeadsStayReadable() {
    // 8 heads of Dh 8 over a 45-token sentence: labels thin out, every head keeps its bar.
    auto r = std::make_shared<TraceResult>();
    r->cfg.d_model = 64;
    r->cfg.heads = 8;
    r->cfg.d_ff = 128;
    r->cfg.validate();
    std::string text;
    for (int i = 0; i < 45; ++i) text += (i ? " w" : "w") + std::to_string(i % 17);
    r->batch = make_batch({text}, {});
    forward(r->cfg, init_weights(r->cfg), r->batch, r->trace);
    ChartsPanel panel;
    panel.setSelection(selectionOf(r, "encoder.layers.0.self_attn.weights", 0, 5, 20));
    QCOMPARE(panel.softmaxBars().size(), 45);
    QCOMPARE(panel.entropyBars().size(), 8);
    QCOMPARE(panel.keyLabels().size(), 45);
    panel.resize(900, 600);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    saveShot(panel, QStringLiteral("charts_long_900x600.png"));
  }
};

QTEST_MAIN(TestCharts)
#include "test_charts.moc"
