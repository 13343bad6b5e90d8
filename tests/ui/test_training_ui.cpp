// The Training panel driven like a user: pick a task, set the knobs, Start, watch the curves grow,
// Pause, Step, Reset, scrub the timeline (the whole window then shows the model as it was),
// keep a run for comparison, save the model — and the window stays responsive meanwhile.
#include <QtTest>

#include <sys/stat.h>

#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QFontDatabase>
#include <QLabel>
#include <QLayout>
#include <QMenuBar>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QToolButton>

#include "input/inputpanel.h"
#include "io/session.h"
#include "io/weights_file.h"
#include "step/stepnavigator.h"
#include "training/run_record.h"
#include "traininglab/trainingcurves.h"
#include "traininglab/trainingpanel.h"
#include "views/chartkit.h"
#include "views/heatmapgrid.h"
#include "window/mainwindow.h"
#include "windowfixture.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

using test::child;


}  // namespace

class TestTrainingUi : public QObject {
  Q_OBJECT
  std::unique_ptr<MainWindow> w_;
  TrainingPanel* p_ = nullptr;

  void smallModel(const char* task, int steps) {
    auto* box = child<QComboBox>(p_, "trainTask");
    box->setCurrentIndex(box->findData(int(parse_train_task(task))));
    emit box->activated(box->currentIndex());
    child<QSpinBox>(p_, "trainDModel")->setValue(16);
    child<QSpinBox>(p_, "trainHeads")->setValue(2);
    child<QSpinBox>(p_, "trainBatch")->setValue(8);
    child<QSpinBox>(p_, "trainSteps")->setValue(steps);
  }
  void waitForTraining() {
    QTRY_VERIFY_WITH_TIMEOUT(!p_->session()->wantsToRun() && !p_->session()->running(), 60000);
    test::settle(*w_);
    QTest::qWait(400);  // the timeline's offer to the window
    test::settle(*w_);
  }

  // After keptRunIsDrawnBesideTheNext…: the kept 2-layer run beside this 1-layer run, both at
  // step 50, as heatmaps: layer 1 is on the kept side only, and the maps are those models'
  // own attention weights on this run's example sentences.
  void compareHeadsSideBySide() {
    QTest::mouseClick(child<QPushButton>(p_, "trainStart"), Qt::LeftButton);  // this run to step 50 too
    waitForTraining();
    auto* compare = child<QPushButton>(p_, "trainCompareHeads");
    QVERIFY(compare->isEnabled());
    QTest::mouseClick(compare, Qt::LeftButton);
    RunComparison* cmp = p_->headComparison();
    QVERIFY2(cmp, qPrintable(child<QLabel>(p_, "trainStatus")->text()));
    QVERIFY(cmp->isVisible());
    const QStringList steps = [&] {
      QStringList out;
      for (int i = 0; i < cmp->stepChooser()->count(); ++i) out << cmp->stepChooser()->itemText(i);
      return out;
    }();
    QCOMPARE(steps, QStringList({QStringLiteral("encoder.layers.0.self_attn.weights"),
                                 QStringLiteral("encoder.layers.1.self_attn.weights")}));
    const QString what = cmp->findChild<QLabel*>(QStringLiteral("compareWhat"))->text();
    QVERIFY2(what.count(QStringLiteral("at step 50")) == 2, qPrintable(what));
    // Layer 0 on both sides, two heads each, drawn from each model's own weights: not the same maps.
    QVERIFY(cmp->faultyGrid()->isVisibleTo(cmp) && cmp->correctGrid()->isVisibleTo(cmp));
    QCOMPARE(cmp->faultyGrid()->headCount(), 2);
    QCOMPARE(cmp->correctGrid()->headCount(), 2);
    const QString summary = cmp->summaryText();
    QVERIFY2(summary.contains(QStringLiteral("Kept run (2 layers")) && summary.contains(QStringLiteral("This run (1 layer, pre-norm)")),
             qPrintable(summary));
    QVERIFY2(summary.contains(QStringLiteral("Largest difference: ")) && !summary.contains(QStringLiteral("difference: 0\n")),
             qPrintable(summary));
    // Layer 1: only the kept run has it, and the dialog says so instead of a blank picture.
    cmp->stepChooser()->setCurrentIndex(1);
    QVERIFY(cmp->faultyGrid()->isVisibleTo(cmp));
    QVERIFY(!cmp->correctSide()->isVisibleTo(cmp));
    QVERIFY2(cmp->summaryText().contains(QStringLiteral("This run has no step encoder.layers.1.self_attn.weights")),
             qPrintable(cmp->summaryText()));
    cmp->stepChooser()->setCurrentIndex(0);
    QDir().mkpath(QStringLiteral(ATTNLAB_SCREENSHOT_DIR));
    QVERIFY(cmp->grab().save(QStringLiteral(ATTNLAB_SCREENSHOT_DIR "/training_compare_heads.png")));
    // Exported like the other maps: both sides as PNG and SVG; the shown step's numbers as CSV,
    // one row per cell and side (sentence 0, 2 heads × T × T on each side).
    QTemporaryDir out;
    for (const char* name : {"cmp.png", "cmp.svg", "cmp.csv"})
      QCOMPARE(cmp->exportTo(out.filePath(QString::fromLatin1(name))), QString());
    QVERIFY(QImage(out.filePath(QStringLiteral("cmp.png"))).width() > 400);
    QFile csv(out.filePath(QStringLiteral("cmp.csv")));
    QVERIFY(csv.open(QIODevice::ReadOnly));
    const QStringList rows = QString::fromUtf8(csv.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    const int64_t t = static_cast<int64_t>(std::sqrt((rows.size() - 1) / 4.0));
    QCOMPARE(rows.size(), 1 + 2 * 2 * int(t * t));
    QCOMPARE(rows.front(), QStringLiteral("side,step,index,value"));
    QVERIFY(rows[1].startsWith(QStringLiteral("left,encoder.layers.0.self_attn.weights,0 0 0 0,")));
    QVERIFY(rows.back().startsWith(QStringLiteral("right,encoder.layers.0.self_attn.weights,0 1 %1 %1,").arg(t - 1)));
    double rowSum = 0;  // the first query of head 0 on the left sees only itself: weight 1
    for (int64_t j = 0; j < t; ++j) rowSum += rows[1 + int(j)].section(QLatin1Char(','), 3).toDouble();
    QVERIFY(std::abs(rowSum - 1.0) < 1e-5);
    QCOMPARE(rows[1].section(QLatin1Char(','), 3).toDouble(), 1.0);
    cmp->stepChooser()->setCurrentIndex(1);
    // It follows the timeline: back to step 0, both untrained models.
    child<QSlider>(p_, "trainTimeline")->setValue(0);
    QTRY_VERIFY_WITH_TIMEOUT(cmp->findChild<QLabel*>(QStringLiteral("compareWhat"))->text().count(QStringLiteral("at step 0")) == 2,
                             3000);
    QCOMPARE(cmp->stepChooser()->currentIndex(), 1);  // the step chosen stays
    // The window's own sentences when the models know every word of them, else the examples.
    const auto vocab = w_->controller()->current()->vocab();
    QVERIFY(vocab && !vocab->examples().empty());
    const QString known = QString::fromStdString(vocab->examples().front()).section(QLatin1Char(' '), 0, 2);
    const auto whatNow = [&] { return cmp->findChild<QLabel*>(QStringLiteral("compareWhat"))->text(); };
    w_->inputs()->sentencesEdit()->setPlainText(known);
    test::settle(*w_);
    QCOMPARE(p_->compareHeads(), QString());
    QVERIFY2(whatNow().contains(QStringLiteral("the window's sentences")), qPrintable(whatNow()));
    QCOMPARE(cmp->faultyGrid()->headView(0)->rows(), 3);  // those three tokens, not an example's
    w_->inputs()->sentencesEdit()->setPlainText(QStringLiteral("hello world"));
    test::settle(*w_);
    QCOMPARE(p_->compareHeads(), QString());
    QVERIFY2(whatNow().contains(QStringLiteral("example sentences")), qPrintable(whatNow()));
    cmp->close();
  }

 private slots:
  void initTestCase() { test::isolateSettings(); }
  void init() {
    w_ = test::openWindow(QStringLiteral("test"));
    QVERIFY(w_);
    p_ = w_->trainingPanel();
    QVERIFY(p_);
  }
  void cleanup() {
    p_->session()->pause();
    p_->session()->waitForIdle();
    w_.reset();
    QSettings().clear();
  }

  void viewMenuShowsThePanel() {
    QVERIFY(w_->trainingDock()->isHidden());
    QAction* a = test::menuAction(*w_, QStringLiteral("&Training panel"));
    QVERIFY(a);
    a->trigger();
    QVERIFY(w_->trainingDock()->isVisible());
    QCOMPARE(child<QPushButton>(p_, "trainStart")->text(), QStringLiteral("Start"));
    // The induction task's defaults are in the knobs.
    QCOMPARE(child<QSpinBox>(p_, "trainLayers")->value(), 2);
    QVERIFY(child<QCheckBox>(p_, "trainAttentionOnly")->isChecked());
  }

  void startTrainsAndTheWindowShowsTheModel() {
    w_->trainingDock()->show();
    smallModel("previous-token", 100);
    QTest::mouseClick(child<QPushButton>(p_, "trainStart"), Qt::LeftButton);
    QVERIFY(p_->session()->hasRun());
    // The window stays responsive while it trains: events are handled within a frame or two.
    QElapsedTimer gap;
    gap.start();
    QTest::qWait(20);
    QVERIFY2(gap.elapsed() < 500, qPrintable(QString::number(gap.elapsed())));
    waitForTraining();
    QCOMPARE(p_->session()->stepsDone(), qint64(100));
    QCOMPARE(p_->session()->curves().size(), 3);  // steps 0, 50, 100
    QVERIFY(p_->session()->curves().back().eval.accuracy > p_->session()->curves().front().eval.accuracy);
    QVERIFY(p_->curves()->seriesCount() >= 4);
    QVERIFY(p_->curves()->summary().contains(QStringLiteral("Step 100")));
    QVERIFY(p_->curves()->csv().startsWith(QStringLiteral("step,loss")));
    QCOMPARE(p_->curves()->csv().count(QLatin1Char('\n')), 4);
    // The whole window shows the trained model: its vocabulary, its examples, step 100.
    const ImportedWeightsPtr m = w_->inputs()->importedWeights();
    QVERIFY(m);
    QVERIFY2(m->name.contains(QStringLiteral("step 100")), qPrintable(m->name));
    QCOMPARE(m->loaded.weights.vocab()->field("training_task"), std::string("previous-token"));
    QVERIFY(w_->controller()->current()->trace.find("encoder.output_head.logits"));
    QCOMPARE(child<QPushButton>(p_, "trainStart")->text(), QStringLiteral("Start"));

    // The timeline back to step 0: the window shows the untrained model.
    child<QSlider>(p_, "trainTimeline")->setValue(0);
    test::settle(*w_);
    QTest::qWait(400);
    test::settle(*w_);
    QVERIFY2(w_->inputs()->importedWeights()->name.contains(QStringLiteral("step 0")), qPrintable(w_->inputs()->importedWeights()->name));
  }

  void pauseStopsWithinAStepAndStepDoesOne() {
    w_->trainingDock()->show();
    smallModel("induction", 100000);
    QTest::mouseClick(child<QPushButton>(p_, "trainStart"), Qt::LeftButton);
    QTest::qWait(300);
    QCOMPARE(child<QPushButton>(p_, "trainStart")->text(), QStringLiteral("Pause"));
    QElapsedTimer t;
    t.start();
    QTest::mouseClick(child<QPushButton>(p_, "trainStart"), Qt::LeftButton);
    p_->session()->waitForIdle();
    QVERIFY2(t.elapsed() < 2000, qPrintable(QString::number(t.elapsed())));  // one step is milliseconds
    const qint64 done = p_->session()->stepsDone();
    QVERIFY(done > 0 && done < 100000);
    QCOMPARE(child<QPushButton>(p_, "trainStart")->text(), QStringLiteral("Resume"));
    QTest::mouseClick(child<QPushButton>(p_, "trainStep"), Qt::LeftButton);
    p_->session()->waitForIdle();
    QCOMPARE(p_->session()->stepsDone(), done + 1);
    QCOMPARE(p_->session()->curves().back().step, done + 1);
    // Induction curves carry the induction score; the attention-only model has no FFN step.
    QVERIFY(p_->session()->curves().back().eval.heads[1][0].induction.has_value());
    test::settle(*w_);
    QTest::qWait(400);
    test::settle(*w_);
    QVERIFY(w_->controller()->current()->trace.find("encoder.layers.1.self_attn.weights"));
    QVERIFY(!w_->controller()->current()->trace.find("encoder.layers.0.ffn.linear1"));
    // Reset: a new run at step 0.
    QTest::mouseClick(child<QPushButton>(p_, "trainReset"), Qt::LeftButton);
    QCOMPARE(p_->session()->stepsDone(), qint64(0));
    QCOMPARE(p_->session()->curves().size(), 1);
  }

  void keptRunIsDrawnBesideTheNextAndTheModelSaves() {
    w_->trainingDock()->show();
    smallModel("copy", 50);
    child<QSpinBox>(p_, "trainLayers")->setValue(2);
    QTest::mouseClick(child<QPushButton>(p_, "trainStart"), Qt::LeftButton);
    waitForTraining();
    const int alone = p_->curves()->seriesCount();
    QTest::mouseClick(child<QPushButton>(p_, "trainKeep"), Qt::LeftButton);
    child<QSpinBox>(p_, "trainLayers")->setValue(1);
    QTest::mouseClick(child<QPushButton>(p_, "trainReset"), Qt::LeftButton);
    QTest::mouseClick(child<QPushButton>(p_, "trainStep"), Qt::LeftButton);
    p_->session()->waitForIdle();
    QVERIFY2(p_->curves()->seriesCount() > alone, qPrintable(QStringLiteral("%1 vs %2").arg(p_->curves()->seriesCount()).arg(alone)));
    compareHeadsSideBySide();
    QTemporaryDir dir;
    // The curves export as the other charts do: PNG, SVG, CSV.
    for (const char* name : {"curves.png", "curves.svg", "curves.csv"}) {
      QCOMPARE(p_->exportCurves(dir.filePath(QString::fromLatin1(name))), QString());
      QVERIFY(QFileInfo(dir.filePath(QString::fromLatin1(name))).size() > 100);
    }
    QVERIFY(QImage(dir.filePath(QStringLiteral("curves.png"))).width() >= 2 * p_->curves()->width() - 2);
    QFile csv(dir.filePath(QStringLiteral("curves.csv")));
    QVERIFY(csv.open(QIODevice::ReadOnly));
    QVERIFY(csv.readAll().startsWith("step,loss,lr,held_out_loss"));
    const QString path = dir.filePath(QStringLiteral("copy.safetensors"));
    QCOMPARE(p_->saveModel(path), QString());
    const LoadedWeights l = load_weights_file(path.toStdString(), ModelConfig{}, {});
    QCOMPARE(l.cfg.layers, int64_t(1));
    QCOMPARE(l.weights.vocab()->field("training_task"), std::string("copy"));
  }

  // At 1024 × 768 in Chinese the charts' axis labels and the loss axis's title once showed as "…":
  // the charts were too short for five lines of CJK text, and Qt Charts reserved a vertical title's
  // room from the Latin font while the CJK fallback glyphs stand taller.
  void chartsKeepRoomForChineseLabels() {
    const QFont latin = p_->font();
    QCOMPARE(chartkit::titleFont(latin, QStringLiteral("loss (nats)")), latin);
    const QFont zh = chartkit::titleFont(latin, QStringLiteral("损失（奈特）"));
    if (!QFontDatabase::hasFamily(QStringLiteral("Noto Sans CJK SC"))) QSKIP("fonts-noto-cjk is not installed");
    QCOMPARE(zh.families().first(), QStringLiteral("Noto Sans CJK SC"));
    QVERIFY(QFontMetrics(zh).lineSpacing() > QFontMetrics(latin).lineSpacing());  // the room CJK takes
    const int need = TrainingCurves::chartMinimumHeight(QFontMetrics(zh));
    QVERIFY(need > TrainingCurves::chartMinimumHeight(QFontMetrics(latin)));
    // The curves ask for that room in the font they are drawn with.
    p_->curves()->setFont(zh);
    for (const char* name : {"trainingLossChart", "trainingHeadChart"})
      QVERIFY(p_->curves()->findChild<QWidget*>(QString::fromLatin1(name))->minimumHeight() >= need);
  }

  void withoutScalingTheCurvesButNotTheWindow() {
    w_->trainingDock()->show();
    smallModel("copy", 20);
    child<QCheckBox>(p_, "trainScaling")->setChecked(false);
    const ImportedWeightsPtr before = w_->inputs()->importedWeights();
    QTest::mouseClick(child<QPushButton>(p_, "trainStart"), Qt::LeftButton);
    waitForTraining();
    QCOMPARE(p_->session()->stepsDone(), qint64(20));
    QVERIFY(p_->session()->setup()->model.has(Fault::NoScaling));
    QCOMPARE(w_->inputs()->importedWeights(), before);  // not shown with the scaling it lacks
    QVERIFY(child<QLabel>(p_, "trainStatus")->text().contains(QStringLiteral("scaling")));
  }

  void shippedRecordedRunReplaysWithoutTraining() {
    w_->trainingDock()->show();
    QFile f(QStringLiteral(":/runs/induction/run.json"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const RunRecord rec = parse_run_record(f.readAll().toStdString(), "run.json");
    QTest::mouseClick(child<QPushButton>(p_, "trainShippedRun"), Qt::LeftButton);
    QVERIFY(p_->session()->recorded());
    QVERIFY(child<QLabel>(p_, "trainStatus")->text().startsWith(QStringLiteral("A recorded run")));
    QVERIFY(!child<QToolButton>(p_, "trainKnobsToggle")->isChecked());  // folded: the curves get the room
    QCOMPARE(p_->session()->snapshotSteps().size(), rec.snapshots.size());
    QCOMPARE(p_->session()->phaseChangeStep(), rec.phase_change);
    QCOMPARE(p_->session()->curves().size(), qsizetype(rec.curves.size()));
    QVERIFY(!child<QPushButton>(p_, "trainStep")->isEnabled());
    // The recorded default run reached the heads (measured on its held-out sequences).
    QVERIFY(rec.curves.back().eval.best_previous() >= 0.8);
    QVERIFY(rec.curves.back().eval.best_induction() >= 0.7);
    test::settle(*w_);
    const ImportedWeightsPtr last = w_->inputs()->importedWeights();
    QVERIFY(last && last->name.contains(QStringLiteral("step %1").arg(rec.snapshots.back().first)));
    // The window's own run of the last snapshot (its F16 weights) on the model's example
    // sequences: layer 0 has a head that looks at the previous token.
    const auto result = w_->controller()->current();
    const Tensor wts = result->trace.find("encoder.layers.0.self_attn.weights")->tensor;
    double best = 0;
    for (int64_t h = 0; h < wts.size(1); ++h) {
      double sum = 0;
      int64_t n = 0;
      for (int64_t b = 0; b < wts.size(0); ++b)
        for (int64_t i = 1; i < result->batch.text.lengths[size_t(b)]; ++i) sum += wts.at({b, h, i, i - 1}), ++n;
      best = std::max(best, sum / double(n));
    }
    QVERIFY2(best >= 0.8, qPrintable(QString::number(best)));
    // Back to step 0: the untrained model, whose heads look nowhere in particular.
    child<QSlider>(p_, "trainTimeline")->setValue(0);
    QTest::qWait(400);
    test::settle(*w_);
    QVERIFY(w_->inputs()->importedWeights()->name.contains(QStringLiteral("step 0")));
    // Play walks the snapshots to the end.
    QTest::mouseClick(child<QPushButton>(p_, "trainPlay"), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(child<QSlider>(p_, "trainTimeline")->value(), child<QSlider>(p_, "trainTimeline")->maximum(), 15000);
    // A folder that is not a recorded run is refused with its reason; the run shown stays.
    QTemporaryDir empty;
    const QString why = p_->openRecorded(empty.path());
    QVERIFY2(why.contains(QStringLiteral("run.json")), qPrintable(why));
    QVERIFY(p_->openRecorded(QStringLiteral(":/runs/induction")).isEmpty());
    QVERIFY(p_->session()->recorded());
  }

  // A session keeps the panel's run: a live run is written beside it as NAME.run and comes back as
  // a recorded run at the timeline's step, without replacing the model the session shows; the
  // shipped run is referenced, not copied.
  void sessionsKeepTheRunAndItsMoment() {
    w_->trainingDock()->show();
    smallModel("previous-token", 100);
    QTest::mouseClick(child<QPushButton>(p_, "trainStart"), Qt::LeftButton);
    waitForTraining();
    child<QSlider>(p_, "trainTimeline")->setValue(1);  // step 50
    QTest::qWait(400);
    test::settle(*w_);
    const QString shown = w_->inputs()->importedWeights()->name;
    QVERIFY2(shown.contains(QStringLiteral("step 50")), qPrintable(shown));
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("lesson.attnlab"));
    QCOMPARE(w_->saveSession(path), QString());
    QVERIFY(QFile::exists(dir.filePath(QStringLiteral("lesson.run/run.json"))));
    QVERIFY(QFile::exists(dir.filePath(QStringLiteral("lesson.run/step-00000100.safetensors"))));
    const auto savedSession = [&] {  // read afresh: each save renames a new file into place
      QFile f(path);
      return f.open(QIODevice::ReadOnly) ? parse_session(f.readAll().toStdString(), "lesson.attnlab") : Session{};
    };
    const Session s = savedSession();
    QCOMPARE(s.training.run, std::string("lesson.run"));
    QCOMPARE(s.training.step, int64_t(50));
    // Saved again without training since: the run's files are not written again (the same inode;
    // each write moves a new file into place).
    const auto inode = [&] {
      struct stat st{};
      return ::stat(QFile::encodeName(dir.filePath(QStringLiteral("lesson.run/step-00000100.safetensors"))).constData(), &st) == 0
                 ? st.st_ino : ino_t(0);
    };
    const ino_t first = inode();
    QVERIFY(first != 0);
    QCOMPARE(w_->saveSession(path), QString());
    QCOMPARE(inode(), first);

    // A fresh window opens it: the panel replays the run at step 50, the window shows the session's model.
    w_.reset();
    w_ = test::openWindow(QStringLiteral("test"));
    p_ = w_->trainingPanel();
    QVERIFY(!p_->session()->hasRun());
    w_->resize(922, 691);  // the window on a 1024 × 768 projector (it takes 90 % of the screen)
    test::settle(*w_);
    QCOMPARE(w_->openSession(path, false), QString());
    QTest::qWait(600);  // the dock fitter's passes
    test::settle(*w_);
    QVERIFY(p_->session()->recorded());
    // The Training panel is shown and the window keeps its width (the fitter tabbing the Steps dock
    // in beside it keeps it in front: seen under Xvfb, not reproducible offscreen).
    QVERIFY(!w_->trainingDock()->visibleRegion().isEmpty());
    QCOMPARE(w_->width(), 922);
    QCOMPARE(p_->timelineStep(), qint64(50));
    QCOMPARE(p_->session()->curves().size(), 3);
    QTest::qWait(400);
    test::settle(*w_);
    QCOMPARE(w_->inputs()->importedWeights()->name, shown);
    // Saved again, the recorded folder is referenced as it is.
    QCOMPARE(w_->saveSession(path), QString());
    QCOMPARE(savedSession().training.run, std::string("lesson.run"));

    // The shipped run: referenced by name; a session naming a missing folder opens without it.
    QTest::mouseClick(child<QPushButton>(p_, "trainShippedRun"), Qt::LeftButton);
    child<QSlider>(p_, "trainTimeline")->setValue(2);
    const qint64 step = p_->timelineStep();
    QCOMPARE(w_->saveSession(path), QString());
    const Session shipped = savedSession();
    QCOMPARE(shipped.training.run, std::string(kShippedRun));
    QCOMPARE(w_->openSession(path, false), QString());
    QCOMPARE(p_->timelineStep(), step);
    QVERIFY(QDir(dir.filePath(QStringLiteral("lesson.run"))).removeRecursively());
    Session gone = shipped;
    gone.training.run = "lesson.run";
    QFile saved(path);
    QVERIFY(saved.open(QIODevice::WriteOnly | QIODevice::Truncate));
    saved.write(QByteArray::fromStdString(session_json(gone)));
    saved.close();
    QCOMPARE(w_->openSession(path, false), QString());
    QString said;
    for (QLabel* l : w_->statusBar()->findChildren<QLabel*>()) said += l->text() + QLatin1Char('|');
    QVERIFY2(said.contains(QStringLiteral("not its training run")), qPrintable(said));
  }

  // The run kept for comparison goes into a session too: a live one written beside it as
  // NAME.kept-run, a recorded one referenced; a fresh window opens it kept again, so Compare heads
  // and the dashed curves work at once.
  void sessionsKeepTheKeptRun() {
    w_->trainingDock()->show();
    smallModel("copy", 50);
    child<QSpinBox>(p_, "trainLayers")->setValue(2);
    QTest::mouseClick(child<QPushButton>(p_, "trainStart"), Qt::LeftButton);
    waitForTraining();
    QTest::mouseClick(child<QPushButton>(p_, "trainKeep"), Qt::LeftButton);
    child<QSpinBox>(p_, "trainLayers")->setValue(1);
    QTest::mouseClick(child<QPushButton>(p_, "trainReset"), Qt::LeftButton);
    QTest::mouseClick(child<QPushButton>(p_, "trainStart"), Qt::LeftButton);
    waitForTraining();
    const int withKept = p_->curves()->seriesCount();  // this run's curves and the kept run's, dashed
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("pair.attnlab"));
    QCOMPARE(w_->saveSession(path), QString());
    QVERIFY(QFile::exists(dir.filePath(QStringLiteral("pair.run/run.json"))));
    QVERIFY(QFile::exists(dir.filePath(QStringLiteral("pair.kept-run/step-00000050.safetensors"))));
    const LoadedWeights keptModel =
        load_weights_file(dir.filePath(QStringLiteral("pair.kept-run/step-00000050.safetensors")).toStdString(), ModelConfig{}, {});
    QCOMPARE(keptModel.cfg.layers, int64_t(2));  // the kept run, not this one
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(parse_session(f.readAll().toStdString(), "pair.attnlab").training.kept, std::string("pair.kept-run"));

    w_.reset();
    w_ = test::openWindow(QStringLiteral("test"));
    p_ = w_->trainingPanel();
    QCOMPARE(w_->openSession(path, false), QString());
    test::settle(*w_);
    QCOMPARE(p_->session()->setup()->model.layers, int64_t(1));
    QCOMPARE(p_->curves()->seriesCount(), withKept);  // the kept run's curves beside this run's again
    QVERIFY(child<QPushButton>(p_, "trainCompareHeads")->isEnabled());
    QCOMPARE(p_->compareHeads(), QString());
    QVERIFY(p_->headComparison());
    p_->headComparison()->close();

    // Kept again from the shipped run: referenced by name, nothing written; a missing kept folder
    // opens the session with the run and says what is missing.
    QTest::mouseClick(child<QPushButton>(p_, "trainShippedRun"), Qt::LeftButton);
    QTest::mouseClick(child<QPushButton>(p_, "trainKeep"), Qt::LeftButton);
    QCOMPARE(w_->saveSession(path), QString());
    QFile g(path);
    QVERIFY(g.open(QIODevice::ReadOnly));
    Session shipped = parse_session(g.readAll().toStdString(), "pair.attnlab");
    QCOMPARE(shipped.training.kept, std::string(kShippedRun));
    QCOMPARE(w_->openSession(path, false), QString());  // the shipped run kept again, from a fresh copy
    QVERIFY(child<QPushButton>(p_, "trainCompareHeads")->isEnabled());
    QCOMPARE(p_->compareHeads(), QString());
    p_->headComparison()->close();
    shipped.training.kept = "gone.kept-run";
    QFile h(path);
    QVERIFY(h.open(QIODevice::WriteOnly | QIODevice::Truncate));
    h.write(QByteArray::fromStdString(session_json(shipped)));
    h.close();
    QCOMPARE(w_->openSession(path, false), QString());
    QVERIFY(p_->session()->recorded());
    QString said;
    for (QLabel* l : w_->statusBar()->findChildren<QLabel*>()) said += l->text() + QLatin1Char('|');
    QVERIFY2(said.contains(QStringLiteral("the run kept for comparison")), qPrintable(said));
  }

  // The knobs go into a session: with a run, and alone when they are not a new panel's; a fresh
  // window opens them as they were (after a replay, which sets its own task's).
  void sessionsKeepTheKnobs() {
    w_->trainingDock()->show();
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("knobs.attnlab"));
    QCOMPARE(w_->saveSession(path), QString());  // a new panel's knobs: nothing to keep
    const auto saved = [&] {
      QFile f(path);
      return f.open(QIODevice::ReadOnly) ? parse_session(f.readAll().toStdString(), "knobs.attnlab") : Session{};
    };
    QVERIFY(saved().training.empty());
    smallModel("sort", 300);
    child<QSpinBox>(p_, "trainLayers")->setValue(1);
    child<QSpinBox>(p_, "trainSeed")->setValue(42);
    child<QDoubleSpinBox>(p_, "trainLr")->setValue(0.0025);
    child<QComboBox>(p_, "trainNorm")->setCurrentIndex(1);
    child<QCheckBox>(p_, "trainScaling")->setChecked(false);
    const SessionKnobs set = p_->knobs();
    QCOMPARE(set.task, std::string("sort"));
    QCOMPARE(w_->saveSession(path), QString());
    QVERIFY(saved().training.run.empty());
    QVERIFY(saved().training.knobs == set);
    w_.reset();
    w_ = test::openWindow(QStringLiteral("test"));
    p_ = w_->trainingPanel();
    QCOMPARE(w_->openSession(path, false), QString());
    QVERIFY(p_->knobs() == set);
    QCOMPARE(child<QSpinBox>(p_, "trainSeed")->value(), 42);
    QVERIFY(!child<QCheckBox>(p_, "trainScaling")->isChecked());
    QCOMPARE(child<QComboBox>(p_, "trainTask")->currentData().toInt(), int(TrainTask::Sort));
    // With the shipped run replayed: the run and the knobs, each as saved.
    QTest::mouseClick(child<QPushButton>(p_, "trainShippedRun"), Qt::LeftButton);
    child<QSpinBox>(p_, "trainSeed")->setValue(7);
    const SessionKnobs withRun = p_->knobs();
    QCOMPARE(w_->saveSession(path), QString());
    QCOMPARE(saved().training.run, std::string(kShippedRun));
    QCOMPARE(w_->openSession(path, false), QString());
    QVERIFY(p_->session()->recorded());
    QVERIFY(p_->knobs() == withRun);
    QCOMPARE(child<QSpinBox>(p_, "trainSeed")->value(), 7);
    // A task this Attention Lab does not know is named, and the knobs stay as they are.
    SessionTraining unknown;
    unknown.knobs = set;
    unknown.knobs.task = "dance";
    const QString why = p_->restoreSessionState(unknown, dir.path());
    QVERIFY2(why.contains(QStringLiteral("dance")), qPrintable(why));
    QVERIFY(p_->knobs() == withRun);
  }

  void screenshotsAtClassroomSizes() {
    test::menuAction(*w_, QStringLiteral("&Training panel"))->trigger();  // as a user opens it
    smallModel("induction", 150);
    QTest::mouseClick(child<QPushButton>(p_, "trainStart"), Qt::LeftButton);
    waitForTraining();
    QDir().mkpath(QStringLiteral(ATTNLAB_SCREENSHOT_DIR));
    for (const QSize size : {QSize(1024, 768), QSize(1920, 1080)}) {
      // As a teacher at that screen does it: the window at its size, then View ▸ Training panel.
      w_->trainingDock()->hide();
      w_->resize(size);
      test::settle(*w_);
      test::menuAction(*w_, QStringLiteral("&Training panel"))->trigger();
      QTest::qWait(200);
      test::settle(*w_);
      QVERIFY(w_->trainingDock()->height() > size.height() / 2);
      // The panel fits the screen: the window keeps its width (its knobs once made it 1117 px wide).
      QVERIFY2(w_->minimumSizeHint().width() <= 1024, qPrintable(QString::number(w_->minimumSizeHint().width())));
      QCOMPARE(w_->width(), size.width());
      QVERIFY(w_->grab().save(QStringLiteral(ATTNLAB_SCREENSHOT_DIR "/training_%1x%2.png").arg(size.width()).arg(size.height())));
    }
  }
};

QTEST_MAIN(TestTrainingUi)
#include "test_training_ui.moc"
