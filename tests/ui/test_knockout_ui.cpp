// Knocking heads out in the window (Explanations panel, "Knock heads out"): a click on a head's
// button runs the model again with that head's W_O columns zeroed — the predictions change as the
// command line's --ablate says they do —, a second click brings it back; with a loss chosen each
// head shows its effect on the loss, ranked as core's head table; a session keeps the choice.
#include <QtTest>

#include <QCheckBox>
#include <QComboBox>
#include <QContextMenuEvent>
#include <QPlainTextEdit>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QMenu>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QToolButton>

#include <nlohmann/json.hpp>

#include "explain/explain.h"
#include "export/exporter.h"
#include "input/inputpanel.h"
#include "views/explainpanel.h"
#include "step/stepnavigator.h"
#include "step/steppanel.h"
#include "views/headknockout.h"
#include "views/heatmapgrid.h"
#include "views/heatmapview.h"
#include "views/predictionspanel.h"
#include "window/mainwindow.h"
#include "fixtures.h"
#include "windowfixture.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

// The probability the run gives token `id` at sentence 0's position `s`.
double probability(const TraceResult& r, int64_t s, int64_t id) {
  return r.trace.find("encoder.output_head.probs")->tensor.at({0, s, id});
}

}  // namespace

class TestKnockoutUi : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { test::isolateSettings(); }

  void aClickKnocksAHeadOutAndASecondBringsItBack() {
    auto w = test::openWindow(QStringLiteral("knockoutUi"));
    QVERIFY(w);
    QVERIFY(test::chooseShippedModel(*w, QStringLiteral("english-next-word.safetensors")));
    w->inputs()->sentencesEdit()->setPlainText(QStringLiteral("the best way to"));
    test::settle(*w);
    w->explainDock()->show();
    test::settle(*w);
    const TraceResultPtr clean = w->controller()->current();
    QVERIFY(clean->ablated.empty());
    HeadKnockout* k = w->explanations()->knockout();
    QVERIFY(k->isVisibleTo(w->explanations()));
    const int layers = static_cast<int>(clean->cfg.layers), heads = static_cast<int>(clean->cfg.heads);
    QVERIFY(k->button(layers - 1, heads - 1) && !k->button(layers, 0));
    QToolButton* b = k->button(layers - 1, 0);
    QTest::mouseClick(b, Qt::LeftButton);
    test::settle(*w);
    const TraceResultPtr knocked = w->controller()->current();
    QCOMPARE(knocked->ablated, (std::vector<explain::HeadRef>{{layers - 1, 0}}));
    QVERIFY(b->isChecked());
    bool said = false;  // the status bar says which heads are out
    for (const QLabel* l : w->statusBar()->findChildren<QLabel*>())
      said |= l->text().contains(QStringLiteral("heads knocked out: %1.0").arg(layers - 1));
    QVERIFY(said);
    // the same run as core's --ablate: the weights edited the same way, every other head kept
    const Weights want = explain::ablate_heads(clean->cfg, clean->weights, {{layers - 1, 0}}, explain::AblateMode::Zero, Trace(), {});
    const std::string wo = "encoder.layers." + std::to_string(layers - 1) + ".self_attn.out_proj.weight";
    QCOMPARE(knocked->weights.get(wo).to_vector(), want.get(wo).to_vector());
    // and the prediction after "to" moves
    double moved = 0;
    for (int64_t v = 0; v < clean->trace.find("encoder.output_head.probs")->tensor.size(2); ++v)
      moved += std::abs(probability(*knocked, 3, v) - probability(*clean, 3, v));
    QVERIFY(moved > 1e-3);
    // an exported bundle says which heads its weights have out, as --ablate's manifest does
    QTemporaryDir dir;
    QCOMPARE(exportBundle(knocked, dir.filePath(QStringLiteral("b")), ExportFormats{}), QString());
    QFile manifest(dir.filePath(QStringLiteral("b/manifest.json")));
    QVERIFY(manifest.open(QIODevice::ReadOnly));
    const auto m = nlohmann::json::parse(manifest.readAll().toStdString());
    QCOMPARE(m["ablation"], nlohmann::json({{"heads", {{layers - 1, 0}}}, {"mode", "zero"}}));
    QTest::mouseClick(b, Qt::LeftButton);  // back in
    test::settle(*w);
    QVERIFY(w->controller()->current()->ablated.empty());
    for (int64_t v = 0; v < 5; ++v) QCOMPARE(probability(*w->controller()->current(), 3, v), probability(*clean, 3, v));
  }

  // Knocked out as "its mean output": the run is core's mean ablation of the clean run (the head's
  // head_out averaged over the batch's real positions, padding left out), which differs from
  // zeroing; the status bar, an exported bundle and a session say so; back to zero, zero again.
  void theMeanModeRunsCoresMeanAblation() {
    auto w = test::openWindow(QStringLiteral("knockoutMean"));
    QVERIFY(w);
    QVERIFY(test::chooseShippedModel(*w, QStringLiteral("english-next-word.safetensors")));
    w->inputs()->sentencesEdit()->setPlainText(QStringLiteral("the best way to\nyou will be"));
    test::settle(*w);
    w->explainDock()->show();
    test::settle(*w);
    const TraceResultPtr clean = w->controller()->current();
    HeadKnockout* k = w->explanations()->knockout();
    QComboBox* mode = k->modeBox();
    QVERIFY(mode->isVisibleTo(w.get()));
    mode->setCurrentIndex(mode->findData(static_cast<int>(explain::AblateMode::Mean)));
    test::settle(*w);
    QCOMPARE(w->controller()->current()->ablateMode, explain::AblateMode::Mean);  // run again: the head table's mode
    QVERIFY(w->controller()->current()->ablated.empty());
    QCOMPARE(w->controller()->current()->weights.get("encoder.layers.0.self_attn.out_proj.bias").to_vector(),
             clean->weights.get("encoder.layers.0.self_attn.out_proj.bias").to_vector());  // no head out yet
    QTest::mouseClick(k->button(0, 2), Qt::LeftButton);
    test::settle(*w);
    const TraceResultPtr mean = w->controller()->current();
    QCOMPARE(mean->ablated, (std::vector<explain::HeadRef>{{0, 2}}));
    QCOMPARE(mean->ablateMode, explain::AblateMode::Mean);
    const std::vector<int> lengths = clean->batch.encoder_tokens().lengths;
    QVERIFY(lengths[0] != lengths[1]);  // padding, which the mean leaves out
    const Weights want = explain::ablate_heads(clean->cfg, clean->weights, {{0, 2}}, explain::AblateMode::Mean, clean->trace, lengths);
    const Weights zero = explain::ablate_heads(clean->cfg, clean->weights, {{0, 2}}, explain::AblateMode::Zero, Trace(), {});
    const std::string bias = "encoder.layers.0.self_attn.out_proj.bias";
    QVERIFY(test::sameBits(mean->weights.get(bias), want.get(bias)));
    QVERIFY(mean->weights.get(bias).to_vector() != zero.get(bias).to_vector());
    bool said = false;
    for (const QLabel* l : w->statusBar()->findChildren<QLabel*>()) said |= l->text().contains(QStringLiteral("heads mean-ablated: 0.2"));
    QVERIFY(said);
    QTemporaryDir dir;
    QCOMPARE(exportBundle(mean, dir.filePath(QStringLiteral("b")), ExportFormats{}), QString());
    QFile manifest(dir.filePath(QStringLiteral("b/manifest.json")));
    QVERIFY(manifest.open(QIODevice::ReadOnly));
    QCOMPARE(nlohmann::json::parse(manifest.readAll().toStdString())["ablation"]["mode"], nlohmann::json("mean"));
    const QString path = dir.filePath(QStringLiteral("m.attnlab"));
    QCOMPARE(w->saveSession(path), QString());
    auto again = test::openWindow(QStringLiteral("knockoutMean2"));
    QVERIFY(again);
    QCOMPARE(again->openSession(path, false), QString());
    test::settle(*again);
    QCOMPARE(again->controller()->current()->ablateMode, explain::AblateMode::Mean);
    QVERIFY(test::sameBits(again->controller()->current()->weights.get(bias), want.get(bias)));
    again->explainDock()->show();
    test::settle(*again);
    QCOMPARE(again->explanations()->knockout()->mode(), explain::AblateMode::Mean);
    mode->setCurrentIndex(mode->findData(static_cast<int>(explain::AblateMode::Zero)));  // the head stays out, zeroed
    test::settle(*w);
    QCOMPARE(w->controller()->current()->ablateMode, explain::AblateMode::Zero);
    QVERIFY(test::sameBits(w->controller()->current()->weights.get(bias), zero.get(bias)));
  }

  // A right-click on a head of an encoder self-attention step offers to knock it out — the same
  // run as the panel's button —, and then to bring it back.
  void aRightClickOnAHeatmapKnocksItsHeadOut() {
    auto w = test::openWindow(QStringLiteral("knockoutMenu"));
    QVERIFY(w);
    QVERIFY(test::chooseShippedModel(*w, QStringLiteral("english-next-word.safetensors")));
    w->inputs()->sentencesEdit()->setPlainText(QStringLiteral("the best way to"));
    test::settle(*w);
    const TraceResultPtr clean = w->controller()->current();
    w->navigator()->setCurrent(clean->indexOf("encoder.layers.1.self_attn.weights"));
    test::settle(*w);
    HeatmapGrid* grid = w->stepPanel()->heatmaps();
    QVERIFY2(grid->noteText().contains(QStringLiteral("right-click it to knock it out")), qPrintable(grid->noteText()));
    const auto menuOf = [&](HeatmapView* view) -> QAction* {  // the head menu's action, right-clicked on `view`
      if (!view) return nullptr;
      QContextMenuEvent event(QContextMenuEvent::Mouse, QPoint(4, 4), view->mapToGlobal(QPoint(4, 4)));
      QCoreApplication::sendEvent(view, &event);  // as a right-click delivers it
      const auto menus = w->findChildren<QMenu*>(QStringLiteral("headMenu"));
      return menus.isEmpty() ? nullptr : menus.back()->findChild<QAction*>(QStringLiteral("knockHead"));
    };
    const auto rightClick = [&](int head) {  // a head's small map
      HeatmapView* view = nullptr;
      for (HeatmapView* v : grid->findChildren<HeatmapView*>())
        if (v->isVisible() && v->toolTip().startsWith(QStringLiteral("Click to enlarge head %1;").arg(head))) view = v;
      return menuOf(view);
    };
    const auto choose = [&](QAction* action) {  // and the window runs again
      action->trigger();
      for (QMenu* m : w->findChildren<QMenu*>(QStringLiteral("headMenu"))) m->close();
      QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
      test::settle(*w);
    };
    QAction* knock = rightClick(2);
    QVERIFY(knock);
    QCOMPARE(knock->text(), QStringLiteral("Knock head 1.2 out"));
    choose(knock);
    const TraceResultPtr knocked = w->controller()->current();
    QCOMPARE(knocked->ablated, (std::vector<explain::HeadRef>{{1, 2}}));
    const Weights want = explain::ablate_heads(clean->cfg, clean->weights, {{1, 2}}, explain::AblateMode::Zero, Trace(), {});
    const std::string wo = "encoder.layers.1.self_attn.out_proj.weight";
    QVERIFY(test::sameBits(knocked->weights.get(wo), want.get(wo)));
    knock = rightClick(2);
    QVERIFY(knock);
    QCOMPARE(knock->text(), QStringLiteral("Bring head 1.2 back"));
    choose(knock);
    QVERIFY(w->controller()->current()->ablated.empty());
    // The enlarged head offers the same: its large map, right-clicked.
    grid = w->stepPanel()->heatmaps();
    grid->enlargeHead(3);
    HeatmapView* large = grid->headView(3);
    QVERIFY(large && large->isVisible());
    QVERIFY(grid->noteText().startsWith(QStringLiteral("Right-click to knock this head out.")) ||
            grid->noteText().contains(QStringLiteral(" Right-click to knock this head out.")));
    knock = menuOf(large);
    QVERIFY(knock);
    QCOMPARE(knock->text(), QStringLiteral("Knock head 1.3 out"));
    choose(knock);
    QCOMPARE(w->controller()->current()->ablated, (std::vector<explain::HeadRef>{{1, 3}}));
  }

  void withALossEachHeadShowsItsEffectRanked() {
    auto w = test::openWindow(QStringLiteral("knockoutUi2"));
    QVERIFY(w);
    QVERIFY(test::chooseShippedModel(*w, QStringLiteral("english-next-word.safetensors")));
    w->inputs()->sentencesEdit()->setPlainText(QStringLiteral("the best way to\nthere is no such thing as a"));
    auto* gradients = w->inputs()->findChild<QComboBox*>(QStringLiteral("gradients"));
    QVERIFY(gradients);
    const int next = gradients->findText(QStringLiteral("next"), Qt::MatchContains);
    QVERIFY(next > 0);
    gradients->setCurrentIndex(next);
    test::settle(*w);
    QSignalSpy computed(w->explanations(), &ExplainPanel::computed);
    w->explainDock()->show();
    QVERIFY(computed.wait(30000));
    w->explanations()->waitForIdle();
    HeadKnockout* k = w->explanations()->knockout();
    QVERIFY(k->rankingLabel()->isVisibleTo(k));
    const auto r = w->controller()->current();
    QVERIFY(r->gradients);
    const auto effects = explain::head_effects(r->cfg, r->weights, r->trace, r->gradients->spec, explain::AblateMode::Zero,
                                               r->batch.text.lengths, {});
    const auto& first = effects.front();
    QVERIFY(k->rankingLabel()->text().contains(QStringLiteral("%1.%2").arg(first.head.layer).arg(first.head.head)));
    QVERIFY(k->button(int(first.head.layer), int(first.head.head))->text().contains(QLatin1Char('\n')));
    QVERIFY(k->button(int(first.head.layer), int(first.head.head))->toolTip().contains(QLocale().toString(first.loss, 'f', 4)));
    // a session keeps the heads knocked out
    QTest::mouseClick(k->button(int(first.head.layer), int(first.head.head)), Qt::LeftButton);
    test::settle(*w);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("k.attnlab"));
    QCOMPARE(w->saveSession(path), QString());
    auto again = test::openWindow(QStringLiteral("knockoutUi3"));
    QVERIFY(again);
    QCOMPARE(again->openSession(path, false), QString());
    test::settle(*again);
    QCOMPARE(again->controller()->current()->ablated, (std::vector<explain::HeadRef>{first.head}));
    QCOMPARE(again->controller()->current()->gradients->loss, w->controller()->current()->gradients->loss);
  }

  // An encoder–decoder: the panel's buttons cover the decoder's self-attention and its
  // cross-attention too (a row per layer of each, emitted in block-then-layer order), and a
  // right-click on a decoder heatmap's head names that head.
  void anEncoderDecoderKnocksOutDecoderHeads() {
    using explain::HeadBlock;
    HeadKnockout k;
    k.setModel(2, 3, {{1, 0, HeadBlock::Cross}}, explain::AblateMode::Zero, true);
    for (HeadBlock b : {HeadBlock::Encoder, HeadBlock::Decoder, HeadBlock::Cross}) QVERIFY(k.button(1, 2, b));
    QVERIFY(!k.button(2, 0, HeadBlock::Cross) && !k.button(0, 3, HeadBlock::Decoder));
    QVERIFY(k.button(1, 0, HeadBlock::Cross)->isChecked());
    QVERIFY(!k.button(1, 0, HeadBlock::Decoder)->isChecked() && !k.button(1, 0)->isChecked());
    QCOMPARE(k.button(0, 1, HeadBlock::Cross)->objectName(), QStringLiteral("knockout_cross_0_1"));
    std::vector<explain::HeadRef> got;
    connect(&k, &HeadKnockout::headsChanged, this, [&](const std::vector<explain::HeadRef>& heads) { got = heads; });
    QTest::mouseClick(k.button(0, 1, HeadBlock::Decoder), Qt::LeftButton);
    QCOMPARE(got, (std::vector<explain::HeadRef>{{0, 1, HeadBlock::Decoder}, {1, 0, HeadBlock::Cross}}));
    k.setEffects({{{0, 2, HeadBlock::Encoder}, 2.5, 0.5}, {{1, 1, HeadBlock::Cross}, 2.25, 0.25}}, 2.0);
    QVERIFY2(k.rankingLabel()->text().contains(QStringLiteral("encoder.0.2 (+0.50), cross.1.1 (+0.25)")),
             qPrintable(k.rankingLabel()->text()));  // which attention each head is in
    QVERIFY(k.button(1, 1, HeadBlock::Cross)->text().endsWith(QStringLiteral("+0.25")));
    QVERIFY(!k.button(1, 1, HeadBlock::Decoder)->text().contains(QLatin1Char('\n')));
    k.setModel(2, 3, {}, explain::AblateMode::Zero, false);  // an encoder alone: its rows only
    QVERIFY(k.button(0, 1) && !k.button(0, 1, HeadBlock::Decoder));

    const TraceResultPtr r = test::makeResult({"a dog ran"}, 1, MaskKind::Causal, {"le chien noir"});
    HeatmapGrid grid;
    grid.resize(900, 700);
    grid.show();
    explain::HeadRef asked{-1, -1};
    connect(&grid, &HeatmapGrid::headMenuRequested, this, [&](explain::HeadRef h, QPoint) { asked = h; });
    const auto rightClick = [&](const char* step, int head) {  // false: no such view
      asked = {-1, -1};
      grid.setStep(r, r->indexOf(step), 0);
      HeatmapView* view = grid.headView(head);
      if (!view) return false;
      QContextMenuEvent event(QContextMenuEvent::Mouse, QPoint(4, 4), view->mapToGlobal(QPoint(4, 4)));
      QCoreApplication::sendEvent(view, &event);
      return true;
    };
    QVERIFY(rightClick("decoder.layers.0.multihead_attn.weights", 1));
    QVERIFY(asked == (explain::HeadRef{0, 1, HeadBlock::Cross}));
    QVERIFY(rightClick("decoder.layers.0.self_attn.weights", 2));
    QVERIFY(asked == (explain::HeadRef{0, 2, HeadBlock::Decoder}));
    QVERIFY(rightClick("encoder.layers.0.self_attn.weights", 3));
    QVERIFY(asked == (explain::HeadRef{0, 3, HeadBlock::Encoder}));
    QVERIFY(rightClick("decoder.layers.0.multihead_attn.scores", 0));  // the weights' scores are the same heads
    QVERIFY(asked == (explain::HeadRef{0, 0, HeadBlock::Cross}));
  }

  // In the window: a right-click on a cross-attention head runs the model again with that head of
  // the decoder's cross-attention out (its W_O columns zeroed as core's ablate_heads does), the
  // menu and the status bar name it with its attention, and its panel button is pressed.
  void aCrossAttentionHeadIsKnockedOutInTheWindow() {
    auto w = test::openWindow(QStringLiteral("knockoutCross"));
    QVERIFY(w);
    w->inputs()->crossBox()->setChecked(true);
    w->inputs()->sourceEdit()->setPlainText(QStringLiteral("le chat dort"));
    w->inputs()->sentencesEdit()->setPlainText(QStringLiteral("the cat sleeps"));
    test::settle(*w);
    const TraceResultPtr clean = w->controller()->current();
    QVERIFY(clean && clean->cfg.cross && clean->cfg.heads > 1);
    w->navigator()->setCurrent(clean->indexOf("decoder.layers.0.multihead_attn.weights"));
    test::settle(*w);
    HeatmapView* view = w->stepPanel()->heatmaps()->headView(1);
    QVERIFY(view);
    QContextMenuEvent event(QContextMenuEvent::Mouse, QPoint(4, 4), view->mapToGlobal(QPoint(4, 4)));
    QCoreApplication::sendEvent(view, &event);
    const auto menus = w->findChildren<QMenu*>(QStringLiteral("headMenu"));
    QVERIFY(!menus.isEmpty());
    QAction* knock = menus.back()->findChild<QAction*>(QStringLiteral("knockHead"));
    QVERIFY(knock);
    QCOMPARE(knock->text(), QStringLiteral("Knock head cross.0.1 out"));
    knock->trigger();
    for (QMenu* m : w->findChildren<QMenu*>(QStringLiteral("headMenu"))) m->close();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    test::settle(*w);
    const TraceResultPtr knocked = w->controller()->current();
    const explain::HeadRef head{0, 1, explain::HeadBlock::Cross};
    QCOMPARE(knocked->ablated, (std::vector<explain::HeadRef>{head}));
    const Weights want = explain::ablate_heads(clean->cfg, clean->weights, {head}, explain::AblateMode::Zero, Trace(), {});
    const std::string wo = "decoder.layers.0.multihead_attn.out_proj.weight";
    QVERIFY(test::sameBits(knocked->weights.get(wo), want.get(wo)));
    QVERIFY(!test::sameBits(knocked->weights.get(wo), clean->weights.get(wo)));
    QVERIFY(w->explanations()->knockout()->button(0, 1, explain::HeadBlock::Cross)->isChecked());
    QVERIFY(!w->explanations()->knockout()->button(0, 1, explain::HeadBlock::Decoder)->isChecked());
    QVERIFY2(w->statusBar()->findChildren<QLabel*>().size() > 0, "no status");
    bool named = false;
    for (QLabel* l : w->statusBar()->findChildren<QLabel*>()) named = named || l->text().contains(QStringLiteral("heads knocked out: cross.0.1"));
    QVERIFY(named);
  }

  // The gallery's lesson opens with the previous-token head knocked out, its button pressed, and
  // the loss the lesson's text quotes.
  void theLessonOpensWithTheHeadOut() {
    auto w = test::openWindow(QStringLiteral("knockoutUi4"));
    QVERIFY(w);
    QCOMPARE(w->openSession(QStringLiteral(":/lessons/10-knockout.attnlab"), false), QString());
    test::settle(*w);
    const auto r = w->controller()->current();
    QCOMPARE(r->ablated, (std::vector<explain::HeadRef>{{0, 1}}));
    QVERIFY(r->gradients);
    QVERIFY(std::abs(r->gradients->loss - 3.10) < 0.005);
    w->explainDock()->show();
    QVERIFY(w->explanations()->knockout()->button(0, 1)->isChecked());
    QVERIFY(!w->explanations()->knockout()->button(1, 3)->isChecked());
  }
};

QTEST_MAIN(TestKnockoutUi)
#include "test_knockout_ui.moc"
