// The Explanations panel as a user meets it: View ▸ Explanations panel shows it and it computes the
// current run's explanations (nothing while hidden); one row per method beside token ablation,
// each cell the method's value at the explained position (checked against core), the ρ column
// the manifest's Spearman scores; a loss adds the gradient methods; an encoder–decoder run gets a
// message naming why, not a table.
#include <QtTest>

#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QMenuBar>
#include <QTableWidget>

#include "explain/explain.h"
#include "fixtures.h"
#include "input/inputpanel.h"
#include "views/explainpanel.h"
#include "window/mainwindow.h"
#include "windowfixture.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

double cellValue(QTableWidget* t, int r, int c) { return QLocale().toDouble(t->item(r, c)->text()); }

}  // namespace

class TestExplainUi : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { test::isolateSettings(); }

  void aShownPanelExplainsTheRun() {
    auto r = std::const_pointer_cast<TraceResult>(test::makeResult({"the cat sat on the mat", "a dog ran"}, 2));
    r->weights = init_weights(r->cfg);
    r->trace = Trace();
    forward(r->cfg, r->weights, r->batch, r->trace);
    ExplainPanel panel;
    QSignalSpy computed(&panel, &ExplainPanel::computed);
    panel.setResult(r);
    QCoreApplication::processEvents();
    QCOMPARE(computed.count(), 0);  // hidden: nothing computed
    panel.resize(900, 600);
    panel.show();
    QVERIFY(computed.wait(20000));
    QCOMPARE(panel.methodKeys(), (QStringList{"attention", "rollout", "flow", "token_ablation"}));
    QTableWidget* t = panel.table();
    QCOMPARE(t->rowCount(), 6 + 1);  // the first sentence's six tokens, then ρ
    QCOMPARE(t->columnCount(), 4);
    QVERIFY(t->verticalHeaderItem(5)->text().startsWith(QStringLiteral("▸ ")));  // explained: the last token
    QVERIFY(t->horizontalHeaderItem(1)->toolTip().contains(QStringLiteral("Abnar")));
    const Explanations ex = compute_explanations(r->cfg, r->weights, r->batch, r->trace, {},
                                                 {ExplainMethod::Rollout, ExplainMethod::Flow, ExplainMethod::Ablation});
    for (int j = 0; j < 6; ++j)
      QVERIFY(std::abs(cellValue(t, j, 1) - ex.steps.find("explain.rollout")->tensor.at({0, 5, j})) < 0.006);
    for (int j = 0; j < 5; ++j) {  // ablation's small effects keep two significant digits
      const double e = ex.steps.find("explain.token_ablation")->tensor.at({0, j});
      QVERIFY(std::abs(cellValue(t, j, 3) - e) <= 0.051 * std::abs(e) + 0.006);
    }
    QCOMPARE(ex.spearman[1].first, std::string("rollout"));
    const double rho = ex.spearman[1].second[0];
    QVERIFY(std::abs(cellValue(t, 6, 1) - rho) < 0.006);
    QCOMPARE(t->item(6, 3)->text(), QStringLiteral("—"));  // ablation is not scored against itself
    // its numbers as CSV: one row per token, the explained one marked, then ρ
    const QStringList lines = panel.csv().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 1 + 6 + 1);
    QCOMPARE(lines[0], QStringLiteral("position,token,explained,attention,rollout,flow,token_ablation"));
    QVERIFY(lines[6].startsWith(QStringLiteral("5,\"mat\",1,")));
    QVERIFY(std::abs(lines[3].split(QLatin1Char(','))[4].toDouble() - ex.steps.find("explain.rollout")->tensor.at({0, 5, 2})) < 1e-6);
    QVERIFY(std::abs(lines[7].split(QLatin1Char(','))[4].toDouble() - rho) < 1e-6);
    panel.sentenceBox()->setCurrentIndex(1);  // "a dog ran": three rows and ρ
    QCOMPARE(t->rowCount(), 4);
    QVERIFY(t->verticalHeaderItem(2)->text().startsWith(QStringLiteral("▸ ")));
    const Tensor& last = r->trace.find("encoder.layers.1.self_attn.weights")->tensor;  // (B, H, S, S)
    for (int j = 0; j < 3; ++j) {  // sentence 1's own numbers: the last layer's mean over heads at query 2, and rollout
      double mean = 0;
      for (int h = 0; h < 4; ++h) mean += last.at({1, h, 2, j}) / 4;
      QVERIFY(std::abs(cellValue(t, j, 0) - mean) <= 0.051 * mean + 0.006);
      QVERIFY(std::abs(cellValue(t, j, 1) - ex.steps.find("explain.rollout")->tensor.at({1, 2, j})) <= 0.006);
    }
    QVERIFY(!panel.messageLabel()->isVisible());
    // another position of the first sentence, chosen: everything explained again there
    panel.sentenceBox()->setCurrentIndex(0);
    QCOMPARE(panel.positionBox()->count(), 6);
    QCOMPARE(panel.positionBox()->currentIndex(), 5);
    panel.positionBox()->setCurrentIndex(2);
    emit panel.positionBox()->activated(2);
    QVERIFY(computed.wait(20000));
    panel.waitForIdle();
    QCOMPARE(panel.positionBox()->currentIndex(), 2);
    QVERIFY(t->verticalHeaderItem(2)->text().startsWith(QStringLiteral("▸ ")));
    QVERIFY(!t->verticalHeaderItem(5)->text().startsWith(QStringLiteral("▸ ")));
    const Explanations at2 = compute_explanations(r->cfg, r->weights, r->batch, r->trace, {.query = {2, 2}},
                                                  {ExplainMethod::Rollout, ExplainMethod::Flow, ExplainMethod::Ablation});
    QCOMPARE(at2.query, (std::vector<int64_t>{2, 2}));
    // −1, or a position past the sentence: its own explained position (the last token here)
    QCOMPARE(compute_explanations(r->cfg, r->weights, r->batch, r->trace, {.query = {-1, 3}}, {ExplainMethod::Rollout}).query,
             (std::vector<int64_t>{5, 2}));
    for (int j = 0; j < 3; ++j) {
      QVERIFY(std::abs(cellValue(t, j, 1) - at2.steps.find("explain.rollout")->tensor.at({0, 2, j})) < 0.006);
      const double e = at2.steps.find("explain.token_ablation")->tensor.at({0, j});
      QVERIFY(std::abs(cellValue(t, j, 3) - e) <= 0.051 * std::abs(e) + 0.006);
    }
    QVERIFY(std::abs(at2.steps.find("explain.token_ablation")->tensor.at({0, 0}) -
                     ex.steps.find("explain.token_ablation")->tensor.at({0, 0})) > 1e-6);  // a different question
  }

  // An encoder–decoder run: the positions are the decoder's ("a dog ran"), the rows the source's
  // ("le chien noir"), only the methods defined for it (Chefer et al. 2021's rules, and token
  // ablation of the source) are shown, and each is scored against the ablation.
  void anEncoderDecoderRunExplainsTheSource() {
    auto r = std::const_pointer_cast<TraceResult>(test::makeResult({"a dog ran"}, 1, MaskKind::Causal, {"le chien noir"}));
    r->weights = init_weights(r->cfg);
    ExplainPanel panel;
    QSignalSpy computed(&panel, &ExplainPanel::computed);
    panel.show();
    panel.setResult(r);
    QVERIFY(computed.wait(20000));
    QVERIFY2(!panel.messageLabel()->isVisible(), qPrintable(panel.messageLabel()->text()));
    QCOMPARE(panel.methodKeys(), (QStringList{QStringLiteral("attention"), QStringLiteral("rollout"), QStringLiteral("token_ablation")}));
    QTableWidget* t = panel.table();
    QCOMPARE(t->rowCount(), 3 + 1);  // le, chien, noir, then ρ
    QCOMPARE(t->verticalHeaderItem(1)->text(), QStringLiteral("chien"));
    QCOMPARE(t->verticalHeaderItem(3)->text(), QStringLiteral("ρ"));
    // Three source tokens: ρ is core's for the attention and the rollout, over all three.
    const Explanations want = compute_explanations(r->cfg, r->weights, r->batch, r->trace, {},
                                                   {ExplainMethod::Rollout, ExplainMethod::Ablation});
    QCOMPARE(want.spearman.size(), size_t(2));  // attention, rollout
    for (int c = 0; c < 2; ++c) {
      bool number = false;
      const double rho = QLocale().toDouble(t->item(3, c)->text(), &number);
      const double expected = want.spearman[size_t(c)].second[0];
      QVERIFY2(number && std::abs(rho - expected) <= 0.006, qPrintable(t->item(3, c)->text() + QStringLiteral(" vs ") + QString::number(expected)));
    }
    for (int j = 0; j < 3; ++j) QVERIFY(cellValue(t, j, 2) > 0);  // every source token moves the output
    auto* help = panel.findChild<QLabel*>(QStringLiteral("explainHelp"));
    QVERIFY(help && help->text().contains(QStringLiteral("ρ")) && help->text().contains(QStringLiteral("Each column ranks")));
    auto* position = panel.findChild<QComboBox*>(QStringLiteral("explainPosition"));
    QVERIFY(position);
    QCOMPARE(position->count(), 3);
    QCOMPARE(position->currentIndex(), 2);  // the decoder's last token, "ran"
    auto* intro = panel.findChild<QLabel*>(QStringLiteral("explainIntro"));
    QVERIFY(intro && intro->text().contains(QStringLiteral("source tokens")) && intro->text().contains(QStringLiteral("ran")));
    const QString csv = panel.csv();  // one row per source token, then ρ
    QVERIFY2(csv.startsWith(QStringLiteral("position,source_token,decoder_position,attention,rollout,token_ablation\n")), qPrintable(csv));
    QVERIFY2(csv.contains(QStringLiteral("\n1,\"chien\",2,")), qPrintable(csv));  // explained for "ran", position 2
    QVERIFY2(csv.contains(QStringLiteral("\n,\"spearman_rho\",,")), qPrintable(csv));
  }

  // In the window: the View menu's toggle shows the dock; a loss chosen adds the gradient rows.
  void theWindowShowsItFromTheViewMenu() {
    auto w = test::openWindow(QStringLiteral("test"));
    QVERIFY(w && w->controller()->current());
    QVERIFY(w->explainDock()->isHidden());
    QAction* toggle = test::menuAction(*w, QStringLiteral("E&xplanations panel"));
    QVERIFY(toggle);
    QSignalSpy computed(w->explanations(), &ExplainPanel::computed);
    toggle->trigger();
    QVERIFY(!w->explainDock()->isHidden());
    QCoreApplication::processEvents();
    QVERIFY(computed.wait(20000));
    QVERIFY(w->explanations()->methodKeys().contains(QStringLiteral("token_ablation")));
    QVERIFY(!w->explanations()->methodKeys().contains(QStringLiteral("saliency")));
    auto* gradients = w->inputs()->findChild<QComboBox*>(QStringLiteral("gradients"));
    QVERIFY(gradients);
    gradients->setCurrentIndex(1);  // "sum of the output"
    test::settle(*w);
    if (!w->explanations()->methodKeys().contains(QStringLiteral("saliency"))) QVERIFY(computed.wait(20000));
    w->explanations()->waitForIdle();
    QVERIFY(w->explanations()->methodKeys().contains(QStringLiteral("grad_attention")));
    QVERIFY(w->explanations()->methodKeys().contains(QStringLiteral("saliency")));
  }
};

QTEST_MAIN(TestExplainUi)
#include "test_explain_ui.moc"
