// A training run saved with a session goes on where it stopped: a learner steps a run a few times,
// saves the lesson, and in a fresh window presses Resume — the run trains on to its last step and
// ends with the weights an uninterrupted run has, bit for bit, its earlier snapshots still on the
// timeline. A recorded run without a resume point (the shipped one) only replays.
#include <QtTest>

#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QTemporaryDir>

#include <algorithm>

#include "input/inputpanel.h"
#include "io/session.h"
#include "training/resume.h"
#include "training/run_record.h"
#include "training/trainer.h"
#include "traininglab/trainingpanel.h"
#include "window/mainwindow.h"
#include "windowfixture.h"

using namespace attnlab;
using namespace attnlab::ui;

using test::child;

class TestTrainingResumeUi : public QObject {
  Q_OBJECT
  std::unique_ptr<MainWindow> w_;
  TrainingPanel* p_ = nullptr;

  void open() {
    w_ = test::openWindow(QStringLiteral("test"));
    QVERIFY(w_);
    p_ = w_->trainingPanel();
    w_->trainingDock()->show();
  }
  QPushButton* start() const { return child<QPushButton>(p_, "trainStart"); }
  QPushButton* stepButton() const { return child<QPushButton>(p_, "trainStep"); }

 private slots:
  void initTestCase() { test::isolateSettings(); }
  void init() { open(); }
  void cleanup() {
    p_->session()->pause();
    p_->session()->waitForIdle();
    w_.reset();
    QSettings().clear();
  }

  void savedRunResumesAsIfNeverStopped() {
    auto* box = child<QComboBox>(p_, "trainTask");
    box->setCurrentIndex(box->findData(int(TrainTask::Sort)));
    emit box->activated(box->currentIndex());
    child<QSpinBox>(p_, "trainDModel")->setValue(16);
    child<QSpinBox>(p_, "trainHeads")->setValue(2);
    child<QSpinBox>(p_, "trainBatch")->setValue(8);
    child<QSpinBox>(p_, "trainSteps")->setValue(120);
    for (int i = 0; i < 3; ++i) {
      QTest::mouseClick(stepButton(), Qt::LeftButton);
      p_->session()->waitForIdle();
    }
    QCOMPARE(p_->session()->stepsDone(), qint64(3));
    const TrainSetup setup = *p_->session()->setup();
    w_->inputs()->sentencesEdit()->setPlainText(QStringLiteral("the cat sat"));  // words the digit model cannot read
    test::settle(*w_);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("lesson.attnlab"));
    QCOMPARE(w_->saveSession(path), QString());
    const RunRecord rec = read_run_record(QFile::encodeName(dir.filePath(QStringLiteral("lesson.run"))).toStdString());
    QCOMPARE(rec.resume, std::string("resume-00000003.safetensors"));

    // A fresh window: the run replays, and Resume (with Step) takes it up.
    w_.reset();
    open();
    QCOMPARE(w_->openSession(path, false), QString());
    test::settle(*w_);
    QVERIFY(p_->session()->recorded());
    QVERIFY(p_->session()->canContinue());
    QCOMPARE(start()->text(), QStringLiteral("Resume"));
    QVERIFY(stepButton()->isEnabled());
    QTest::mouseClick(stepButton(), Qt::LeftButton);  // one step: the run is live from step 3
    p_->session()->waitForIdle();
    QVERIFY(!p_->session()->recorded());
    QCOMPARE(p_->session()->stepsDone(), qint64(4));
    // The window follows the live run, on its examples (the window's sentences are not digits).
    test::settle(*w_);
    const ImportedWeightsPtr shown = w_->inputs()->importedWeights();
    QVERIFY(shown);
    QCOMPARE(shown->loaded.weights.vocab()->field("training_task"), std::string("sort"));
    QVERIFY2(w_->inputs()->sentencesEdit()->toPlainText().contains(QLatin1Char('>')), qPrintable(w_->inputs()->sentencesEdit()->toPlainText()));
    QTest::mouseClick(start(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!p_->session()->wantsToRun() && !p_->session()->running(), 60000);
    QCOMPARE(p_->session()->stepsDone(), qint64(120));
    // The same weights as a run never stopped.
    Trainer straight(setup);
    while (!straight.done()) straight.step();
    const Weights now = p_->session()->weightsNow();
    for (const auto& name : straight.weights().names())
      QVERIFY2(now.get(name).to_vector() == straight.weights().get(name).to_vector(), name.c_str());
    // The timeline keeps the saved run's snapshots and the new ones; the curves run on.
    const auto steps = p_->session()->snapshotSteps();
    QCOMPARE(std::vector<int64_t>(steps.begin(), steps.begin() + 4), (std::vector<int64_t>{0, 1, 2, 3}));
    QCOMPARE(steps.back(), int64_t(120));
    QCOMPARE(p_->session()->curves().back().step, qint64(120));
    for (int i = 1; i < p_->session()->curves().size(); ++i)
      QVERIFY(p_->session()->curves()[i].step > p_->session()->curves()[i - 1].step);
    QCOMPARE(start()->text(), QStringLiteral("Start"));

    // Saved again: the folder holds the finished run and its new resume point; opened, it replays.
    QCOMPARE(w_->saveSession(path), QString());
    const std::string run = QFile::encodeName(dir.filePath(QStringLiteral("lesson.run"))).toStdString();
    QCOMPARE(read_run_record(run).resume, std::string("resume-00000120.safetensors"));
    QCOMPARE(read_run_resume(run).steps_done, int64_t(120));
    QCOMPARE(w_->openSession(path, false), QString());
    test::settle(*w_);
    QVERIFY(p_->session()->recorded());
    QVERIFY(!p_->session()->canContinue());
    QCOMPARE(start()->text(), QStringLiteral("Start"));
  }

  // The shipped run has no resume point: Step stays off, Start begins a new run from the knobs.
  void shippedRunOnlyReplays() {
    QTest::mouseClick(child<QPushButton>(p_, "trainShippedRun"), Qt::LeftButton);
    QVERIFY(p_->session()->recorded());
    QVERIFY(!p_->session()->canContinue());
    QVERIFY(!stepButton()->isEnabled());
    QCOMPARE(start()->text(), QStringLiteral("Start"));
  }

  // A saved run whose resume point was removed by hand: Resume is not offered; forced, it says why.
  void missingResumePointIsExplained() {
    child<QSpinBox>(p_, "trainDModel")->setValue(16);
    child<QSpinBox>(p_, "trainHeads")->setValue(2);
    child<QSpinBox>(p_, "trainSteps")->setValue(50);
    QTest::mouseClick(stepButton(), Qt::LeftButton);
    p_->session()->waitForIdle();
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("lesson.attnlab"));
    QCOMPARE(w_->saveSession(path), QString());
    QVERIFY(QFile::remove(dir.filePath(QStringLiteral("lesson.run/resume-00000001.safetensors"))));
    QCOMPARE(w_->openSession(path, false), QString());
    test::settle(*w_);
    QVERIFY(p_->session()->canContinue());  // run.json still names it
    QTest::mouseClick(start(), Qt::LeftButton);
    QVERIFY(p_->session()->recorded());     // nothing changed
    const QString said = child<QLabel>(p_, "trainStatus")->text();
    QVERIFY2(said.contains(QStringLiteral("cannot go on")) && said.contains(QStringLiteral("resume-00000001")), qPrintable(said));
  }
};

QTEST_MAIN(TestTrainingResumeUi)
#include "test_training_resume_ui.moc"
