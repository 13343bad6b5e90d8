// The model chooser and the predictions panel, used as a learner would: choosing a shipped trained
// model puts its examples in the box, locks the knobs it fixes (the mask too) and shows its
// guesses; a word it does not know is marked and read as [UNK]; a chosen position shows that
// position's top five; random weights again hide the predictions.
#include <QtTest>

#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProcess>
#include <QProgressBar>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSpinBox>
#include <QTemporaryDir>

#include <nlohmann/json.hpp>

#include <algorithm>

#include "export/exporter.h"
#include "input/inputpanel.h"
#include "input/samplemodels.h"
#include "input/tokenchips.h"
#include "io/weights_file.h"
#include "step/stepnavigator.h"
#include "views/predictionspanel.h"
#include "windowfixture.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

QStringList shippedModels() {
  return QDir(QStringLiteral(ATTNLAB_SOURCE_DIR "/sample_inputs/models"))
      .entryList({QStringLiteral("*.safetensors")}, QDir::Files, QDir::Name);
}

int chooserIndex(InputPanel* in, const QString& file) {
  return in->modelBox()->findData(QStringLiteral(":/models/") + file);
}

void choose(MainWindow& w, int index) {
  QComboBox* box = w.inputs()->modelBox();
  box->setCurrentIndex(index);
  emit box->activated(index);
  test::settle(w);
}

// The window's output-head probabilities.
const Tensor& windowProbs(const MainWindow& w) {
  const auto r = w.controller()->current();
  const Step* s = r->trace.find("encoder.output_head.probs");
  if (!s) qFatal("no output head in the window's trace");
  return s->tensor;
}

}  // namespace

class TestModelsUi : public QObject {
  Q_OBJECT
  std::unique_ptr<MainWindow> w_;

 private slots:
  void initTestCase() {
    test::isolateSettings();
    QSettings().setValue(QStringLiteral("tourSeen"), true);
    w_ = test::openWindow(QStringLiteral("modelsUi"));
    QVERIFY(w_);
  }

  void theChooserListsEveryShippedModel() {
    const QStringList files = shippedModels();
    QVERIFY2(files.size() >= 3, "sample_inputs/models/ should hold the three trained models");
    QComboBox* box = w_->inputs()->modelBox();
    QCOMPARE(box->count(), files.size() + 2);  // random | each model | a file…
    QCOMPARE(box->itemData(0).toString(), QString());
    for (const QString& f : files) {
      const int i = chooserIndex(w_->inputs(), f);
      QVERIFY2(i > 0, qPrintable(f));
      QVERIFY(box->itemText(i).size() > 10);  // "Trained: " + the model's own title
    }
    QVERIFY(w_->predictionsDock()->isHidden());  // nothing to predict with random weights
  }

  void theSortModelSortsInTheWindow() {
    choose(*w_, chooserIndex(w_->inputs(), QStringLiteral("sort-digits.safetensors")));
    InputPanel* in = w_->inputs();
    const auto weights = in->importedWeights();
    QVERIFY(weights && weights->loaded.weights.vocab());
    // its own examples, its knobs locked, its mask
    QStringList examples;
    for (const auto& e : weights->loaded.weights.vocab()->examples()) examples << QString::fromStdString(e);
    QCOMPARE(in->sentencesEdit()->toPlainText(), examples.join(QLatin1Char('\n')));
    QVERIFY(!in->dModelBox()->isEnabled() && !in->headsBox()->isEnabled());
    const auto r = w_->controller()->current();
    QVERIFY(r->vocab());
    QVERIFY(r->cfg.mask == MaskKind::Padding);
    // the window's numbers are the file's, computed by core from the file on disk
    const auto loaded = load_weights_file(ATTNLAB_SOURCE_DIR "/sample_inputs/models/sort-digits.safetensors", {}, {});
    std::vector<std::string> texts;
    for (const auto& t : examples) texts.push_back(t.toStdString());
    Trace ref;
    forward(loaded.cfg, loaded.weights, make_batch(texts, {}, loaded.weights.vocab().get()), ref);
    QVERIFY(test::sameBits(ref.find("encoder.output_head.probs")->tensor, windowProbs(*w_)));
    // the panel: shown, and its answer for the first example is that example sorted
    QVERIFY(!w_->predictionsDock()->isHidden());
    PredictionsPanel* p = w_->predictions();
    QVERIFY(p->hasPredictions());
    p->sentenceBox()->setCurrentIndex(0);
    QStringList digits = examples.front().split(QLatin1Char(' '), Qt::SkipEmptyParts);
    std::sort(digits.begin(), digits.end());
    QVERIFY2(p->answerLabel()->text().endsWith(digits.join(QLatin1Char(' '))), qPrintable(p->answerLabel()->text()));
    // The note names heads as the window does, layers and heads from 0: layer 1 is the second of two.
    const QString note = p->noteLabel()->text();
    QVERIFY2(note.contains(QStringLiteral("Look at layer 1, head 2")) && note.contains(QStringLiteral("Layer 0's heads")),
             qPrintable(note));
    for (auto it = QRegularExpression(QStringLiteral("[Ll]ayer (\\d+)")).globalMatch(note); it.hasNext();)
      QVERIFY2(it.next().captured(1).toInt() < r->cfg.layers, qPrintable(note));
  }

  // A small probability is not spelled 0 % (GPT-2's flat guesses are about 0.002 % each).
  void aProbabilityIsSpelledToTwoSignificantDigits() {
    QCOMPARE(percentText(0.453), QStringLiteral("45%"));
    QCOMPARE(percentText(0.0531), QStringLiteral("5.3%"));
    QCOMPARE(percentText(0.00002), QStringLiteral("0.0020%"));
    QCOMPARE(percentText(0.0), QStringLiteral("0%"));
    QCOMPARE(percentText(0.99996), QStringLiteral("100%"));
    const QLocale before;
    QLocale::setDefault(QLocale(QLocale::German, QLocale::Germany));
    QCOMPARE(percentText(0.0531), QStringLiteral("5,3%"));
    QLocale::setDefault(before);
  }

  void aChosenPositionShowsItsTopFive() {
    PredictionsPanel* p = w_->predictions();
    const auto r = w_->controller()->current();
    const auto top = top_predictions(windowProbs(*w_), *r->vocab(), r->batch.text.lengths, PredictionsPanel::kTopK);
    for (int b = 0; b < p->sentenceBox()->count(); ++b) {
      p->sentenceBox()->setCurrentIndex(b);
      QCOMPARE(p->sentenceBox()->itemText(b), QStringLiteral("Sentence %1").arg(b));  // sentences from 0
      QCOMPARE(p->positionBox()->count(), int(top[size_t(b)].size()));  // real tokens only
      for (int i = 0; i < p->positionBox()->count(); ++i) {
        p->positionBox()->setCurrentIndex(i);
        for (int k = 0; k < PredictionsPanel::kTopK; ++k) {
          QCOMPARE(p->rowToken(k), QString::fromStdString(top[size_t(b)][size_t(i)][size_t(k)].token));
          QCOMPARE(p->rowPerMille(k), qRound(top[size_t(b)][size_t(i)][size_t(k)].prob * 1000.0f));
          QCOMPARE(p->rowPercent(k), percentText(top[size_t(b)][size_t(i)][size_t(k)].prob));
        }
        // positions from 0, in the chooser and the question (the ranks 1. … 5. stay counts)
        QVERIFY2(p->positionBox()->itemText(i).startsWith(QStringLiteral("%1: ").arg(i)), qPrintable(p->positionBox()->itemText(i)));
        QCOMPARE(p->questionLabel()->text(), QStringLiteral("At position %1 of the answer the model expects:").arg(i));
      }
    }
  }

  // The percentage stands beside its bar, never on it: a long bar (a confident guess, or a narrow
  // dock — presenter mode in Chinese) covered text drawn on the bar itself. The dock scrolls only
  // vertically, so at its narrowest the percentage must still lie inside what it shows.
  void thePercentageStandsBesideItsBar() {
    PredictionsPanel* p = w_->predictions();
    auto* dock = w_->findChild<QDockWidget*>(QStringLiteral("predictionsDock"));
    QVERIFY(dock && dock->isVisible());
    auto* viewport = qobject_cast<QScrollArea*>(dock->widget())->viewport();
    p->sentenceBox()->setCurrentIndex(0);
    p->positionBox()->setCurrentIndex(0);
    const int before = dock->width();
    for (auto [zoom, width] : {std::pair{1.0, 0}, std::pair{1.0, 600}, std::pair{2.0, 0}}) {
      w_->setZoom(zoom);  // 2: a projector's zoom
      QApplication::processEvents();
      w_->resizeDocks({dock}, {width ? width : dock->minimumSizeHint().width()}, Qt::Horizontal);
      QApplication::processEvents();
      for (int k = 0; k < PredictionsPanel::kTopK; ++k) {
        const QProgressBar* bar = p->rowBar(k);
        const QLabel* label = p->rowPercentLabel(k);
        QVERIFY(!bar->isTextVisible());
        QCOMPARE(label->text(), bar->format());  // the bar keeps it as its accessible text
        const QRect b(bar->mapTo(viewport, QPoint()), bar->size()), l(label->mapTo(viewport, QPoint()), label->size());
        const QString where = QString("zoom %8, dock %1 px, row %2: bar %3–%4, label %5–%6, view %7")
                                  .arg(dock->width()).arg(k).arg(b.left()).arg(b.right()).arg(l.left()).arg(l.right()).arg(viewport->width()).arg(zoom);
        QVERIFY2(label->isVisible() && !label->text().isEmpty() && l.left() > b.right(), qPrintable(where));
        // across: inside the view (down, the dock scrolls)
        QVERIFY2(l.left() >= 0 && l.right() <= viewport->rect().right() && label->width() >= label->sizeHint().width(),
                 qPrintable(where));
      }
    }
    w_->setZoom(1.0);
    w_->resizeDocks({dock}, {before}, Qt::Horizontal);
  }

  void unknownWordsAreMarkedAndReadAsUnk() {
    InputPanel* in = w_->inputs();
    in->sentencesEdit()->setPlainText(QStringLiteral("3 1 x 4"));
    test::settle(*w_);
    QVERIFY(in->chips()->isUnknown("x"));
    QVERIFY(!in->chips()->isUnknown("3") && !in->chips()->isUnknown("[PAD]"));
    const auto r = w_->controller()->current();
    const Tensor& ids = r->trace.find("encoder.token_ids")->tensor;
    QCOMPARE(ids.at({0, 2}), float(kUnkId));
    QCOMPARE(ids.at({0, 0}), float(r->vocab()->id("3")));
    if (qEnvironmentVariableIsSet("ATTNLAB_SHOT"))
      w_->grab().save(qEnvironmentVariable("ATTNLAB_SHOT") + QStringLiteral("/models-sort.png"));
  }

  // File ▸ Export ▸ bundle: the run's own weights (vocabulary and head), so that the bundle's
  // reproduce.py recomputes the window's numbers and predictions in PyTorch.
  void anExportedBundleReproducesInPyTorch() {
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("bundle"));
    ExportFormats f;
    QCOMPARE(exportBundle(w_->controller()->current(), out, f), QString());
    QFile manifest(out + QStringLiteral("/manifest.json"));
    QVERIFY(manifest.open(QIODevice::ReadOnly));
    const auto m = nlohmann::json::parse(manifest.readAll().toStdString());
    QVERIFY(m.contains("model") && m["model"]["predictions"].size() == 1);
    QCOMPARE(m["model"]["unknown_positions"][0], nlohmann::json::array({2}));
    QProcess py;
    py.start(QStringLiteral("/usr/bin/python3"), {out + QStringLiteral("/reproduce.py")});
    QVERIFY(py.waitForFinished(300000));
    const QString text = QString::fromUtf8(py.readAllStandardOutput() + py.readAllStandardError());
    QVERIFY2(py.exitCode() == 0, qPrintable(text));
    QVERIFY(text.contains(QStringLiteral("manifest: model.predictions")));
  }

  // A window that starts again (or is rebuilt in another language) keeps the learner's sentences:
  // the model's examples come only when the learner chooses it.
  void aRestoredWindowKeepsTheSentencesAndTheModel() {
    w_->persist();
    MainWindow again(QStringLiteral("modelsUi"));
    test::settle(again);
    QCOMPARE(again.inputs()->sentencesEdit()->toPlainText(), QStringLiteral("3 1 x 4"));
    QVERIFY(again.inputs()->importedWeights() && again.inputs()->importedWeights()->loaded.weights.vocab());
    QCOMPARE(again.inputs()->modelBox()->currentIndex(), chooserIndex(again.inputs(), QStringLiteral("sort-digits.safetensors")));
  }

  // A session embeds the model; reopened, the chooser names the sample again and the numbers agree.
  void aSessionBringsTheSampleModelBack() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("sort.attnlab"));
    const Tensor before = windowProbs(*w_).clone();
    QCOMPARE(w_->saveSession(path), QString());
    choose(*w_, 0);
    QVERIFY(!w_->controller()->current()->vocab());
    QCOMPARE(w_->openSession(path), QString());
    test::settle(*w_);
    QCOMPARE(w_->inputs()->modelBox()->currentIndex(), chooserIndex(w_->inputs(), QStringLiteral("sort-digits.safetensors")));
    QVERIFY(test::sameBits(windowProbs(*w_), before));
  }

  // The Sample box says whose sentences the box holds: the session just opened (it has no title, so
  // by its file name), a chosen model's examples by the model's title — also in a window started
  // again — and, once the learner types, theirs.
  void theSampleBoxSaysWhoseSentencesTheseAre() {
    InputPanel* in = w_->inputs();
    QCOMPARE(in->sourceLabel(), QStringLiteral("Lesson: sort.attnlab"));
    const int english = chooserIndex(in, QStringLiteral("english-next-word.safetensors"));
    QVERIFY(english > 0);
    choose(*w_, english);
    const QString title = in->modelBox()->itemText(english).mid(QStringLiteral("Trained: ").size());
    QVERIFY(!title.isEmpty());
    QCOMPARE(in->sourceLabel(), QStringLiteral("Examples of %1").arg(title));
    w_->persist();
    {
      MainWindow again(QStringLiteral("modelsUi"));
      test::settle(again);
      QCOMPARE(again.inputs()->sentencesEdit()->toPlainText(), in->sentencesEdit()->toPlainText());
      QCOMPARE(again.inputs()->sourceLabel(), QStringLiteral("Examples of %1").arg(title));
    }
    in->sentencesEdit()->setFocus();
    in->sentencesEdit()->moveCursor(QTextCursor::End);
    QTest::keyClicks(in->sentencesEdit(), QStringLiteral(" the"));
    QCOMPARE(in->sourceLabel(), QStringLiteral("Your sentences"));
    test::settle(*w_);
  }

  void theLanguageModelsGuessTheNextToken() {
    for (const QString& f : shippedModels()) {
      choose(*w_, chooserIndex(w_->inputs(), f));
      const auto r = w_->controller()->current();
      QVERIFY2(r->vocab(), qPrintable(f));
      if (r->vocab()->task != Task::NextToken) continue;
      QVERIFY(r->vocab()->mask && r->cfg.mask == *r->vocab()->mask);
      PredictionsPanel* p = w_->predictions();
      p->sentenceBox()->setCurrentIndex(0);
      // a language model's panel starts after the last word (before a closing punctuation mark,
      // after which these models have nothing to guess), and asks about the words so far
      const auto& row = r->batch.text.tokens[0];
      const int n = p->positionBox()->count();
      const QString last = QString::fromStdString(row[size_t(n - 1)]);
      QCOMPARE(p->positionBox()->currentIndex(), last.size() == 1 && last[0].isPunct() ? n - 2 : n - 1);
      QVERIFY(p->questionLabel()->text().contains(QString::fromStdString(row[0])));
      QVERIFY(!p->rowToken(0).isEmpty() && p->rowPerMille(0) >= p->rowPerMille(1));
      if (qEnvironmentVariableIsSet("ATTNLAB_SHOT")) {
        w_->navigator()->setCurrent(r->indexOf("encoder.layers.1.self_attn.weights"));
        QCoreApplication::processEvents();
      }
      if (qEnvironmentVariableIsSet("ATTNLAB_SHOT"))
        w_->grab().save(qEnvironmentVariable("ATTNLAB_SHOT") + QStringLiteral("/models-") + f + QStringLiteral(".png"));
    }
  }

  // A position the learner picked stays while the sentence keeps its length; a longer sentence
  // goes back to the guess after its last word.
  void aPickedPositionStaysUntilTheSentenceGrows() {
    const int english = chooserIndex(w_->inputs(), QStringLiteral("english-next-word.safetensors"));
    QVERIFY(english > 0);
    choose(*w_, english);
    InputPanel* in = w_->inputs();
    in->sentencesEdit()->setPlainText(QStringLiteral("the cat sat on the mat"));
    test::settle(*w_);
    PredictionsPanel* p = w_->predictions();
    QCOMPARE(p->positionBox()->currentIndex(), 5);
    p->positionBox()->setCurrentIndex(1);
    emit p->positionBox()->activated(1);
    in->sentencesEdit()->setPlainText(QStringLiteral("the dog sat on the mat"));
    test::settle(*w_);
    QCOMPARE(p->positionBox()->currentIndex(), 1);
    QVERIFY(p->questionLabel()->text().contains(QStringLiteral("the dog")));
    in->sentencesEdit()->setPlainText(QStringLiteral("the dog sat on the mat again"));
    test::settle(*w_);
    QCOMPARE(p->positionBox()->currentIndex(), 6);
  }

  void randomWeightsAgainHideThePredictions() {
    choose(*w_, 0);
    QVERIFY(!w_->inputs()->importedWeights());
    QVERIFY(w_->inputs()->dModelBox()->isEnabled());
    QVERIFY(!w_->controller()->current()->vocab());
    QVERIFY(!w_->predictions()->hasPredictions());
    QVERIFY(!w_->inputs()->chips()->isUnknown("x"));  // every word is its own again
  }

  void cleanupTestCase() { w_.reset(); }
};

QTEST_MAIN(TestModelsUi)
#include "test_models_ui.moc"
