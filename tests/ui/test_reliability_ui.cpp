// The window against hostile files and faults (issue 18, docs/reliability.md): a FIFO, a device
// or a folder handed over as a session or as weights is refused at once by name, and the
// window keeps what it had; a session with a NUL in a sentence is refused by field; a settings
// file with a NUL sentence and a FIFO as its weights still lets the window appear; exports
// never replace a user's files; weights that overflow give a message, not a page of NaN; an
// exception that escapes an event handler is a message box, and the window goes on.
#include <QtTest>

#include <QClipboard>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QSettings>
#include <QStatusBar>
#include <QTemporaryDir>

#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "export/exporter.h"
#include "input/inputpanel.h"
#include "input/weightsimport.h"
#include "io/files.h"
#include "io/safetensors.h"
#include "text/errors.h"
#include "window/mainwindow.h"
#include "window/safeapplication.h"
#include "windowfixture.h"

using namespace attnlab;
using namespace attnlab::ui;
namespace fs = std::filesystem;

namespace {

// A widget whose click handler throws, as a handler with a bug would.
class Thrower : public QWidget {
 public:
  int clicks = 0;

 protected:
  void mousePressEvent(QMouseEvent*) override {
    ++clicks;
    throw std::runtime_error("a bug in a click handler");
  }
};

QString status(const MainWindow& w) { return w.statusBar()->findChild<QLabel*>()->text(); }

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void write_file(const QString& path, const std::string& bytes) {
  std::ofstream f(path.toStdString(), std::ios::binary);
  f << bytes;
}

}  // namespace

class TestReliabilityUi : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString path(const char* name) const { return dir_.filePath(QString::fromLatin1(name)); }

 private slots:
  void initTestCase() {
    test::isolateSettings();
    QVERIFY(mkfifo(path("pipe.attnlab").toLocal8Bit().constData(), 0600) == 0);
    QVERIFY(mkfifo(path("pipe.safetensors").toLocal8Bit().constData(), 0600) == 0);
  }

  // Opening a FIFO used to wait for a writer forever; /dev/zero to read until memory ran out.
  void sessionsThatAreNoFiles() {
    auto w = test::openWindow(QStringLiteral("rel-a"));
    QVERIFY(w);
    const auto before = w->controller()->current();
    const struct {
      QString file;
      const char* says;
    } cases[] = {{path("pipe.attnlab"), "is a named pipe (FIFO)"},
                 {QStringLiteral("/dev/zero"), "is a device"},
                 {dir_.path(), "is a folder, not a file"},
                 {path("missing.attnlab"), "no such file"}};
    for (const auto& c : cases) {
      QString shown;
      test::acceptNextMessage(&shown);
      const auto t0 = std::chrono::steady_clock::now();
      const QString error = w->openSession(c.file);
      QVERIFY2(seconds_since(t0) < 5, qPrintable(c.file));  // refused at once, never read
      QVERIFY2(error.contains(QLatin1String(c.says)) && error.contains(c.file), qPrintable(error));
      QCOMPARE(shown, error);
      test::settle(*w);
      QCOMPARE(w->controller()->current(), before);
    }
  }

  void aSessionWithANulInASentenceIsRefusedByField() {
    auto w = test::openWindow(QStringLiteral("rel-b"));
    QVERIFY(w);
    const auto before = w->controller()->current();
    write_file(path("nul.attnlab"),
               "{\"format\": \"attnlab-session\", \"version\": 1, \"texts\": [\"the cat\", \"a\\u0000b\"]}");
    write_file(path("pairs.attnlab"), "{\"format\": \"attnlab-session\", \"version\": 1, \"texts\": [\"a\", \"b\", \"c\"], "
                                      "\"memory_texts\": [\"x\", \"y\"]}");
    QString shown;
    test::acceptNextMessage(&shown);
    QString error = w->openSession(path("nul.attnlab"));
    QVERIFY2(error.contains(QStringLiteral("\"texts[1]\": text contains a NUL character")), qPrintable(error));
    test::acceptNextMessage(&shown);
    error = w->openSession(path("pairs.attnlab"));
    QVERIFY2(error.contains(QStringLiteral("\"memory_texts\": should hold one source sentence")), qPrintable(error));
    test::settle(*w);
    QCOMPARE(w->controller()->current(), before);
  }

  void typingANulIsAMessageNotACrash() {
    auto w = test::openWindow(QStringLiteral("rel-c"));
    QVERIFY(w);
    auto* box = w->inputs()->findChild<QPlainTextEdit*>();
    QVERIFY(box);
    box->setPlainText(QStringLiteral("the cat sat\nbad") + QChar(0) + QStringLiteral("word"));
    test::settle(*w);
    QVERIFY2(status(*w).contains(QStringLiteral("text contains a NUL character")), qPrintable(status(*w)));
    QVERIFY(w->isVisible());
  }

  // One word of 1 MiB (a paste gone wrong) is a sentence like any other: the window computes it and
  // stays responsive — its labels are shortened for display, never measured whole per cell.
  void aOneMegabyteTokenDoesNotFreezeTheWindow() {
    auto w = test::openWindow(QStringLiteral("rel-h"));
    QVERIFY(w);
    auto* box = w->inputs()->findChild<QPlainTextEdit*>();
    const auto t0 = std::chrono::steady_clock::now();
    box->clear();
    QApplication::clipboard()->setText(QStringLiteral("the ") + QString(1 << 20, QLatin1Char('x')) + QStringLiteral(" sat"));
    box->paste();  // as a user pastes it
    test::settle(*w);
    const double typed = seconds_since(t0);
    const auto r = w->controller()->current();
    QVERIFY(r && r->batch.text.tokens[0].size() == 3);
    w->grab();  // paint everything once, heatmaps and chips included
    const double painted = seconds_since(t0);
    qInfo("1 MiB token: computed in %.2f s, painted by %.2f s", typed, painted);
    QVERIFY2(painted < 10, "the window froze on a 1 MiB token");
  }

  // A settings file left by an earlier version or damaged by hand: a NUL sentence, and a FIFO
  // where the last weights were. The window still appears, with the built-in sample.
  void aHostileSettingsFileStillOpensTheWindow() {
    QSettings s;
    s.beginGroup(QStringLiteral("rel-d"));
    s.setValue(QStringLiteral("texts"), QStringList{QStringLiteral("ok"), QStringLiteral("a") + QChar(0) + QStringLiteral("b")});
    s.setValue(QStringLiteral("weightsPath"), path("pipe.safetensors"));
    s.endGroup();
    s.sync();
    const auto t0 = std::chrono::steady_clock::now();
    auto w = test::openWindow(QStringLiteral("rel-d"));
    QVERIFY(w);
    QVERIFY(seconds_since(t0) < 20);
    QVERIFY(w->controller()->current());
    QVERIFY2(w->statusBar()->currentMessage().contains(QStringLiteral("The sentences saved last time were not restored")),
             qPrintable(w->statusBar()->currentMessage()));
    // Sentences that are fine, and the FIFO as the weights: the window comes up, and says why the weights are not there.
    s.beginGroup(QStringLiteral("rel-g"));
    s.setValue(QStringLiteral("texts"), QStringList{QStringLiteral("the cat sat")});
    s.setValue(QStringLiteral("weightsPath"), path("pipe.safetensors"));
    s.endGroup();
    s.sync();
    auto v = test::openWindow(QStringLiteral("rel-g"));
    QVERIFY(v);
    QVERIFY2(v->statusBar()->currentMessage().contains(QStringLiteral("is a named pipe (FIFO)")),
             qPrintable(v->statusBar()->currentMessage()));
  }

  void weightsThatAreNoFiles() {
    for (const QString& f : {path("pipe.safetensors"), QStringLiteral("/dev/zero"), dir_.path()}) {
      const auto t0 = std::chrono::steady_clock::now();
      QVERIFY_THROWS_EXCEPTION(DataError, importWeightsFile(f, ModelConfig{}));
      QVERIFY(seconds_since(t0) < 5);
    }
  }

  // Weights whose forward pass overflows float32: the window keeps its result and says where.
  void overflowingWeightsGiveAMessage() {
    auto w = test::openWindow(QStringLiteral("rel-e"));
    QVERIFY(w);
    const auto before = w->controller()->current();
    ModelConfig cfg = before->cfg;
    Weights weights = init_weights(cfg);
    std::vector<std::pair<std::string, Tensor>> tensors;
    for (const auto& n : weights.names()) {
      Tensor t = weights.get(n).clone();
      if (n == "encoder.layers.0.self_attn.in_proj_weight")
        for (int64_t i = 0; i < t.numel(); ++i) t.data()[i] = 3.0e38f;
      tensors.push_back({n, t});
    }
    write_file(path("huge.safetensors"), serialize_safetensors(tensors, weights_metadata(cfg)));
    QSignalSpy failed(w->controller(), &Controller::failed);
    w->inputs()->setImportedWeights(importWeightsFile(path("huge.safetensors"), cfg));
    test::settle(*w);
    QTRY_COMPARE(failed.count(), 1);
    QVERIFY2(failed.first().first().toString().contains(QStringLiteral("overflowed float32 at step 'encoder.layers.0.")),
             qPrintable(failed.first().first().toString()));
    QVERIFY2(status(*w).contains(QStringLiteral("in_proj_weight")),
             qPrintable(status(*w)));
    QCOMPARE(w->controller()->current(), before);
  }

  void exportsNeverReplaceAUsersFiles() {
    auto w = test::openWindow(QStringLiteral("rel-f"));
    QVERIFY(w);
    const auto r = w->controller()->current();
    // A folder of the user's with --force's equivalent: refused, every file kept.
    const QString docs = path("Documents");
    QVERIFY(QDir().mkpath(docs));
    write_file(docs + "/thesis.tex", "years of work");
    ExportFormats f;
    f.csv = true;
    const QString err = exportBundle(r, docs, f, /*replace=*/true);
    QVERIFY2(err.contains(QStringLiteral("is not an Attention Lab bundle")), qPrintable(err));
    QVERIFY(QFile::exists(docs + "/thesis.tex"));
    // Heatmaps into a folder that already has a file of a name they would take: nothing replaced.
    const QString name = QStringLiteral("encoder.layers.0.self_attn.b0.head0.csv");
    write_file(docs + "/" + name, "mine");
    const QString err2 = exportAllHeatmaps(r, docs, f, {});
    QVERIFY2(err2.contains(name) && err2.contains(QStringLiteral("nothing was replaced")), qPrintable(err2));
    std::ifstream mine((docs + "/" + name).toStdString());
    QCOMPARE(std::string(std::istreambuf_iterator<char>(mine), {}), std::string("mine"));
    QCOMPARE(QDir(docs).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden).size(), 2);  // no temporaries
    // And into an empty folder they all arrive.
    const QString fresh = path("fresh");
    QCOMPARE(exportAllHeatmaps(r, fresh, f, {}), QString());
    QVERIFY(QFile::exists(fresh + "/" + name));
    QVERIFY(QDir(fresh).entryList(QDir::Hidden | QDir::AllEntries | QDir::NoDotAndDotDot).filter(QStringLiteral(".tmp-")).isEmpty());
  }

  void anExceptionInAHandlerIsAMessage() {
    auto* app = qobject_cast<SafeApplication*>(QCoreApplication::instance());
    QVERIFY2(app, "run by main() below with a SafeApplication");
    Thrower t;
    t.resize(100, 100);
    t.show();
    QVERIFY(QTest::qWaitForWindowExposed(&t));
    const int before = app->caughtCount();
    QString shown;
    QTest::mouseClick(&t, Qt::LeftButton);
    test::acceptNextMessage(&shown);  // after the click: the box is shown from the event loop, queued first
    QCOMPARE(app->caughtCount(), before + 1);
    QCOMPARE(app->lastCaught(), QStringLiteral("a bug in a click handler"));
    QTRY_VERIFY(shown.contains(QStringLiteral("a bug in a click handler")));
    QVERIFY(shown.contains(QStringLiteral("keeps what it had")));
    QTest::mouseClick(&t, Qt::LeftButton);  // and it goes on
    test::acceptNextMessage(&shown);
    QCOMPARE(t.clicks, 2);
    QTRY_COMPARE(app->caughtCount(), before + 2);
  }
};

int main(int argc, char** argv) {
  SafeApplication app(argc, argv);
  TestReliabilityUi test;
  return QTest::qExec(&test, argc, argv);
}

#include "test_reliability_ui.moc"
