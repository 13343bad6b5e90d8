// The backward pass in the window, driven like a user: choose a loss under "gradients", and the
// navigator gains a Backward group after the forward steps (walked in reverse), a gradient step
// shows its per-head heatmaps with the masked cells hatched (their gradient exactly 0), the
// Gradients tab lists every parameter's gradient norm, and a session keeps the choice.
#include <QtTest>

#include <QComboBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTreeWidget>

#include <cmath>

#include "backward/model_backward.h"
#include "input/inputpanel.h"
#include "step/stepnavigator.h"
#include "step/steppanel.h"
#include "views/gradnormchart.h"
#include "views/scalingtable.h"
#include "views/heatmapgrid.h"
#include "views/heatmapview.h"
#include "window/mainwindow.h"
#include "windowfixture.h"
#include "words/stepnames.h"
#include "words/steptext.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

QComboBox* gradientsBox(MainWindow& w) { return w.inputs()->findChild<QComboBox*>(QStringLiteral("gradients")); }

QTreeWidgetItem* topItem(QTreeWidget* tree, const QString& text) {
  for (int i = 0; i < tree->topLevelItemCount(); ++i)
    if (tree->topLevelItem(i)->text(0) == text) return tree->topLevelItem(i);
  return nullptr;
}

}  // namespace

class TestGradientsUi : public QObject {
  Q_OBJECT
  std::unique_ptr<MainWindow> w_;

 private slots:
  void initTestCase() { test::isolateSettings(); }
  void init() {
    w_ = test::openWindow(QStringLiteral("test"));
    QVERIFY(w_ && w_->controller()->current());
  }
  void cleanup() {
    w_.reset();
    QSettings().clear();
  }

  void choosingALossAddsTheBackwardPass() {
    QVERIFY(!w_->controller()->current()->gradients);
    const int forwardSteps = static_cast<int>(w_->controller()->current()->trace.steps().size());
    QComboBox* box = gradientsBox(*w_);
    QVERIFY(box);
    box->setCurrentIndex(1);  // "sum of the output", as a click would
    test::settle(*w_);
    const TraceResultPtr r = w_->controller()->current();
    QVERIFY(r->gradients);
    QCOMPARE(r->gradients->firstStep, forwardSteps);  // the forward's steps come first, unchanged
    QCOMPARE(r->gradients->output, loss_input_step(r->cfg));
    QCOMPARE(w_->navigator()->count(), static_cast<int>(r->trace.steps().size()));

    // One "Backward (gradients)" item after the forward's groups; its first group is where the
    // loss is read (the last layer), its last the parameters.
    auto* tree = w_->navigator()->findChild<QTreeWidget*>(QStringLiteral("steps"));
    QVERIFY(tree);
    QTreeWidgetItem* back = topItem(tree, QStringLiteral("Backward (gradients)"));
    QVERIFY(back);
    QCOMPARE(tree->indexOfTopLevelItem(back), tree->topLevelItemCount() - 1);
    QVERIFY(back->childCount() >= 3);
    QCOMPARE(back->child(back->childCount() - 1)->text(0), QStringLiteral("Parameters"));
    QCOMPARE(r->trace.steps()[static_cast<size_t>(forwardSteps)].info.id, r->gradients->output + ".grad");

    // Step onto ∂L/∂scores of the first block: a heatmap per head, masked cells hatched.
    const std::string id = "encoder.layers.0.self_attn.masked_scores.grad";
    const int at = r->indexOf(id);
    QVERIFY(at > forwardSteps);
    w_->navigator()->setCurrent(at);
    QCoreApplication::processEvents();
    QVERIFY(w_->stepPanel()->showingHeatmaps());
    HeatmapGrid* grid = w_->stepPanel()->heatmaps();
    QCOMPARE(grid->headCount(), static_cast<int>(r->cfg.heads));
    QVERIFY(w_->stepPanel()->locationText().startsWith(QStringLiteral("Backward · ")));
    QVERIFY(w_->stepPanel()->formulaText().contains(QStringLiteral("dmasked = weights ⊙ (dweights − Σ dweights ⊙ weights)")));
    // The sample's second sentence is padded: its [PAD] keys are hatched, and exactly 0.
    const int b = 1;
    w_->stepPanel()->setSentence(b);
    QCoreApplication::processEvents();
    const Step& g = r->trace.steps()[static_cast<size_t>(at)];
    const Tensor& mask = r->trace.find("encoder.mask")->tensor;
    int hatched = 0, zeros = 0;
    for (int64_t h = 0; h < g.tensor.size(1); ++h)
      for (int64_t i = 0; i < g.tensor.size(2); ++i)
        for (int64_t j = 0; j < g.tensor.size(3); ++j) {
          hatched += grid->headView(static_cast<int>(h))->cellMasked(static_cast<int>(i), static_cast<int>(j));
          if (mask.at({b, i, j}) == 0.0f) {
            QCOMPARE(g.tensor.at({b, h, i, j}), 0.0f);
            ++zeros;
          }
        }
    QVERIFY(zeros > 0);
    QCOMPARE(hatched, zeros);
    QVERIFY(grid->explanation().contains(QStringLiteral("exactly 0")));
    // ∂L/∂weights is not 0 at the masked cells (dO·Vᵀ): the softmax stops it one step later.
    const int wAt = r->indexOf("encoder.layers.0.self_attn.weights.grad");
    w_->navigator()->setCurrent(wAt);
    QCoreApplication::processEvents();
    QVERIFY(w_->stepPanel()->formulaText().contains(QStringLiteral("dweights = dhead_out·vᵀ")));
    const Tensor& gw = r->trace.steps()[static_cast<size_t>(wAt)].tensor;
    float masked = 0;
    for (int64_t i = 0; i < gw.size(2); ++i)
      for (int64_t j = 0; j < gw.size(3); ++j)
        if (mask.at({b, i, j}) == 0.0f) masked = std::max(masked, std::fabs(gw.at({b, 0, i, j})));
    QVERIFY(masked > 0.0f);
    QVERIFY(grid->explanation().contains(QStringLiteral("nothing flows on")));

    // The Gradients tab: every parameter's norm; the output head is not there (no trained model).
    QTabWidget* tabs = w_->stepPanel()->tabs();
    QVERIFY(tabs->isTabVisible(StepPanel::GradientsTab));
    tabs->setCurrentIndex(StepPanel::GradientsTab);
    GradNormChart* chart = w_->stepPanel()->gradNorms();
    QCOMPARE(chart->bars().size(), static_cast<qsizetype>(expected_parameters(r->cfg).size()));
    for (const auto& bar : chart->bars()) QVERIFY2(bar.norm > 0, qPrintable(bar.name));  // pre-norm: all reached
    QVERIFY(chart->summary().contains(QStringLiteral("no gradient at all: 0")));
    QVERIFY(chart->csv().startsWith(QStringLiteral("parameter,gradient_norm\nencoder.layers.0.self_attn.in_proj_weight,")));
    // Under it the √d experiment, computed on a worker: three scalings, the model's first.
    ScalingTable* scaling = w_->stepPanel()->scaling();
    QTRY_VERIFY_WITH_TIMEOUT(!scaling->computing(), 20000);
    QCOMPARE(scaling->runs().size(), size_t{3});
    QVERIFY(scaling->runs()[2].mean_max > scaling->runs()[0].mean_max);
    // The default sample's heads are narrow (d_head 8): the sentence says the effect needs wide ones.
    QVERIFY(scaling->summary().contains(QStringLiteral("try d_model 512")));

    // Off again: the tab goes, the steps are the forward's alone.
    box->setCurrentIndex(0);
    test::settle(*w_);
    QVERIFY(!w_->controller()->current()->gradients);
    QVERIFY(!tabs->isTabVisible(StepPanel::GradientsTab));
    QCOMPARE(w_->navigator()->count(), forwardSteps);
  }

  void postNormSumShowsTheTrap() {
    gradientsBox(*w_)->setCurrentIndex(1);
    Request req = w_->inputs()->currentRequest();
    req.cfg.norm = Norm::Post;
    w_->inputs()->restore(req);
    test::settle(*w_);
    const TraceResultPtr r = w_->controller()->current();
    QVERIFY(r->gradients);
    QCOMPARE(r->cfg.norm, Norm::Post);
    w_->stepPanel()->tabs()->setCurrentIndex(StepPanel::GradientsTab);
    int tiny = 0, large = 0;
    for (const auto& bar : w_->stepPanel()->gradNorms()->bars()) (bar.norm < 1e-3 ? tiny : large) += 1;
    QCOMPARE(large, 2);  // the last norm's γ and β: everything before it gets (nearly) nothing
    QCOMPARE(tiny, static_cast<int>(w_->stepPanel()->gradNorms()->bars().size()) - 2);
  }

  // The sorting model, per position against the answers a learner types: right answers cost
  // almost nothing, wrong ones a lot; a missing answer is a message under the inputs; a session
  // keeps the answers.
  void perPositionAgainstTypedAnswers() {
    QComboBox* models = w_->inputs()->modelBox();  // chosen as a learner does: Model ▸ Sort the digits
    const int at = models->findData(QStringLiteral(":/models/sort-digits.safetensors"));
    QVERIFY(at > 0);
    models->setCurrentIndex(at);
    emit models->activated(at);
    test::settle(*w_);
    w_->inputs()->sentencesEdit()->setPlainText(QStringLiteral("3 1 4 1 5\n9 0 2"));
    QVERIFY(!w_->inputs()->answersEdit()->isVisible());
    gradientsBox(*w_)->setCurrentIndex(3);
    QVERIFY(w_->inputs()->answersEdit()->isVisible());
    QTest::keyClicks(w_->inputs()->answersEdit(), QStringLiteral("1 1 3 4 5"));
    test::settle(*w_);
    QVERIFY2(w_->inputs()->errorText().contains(QStringLiteral("1 answers for 2 sentences")), qPrintable(w_->inputs()->errorText()));
    QTest::keyClick(w_->inputs()->answersEdit(), Qt::Key_Return);
    QTest::keyClicks(w_->inputs()->answersEdit(), QStringLiteral("0 2 9"));
    test::settle(*w_);
    QCOMPARE(w_->inputs()->errorText(), QString());
    TraceResultPtr r = w_->controller()->current();
    QVERIFY(r->gradients && r->gradients->kind == LossKind::PerPosition);
    QCOMPARE(r->gradients->output, std::string("encoder.output_head.logits"));
    QVERIFY2(r->gradients->loss < 0.01, qPrintable(QString::number(r->gradients->loss)));
    const Tensor& g = r->trace.find("encoder.output_head.logits.grad")->tensor;
    for (int64_t i = 3; i < 5; ++i)  // "9 0 2" has no answer past its third token: no gradient there
      for (int64_t v = 0; v < g.size(2); ++v) QCOMPARE(g.at({1, i, v}), 0.0f);
    const double right = r->gradients->loss;

    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("answers.attnlab"));
    QCOMPARE(w_->saveSession(path), QString());
    w_->inputs()->answersEdit()->setPlainText(QStringLiteral("5 4 3 1 1\n9 2 0"));
    test::settle(*w_);
    QVERIFY(w_->controller()->current()->gradients->loss > right + 5);  // wrong answers cost a lot
    QCOMPARE(w_->openSession(path, false), QString());
    test::settle(*w_);
    QCOMPARE(gradientsBox(*w_)->currentIndex(), 3);
    QCOMPARE(w_->inputs()->answersEdit()->toPlainText(), QStringLiteral("1 1 3 4 5\n0 2 9"));
    QCOMPARE(w_->controller()->current()->gradients->loss, right);
  }

  // Tiled attention with gradients: FlashAttention-2's backward, the score gradient shown as an
  // overview binned like the forward's (here 300 tokens: bins of 2).
  void tiledAttentionHasItsBackwardToo() {
    QString text;
    for (int i = 0; i < 300; ++i) text += QStringLiteral("w%1 ").arg(i % 37);
    w_->inputs()->sentencesEdit()->setPlainText(text.trimmed());
    w_->inputs()->findChild<QComboBox*>(QStringLiteral("attention"))->setCurrentIndex(1);
    gradientsBox(*w_)->setCurrentIndex(1);
    test::settle(*w_);
    const TraceResultPtr r = w_->controller()->current();
    QVERIFY(r->cfg.overview_cap > 0 && r->gradients);
    QVERIFY(r->indexOf("encoder.layers.0.self_attn.masked_scores.grad") < 0);
    const int at = r->indexOf("encoder.layers.0.self_attn.weights_overview.grad");
    QVERIFY(at > r->gradients->firstStep);
    QCOMPARE(r->trace.steps()[static_cast<size_t>(at)].tensor.shape(), (Shape{1, r->cfg.heads, 150, 150}));
    w_->navigator()->setCurrent(at);
    QCoreApplication::processEvents();
    QVERIFY(w_->stepPanel()->showingHeatmaps());
    QTRY_COMPARE(w_->stepPanel()->heatmaps()->headCount(), static_cast<int>(r->cfg.heads));
    QVERIFY2(w_->stepPanel()->formulaText().contains(QStringLiteral("each cell: the mean over 2 queries of the sum over 2 keys")),
             qPrintable(w_->stepPanel()->formulaText()));
    QVERIFY(StepText::explanation(r->trace.steps()[static_cast<size_t>(at)].info.id).contains(QStringLiteral("FlashAttention-2")));
  }

  void aSessionKeepsTheLossAndTheGradientStep() {
    gradientsBox(*w_)->setCurrentIndex(1);
    test::settle(*w_);
    const std::string id = "encoder.layers.0.self_attn.masked_scores.grad";
    w_->navigator()->setCurrent(w_->controller()->current()->indexOf(id));
    QCoreApplication::processEvents();
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("grads.attnlab"));
    QCOMPARE(w_->saveSession(path), QString());
    gradientsBox(*w_)->setCurrentIndex(0);
    test::settle(*w_);
    QCOMPARE(w_->openSession(path, false), QString());
    test::settle(*w_);
    QCOMPARE(gradientsBox(*w_)->currentIndex(), 1);
    const TraceResultPtr r = w_->controller()->current();
    QVERIFY(r->gradients);
    QCOMPARE(r->trace.steps()[static_cast<size_t>(w_->navigator()->current())].info.id, id);
  }
};

QTEST_MAIN(TestGradientsUi)
#include "test_gradients_ui.moc"
