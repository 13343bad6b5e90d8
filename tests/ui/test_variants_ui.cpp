// The attention variants lab, used as a learner would: choosing each variant beside the mask runs
// it beside an encoder block; the Variant dock shows core's own numbers (summarize_variant, bit for
// bit), the two heatmaps, the cost ratios and one error bar per token; the step navigator shows the
// variant's steps as their own group; Linformer with a causal mask is explained, not computed; a
// planted bug or the tiled overview explain why no variant runs; "Full attention" hides it all; a
// session and the remembered settings bring the variant back.
#include <QtTest>

#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTreeWidget>

#include <cstring>

#include "input/inputpanel.h"
#include "input/variantchooser.h"
#include "step/stepnavigator.h"
#include "step/steppanel.h"
#include "views/chartspanel.h"
#include "views/heatmapgrid.h"
#include "views/heatmapview.h"
#include "views/modelview.h"
#include "views/variantpanel.h"
#include "windowfixture.h"
#include "words/varianttext.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

bool sameDouble(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

void chooseVariant(MainWindow& w, VariantKind k) {
  QComboBox* box = w.inputs()->variantBox();
  box->setCurrentIndex(box->findData(QString::fromUtf8(variant_name(k).data())));
  test::settle(w);
}

// The navigator's group of a variant: the tree item titled "Variant: <name>", or null.
QTreeWidgetItem* variantGroup(const MainWindow& w) {
  QTreeWidget* tree = w.navigator()->tree();
  for (int g = 0; g < tree->topLevelItemCount(); ++g)
    for (int c = 0; c < tree->topLevelItem(g)->childCount(); ++c)
      if (tree->topLevelItem(g)->child(c)->text(0).startsWith(QStringLiteral("Variant: ")))
        return tree->topLevelItem(g)->child(c);
  return nullptr;
}

int stepsWithPrefix(const Trace& t, const std::string& prefix) {
  return static_cast<int>(std::count_if(t.steps().begin(), t.steps().end(),
                                        [&](const Step& s) { return s.info.id.starts_with(prefix); }));
}

// The (T, T) matrix the right heatmap should show for sentence b, head h (the KV cache: its rows).
std::vector<float> expectedMatrix(const TraceResult& r, const VariantSummary& s, int b, int h) {
  const int64_t t = r.trace.find("encoder.layers.0.self_attn.weights")->tensor.size(2);
  std::vector<float> m(static_cast<size_t>(t * t), 0.0f);
  const char* name = s.kind == VariantKind::Axial || s.kind == VariantKind::Linformer ? "effective"
                     : s.kind == VariantKind::Linear                                  ? "quadratic"
                                                                                      : "weights";
  for (int64_t i = 0; i < t; ++i)
    for (int64_t j = 0; j < t; ++j) {
      if (s.kind == VariantKind::KvCache) {
        if (j <= i) m[size_t(i * t + j)] = r.trace.find(s.prefix + "t" + std::to_string(i) + ".attn")->tensor.at({b, h, 0, j});
      } else {
        m[size_t(i * t + j)] = r.trace.find(s.prefix + name)->tensor.at({b, h, i, j});
      }
    }
  return m;
}

}  // namespace

class TestVariantsUi : public QObject {
  Q_OBJECT
  std::unique_ptr<MainWindow> w_;

 private slots:
  void initTestCase() {
    test::isolateSettings();
    QSettings().setValue(QStringLiteral("tourSeen"), true);
    w_ = test::openWindow(QStringLiteral("variantsUi"));
    QVERIFY(w_);
  }

  void theChooserListsEveryVariantBesideTheMask() {
    QComboBox* box = w_->inputs()->variantBox();
    QCOMPARE(box->count(), int(all_variants().size()) + 1);
    QCOMPARE(box->currentData().toString(), QStringLiteral("none"));
    QCOMPARE(box->itemText(0), QStringLiteral("Full attention (none)"));
    QCOMPARE(box->itemText(box->findData(QStringLiteral("linformer"))), QStringLiteral("Linformer (low rank)"));
    QVERIFY(w_->variantDock()->isHidden());
    QVERIFY(!variantGroup(*w_));
    // only the chosen kind's knobs show, each from its minimum to the limit
    VariantChooser* c = w_->inputs()->variantChooser();
    chooseVariant(*w_, VariantKind::BigBird);
    for (const auto& p : variant_params(VariantKind::BigBird)) {
      QSpinBox* s = c->paramBox(p.name);
      QVERIFY(s && s->isVisibleTo(c));
      QCOMPARE(s->minimum(), int(p.min));
      QCOMPARE(s->maximum(), int(VariantLimits::kMaxParam));
    }
    QVERIFY(!c->paramBox("top_k")->isVisibleTo(c) && !c->paramBox("rank")->isVisibleTo(c));
    // Layers from 0, as the step ids and --variant-layer: one layer is layer 0 only.
    QCOMPARE(c->layerBox()->minimum(), 0);
    QCOMPARE(c->layerBox()->maximum(), 0);
    QCOMPARE(c->layerBox()->value(), 0);
    QCOMPARE(c->config().layer, int64_t(0));
  }

  void everyVariantShowsItsComparison_data() {
    QTest::addColumn<int>("kind");
    for (VariantKind k : all_variants()) QTest::newRow(variant_name(k).data()) << int(k);
  }

  void everyVariantShowsItsComparison() {
    QFETCH(int, kind);
    const auto k = static_cast<VariantKind>(kind);
    chooseVariant(*w_, k);
    const auto r = w_->controller()->current();
    QCOMPARE(r->cfg.variant.kind, k);
    QVERIFY(!w_->variantDock()->isHidden());
    VariantPanel* p = w_->variantPanel();
    QVERIFY(p->hasVariant());
    // core's numbers, to the bit
    const auto want = summarize_variant(r->cfg.variant, r->trace, r->cfg.d_model);
    QVERIFY(want);
    const VariantSummary& got = *p->summary();
    QVERIFY(sameDouble(got.max_abs, want->max_abs) && sameDouble(got.rel_error, want->rel_error));
    QVERIFY(sameDouble(got.agreement, want->agreement) && sameDouble(got.cost.flops, want->cost.flops));
    QCOMPARE(p->costCell(1, 3), VariantPanel::ratio(want->cost.flops, want->reference_cost.flops));
    QCOMPARE(p->costCell(2, 3), VariantPanel::ratio(want->cost.bytes, want->reference_cost.bytes));
    QCOMPARE(p->costCell(1, 1), VariantPanel::count(want->cost.flops));
    QCOMPARE(p->costCell(1, 2), VariantPanel::count(want->reference_cost.flops));
    QCOMPARE(p->costCell(2, 2), VariantPanel::bytes(want->reference_cost.bytes));
    QCOMPARE(p->costCell(0, 2), k == VariantKind::KvCache ? QStringLiteral("decoding without a cache") : QStringLiteral("full attention"));
    const QString maxAbs = QString::number(want->max_abs, 'g', 3).replace(QLatin1Char('-'), QChar(0x2212));  // 7.15e−07
    QVERIFY2(p->errorLabel()->text().contains(maxAbs), qPrintable(p->errorLabel()->text()));
    // the second sentence (padded): one bar per real token, the error step's values
    p->sentenceBox()->setCurrentIndex(1);
    p->headBox()->setCurrentIndex(1);
    const int n = r->batch.text.lengths[1];
    QCOMPARE(p->errorChart()->barCount(), n);
    const Tensor& err = r->trace.find(want->prefix + "error")->tensor;
    for (int i = 0; i < n; ++i) QCOMPARE(p->errorChart()->values()[i], double(err.at({1, i})));
    QCOMPARE(p->errorChart()->tokens().first(), QString::fromStdString(r->batch.text.tokens[1][0]));
    // the second sentence is sentence 1, in the chooser and the chart's title (sentences from 0)
    QVERIFY2(p->sentenceBox()->itemText(1).startsWith(QStringLiteral("1: ")), qPrintable(p->sentenceBox()->itemText(1)));
    QVERIFY2(p->errorChart()->title().endsWith(QStringLiteral("per token (sentence 1)")), qPrintable(p->errorChart()->title()));
    // the heatmaps: full attention's weights, and the variant's matrix (none for the tiled walk)
    const Tensor& full = r->trace.find("encoder.layers.0.self_attn.weights")->tensor;
    QCOMPARE(p->fullView()->rows(), int(full.size(2)));
    QCOMPARE(p->fullView()->value(2, 1), full.at({1, 1, 2, 1}));
    if (k == VariantKind::Tiled) {
      QVERIFY(!p->variantView()->isVisibleTo(p));
      QVERIFY(p->walkNoteLabel()->isVisibleTo(p));
    } else {
      QVERIFY(p->variantView()->isVisibleTo(p));
      const std::vector<float> m = expectedMatrix(*r, *want, 1, 1);
      const int t = p->variantView()->rows();
      QCOMPARE(size_t(t * t), m.size());
      for (int i = 0; i < t; ++i)
        for (int j = 0; j < t; ++j) QCOMPARE(p->variantView()->value(i, j), m[size_t(i * t + j)]);
    }
    // the exact ones say so
    if (k == VariantKind::KvCache || k == VariantKind::Tiled || k == VariantKind::Linear) {
      QVERIFY(want->agreement >= 0 && want->agreement <= 1e-5);
      QVERIFY(p->agreementLabel()->isVisibleTo(p));
      QVERIFY2(p->agreementLabel()->text().contains(QStringLiteral("equal to")) &&
                   p->agreementLabel()->text().contains(QStringLiteral("within 1e-5")),
               qPrintable(p->agreementLabel()->text()));
    } else {
      QVERIFY(!p->agreementLabel()->isVisibleTo(p));
    }
    // the navigator: a group of its own holding every variant step
    QTreeWidgetItem* group = variantGroup(*w_);
    QVERIFY(group);
    QCOMPARE(group->text(0), QStringLiteral("Variant: ") + VariantText::name(k));
    QCOMPARE(group->childCount(), stepsWithPrefix(r->trace, want->prefix));
    // "Walk through its steps": the navigator jumps to its first step, shown in the step panel
    p->stepsButton()->click();
    const Step& first = r->trace.steps()[size_t(w_->navigator()->current())];
    QVERIFY(first.info.id.starts_with(want->prefix));
    QVERIFY(w_->stepPanel()->locationText().contains(QStringLiteral("Variant: ")));
    // every variant step shows (its (T, T) tensors as heatmaps, whose hover reads no missing
    // masked_scores sibling), in every view tab
    int heatmaps = 0;
    for (int i = 0; i < int(r->trace.steps().size()); ++i) {
      if (!r->trace.steps()[size_t(i)].info.id.starts_with(want->prefix)) continue;
      w_->navigator()->setCurrent(i);
      QCoreApplication::processEvents();
      QVERIFY(!w_->stepPanel()->locationText().isEmpty());
      if (!w_->stepPanel()->showingHeatmaps()) continue;
      ++heatmaps;
      QVERIFY(!w_->stepPanel()->heatmaps()->describeCell(0, 1, 0).isEmpty());
    }
    QVERIFY(heatmaps >= (k == VariantKind::KvCache || k == VariantKind::Tiled ? 0 : 1));
    for (const QString& tab : {QStringLiteral("lines"), QStringLiteral("model"), QStringLiteral("neuron"),
                               QStringLiteral("masks"), QStringLiteral("charts"), QStringLiteral("values")}) {
      w_->stepPanel()->setCurrentTabId(tab);
      QCoreApplication::processEvents();
      if (tab == QLatin1String("model"))  // a variant beside a block is no block of its own
        QCOMPARE(w_->stepPanel()->findChild<ModelView*>()->rows(), int(r->cfg.layers));
    }
    if (const std::string id = p->variantStepId(); !id.empty() && k != VariantKind::KvCache) {
      w_->navigator()->setCurrent(r->indexOf(id));
      QCoreApplication::processEvents();
      QVERIFY2(w_->stepPanel()->showingHeatmaps(), id.c_str());
    }
    if (qEnvironmentVariableIsSet("ATTNLAB_SHOT"))
      w_->grab().save(qEnvironmentVariable("ATTNLAB_SHOT") + QStringLiteral("/variant-%1.png").arg(QLatin1String(variant_name(k).data())));
  }

  // A knob and the layer: the window narrows, the pattern follows, the cost ratio changes.
  void aKnobAndTheLayerChangeTheResult() {
    chooseVariant(*w_, VariantKind::Window);
    VariantChooser* c = w_->inputs()->variantChooser();
    const QString before = w_->variantPanel()->costCell(1, 3);
    c->paramBox("window")->setValue(0);
    c->paramBox("globals")->setValue(0);
    test::settle(*w_);
    auto r = w_->controller()->current();
    QCOMPARE(r->cfg.variant.window, int64_t(0));
    const Tensor& pattern = r->trace.find("encoder.layers.0.variant.window.pattern")->tensor;
    QCOMPARE(pattern.at({0, 0, 1, 1}), 1.0f);
    QCOMPARE(pattern.at({0, 0, 1, 0}), 0.0f);
    QVERIFY(w_->variantPanel()->costCell(1, 3) != before);
    w_->inputs()->layersBox()->setValue(2);
    QCOMPARE(c->layerBox()->maximum(), 1);  // layers 0 and 1
    c->layerBox()->setValue(1);  // the spin box shows the layer's index itself, and writes it as it is
    test::settle(*w_);
    r = w_->controller()->current();
    QCOMPARE(r->cfg.variant.layer, int64_t(1));
    QVERIFY(r->trace.find("encoder.layers.1.variant.window.error"));
    QVERIFY(!r->trace.find("encoder.layers.0.variant.window.error"));
    QVERIFY2(w_->variantPanel()->titleLabel()->text().endsWith(QStringLiteral("beside the self-attention of layer 1")),
             qPrintable(w_->variantPanel()->titleLabel()->text()));
    w_->inputs()->layersBox()->setValue(1);  // the variant's layer follows down
    test::settle(*w_);
    QCOMPARE(c->layerBox()->value(), 0);
    QCOMPARE(w_->controller()->current()->cfg.variant.layer, int64_t(0));
    QVERIFY2(w_->variantPanel()->titleLabel()->text().endsWith(QStringLiteral("beside the self-attention of layer 0")),
             qPrintable(w_->variantPanel()->titleLabel()->text()));
  }

  void linformerWithACausalMaskIsExplainedNotComputed() {
    chooseVariant(*w_, VariantKind::Linformer);
    const quint64 before = w_->controller()->current()->generation;
    w_->inputs()->maskBox()->setCurrentText(QStringLiteral("causal"));
    test::settle(*w_);
    QLabel* why = w_->inputs()->explanationLabel();
    QVERIFY(why->isVisibleTo(w_->inputs()));
    QVERIFY2(why->text().contains(QStringLiteral("Linformer")) && why->text().contains(QStringLiteral("causal")),
             qPrintable(why->text()));
    QCOMPARE(w_->controller()->current()->generation, before);  // nothing recomputed
    QVERIFY(w_->inputs()->problem() == why->text());
    w_->inputs()->maskBox()->setCurrentText(QStringLiteral("padding"));
    test::settle(*w_);
    QVERIFY(!why->isVisibleTo(w_->inputs()));
    QVERIFY(w_->controller()->current()->generation != before);
    // In cross mode the mask is the decoder's: the encoder, where Linformer runs, keeps padding.
    w_->inputs()->crossBox()->setChecked(true);
    w_->inputs()->sourceEdit()->setPlainText(QStringLiteral("un chien noir"));
    w_->inputs()->maskBox()->setCurrentText(QStringLiteral("causal"));
    test::settle(*w_);
    QVERIFY2(w_->inputs()->problem().isEmpty(), qPrintable(w_->inputs()->problem()));
    QVERIFY(w_->controller()->current()->cfg.cross);
    QVERIFY(w_->controller()->current()->trace.find("encoder.layers.0.variant.linformer.head_out"));
    w_->inputs()->crossBox()->setChecked(false);
    w_->inputs()->maskBox()->setCurrentText(QStringLiteral("padding"));
    test::settle(*w_);
  }

  // A planted bug and the tiled overview run no variant: the dock says why.
  void aPlantedBugOrTheOverviewExplainWhyNoVariantRuns() {
    chooseVariant(*w_, VariantKind::TopK);
    Request r = w_->inputs()->currentRequest();
    r.cfg.faults = {Fault::NoScaling};
    w_->controller()->request(r);
    test::settle(*w_);
    VariantPanel* p = w_->variantPanel();
    QVERIFY(!p->hasVariant());
    QVERIFY(!w_->variantDock()->isHidden());
    QVERIFY(p->noteLabel()->text().contains(QStringLiteral("planted bug")));
    QVERIFY(!variantGroup(*w_));
    w_->inputs()->attentionBox()->setCurrentIndex(1);
    test::settle(*w_);
    QVERIFY(!p->hasVariant());
    QVERIFY(p->noteLabel()->text().contains(QStringLiteral("tiled path")));
    w_->inputs()->attentionBox()->setCurrentIndex(0);
    test::settle(*w_);
    QVERIFY(p->hasVariant());
  }

  void fullAttentionHidesTheVariant() {
    chooseVariant(*w_, VariantKind::None);
    QVERIFY(w_->variantDock()->isHidden());
    QVERIFY(!w_->variantPanel()->hasVariant());
    QVERIFY(!variantGroup(*w_));
    for (const Step& s : w_->controller()->current()->trace.steps()) QVERIFY(s.info.id.find(".variant.") == std::string::npos);
  }

  void aSessionReopensWithTheVariant() {
    chooseVariant(*w_, VariantKind::TopK);
    w_->inputs()->variantChooser()->paramBox("top_k")->setValue(3);
    test::settle(*w_);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("topk.attnlab"));
    QCOMPARE(w_->saveSession(path), QString());
    chooseVariant(*w_, VariantKind::None);
    QCOMPARE(w_->openSession(path), QString());
    test::settle(*w_);
    QCOMPARE(w_->inputs()->variantBox()->currentData().toString(), QStringLiteral("topk"));
    QCOMPARE(w_->inputs()->variantChooser()->paramBox("top_k")->value(), 3);
    const auto r = w_->controller()->current();
    QCOMPARE(r->cfg.variant.top_k, int64_t(3));
    QVERIFY(r->trace.find("encoder.layers.0.variant.topk.pattern"));
    QVERIFY(!w_->variantDock()->isHidden() && w_->variantPanel()->hasVariant());
  }

  // The next start (or a window rebuilt in another language) keeps the variant and its knobs.
  void theSettingsRememberTheVariant() {
    w_->persist();
    MainWindow again(QStringLiteral("variantsUi"));
    test::settle(again);
    QCOMPARE(again.inputs()->variantBox()->currentData().toString(), QStringLiteral("topk"));
    QCOMPARE(again.inputs()->currentRequest().cfg.variant, w_->inputs()->currentRequest().cfg.variant);
  }

  void cleanupTestCase() { w_.reset(); }
};

QTEST_MAIN(TestVariantsUi)
#include "test_variants_ui.moc"
