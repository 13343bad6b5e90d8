// Sessions from the window: save a lesson, open it in another window and get the same trace and
// the same step; a damaged or newer file and an unwritable folder are refused with a message,
// and the window keeps what it had.
#include <QtTest>

#include <QApplication>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QSettings>
#include <QCheckBox>
#include <QComboBox>
#include <QSignalSpy>
#include <QDoubleSpinBox>
#include <QFile>
#include <QSpinBox>
#include <QTemporaryDir>

#include "input/inputpanel.h"
#include "io/session.h"
#include "step/stepnavigator.h"
#include "views/continuebox.h"
#include "views/predictionspanel.h"
#include "window/dialogfolders.h"
#include "step/steppanel.h"
#include "window/controller.h"
#include "window/mainwindow.h"
#include "windowfixture.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {



}  // namespace

class TestSessions : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { test::isolateSettings(); }

  // File dialogs open where that kind of file was last chosen, as long as the folder exists.
  void dialogsOpenWhereTheLastFileWas() {
    QTemporaryDir dir;
    QCOMPARE(dialogFolder("sessions"), QDir::homePath());
    rememberDialogFolder("sessions", dir.filePath(QStringLiteral("lesson.attnlab")));
    QCOMPARE(dialogFolder("sessions"), dir.path());
    QCOMPARE(dialogPath("sessions", QStringLiteral("next.attnlab")), dir.filePath(QStringLiteral("next.attnlab")));
    QCOMPARE(dialogFolder("weights"), QDir::homePath());  // each kind its own
    rememberDialogFolder("bundles", dir.path(), /*isFolder=*/true);
    QCOMPARE(dialogFolder("bundles"), dir.path());
    rememberDialogFolder("sessions", QString());  // a cancelled dialog changes nothing
    QCOMPARE(dialogFolder("sessions"), dir.path());
    const QString gone = dir.path();
    dir.remove();
    QCOMPARE(dialogFolder("sessions"), QDir::homePath());  // moved away since: home, not a dead folder
    QVERIFY(gone != QDir::homePath());
  }

  void saveThenOpenGivesTheSameTrace() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("lesson.attnlab"));
    auto a = test::openWindow(QStringLiteral("sessions-a"));
    QVERIFY(a);
    a->inputs()->sentencesEdit()->setPlainText(QStringLiteral("the cat sat on the mat\n猫坐在垫子上"));
    a->inputs()->dModelBox()->setValue(32);
    a->inputs()->headsBox()->setValue(4);
    a->inputs()->layersBox()->setValue(2);
    a->inputs()->seedBox()->setValue(11);
    test::settle(*a);
    const auto ra = a->controller()->current();
    const int step = ra->indexOf("encoder.layers.1.self_attn.weights");
    a->navigator()->setCurrent(step);
    a->stepPanel()->setCurrentTabId(QStringLiteral("lines"));
    a->stepPanel()->setSentence(1);
    a->stepPanel()->setHead(2);
    ContinueBox* continuing = a->predictions()->continueBox();  // the append controls go with it
    continuing->temperatureBox()->setValue(0.35);
    continuing->topKBox()->setValue(12);
    continuing->topPBox()->setValue(0.8);
    continuing->seedBox()->setValue(77);
    QCOMPARE(a->saveSession(path), QString());
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden), QStringList{QStringLiteral("lesson.attnlab")});

    auto b = test::openWindow(QStringLiteral("sessions-b"));
    QVERIFY(b);
    QCOMPARE(b->openSession(path), QString());
    test::settle(*b);
    const auto rb = b->controller()->current();
    QCOMPARE(rb->cfg.d_model, 32);
    QCOMPARE(rb->cfg.seed, uint64_t{11});
    QCOMPARE(rb->trace.steps().size(), ra->trace.steps().size());
    for (size_t i = 0; i < ra->trace.steps().size(); ++i) {
      QCOMPARE(rb->trace.steps()[i].info.id, ra->trace.steps()[i].info.id);
      QVERIFY2(test::sameBits(rb->trace.steps()[i].tensor, ra->trace.steps()[i].tensor), ra->trace.steps()[i].info.id.c_str());
    }
    QCOMPARE(b->navigator()->current(), step);  // the same step on show, in the same view
    QCOMPARE(b->stepPanel()->currentTabId(), QStringLiteral("lines"));
    QCOMPARE(b->stepPanel()->sentence(), 1);
    QCOMPARE(b->stepPanel()->selection().head, 2);
    const SessionSampling restored = b->predictions()->continueBox()->sessionSampling();
    QVERIFY(restored == (SessionSampling{.temperature = 0.35, .top_p = 0.8, .top_k = 12, .seed = 77}));
    const QStringList recent = QSettings().value(QStringLiteral("sessions-b/recentSessions")).toStringList();
    QCOMPARE(recent.value(0), path);
    {  // a session saved without them (an older one) sets the defaults back
      QFile f(path);
      QVERIFY(f.open(QIODevice::ReadOnly));
      Session older = parse_session(f.readAll().toStdString(), "lesson");
      older.sampling = {};
      QFile g(dir.filePath(QStringLiteral("older.attnlab")));
      QVERIFY(g.open(QIODevice::WriteOnly));
      QVERIFY(session_json(older).find("sampling") == std::string::npos);
      g.write(QByteArray::fromStdString(session_json(older)));
    }
    QCOMPARE(b->openSession(dir.filePath(QStringLiteral("older.attnlab"))), QString());
    QVERIFY(b->predictions()->continueBox()->sessionSampling() == SessionSampling{});
  }

  // Learned positions from the knobs: the rows box appears with "learned", the position step is
  // the table's first rows, a text longer than the table is named in the window (not computed),
  // and a session keeps the choice and the table's length (and the final norm's box).
  void learnedPositionsFromTheKnobs() {
    QTemporaryDir dir;
    auto a = test::openWindow(QStringLiteral("learned-a"));
    QVERIFY(a);
    InputPanel* in = a->inputs();
    in->sentencesEdit()->setPlainText(QStringLiteral("one two three four\n五六"));
    QVERIFY(!in->maxPositionsBox()->isVisibleTo(in));
    in->positionalBox()->setCurrentText(QStringLiteral("learned"));
    QVERIFY(in->maxPositionsBox()->isVisibleTo(in));
    in->maxPositionsBox()->setValue(6);
    test::settle(*a);
    auto r = a->controller()->current();
    QCOMPARE(r->cfg.positional, Positional::Learned);
    QCOMPARE(r->cfg.max_positions, int64_t{6});
    const Step* pe = r->trace.find("encoder.positional");
    QVERIFY(pe);
    QCOMPARE(pe->tensor.shape(), (Shape{4, r->cfg.d_model}));
    QVERIFY(QString::fromStdString(pe->info.code).contains(QStringLiteral("encoder_position_embedding_weight[:4]")));

    QSignalSpy failed(a->controller(), &Controller::failed);
    in->sentencesEdit()->setPlainText(QStringLiteral("a b c d e f g h"));
    test::settle(*a);
    QTRY_COMPARE(failed.count(), 1);
    const QString why = failed.first().first().toString();
    QVERIFY2(why.contains(QStringLiteral("8")) && why.contains(QStringLiteral("6")) &&
                 why.contains(QStringLiteral("--max-positions")), qPrintable(why));
    QCOMPARE(a->controller()->current(), r);  // the last good result stays on show
    in->maxPositionsBox()->setValue(8);
    in->finalNormBox()->setChecked(true);  // and a final LayerNorm, after the last layer
    test::settle(*a);
    QCOMPARE(a->controller()->current()->trace.find("encoder.positional")->tensor.size(0), int64_t{8});
    QVERIFY(a->controller()->current()->trace.find("encoder.norm"));

    const QString path = dir.filePath(QStringLiteral("learned.attnlab"));
    QCOMPARE(a->saveSession(path), QString());
    auto b = test::openWindow(QStringLiteral("learned-b"));
    QVERIFY(b);
    QCOMPARE(b->openSession(path), QString());
    test::settle(*b);
    QCOMPARE(b->controller()->current()->cfg.positional, Positional::Learned);
    QCOMPARE(b->controller()->current()->cfg.max_positions, int64_t{8});
    QCOMPARE(b->inputs()->positionalBox()->currentText(), QStringLiteral("learned"));
    QCOMPARE(b->inputs()->maxPositionsBox()->value(), 8);
    QVERIFY(b->controller()->current()->cfg.final_norm);
    QVERIFY(b->inputs()->finalNormBox()->isChecked());
  }

  // Nothing lost on a crash: every result is written to the settings at once (not only when the
  // window closes), and a window built from them shows the same sentences, model and step.
  void everyResultIsKeptForTheNextStart() {
    auto w = test::openWindow(QStringLiteral("crash"));
    QVERIFY(w);
    w->inputs()->sentencesEdit()->setPlainText(QStringLiteral("nothing is lost\n猫"));
    w->inputs()->headsBox()->setValue(2);
    test::settle(*w);
    w->navigator()->setCurrent(12);
    QCoreApplication::processEvents();
    w->inputs()->seedBox()->setValue(3);  // one more result, so the step is written too
    test::settle(*w);
    const QStringList saved = QSettings().value(QStringLiteral("crash/texts")).toStringList();
    QCOMPARE(saved, (QStringList{QStringLiteral("nothing is lost"), QStringLiteral("猫")}));
    QCOMPARE(QSettings().value(QStringLiteral("crash/heads")).toInt(), 2);
    const std::string step = w->controller()->current()->trace.steps()[12].info.id;
    w.release()->deleteLater();  // as if the process died: no closeEvent
    auto again = test::openWindow(QStringLiteral("crash"));
    QVERIFY(again);
    QCOMPARE(again->inputs()->currentRequest().texts, saved);
    QCOMPARE(again->controller()->current()->cfg.seed, uint64_t{3});
    QCOMPARE(again->controller()->current()->trace.steps()[static_cast<size_t>(again->navigator()->current())].info.id, step);
  }

  // Saved while a recompute is pending: the view is the last result's (head 7, the last of 8), the
  // model the knobs' (4 heads); the file keeps a head that exists and opens.
  void savedMidRecomputeStillOpens() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("mid.attnlab"));
    auto w = test::openWindow(QStringLiteral("sessions-mid"));
    QVERIFY(w);
    w->stepPanel()->setHead(7);
    w->inputs()->headsBox()->setValue(4);  // no settle: the old result (8 heads) is still on show
    QCOMPARE(w->saveSession(path), QString());
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const Session s = parse_session(f.readAll().toStdString(), "mid.attnlab");
    QCOMPARE(s.cfg.heads, int64_t{4});
    QCOMPARE(s.head, int64_t{3});
    auto b = test::openWindow(QStringLiteral("sessions-mid-b"));
    QVERIFY(b);
    QCOMPARE(b->openSession(path), QString());
    test::settle(*b);
    QCOMPARE(b->stepPanel()->selection().head, 3);
  }

  // The Sample box names an opened lesson: a shipped one by its title, one of the teacher's own by
  // its file name; typing makes the sentences the teacher's own again.
  void theSampleBoxNamesTheLesson() {
    QTemporaryDir dir;
    auto w = test::openWindow(QStringLiteral("sessions-label"));
    QVERIFY(w);
    QCOMPARE(w->inputs()->sourceLabel(), QStringLiteral("Built-in: English + Chinese batch"));
    QCOMPARE(w->openSession(QStringLiteral(":/lessons/03-padding.attnlab")), QString());
    test::settle(*w);
    QCOMPARE(w->inputs()->sourceLabel(), QStringLiteral("Lesson: Padding in a batch"));
    QPlainTextEdit* edit = w->inputs()->sentencesEdit();
    edit->setFocus();
    edit->moveCursor(QTextCursor::End);
    QTest::keyClicks(edit, QStringLiteral(" Then it slept."));
    QCOMPARE(w->inputs()->sourceLabel(), QStringLiteral("Your sentences"));
    test::settle(*w);
    const QString path = dir.filePath(QStringLiteral("mine.attnlab"));
    QCOMPARE(w->saveSession(path), QString());
    w->inputs()->loadSample(0);
    test::settle(*w);
    QCOMPARE(w->openSession(path), QString());
    test::settle(*w);
    QCOMPARE(w->inputs()->sourceLabel(), QStringLiteral("Lesson: mine.attnlab"));
  }

  void damagedNewerAndUnwritable() {
    QTemporaryDir dir;
    auto w = test::openWindow(QStringLiteral("sessions-c"));
    QVERIFY(w);
    const auto before = w->controller()->current();
    const QString damaged = dir.filePath(QStringLiteral("damaged.attnlab"));
    QFile f(damaged);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{\"format\": \"attnlab-session\", \"version\": 1, \"texts\": [\"a b");
    f.close();
    QString shown;
    test::acceptNextMessage(&shown);
    const QString error = w->openSession(damaged);
    QVERIFY2(error.contains(QStringLiteral("damaged.attnlab")) && error.contains(QStringLiteral("not valid JSON")),
             qPrintable(error));
    QCOMPARE(shown, error);
    test::settle(*w);
    QCOMPARE(w->controller()->current(), before);

    const QString newer = dir.filePath(QStringLiteral("newer.attnlab"));
    QFile g(newer);
    QVERIFY(g.open(QIODevice::WriteOnly));
    g.write("{\"format\": \"attnlab-session\", \"version\": 7, \"texts\": [\"a\"]}");
    g.close();
    test::acceptNextMessage(&shown);
    QVERIFY(w->openSession(newer).contains(QStringLiteral("newer Attention Lab")));

    test::acceptNextMessage(&shown);
    const QString unwritable = QStringLiteral("/proc/attnlab-no/lesson.attnlab");
    QVERIFY(w->saveSession(unwritable).contains(QStringLiteral("Cannot write")));
    QVERIFY(!QFile::exists(unwritable));
  }
};

QTEST_MAIN(TestSessions)
#include "test_sessions.moc"
