// Weights from a file in the window: File ▸ Import weights… locks the knobs the file fixes and
// computes with the file's numbers (not seeded ones); a damaged file is refused and the window
// keeps what it had; a session embeds small weights or references a file, and reopening either
// gives the same trace bit for bit; a session whose weights file is gone is refused by name.
#include <QtTest>

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTemporaryDir>

#include "forward/model.h"
#include "input/inputpanel.h"
#include "io/session.h"
#include "io/weights_file.h"
#include "model/weights.h"
#include "window/mainwindow.h"
#include "windowfixture.h"
#include "words/qtstrings.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {



// A "trained" model: seeded weights with the output projection doubled, so that a window that
// ignored the file (and used seeded weights) would compute something else.
struct Model {
  ModelConfig cfg;
  Weights weights;
};

Model trainedModel(bool cross) {
  Model m;
  m.cfg.d_model = 24;
  m.cfg.heads = 3;
  m.cfg.d_ff = 40;
  m.cfg.layers = 2;
  m.cfg.norm = Norm::Post;
  m.cfg.activation = Activation::Gelu;
  m.cfg.seed = 5;
  m.cfg.cross = cross;
  m.weights = init_weights(m.cfg);
  const std::string name = "encoder.layers.0.self_attn.out_proj.weight";
  Tensor t = m.weights.get(name).clone();
  for (int64_t i = 0; i < t.numel(); ++i) t.data()[i] *= 2.0f;
  m.weights.set(name, t);
  return m;
}

QString writeModel(const QTemporaryDir& dir, const QString& name, const Model& m) {
  const QString path = dir.filePath(name);
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly)) return {};
  f.write(QByteArray::fromStdString(serialize_weights(m.cfg, m.weights)));
  return path;
}

Trace reference(const Model& m, const Request& r) {
  ModelConfig cfg = m.cfg;
  cfg.mask = r.cfg.mask;
  Trace t;
  forward(cfg, m.weights, make_batch(toStdStrings(r.texts), {}), t);
  return t;
}

}  // namespace

class TestWeightsUi : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { test::isolateSettings(); }

  void importLocksTheKnobsAndUsesTheFile() {
    QTemporaryDir dir;
    const Model m = trainedModel(false);
    const QString path = writeModel(dir, QStringLiteral("trained.safetensors"), m);
    auto w = test::openWindow(QStringLiteral("weights-a"));
    QVERIFY(w);
    w->inputs()->sentencesEdit()->setPlainText(QStringLiteral("the cat sat\na dog"));
    test::settle(*w);
    QCOMPARE(w->importWeights(path), QString());
    test::settle(*w);
    InputPanel* in = w->inputs();
    QCOMPARE(in->dModelBox()->value(), 24);
    QCOMPARE(in->headsBox()->value(), 3);
    QCOMPARE(in->layersBox()->value(), 2);
    QCOMPARE(in->seedBox()->value(), 5);
    QVERIFY(!in->dModelBox()->isEnabled() && !in->headsBox()->isEnabled() && !in->seedBox()->isEnabled());
    QVERIFY(in->seededWeightsButton()->isVisible());
    QVERIFY(in->findChild<QLabel*>(QStringLiteral("weightsSource"))->text().contains(QStringLiteral("trained.safetensors")));

    const auto r = w->controller()->current();
    QCOMPARE(r->cfg.norm, Norm::Post);
    QCOMPARE(r->cfg.activation, Activation::Gelu);
    const Trace want = reference(m, in->currentRequest());
    QCOMPARE(r->trace.steps().size(), want.steps().size());
    for (size_t i = 0; i < want.steps().size(); ++i)
      QVERIFY2(test::sameBits(r->trace.steps()[i].tensor, want.steps()[i].tensor), want.steps()[i].info.id.c_str());
    Trace seeded;  // the seeded weights of the same configuration differ at the doubled projection
    forward(r->cfg, init_weights(r->cfg), r->batch, seeded);
    QVERIFY(!test::sameBits(seeded.find("encoder.layers.0.self_attn.out")->tensor, r->trace.find("encoder.layers.0.self_attn.out")->tensor));

    QTest::mouseClick(in->seededWeightsButton(), Qt::LeftButton);
    test::settle(*w);
    QVERIFY(in->dModelBox()->isEnabled() && !in->seededWeightsButton()->isVisible());
    QVERIFY(!w->controller()->current()->trace.steps().empty());
    QVERIFY(!w->inputs()->currentRequest().weights);
  }

  // A request whose sizes differ from the imported weights' (not one the input panel makes: it
  // locks those knobs) is refused with both named, before any step runs.
  void requestWithOtherSizesIsRefused() {
    QTemporaryDir dir;
    const Model m = trainedModel(false);
    auto w = std::make_shared<ImportedWeights>();
    w->name = QStringLiteral("trained.safetensors");
    w->loaded = {m.cfg, m.weights};
    Request r;
    r.texts = {QStringLiteral("a b c")};
    r.cfg = m.cfg;
    r.weights = w;
    QVERIFY(!compute(r, 1)->trace.steps().empty());
    r.cfg.d_model = 32;
    r.cfg.heads = 4;
    try {
      compute(r, 1);
      QFAIL("computed with weights of another size");
    } catch (const DataError& e) {
      QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("are for d_model 24, d_ff 40 and 2 layer(s)")), e.what());
    }
  }

  void damagedFileIsRefusedByName() {
    QTemporaryDir dir;
    const QString path = writeModel(dir, QStringLiteral("cut.safetensors"), trainedModel(false));
    QFile f(path);
    QVERIFY(f.resize(f.size() / 2));
    auto w = test::openWindow(QStringLiteral("weights-b"));
    QVERIFY(w);
    const auto before = w->controller()->current();
    QString shown;
    test::acceptNextMessage(&shown);
    const QString error = w->importWeights(path);
    QVERIFY2(error.contains(QStringLiteral("cut.safetensors")), qPrintable(error));
    QCOMPARE(shown, error);
    test::settle(*w);
    QCOMPARE(w->controller()->current(), before);
    QVERIFY(w->inputs()->dModelBox()->isEnabled());
  }

  void encoderDecoderFileTurnsOnCrossAttention() {
    QTemporaryDir dir;
    const QString path = writeModel(dir, QStringLiteral("seq2seq.safetensors"), trainedModel(true));
    auto w = test::openWindow(QStringLiteral("weights-c"));
    QVERIFY(w);
    QCOMPARE(w->importWeights(path), QString());
    auto* cross = w->inputs()->findChild<QCheckBox*>();
    QVERIFY(cross && cross->isChecked() && !cross->isEnabled());
    w->inputs()->findChild<QPlainTextEdit*>(QStringLiteral("source"))->setPlainText(QStringLiteral("le chat"));
    test::settle(*w);
    QVERIFY(w->controller()->current()->cfg.cross);
    QVERIFY(w->controller()->current()->trace.find("decoder.layers.1.multihead_attn.weights"));
  }

  void sessionsEmbedOrReferenceTheWeights() {
    QTemporaryDir dir;
    const Model m = trainedModel(false);
    const QString weights = writeModel(dir, QStringLiteral("trained.safetensors"), m);
    auto a = test::openWindow(QStringLiteral("weights-d"));
    QVERIFY(a);
    QCOMPARE(a->importWeights(weights), QString());
    test::settle(*a);
    const auto ra = a->controller()->current();
    const QString embedded = dir.filePath(QStringLiteral("embedded.attnlab"));
    QCOMPARE(a->saveSession(embedded), QString());
    QFile::remove(weights);  // the session must not need the file any more
    QFile sf(embedded);
    QVERIFY(sf.open(QIODevice::ReadOnly));
    const Session s = parse_session(sf.readAll().toStdString(), "embedded.attnlab");
    QVERIFY(!s.weights.bytes.empty() && s.weights.file.empty());
    QCOMPARE(s.weights.name, std::string("trained.safetensors"));

    auto b = test::openWindow(QStringLiteral("weights-e"));
    QVERIFY(b);
    QCOMPARE(b->openSession(embedded), QString());
    test::settle(*b);
    const auto rb = b->controller()->current();
    QCOMPARE(b->inputs()->dModelBox()->value(), 24);  // the knobs show what the weights decide
    QVERIFY(!b->inputs()->dModelBox()->isEnabled());
    const QString kept = b->inputs()->importedWeights()->path;  // for the next start
    QVERIFY2(QFile::exists(kept), qPrintable(kept));
    QVERIFY(rb->trace.steps().size() == ra->trace.steps().size());
    for (size_t i = 0; i < ra->trace.steps().size(); ++i)
      QVERIFY2(test::sameBits(rb->trace.steps()[i].tensor, ra->trace.steps()[i].tensor), ra->trace.steps()[i].info.id.c_str());

    // A referenced file, relative to the session's folder (as a large one is saved).
    QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("models")));
    writeModel(dir, QStringLiteral("models/trained.safetensors"), m);
    Session ref = s;
    ref.weights = {"trained.safetensors", "models/trained.safetensors", ""};
    const QString referenced = dir.filePath(QStringLiteral("referenced.attnlab"));
    QFile rf(referenced);
    QVERIFY(rf.open(QIODevice::WriteOnly));
    rf.write(QByteArray::fromStdString(session_json(ref)));
    rf.close();
    auto c = test::openWindow(QStringLiteral("weights-f"));
    QVERIFY(c);
    QCOMPARE(c->openSession(referenced), QString());
    test::settle(*c);
    QVERIFY(test::sameBits(c->controller()->current()->trace.steps().back().tensor, ra->trace.steps().back().tensor));

    QFile::remove(dir.filePath(QStringLiteral("models/trained.safetensors")));
    const auto before = c->controller()->current();
    QString shown;
    test::acceptNextMessage(&shown);
    const QString error = c->openSession(referenced);
    QVERIFY2(error.contains(QStringLiteral("models/trained.safetensors")) && error.contains(QStringLiteral("no such file")),
             qPrintable(error));
    test::settle(*c);
    QCOMPARE(c->controller()->current(), before);
  }
};

QTEST_MAIN(TestWeightsUi)
#include "test_weights_ui.moc"
