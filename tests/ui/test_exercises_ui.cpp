// The exercise panel driven like a learner: one full exercise of each kind (predict the shape,
// find the bug, fix the mask) through Start, a wrong answer, the right one, and what the window
// shows before and after; progress kept in QSettings; a teacher's folder with a broken file.
#include <QtTest>

#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>

#include "input/inputpanel.h"
#include "input/maskeditor.h"
#include "lessons/headpicker.h"
#include "lessons/exercisepanel.h"
#include "step/shapediagram.h"
#include "step/stepnavigator.h"
#include "step/steppanel.h"
#include "text/tokenizer.h"
#include "views/gradnormchart.h"
#include "views/heatmapgrid.h"
#include "views/heatmapview.h"
#include "views/predictionspanel.h"
#include "views/runcompare.h"
#include "window/mainwindow.h"
#include "windowfixture.h"
#include "words/qtstrings.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

using test::settle;

int find(const ExercisePanel& p, const std::string& id) {
  for (size_t i = 0; i < p.exercises().size(); ++i)
    if (p.exercises()[i].id == id) return static_cast<int>(i);
  return -1;
}

bool anyFault(const TraceResult& r) {
  for (const auto& s : r.trace.steps())
    if (!s.info.fault.empty()) return true;
  return false;
}

void shot(QWidget& w, const QString& name) {
  QTest::qWait(50);  // let the layouts settle (a longer feedback text re-wraps)
  QDir().mkpath(QStringLiteral(ATTNLAB_SCREENSHOT_DIR));
  w.grab().save(QStringLiteral(ATTNLAB_SCREENSHOT_DIR "/") + name);
}

}  // namespace

class TestExercisesUi : public QObject {
  Q_OBJECT
  std::unique_ptr<MainWindow> w_;
  ExercisePanel* p_ = nullptr;

  // Selects the exercise in the list and presses Start, as a learner does.
  const Exercise& startByClick(const std::string& id) {
    const int i = find(*p_, id);
    p_->list()->setCurrentRow(i);
    QTest::mouseClick(p_->startButton(), Qt::LeftButton);
    settle(*w_);
    return p_->exercises()[static_cast<size_t>(i)];
  }

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("AttentionLabExerciseTest"));
    QSettings().clear();
    qputenv("XDG_DATA_HOME", QDir::tempPath().toUtf8() + "/attnlab-no-such-data-home");
  }

  void init() {
    QSettings().clear();
    w_ = std::make_unique<MainWindow>(QStringLiteral("exerciseTest"));
    w_->resize(1600, 1000);
    w_->show();
    QVERIFY(QTest::qWaitForWindowExposed(w_.get()));
    settle(*w_);
    w_->exerciseDock()->show();
    w_->exerciseDock()->raise();
    p_ = w_->exercisePanel();
    QVERIFY(p_->problems().isEmpty());
    QVERIFY(p_->exercises().size() >= 15);
  }

  void cleanup() {
    w_.reset();
    QSettings().clear();
  }

  // The teacher's setup survives a round of exercises: sentences, model, step and view are back
  // exactly as they were after Leave, however many exercises ran in between.
  void leaveRestoresTheTeachersWindow() {
    w_->inputs()->sentencesEdit()->setPlainText(QStringLiteral("my own lesson sentence\nand a second one"));
    w_->inputs()->dModelBox()->setValue(32);
    w_->inputs()->headsBox()->setValue(4);
    settle(*w_);
    const auto before = w_->controller()->current();
    const std::string step = "encoder.layers.0.self_attn.scores";
    w_->navigator()->setCurrent(before->indexOf(step));
    w_->stepPanel()->setCurrentTabId(QStringLiteral("lines"));
    w_->stepPanel()->setSentence(1);
    w_->stepPanel()->setHead(3);
    const QString texts = w_->inputs()->sentencesEdit()->toPlainText();

    startByClick("shape-q-view");
    QVERIFY(w_->inputs()->sentencesEdit()->toPlainText() != texts);  // the exercise's own setup
    w_->persist();  // a window closed (or rebuilt for another language) now keeps the teacher's lesson
    QCOMPARE(QSettings().value(QStringLiteral("exerciseTest/texts")).toStringList().join(QLatin1Char('\n')), texts);
    QCOMPARE(QSettings().value(QStringLiteral("exerciseTest/d_model")).toInt(), 32);
    QCOMPARE(QSettings().value(QStringLiteral("exerciseTest/step")).toString(), QString::fromStdString(step));
    startByClick("bug-flat-softmax");  // a second exercise: still the teacher's window to go back to
    p_->stop();
    settle(*w_);
    const auto after = w_->controller()->current();
    QCOMPARE(w_->inputs()->sentencesEdit()->toPlainText(), texts);
    QCOMPARE(after->cfg.d_model, 32);
    QCOMPARE(after->cfg.heads, 4);
    QVERIFY(after->cfg.faults.empty());
    QCOMPARE(after->trace.steps()[static_cast<size_t>(w_->navigator()->current())].info.id, step);
    QCOMPARE(w_->stepPanel()->currentTabId(), QStringLiteral("lines"));
    QCOMPARE(w_->stepPanel()->sentence(), 1);
    QCOMPARE(w_->stepPanel()->selection().head, 3);
  }

  void predictTheShapeHidesItUntilAnswered() {
    const Exercise& ex = startByClick("shape-q-view");
    const std::string step = ex.predict.step;
    const auto r = w_->controller()->current();
    // The window runs the exercise's own sentences and shows the asked-for step, concealed.
    QCOMPARE(r->batch.text.batch(), static_cast<int64_t>(ex.setup.texts.size()));
    QCOMPARE(r->trace.steps()[static_cast<size_t>(w_->navigator()->current())].info.id, step);
    QCOMPARE(w_->stepPanel()->concealed(), QString::fromStdString(step));
    const Shape real = r->trace.find(step)->tensor.shape();
    const QString realAxes = QStringLiteral("%1").arg(real.back());
    QVERIFY(w_->stepPanel()->diagram()->boxTexts().last().contains(QStringLiteral("shape ?")));
    QVERIFY(w_->stepPanel()->diagram()->boxTexts().last().contains(QStringLiteral("contiguous?")));
    QVERIFY(!w_->stepPanel()->codeText().contains(QStringLiteral("view(")));
    QVERIFY(w_->stepPanel()->tabs()->isHidden());
    shot(*w_, QStringLiteral("exercise-predict-shape.png"));

    QTest::keyClicks(p_->answerEdit(), QStringLiteral("(1, 2, 3)"));
    QTest::mouseClick(p_->checkButton(), Qt::LeftButton);
    QVERIFY2(p_->feedbackText().contains(QStringLiteral("Hint")), qPrintable(p_->feedbackText()));
    QVERIFY(!p_->answered());
    QCOMPARE(p_->record(ex.id).wrongAttempts, 1);
    QVERIFY(!w_->stepPanel()->concealed().isEmpty());

    p_->answerEdit()->clear();
    QTest::keyClicks(p_->answerEdit(), QString::fromStdString(solution(ex)));
    QTest::keyClick(p_->answerEdit(), Qt::Key_Return);
    QVERIFY2(p_->feedbackText().contains(QStringLiteral("Correct")), qPrintable(p_->feedbackText()));
    QVERIFY(p_->answered());
    QVERIFY(w_->stepPanel()->concealed().isEmpty());
    QVERIFY(!w_->stepPanel()->tabs()->isHidden());
    QVERIFY(!w_->stepPanel()->diagram()->boxTexts().last().contains(QStringLiteral("?")));
    const ExerciseRecord rec = ExerciseProgress(QStringLiteral("exerciseTest/exercises")).record(ex.id);
    QVERIFY(rec.solved);
    QCOMPARE(rec.points, exercise_points(ex.level, 1));
    QVERIFY2(p_->scoreText().contains(QStringLiteral("Score %1 /").arg(rec.points)), qPrintable(p_->scoreText()));
    QVERIFY(p_->list()->item(find(*p_, ex.id))->text().startsWith(QStringLiteral("✓")));
  }

  void findTheBugPlantsItAndComparesAfterwards() {
    const Exercise& ex = startByClick("bug-flat-softmax");
    auto r = w_->controller()->current();
    QVERIFY(r->cfg.has(ex.bug.fault));
    // Planted but not labelled: the steps read like the correct model's until it is answered.
    QVERIFY(!anyFault(*r));
    for (const auto& s : r->trace.steps()) QVERIFY2(s.info.title.english().find("fault") == std::string::npos, s.info.title.english().c_str());
    // The fault survives the learner's own edits while the exercise runs.
    w_->inputs()->seedBox()->setValue(w_->inputs()->seedBox()->value() + 1);
    settle(*w_);
    QVERIFY(w_->controller()->current()->cfg.has(ex.bug.fault));
    QVERIFY(!anyFault(*w_->controller()->current()));
    QCOMPARE(p_->bugStepBox()->count(), static_cast<int>(ex.bug.steps.size()));
    for (int i = 0; i < p_->bugStepBox()->count(); ++i) {  // by the navigator's names; the id is the data
      QCOMPARE(p_->bugStepBox()->itemData(i).toString(), QString::fromStdString(ex.bug.steps[static_cast<size_t>(i)]));
      QVERIFY2(!p_->bugStepBox()->itemText(i).contains(QStringLiteral("layers.")), qPrintable(p_->bugStepBox()->itemText(i)));
    }
    QStringList names;
    for (int i = 0; i < p_->bugStepBox()->count(); ++i) names << p_->bugStepBox()->itemText(i);
    names.removeDuplicates();
    QCOMPARE(names.size(), p_->bugStepBox()->count());  // two steps never share a name

    p_->bugStepBox()->setCurrentIndex(0);
    QTest::keyClicks(p_->symptomEdit(), QStringLiteral("looks fine to me"));
    QTest::mouseClick(p_->checkButton(), Qt::LeftButton);
    QVERIFY(!p_->answered());
    QVERIFY(p_->comparison() == nullptr);

    p_->bugStepBox()->setCurrentIndex(p_->bugStepBox()->findData(QString::fromStdString(ex.bug.faulty_step)));
    p_->symptomEdit()->clear();
    QTest::keyClicks(p_->symptomEdit(), QString::fromStdString(ex.bug.symptoms.front()));
    QTest::mouseClick(p_->checkButton(), Qt::LeftButton);
    QVERIFY2(p_->answered(), qPrintable(p_->feedbackText()));
    RunComparison* cmp = p_->comparison();
    QVERIFY(cmp && cmp->isVisible());
    QCOMPARE(cmp->stepChooser()->currentText(), QString::fromStdString(ex.bug.faulty_step));
    QVERIFY2(cmp->summaryText().contains(QStringLiteral("Largest difference")), qPrintable(cmp->summaryText()));
    QVERIFY(!cmp->summaryText().contains(QStringLiteral("Largest difference: 0\n")));
    shot(*cmp, QStringLiteral("exercise-find-bug-compare.png"));
    settle(*w_);  // answered: the same run again, its faulty steps now labelled
    QVERIFY(anyFault(*w_->controller()->current()));

    p_->stop();
    settle(*w_);
    QVERIFY(!w_->controller()->current()->cfg.has(ex.bug.fault));
    QVERIFY(!anyFault(*w_->controller()->current()));
  }

  // "The loss does not go down": the planted detach shows only in the gradients, which the hunt
  // shows (the correct run's words over the faulty run's numbers), and the comparison after it.
  void findTheBugInTheGradients() {
    const Exercise& ex = startByClick("bug-broken-graph");
    auto r = w_->controller()->current();
    QVERIFY(r->cfg.has(Fault::DetachAttentionOutput) && r->gradients);
    QVERIFY(!anyFault(*r));
    const std::string a = "encoder.layers.0.self_attn.";
    for (const auto& s : r->trace.steps()) QVERIFY2(s.info.title.english().find("fault") == std::string::npos, s.info.title.english().c_str());
    QCOMPARE(QString::fromStdString(r->trace.find(a + "detached.grad")->info.title.english()), QString("Gradient · detached"));
    QVERIFY(!r->trace.find(a + "weights.grad"));  // nothing reaches the attention
    for (float v : r->trace.find("grad/" + a + "in_proj_weight")->tensor.to_vector()) QCOMPARE(v, 0.0f);
    // The Gradients tab shows the dead block: six of the layer's parameters got nothing.
    QTabWidget* tabs = w_->stepPanel()->tabs();
    QVERIFY(tabs->isTabVisible(StepPanel::GradientsTab));
    tabs->setCurrentIndex(StepPanel::GradientsTab);
    QVERIFY2(w_->stepPanel()->gradNorms()->summary().contains(QStringLiteral("no gradient at all: 6")),
             qPrintable(w_->stepPanel()->gradNorms()->summary()));

    p_->bugStepBox()->setCurrentIndex(p_->bugStepBox()->findData(QString::fromStdString(ex.bug.faulty_step)));
    QTest::keyClicks(p_->symptomEdit(), QStringLiteral("in_proj gets no gradient"));
    QTest::mouseClick(p_->checkButton(), Qt::LeftButton);
    QVERIFY2(p_->answered(), qPrintable(p_->feedbackText()));
    RunComparison* cmp = p_->comparison();
    QVERIFY(cmp && cmp->isVisible());
    const int at = cmp->stepChooser()->findText(QString::fromStdString("grad/" + a + "in_proj_weight"));
    QVERIFY(at > 0);
    cmp->stepChooser()->setCurrentIndex(at);
    QVERIFY2(cmp->summaryText().contains(QStringLiteral("Largest difference")), qPrintable(cmp->summaryText()));
    QVERIFY2(!cmp->summaryText().contains(QStringLiteral("Largest difference: 0\n")), qPrintable(cmp->summaryText()));
    p_->stop();
    settle(*w_);
  }

  void fixTheMaskByClickingCells() {
    const Exercise& ex = startByClick("mask-hide-two");
    MaskEditor* grid = p_->maskEditor();
    QVERIFY(grid->isVisible());
    QCOMPARE(grid->size(), ex.mask.size);
    QCOMPARE(grid->rowsText(), QString::fromStdString(ex.mask.start));
    QTest::mouseClick(p_->checkButton(), Qt::LeftButton);  // the start grid is wrong
    // Tokens by position from 0, as the grid's row labels ("2 green") and every view number them.
    QVERIFY2(p_->feedbackText().contains(QStringLiteral("Token 2 (green) can still see token 3 (tea)")), qPrintable(p_->feedbackText()));
    // Token 2 must not see tokens 3 and 4: click those two cells of row 2.
    for (int col : {3, 4}) QTest::mouseClick(grid, Qt::LeftButton, {}, grid->cellRect(2, col).center().toPoint());
    QVERIFY(!grid->cell(2, 3) && !grid->cell(2, 4) && grid->cell(2, 2));
    shot(*w_, QStringLiteral("exercise-fix-mask.png"));
    QTest::mouseClick(p_->checkButton(), Qt::LeftButton);
    QVERIFY2(p_->answered(), qPrintable(p_->feedbackText()));
    QVERIFY(p_->record(ex.id).solved);
  }

  // Find the head: the window loads the shipped trained model and opens the question's layer; a
  // click on a head's heatmap is the answer (a head of another layer is not taken), Check judges
  // it from the measured scores, and Leave gives the teacher's seeded model back.
  void findTheHeadByClickingItsHeatmap() {
    const Exercise& ex = startByClick("head-induction");
    auto r = w_->controller()->current();
    QVERIFY(r->weights.vocab());  // the trained model, not seeded weights
    QCOMPARE(r->cfg.layers, int64_t(2));
    QCOMPARE(r->cfg.heads, int64_t(4));
    const std::string layer1 = "encoder.layers.1.self_attn.weights";
    QCOMPARE(r->trace.steps()[static_cast<size_t>(w_->navigator()->current())].info.id, layer1);
    QVERIFY(p_->headPicker()->isVisible());
    QVERIFY(!p_->headPicker()->layerBox()->isEnabled());  // the question names layer 1
    HeatmapGrid* grid = w_->stepPanel()->heatmaps();
    QCOMPARE(grid->headCount(), 4);
    // The model's note names its heads ("Layer 1, head 3 is an induction head"): not until answered.
    const QLabel* note = w_->predictions()->noteLabel();
    QVERIFY2(note->text().contains(QStringLiteral("hidden until the exercise is answered")), qPrintable(note->text()));

    QTest::mouseClick(grid->headView(0), Qt::LeftButton);  // head 1.0: no induction head
    QCOMPARE(p_->currentAnswer(), QStringLiteral("1.0"));
    QTest::mouseClick(p_->checkButton(), Qt::LeftButton);
    QVERIFY2(p_->feedbackText().contains(QStringLiteral("Head 1.0 puts on average")), qPrintable(p_->feedbackText()));
    QVERIFY(!p_->answered());

    // A head clicked on layer 0's weights is not an answer to a question about layer 1: head 0
    // stays enlarged there, and a click on the enlarged map is not taken either.
    w_->navigator()->setCurrent(r->indexOf("encoder.layers.0.self_attn.weights"));
    settle(*w_);
    QCOMPARE(grid->enlargedHead(), 0);
    QTest::mouseClick(grid->headView(0), Qt::LeftButton);
    QTest::keyClick(grid, Qt::Key_Escape);  // every head again
    QTest::mouseClick(grid->headView(1), Qt::LeftButton);
    QCOMPARE(p_->currentAnswer(), QStringLiteral("1.0"));

    // Back on layer 1, head 1 stays enlarged from layer 0: clicking the enlarged map chooses it.
    w_->navigator()->setCurrent(r->indexOf(layer1));
    settle(*w_);
    QCOMPARE(grid->enlargedHead(), 1);
    QTest::mouseClick(grid->headView(1), Qt::LeftButton);
    QCOMPARE(p_->currentAnswer(), QStringLiteral("1.1"));
    QTest::keyClick(grid, Qt::Key_Escape);
    const int best = ex.head.best_head;
    QTest::mouseClick(grid->headView(best), Qt::LeftButton);
    QCOMPARE(p_->currentAnswer(), QStringLiteral("1.%1").arg(best));
    shot(*w_, QStringLiteral("exercise-find-head.png"));
    QTest::mouseClick(p_->checkButton(), Qt::LeftButton);
    QVERIFY2(p_->answered(), qPrintable(p_->feedbackText()));
    QVERIFY(p_->feedbackText().contains(QStringLiteral("Heads that reach 0.40 here: 1.%1").arg(best)));
    QCOMPARE(p_->record(ex.id).points, exercise_points(ex.level, 1));
    QVERIFY2(note->text().contains(QStringLiteral("induction head")), qPrintable(note->text()));

    p_->stop();
    settle(*w_);
    QVERIFY(!w_->controller()->current()->weights.vocab());  // the seeded model of before
  }

  // On a 1024 × 768 projector, in Chinese: the question, the layer and head boxes and the heatmaps
  // all have room (the dock scrolls rather than squeezing the boxes).
  void findTheHeadOnAProjectorInChinese() {
    w_->resize(1024, 768);
    settle(*w_);
    p_->setLanguage(Lang::Zh);
    startByClick("head-previous-token");
    QVERIFY(p_->feedbackText().isEmpty());
    QVERIFY(!p_->checkButton()->visibleRegion().isEmpty());  // the dock scrolled to the answer
    QVERIFY(!p_->headPicker()->headBox()->visibleRegion().isEmpty());
    for (const QComboBox* box : {p_->headPicker()->layerBox(), p_->headPicker()->headBox()})
      QVERIFY2(box->width() >= box->minimumSizeHint().width(), qPrintable(QString::number(box->width())));
    QVERIFY(p_->headPicker()->headBox()->itemText(1).contains(QStringLiteral("1")));
    HeatmapGrid* grid = w_->stepPanel()->heatmaps();
    QCOMPARE(grid->headCount(), 4);
    QVERIFY(grid->headView(0)->width() >= 120);  // four heads still readable beside the docks
    QTest::mouseClick(grid->headView(1), Qt::LeftButton);
    QCOMPARE(p_->currentAnswer(), QStringLiteral("0.1"));
    shot(*w_, QStringLiteral("exercise-find-head-1024-zh.png"));
    // Checked: the feedback is brought into view, though the dock is short.
    QTest::mouseClick(p_->checkButton(), Qt::LeftButton);
    settle(*w_);
    QVERIFY(!p_->feedbackText().isEmpty());
    QVERIFY(!p_->feedbackLabel()->visibleRegion().isEmpty());
  }

  // Starting a mask exercise computes its own sentence: the window's trace is the grid's tokens (the
  // setup's sentences where it has a model, the grid's labels as one sentence where it has none),
  // not the teacher's sentences of before; Leave gives those back.
  void fixTheMaskShowsItsOwnSentence() {
    const QString teacher = QStringLiteral("my own lesson sentence\nand a second one");
    w_->inputs()->sentencesEdit()->setPlainText(teacher);
    settle(*w_);
    int masks = 0;
    for (const Exercise& listed : p_->exercises()) {
      if (listed.kind != ExerciseKind::FixMask) continue;
      ++masks;
      const Exercise& ex = startByClick(listed.id);
      const auto r = w_->controller()->current();
      QVERIFY(r);
      const auto n = static_cast<size_t>(ex.mask.size);
      if (ex.has_setup) {
        QCOMPARE(w_->inputs()->currentRequest().texts, toQStrings(ex.setup.texts));
        QCOMPARE(r->batch.text.batch(), static_cast<int64_t>(ex.setup.texts.size()));
      } else {
        QCOMPARE(r->batch.text.batch(), int64_t{1});  // the grid's tokens, as one sentence
        QCOMPARE(w_->inputs()->currentRequest().texts.size(), 1);
      }
      QCOMPARE(r->batch.text.tokens[0].size(), n);  // as many tokens as the grid has rows
      for (size_t i = 0; i < n; ++i) {  // each label the tokenizer reads as one token is that token
        const std::string& label = ex.mask.labels[i];
        if (tokenize(label) == std::vector<std::string>{label}) QCOMPARE(r->batch.text.tokens[0][i], label);
      }
      QVERIFY(!w_->inputs()->sentencesEdit()->toPlainText().contains(QStringLiteral("my own lesson")));
    }
    QVERIFY(masks >= 3);
    const Exercise& hide = startByClick("mask-hide-two");  // no model of its own: "I like green tea ."
    QVERIFY(!hide.has_setup);
    QCOMPARE(w_->controller()->current()->batch.text.tokens[0], hide.mask.labels);
    QCOMPARE(w_->inputs()->sentencesEdit()->toPlainText(), QStringLiteral("I like green tea ."));
    p_->stop();
    settle(*w_);
    QCOMPARE(w_->inputs()->sentencesEdit()->toPlainText(), teacher);
    QCOMPARE(w_->controller()->current()->batch.text.batch(), int64_t{2});
  }

  // Solved, the faulty run opens beside the correct one as large as the screen allows (90 % of it,
  // at least 1000 × 700 where there is room): every attention step as the step panel's heatmaps, every
  // head of both runs whole, the step, the sentence and the difference in one row above them.
  void theComparisonIsLargeWithEveryHead() {
    const Exercise& ex = startByClick("bug-flat-softmax");
    p_->reveal();  // as the Reveal button: the answer, then the comparison
    RunComparison* cmp = p_->comparison();
    QVERIFY(cmp);
    QVERIFY(QTest::qWaitForWindowExposed(cmp));
    QCoreApplication::processEvents();
    const QRect avail = cmp->screen()->availableGeometry();
    const QRect inner = cmp->geometry(), outer = cmp->frameGeometry();
    const QMargins frame(inner.left() - outer.left(), inner.top() - outer.top(), outer.right() - inner.right(),
                         outer.bottom() - inner.bottom());
    const QString sizes = QStringLiteral("%1×%2 (frame %3×%4 at %5,%6) on %7×%8")
                              .arg(inner.width()).arg(inner.height()).arg(outer.width()).arg(outer.height())
                              .arg(outer.x()).arg(outer.y()).arg(avail.width()).arg(avail.height());
    QCOMPARE(cmp->size(), RunComparison::openingSize(avail, frame));
    QVERIFY2(avail.contains(outer), qPrintable(sizes));  // the whole window on the screen
    const QSize room = avail.size().shrunkBy(frame);
    QVERIFY2(cmp->width() >= std::min(1000, room.width()) && cmp->height() >= std::min(700, room.height()), qPrintable(sizes));
    QVERIFY2(cmp->width() >= std::min(qFloor(avail.width() * 0.9), room.width()) &&
                 cmp->height() >= std::min(qFloor(avail.height() * 0.9), room.height()),
             qPrintable(sizes));
    QCOMPARE(RunComparison::openingSize(QRect(0, 0, 1920, 1080)), QSize(1728, 972));
    QCOMPARE(RunComparison::openingSize(QRect(0, 0, 1024, 740)), QSize(1000, 700));
    QCOMPARE(RunComparison::openingSize(QRect(0, 0, 1024, 740), QMargins(2, 30, 2, 2)), QSize(1000, 700));
    QCOMPARE(RunComparison::openingSize(QRect(0, 0, 800, 600), QMargins(2, 30, 2, 2)), QSize(796, 568));

    const int heads = static_cast<int>(ex.setup.config.heads);
    QCOMPARE(heads, 16);
    int grids = 0;
    for (int i = 0; i < cmp->stepChooser()->count(); ++i) {
      cmp->stepChooser()->setCurrentIndex(i);
      QCoreApplication::processEvents();
      auto* faulty = qobject_cast<HeatmapGrid*>(cmp->faultySide());
      if (!faulty) continue;  // a value map: not an attention matrix
      ++grids;
      QCOMPARE(faulty, cmp->faultyGrid());
      QCOMPARE(qobject_cast<HeatmapGrid*>(cmp->correctSide()), cmp->correctGrid());
      // One colour scale for both, covering each run's own numbers: the same colour is the same
      // number on either side.
      const ColorMap fm = cmp->faultyGrid()->colorMap(), cm = cmp->correctGrid()->colorMap();
      QCOMPARE(fm.lo, cm.lo);
      QCOMPARE(fm.hi, cm.hi);
      QCOMPARE(fm.kind, cm.kind);
      for (HeatmapGrid* g : {cmp->faultyGrid(), cmp->correctGrid()})
        for (int h = 0; h < heads; ++h)
          for (int i = 0; i < g->headView(h)->rows(); ++i)
            for (int j = 0; j < g->headView(h)->cols(); ++j)
              if (const float v = g->headView(h)->value(i, j); std::isfinite(v))
                QVERIFY2(v >= fm.lo - 1e-6 && v <= fm.hi + 1e-6, qPrintable(QStringLiteral("%1 outside %2 … %3").arg(v).arg(fm.lo).arg(fm.hi)));
      for (HeatmapGrid* g : {cmp->faultyGrid(), cmp->correctGrid()}) {
        QCOMPARE(g->headCount(), heads);
        const QRect area = g->rect();
        for (int h = 0; h < heads; ++h) {
          HeatmapView* v = g->headView(h);
          QVERIFY2(v && v->isVisible(), qPrintable(QStringLiteral("head %1").arg(h)));
          QVERIFY2(area.contains(QRect(v->mapTo(g, QPoint(0, 0)), v->size())), qPrintable(QStringLiteral("head %1 is cut").arg(h)));
          QVERIFY2(v->cellRect(0, 0).width() >= 6, qPrintable(QStringLiteral("head %1's cells are %2 px").arg(h).arg(v->cellRect(0, 0).width())));
        }
      }
    }
    QVERIFY(grids >= 1);  // the faulty step itself: the scores
    // The pictures take the room: the step, sentence and difference are one row, the grids the rest.
    auto* summary = cmp->findChild<QLabel*>(QStringLiteral("summary"));
    QVERIFY(summary && summary->isVisible());
    const auto middle = [cmp](QWidget* w) { return w->mapTo(cmp, QPoint(0, w->height() / 2)).y(); };
    QVERIFY(std::abs(middle(summary) - middle(cmp->stepChooser())) < cmp->stepChooser()->height());
    QVERIFY(std::abs(middle(cmp->sentenceChooser()) - middle(cmp->stepChooser())) < cmp->stepChooser()->height());
    QVERIFY2(summary->text().startsWith(QStringLiteral("Largest difference")), qPrintable(summary->text()));
    for (HeatmapGrid* g : {cmp->faultyGrid(), cmp->correctGrid()})
      QVERIFY2(g->width() >= cmp->width() * 45 / 100, qPrintable(QStringLiteral("%1 of %2 px").arg(g->width()).arg(cmp->width())));
    QVERIFY2(cmp->faultyGrid()->height() >= cmp->height() * 3 / 4,
             qPrintable(QStringLiteral("%1 of %2 px").arg(cmp->faultyGrid()->height()).arg(cmp->height())));
    shot(*cmp, QStringLiteral("exercise-compare-large.png"));
  }

  // The Sample box says what is loaded: the exercise by its title while it runs, and after Leave
  // the teacher's lesson by its name again.
  void theSampleBoxNamesTheExerciseAndTheLesson() {
    QCOMPARE(w_->openSession(QStringLiteral(":/lessons/03-padding.attnlab")), QString());
    settle(*w_);
    QCOMPARE(w_->inputs()->sourceLabel(), QStringLiteral("Lesson: Padding in a batch"));
    const Exercise& ex = startByClick("shape-q-view");
    QCOMPARE(w_->inputs()->sourceLabel(), QStringLiteral("Exercise: ") + QString::fromStdString(ex.title.in(p_->language())));
    const Exercise& mask = startByClick("mask-hide-two");  // a mask exercise names itself too
    QCOMPARE(w_->inputs()->sourceLabel(), QStringLiteral("Exercise: ") + QString::fromStdString(mask.title.in(p_->language())));
    p_->stop();
    settle(*w_);
    QCOMPARE(w_->inputs()->sourceLabel(), QStringLiteral("Lesson: Padding in a batch"));
  }

  void revealGivesTheAnswerAndNoPoints() {
    const Exercise& ex = startByClick("shape-heads-first");
    p_->showHint();
    QVERIFY(p_->feedbackText().contains(QStringLiteral("Hint 1")));
    p_->reveal();
    QVERIFY(p_->answered());
    QCOMPARE(p_->answerEdit()->text(), QString::fromStdString(solution(ex)));
    const ExerciseRecord rec = p_->record(ex.id);
    QVERIFY(rec.revealed && !rec.solved);
    QCOMPARE(rec.points, 0);
  }

  void chineseTextsAndTheTeachersFolder() {
    QTemporaryDir dir;
    QFile src(QStringLiteral(ATTNLAB_SOURCE_DIR "/sample_inputs/exercises/03-mask-hide-two.json"));
    QVERIFY(src.open(QIODevice::ReadOnly));
    QByteArray text = src.readAll();
    text.replace("\"mask-hide-two\"", "\"teacher-mask\"");
    QFile mine(dir.filePath(QStringLiteral("mine.json")));
    QVERIFY(mine.open(QIODevice::WriteOnly));
    mine.write(text);
    mine.close();
    QFile broken(dir.filePath(QStringLiteral("broken.json")));
    QVERIFY(broken.open(QIODevice::WriteOnly));
    broken.write(QByteArray(text).replace("\"level\": 1", "\"level\": \"easy\""));
    broken.close();

    ExercisePanel panel(QStringLiteral("exerciseTest/teacher"), dir.path());
    QCOMPARE(panel.exercises().size(), p_->exercises().size() + 1);
    QCOMPARE(panel.exercises().back().id, std::string("teacher-mask"));
    QCOMPARE(panel.problems().size(), 1);
    QVERIFY2(panel.problems()[0].contains(QStringLiteral("broken.json")) && panel.problems()[0].contains(QStringLiteral("\"level\"")),
             qPrintable(panel.problems()[0]));

    panel.setLanguage(Lang::Zh);
    QVERIFY2(panel.list()->item(2)->text().contains(QStringLiteral("词元")), qPrintable(panel.list()->item(2)->text()));
    panel.start(2);
    QTest::mouseClick(panel.checkButton(), Qt::LeftButton);
    QVERIFY2(panel.feedbackText().contains(QStringLiteral("提示")), qPrintable(panel.feedbackText()));
  }
};

QTEST_MAIN(TestExercisesUi)
#include "test_exercises_ui.moc"
