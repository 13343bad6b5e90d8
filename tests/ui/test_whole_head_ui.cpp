// A head of a tiled layer kept whole, as a user asks for it: a right-click on a head of the
// overview, "Show layer L, head H cell by cell", and the window shows that head's (S, S) weights
// (the head of a run traced in full) beside the overview; a second right-click gives it back; a
// session keeps it.
#include <QtTest>

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QContextMenuEvent>
#include <QFile>
#include <QMenu>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QSpinBox>
#include <QTemporaryDir>

#include "forward/model.h"
#include "input/fulllayerbox.h"
#include "input/inputpanel.h"
#include "step/stepnavigator.h"
#include "step/steppanel.h"
#include "views/heatmapgrid.h"
#include "views/heatmapview.h"
#include "window/mainwindow.h"
#include "fixtures.h"
#include "windowfixture.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

// Right-click head `head` of the shown heatmaps and return the menu's "cell by cell" action, or null.
QAction* wholeHeadAction(MainWindow& w, int head) {
  for (QMenu* m : w.findChildren<QMenu*>(QStringLiteral("headMenu"))) m->deleteLater();
  QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
  HeatmapView* view = w.stepPanel()->heatmaps()->headView(head);
  if (!view) return nullptr;
  QContextMenuEvent event(QContextMenuEvent::Mouse, QPoint(4, 4), view->mapToGlobal(QPoint(4, 4)));
  QCoreApplication::sendEvent(view, &event);
  const auto menus = w.findChildren<QMenu*>(QStringLiteral("headMenu"));
  return menus.isEmpty() ? nullptr : menus.back()->findChild<QAction*>(QStringLiteral("wholeHead"));
}

void trigger(MainWindow& w, QAction* a) {
  a->trigger();
  for (QMenu* m : w.findChildren<QMenu*>(QStringLiteral("headMenu"))) m->close();
  QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
  test::settle(w);
}

}  // namespace

class TestWholeHeadUi : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { test::isolateSettings(); }

  void aHeadOfTheOverviewIsShownCellByCell() {
    auto w = test::openWindow(QStringLiteral("wholeHeadUi"));
    QVERIFY(w);
    w->inputs()->layersBox()->setValue(2);
    w->inputs()->maskBox()->setCurrentText(QStringLiteral("padding+causal"));
    w->inputs()->sentencesEdit()->setPlainText(QStringLiteral("the cat sat on the mat\nit was warm"));
    w->inputs()->attentionBox()->setCurrentIndex(1);  // tiled: overview heatmaps
    test::settle(*w);
    const TraceResultPtr tiled = w->controller()->current();
    QVERIFY(tiled && tiled->cfg.overview_cap > 0 && tiled->cfg.heads > 2);
    w->navigator()->setCurrent(tiled->indexOf("encoder.layers.1.self_attn.weights_overview"));
    test::settle(*w);

    QVERIFY2(w->stepPanel()->heatmaps()->noteText().contains(QStringLiteral("or to see it cell by cell")),
             qPrintable(w->stepPanel()->heatmaps()->noteText()));
    QAction* whole = wholeHeadAction(*w, 2);
    QVERIFY(whole);
    QCOMPARE(whole->text(), QStringLiteral("Show layer 1, head 2 cell by cell (its whole weights, beside the overview)"));
    trigger(*w, whole);
    const TraceResultPtr kept = w->controller()->current();
    QVERIFY(kept != tiled);
    QCOMPARE(kept->cfg.full_heads, (std::vector<ModelConfig::LayerHead>{{1, 2}}));
    // the view moved to the kept head: one map, named with the model's head number
    const std::string id = "encoder.layers.1.self_attn.weights_head_2";
    QCOMPARE(w->navigator()->current(), kept->indexOf(id));
    HeatmapGrid* grid = w->stepPanel()->heatmaps();
    QVERIFY(w->stepPanel()->showingHeatmaps());
    QCOMPARE(grid->headCount(), 1);
    QVERIFY2(grid->headView(0)->toolTip().contains(QStringLiteral("head 2;")), qPrintable(grid->headView(0)->toolTip()));
    // its hint says how to give it back (the same right-click)
    QVERIFY2(grid->noteText().contains(QStringLiteral("show only its layer's overview again")), qPrintable(grid->noteText()));
    QCOMPARE(grid->headView(0)->rows(), static_cast<int>(kept->batch.text.seq()));
    // the causal mask's cells are hatched (the step's own mask: no masked_scores in a tiled layer)
    QVERIFY(kept->cfg.mask == MaskKind::PaddingCausal);
    QVERIFY(grid->headView(0)->cellMasked(0, 1));
    QVERIFY(!grid->headView(0)->cellMasked(1, 0));
    QVERIFY(!grid->headView(0)->cellMasked(1, 1));
    // its numbers: head 2 of the same model traced in full
    ModelConfig full = kept->cfg;
    full.overview_cap = 0;
    full.full_heads.clear();
    Trace f;
    forward(full, kept->weights, kept->batch, f);
    const Tensor& all = f.find("encoder.layers.1.self_attn.weights")->tensor;
    const Tensor& one = kept->trace.find(id)->tensor;
    QCOMPARE(one.shape(), (Shape{2, 1, all.size(2), all.size(3)}));
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t i = 0; i < all.size(2); ++i)
        for (int64_t j = 0; j < all.size(3); ++j)
          QVERIFY(std::abs(one.at({b, 0, i, j}) - all.at({b, 2, i, j})) <= 1e-5f + 1e-4f * std::abs(all.at({b, 2, i, j})));
    // a click on the kept map chooses head 2 (the Lines and Charts tabs, exercises), not the tensor's 0
    QTest::mouseClick(grid->headView(0), Qt::LeftButton, {}, grid->headView(0)->cellRect(1, 0).center().toPoint());
    QCOMPARE(w->stepPanel()->selection().head, 2);
    QCOMPARE(grid->enlargedHead(), 0);
    grid->enlargeHead(-1);
    // the right-click on the kept map names head 2, not the tensor's head 0
    QAction* back = wholeHeadAction(*w, 0);
    QVERIFY(back);
    QCOMPARE(back->text(), QStringLiteral("Show only the overview of layer 1, head 2 again"));

    // a session keeps it, and opens with it
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("whole.attnlab"));
    QCOMPARE(w->saveSession(path), QString());
    QFile saved(path);
    QVERIFY(saved.open(QIODevice::ReadOnly));
    QVERIFY(QString::fromUtf8(saved.readAll()).remove(QRegularExpression(QStringLiteral("\\s"))).contains(
        QStringLiteral("\"full_heads\":[[1,2]]")));
    auto again = test::openWindow(QStringLiteral("wholeHeadUi2"));
    QVERIFY(again);
    QCOMPARE(again->openSession(path, false), QString());
    test::settle(*again);
    QCOMPARE(again->controller()->current()->cfg.full_heads, (std::vector<ModelConfig::LayerHead>{{1, 2}}));
    QVERIFY(again->controller()->current()->trace.find(id));
    // and so does the next start of the window (its settings)
    auto next = test::openWindow(QStringLiteral("wholeHeadUi"));
    QVERIFY(next);
    QCOMPARE(next->controller()->current()->cfg.full_heads, (std::vector<ModelConfig::LayerHead>{{1, 2}}));
    next.reset();

    // layer 1 traced in full holds head 1.2 anyway: the session saved then names no kept head (it
    // would not open), and the list comes back with the layer tiled again
    w->inputs()->fullLayerBox()->setCurrentIndex(2);  // no layer, layer 0, layer 1
    test::settle(*w);
    QVERIFY(w->controller()->current()->cfg.full_heads.empty());
    const QString inFull = dir.filePath(QStringLiteral("in-full.attnlab"));
    QCOMPARE(w->saveSession(inFull), QString());
    QFile infile(inFull);
    QVERIFY(infile.open(QIODevice::ReadOnly));
    QVERIFY(!QString::fromUtf8(infile.readAll()).contains(QStringLiteral("full_heads")));
    QCOMPARE(again->openSession(inFull, false), QString());
    w->inputs()->fullLayerBox()->setCurrentIndex(0);
    test::settle(*w);
    QCOMPARE(w->controller()->current()->cfg.full_heads, (std::vector<ModelConfig::LayerHead>{{1, 2}}));
    w->navigator()->setCurrent(w->controller()->current()->indexOf(id));
    test::settle(*w);

    // given back: the overview only, and the view back on it
    again.reset();
    back = wholeHeadAction(*w, 0);
    QVERIFY(back);
    trigger(*w, back);
    const TraceResultPtr plain = w->controller()->current();
    QVERIFY(plain->cfg.full_heads.empty());
    QVERIFY(!plain->trace.find(id));
    QCOMPARE(w->navigator()->current(), plain->indexOf("encoder.layers.1.self_attn.weights_overview"));
    QCOMPARE(grid->headCount(), plain->cfg.heads);

    // a layer traced in full offers no such item (every head is whole there)
    w->inputs()->attentionBox()->setCurrentIndex(0);
    test::settle(*w);
    w->navigator()->setCurrent(w->controller()->current()->indexOf("encoder.layers.1.self_attn.weights"));
    test::settle(*w);
    QVERIFY(!wholeHeadAction(*w, 2));
  }

  // An encoder–decoder keeps the pair in every stack, as --full-heads does: the item says so, and
  // a right-click on a cross-attention head keeps that head of the encoder's self-attention, the
  // decoder's self-attention and the cross-attention; the same item gives all three back.
  void anEncoderDecoderKeepsTheHeadInEveryBlock() {
    auto w = test::openWindow(QStringLiteral("wholeHeadCross"));
    QVERIFY(w);
    w->inputs()->crossBox()->setChecked(true);
    w->inputs()->sourceEdit()->setPlainText(QStringLiteral("le chat dort"));
    w->inputs()->sentencesEdit()->setPlainText(QStringLiteral("the cat sleeps"));
    w->inputs()->attentionBox()->setCurrentIndex(1);
    test::settle(*w);
    const TraceResultPtr tiled = w->controller()->current();
    QVERIFY(tiled && tiled->cfg.cross && tiled->cfg.overview_cap > 0 && tiled->cfg.heads > 1);
    w->navigator()->setCurrent(tiled->indexOf("decoder.layers.0.multihead_attn.weights_overview"));
    test::settle(*w);
    QAction* whole = wholeHeadAction(*w, 1);
    QVERIFY(whole);
    QCOMPARE(whole->text(), QStringLiteral("Show layer 0, head 1 cell by cell (encoder, decoder and cross-attention)"));
    trigger(*w, whole);
    const TraceResultPtr kept = w->controller()->current();
    QCOMPARE(kept->cfg.full_heads, (std::vector<ModelConfig::LayerHead>{{0, 1}}));
    for (const char* id : {"encoder.layers.0.self_attn.weights_head_1", "decoder.layers.0.self_attn.weights_head_1",
                           "decoder.layers.0.multihead_attn.weights_head_1"})
      QVERIFY2(kept->trace.find(id), id);
    QVERIFY(!kept->trace.find("decoder.layers.0.multihead_attn.weights_head_0"));
    QCOMPARE(w->navigator()->current(), kept->indexOf("decoder.layers.0.multihead_attn.weights_head_1"));
    QAction* back = wholeHeadAction(*w, 0);  // the kept map holds head 1 alone: its first view
    QVERIFY(back);
    QCOMPARE(back->text(), QStringLiteral("Overviews only for layer 0, head 1 again (encoder, decoder and cross-attention)"));
    trigger(*w, back);
    const TraceResultPtr plain = w->controller()->current();
    QVERIFY(plain->cfg.full_heads.empty());
    QVERIFY(!plain->trace.find("encoder.layers.0.self_attn.weights_head_1"));
  }
};

QTEST_MAIN(TestWholeHeadUi)
#include "test_whole_head_ui.moc"
