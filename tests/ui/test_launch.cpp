// Opening the window from the command line (ui/window/launch.h): a lesson file at a chosen step,
// in presenter mode and in a language for this run only; a file that cannot be opened is refused
// as File ▸ Open refuses it, and the window opens anyway; opening a file never starts the tour.
#include <QtTest>

#include <QApplication>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>
#include <QTemporaryDir>

#include "input/inputpanel.h"
#include "lessons/guidedtour.h"
#include "step/stepnavigator.h"
#include "window/launch.h"
#include "window/mainwindow.h"
#include "window/presenter.h"
#include "window/windowhost.h"
#include "windowfixture.h"
#include "words/language.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

const QString kLesson = QStringLiteral(ATTNLAB_SOURCE_DIR "/sample_inputs/lessons/03-padding.attnlab");

// The window's result once the launch's request is computed.
TraceResultPtr settled(MainWindow& w) {
  test::settle(w);
  return w.controller()->current();
}

QMessageBox* visibleMessage(const QWidget& w) {
  for (auto* box : w.findChildren<QMessageBox*>())
    if (box->isVisible()) return box;
  return nullptr;
}

}  // namespace

class TestLaunch : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { test::isolateSettings(); }
  void cleanup() { Language::apply(UiLanguage::English); }

  void opensTheLessonAtTheStepInPresenterModeAndLanguage() {
    QSettings().remove(QStringLiteral("tourSeen"));  // a first start: only the file keeps the tour away
    Language::save(UiLanguage::English);
    WindowHost host(QStringLiteral("launch-a"), nullptr, UiLanguage::Chinese);
    const std::string step = "encoder.layers.0.self_attn.weights";  // the lesson's own is masked_scores
    const QStringList problems = launch(host, {kLesson, QString::fromStdString(step), true});
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
    MainWindow& w = *host.window();
    const TraceResultPtr r = settled(w);
    QVERIFY(r);
    QCOMPARE(r->trace.steps()[static_cast<size_t>(w.navigator()->current())].info.id, step);
    QCOMPARE(w.inputs()->sentencesEdit()->toPlainText().split(QLatin1Char('\n')).size(), static_cast<int>(r->batch.text.batch()));
    QVERIFY(w.inputs()->sentencesEdit()->toPlainText().contains(QStringLiteral("[PAD]")) ||
            r->batch.text.batch() > 1);  // the lesson's batch (padding needs two sentences or more)
    QVERIFY(w.presenter()->active());
    QVERIFY(w.isFullScreen() || w.windowState().testFlag(Qt::WindowFullScreen));
    QCOMPARE(Language::effective(), UiLanguage::Chinese);
    QCOMPARE(Language::saved(), UiLanguage::English);  // for this run only
    QTest::qWait(50);
    QVERIFY(!w.findChild<GuidedTour*>());  // a file: no tour, even on a first start (tourSeen unset)
  }

  void aStepTheTraceLacksIsSaid() {
    WindowHost host(QStringLiteral("launch-b"));
    QStringList missing;
    connect(host.window(), &MainWindow::stepMissing, this, [&missing](const QString& m) { missing << m; });
    QVERIFY(launch(host, {kLesson, QStringLiteral("encoder.layers.7.self_attn.weights"), false}).isEmpty());
    MainWindow& w = *host.window();
    const TraceResultPtr r = settled(w);
    QVERIFY(r);
    QCOMPARE(missing.size(), 1);
    QCOMPARE(r->trace.steps()[static_cast<size_t>(w.navigator()->current())].info.id,
             std::string("encoder.layers.0.self_attn.masked_scores"));  // the lesson's own step
    QVERIFY2(missing[0].contains(QStringLiteral("encoder.layers.7.self_attn.weights")), qPrintable(missing[0]));
    QCOMPARE(w.statusBar()->currentMessage(), missing[0]);
    QVERIFY(!w.presenter()->active());
  }

  void aBadFileIsRefusedAndTheWindowOpensAnyway() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("damaged.attnlab"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{\"format\": \"attnlab-sess");
    f.close();
    WindowHost host(QStringLiteral("launch-c"));
    const QStringList problems = launch(host, {path, {}, false});
    QCOMPARE(problems.size(), 1);
    QVERIFY2(problems[0].contains(QStringLiteral("damaged.attnlab")) && problems[0].contains(QStringLiteral("JSON")),
             qPrintable(problems[0]));
    MainWindow& w = *host.window();
    QVERIFY(w.isVisible());
    QMessageBox* box = nullptr;
    QTRY_VERIFY((box = visibleMessage(w)) != nullptr);  // the same refusal as File ▸ Open, not waiting
    QCOMPARE(box->text(), problems[0]);
    box->accept();
    QVERIFY(settled(w));  // the window computes what it had (the built-in sample)
  }

  void noFileStartsTheTourOnTheFirstStartOnly() {
    QSettings().remove(QStringLiteral("tourSeen"));
    WindowHost host(QStringLiteral("launch-d"));
    QVERIFY(launch(host, {}).isEmpty());
    QTRY_VERIFY(host.window()->findChild<GuidedTour*>());
    QVERIFY(host.window()->findChild<GuidedTour*>()->callout()->isVisible());
  }
};

QTEST_MAIN(TestLaunch)
#include "test_launch.moc"
