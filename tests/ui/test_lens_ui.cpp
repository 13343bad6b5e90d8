// The Logit lens panel as a user meets it: View ▸ Logit lens panel shows it as a tab beside the
// Predictions; with a trained model chosen each column is a layer (the embeddings first, the
// model's answer last) and each row a position, each cell that layer's top token and probability
// as core computes them, coloured by the final answer's probability; the last column agrees with
// the Predictions; seeded weights get the reason, not a table; nothing is computed while hidden.
#include <QtTest>

#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QMenuBar>
#include <QTableWidget>
#include <QTemporaryDir>

#include "explain/logit_lens.h"
#include "input/inputpanel.h"
#include "views/lenspanel.h"
#include "views/predictionspanel.h"
#include "window/mainwindow.h"
#include "windowfixture.h"

using namespace attnlab;
using namespace attnlab::ui;

class TestLensUi : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { test::isolateSettings(); }

  void seededWeightsGetTheReason() {
    auto w = test::openWindow(QStringLiteral("lensUi"));
    QVERIFY(w && w->controller()->current());
    QVERIFY(w->lensDock()->isHidden());
    QSignalSpy computed(w->logitLens(), &LensPanel::computed);
    QCoreApplication::processEvents();
    QCOMPARE(computed.count(), 0);  // hidden: nothing computed
    QAction* toggle = test::menuAction(*w, QStringLiteral("Logit le&ns panel"));
    QVERIFY(toggle);
    toggle->trigger();
    QVERIFY(!w->lensDock()->isHidden());
    if (w->controller()->current()->weights.vocab()) QSKIP("the window started with a trained model");
    QVERIFY(computed.wait(20000));
    QVERIFY(w->logitLens()->messageLabel()->isVisible());
    QVERIFY(w->logitLens()->messageLabel()->text().contains(QStringLiteral("output head")));
    QCOMPARE(w->logitLens()->table()->rowCount(), 0);
  }

  void aTrainedModelShowsTheAnswerForming() {
    auto w = test::openWindow(QStringLiteral("lensUi2"));
    QVERIFY(w);
    QVERIFY(test::chooseShippedModel(*w, QStringLiteral("english-next-word.safetensors")));
    w->inputs()->sentencesEdit()->setPlainText(QStringLiteral("the best way to\nthere is no such thing as a"));
    test::settle(*w);
    QSignalSpy computed(w->logitLens(), &LensPanel::computed);
    test::menuAction(*w, QStringLiteral("Logit le&ns panel"))->trigger();
    QVERIFY(computed.wait(20000));
    w->logitLens()->waitForIdle();
    // a tab beside the predictions, brought to the front
    QVERIFY(w->tabifiedDockWidgets(w->lensDock()).contains(w->predictionsDock()));
    const auto r = w->controller()->current();
    const int layers = static_cast<int>(r->cfg.layers);
    QTableWidget* t = w->logitLens()->table();
    QCOMPARE(t->columnCount(), layers + 1);
    QCOMPARE(t->rowCount(), 4);  // "the best way to"
    QCOMPARE(t->verticalHeaderItem(3)->text(), QStringLiteral("to"));
    QVERIFY(t->horizontalHeaderItem(0)->toolTip().contains(QStringLiteral("Embeddings")));
    QVERIFY(t->horizontalHeaderItem(layers)->text().contains(QStringLiteral("answer")));
    const auto lens = explain::logit_lens(r->cfg, r->weights, r->trace, explain::kLensTopDefault);
    const auto& words = r->weights.vocab()->words();
    for (int l = 0; l <= layers; ++l)
      for (int s = 0; s < 4; ++s) {
        const QString cell = t->item(s, l)->text();
        const QString top = QString::fromStdString(words[size_t(lens.ids.at({0, l, s, 0}))]);
        QCOMPARE(cell.section(QStringLiteral("  "), 0, 0), top);
        QCOMPARE(cell.section(QStringLiteral("  "), 1, 1), percentText(lens.probs.at({0, l, s, 0})));
        QVERIFY(t->item(s, l)->toolTip().contains(QStringLiteral("5. ")));  // the top five
      }
    // the last row is the Predictions panel's top guess after the last word
    QCOMPARE(t->item(3, layers)->text().section(QStringLiteral("  "), 0, 0), w->predictions()->rowToken(0));
    // exported: the table as a picture, its numbers as CSV (the cells above, unrounded)
    QTemporaryDir dir;
    QCOMPARE(w->logitLens()->exportTo(dir.filePath(QStringLiteral("lens.png"))), QString());
    QVERIFY(!QImage(dir.filePath(QStringLiteral("lens.png"))).isNull());
    QCOMPARE(w->logitLens()->exportTo(dir.filePath(QStringLiteral("lens.csv"))), QString());
    QFile csv(dir.filePath(QStringLiteral("lens.csv")));
    QVERIFY(csv.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(csv.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 1 + 4);
    QVERIFY(lines[0].startsWith(QStringLiteral("position,token,input_top,input_p,input_answer_p,layer_0_top")));
    const QStringList last = lines[4].split(QLatin1Char(','));
    QCOMPARE(last[1], QStringLiteral("\"to\""));
    QCOMPARE(last[2 + 3 * layers], QStringLiteral("\"%1\"").arg(QString::fromStdString(words[size_t(lens.ids.at({0, layers, 3, 0}))])));
    QVERIFY(std::abs(last[3 + 3 * layers].toDouble() - lens.probs.at({0, layers, 3, 0})) < 1e-6);
    QVERIFY(std::abs(last[4 + 3 * layers].toDouble() - lens.answer.at({0, layers, 3})) < 1e-6);
    // the second sentence: its own columns
    w->logitLens()->sentenceBox()->setCurrentIndex(1);
    QCOMPARE(t->rowCount(), 7);
    QCOMPARE(t->verticalHeaderItem(6)->text(), QStringLiteral("a"));
    // a new sentence recomputes while shown
    w->inputs()->sentencesEdit()->setPlainText(QStringLiteral("you will be"));
    test::settle(*w);
    if (computed.count() < 2) QVERIFY(computed.wait(20000));
    w->logitLens()->waitForIdle();
    QCOMPARE(t->rowCount(), 3);
    // hidden while a new sentence is computed (its job stopped), shown again: it computes that
    // sentence and says nothing of "Computing…"; the same result shown again keeps its table
    w->lensDock()->hide();
    w->inputs()->sentencesEdit()->setPlainText(QStringLiteral("a dog"));
    test::settle(*w);
    w->logitLens()->waitForIdle();
    w->lensDock()->show();
    QTRY_COMPARE_WITH_TIMEOUT(t->rowCount(), 2, 20000);
    w->logitLens()->waitForIdle();
    QVERIFY(!w->logitLens()->messageLabel()->isVisible());
    w->logitLens()->setResult(w->controller()->current());
    w->logitLens()->waitForIdle();
    QCOMPARE(t->rowCount(), 2);
    QVERIFY(!w->logitLens()->messageLabel()->isVisible());
  }
};

QTEST_MAIN(TestLensUi)
#include "test_lens_ui.moc"
