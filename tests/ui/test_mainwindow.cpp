// The window driven like a user: type, turn knobs, step with the keyboard, enlarge a head.
#include <QtTest>

#include <QClipboard>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QTemporaryDir>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QProgressBar>
#include <QToolButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QCheckBox>
#include <QComboBox>
#include <QLocale>
#include <QRegularExpression>
#include <QTabWidget>
#include <QTreeWidget>

#include "backend/backend.h"
#include "export/widgetexport.h"
#include "forward/model.h"
#include "input/fulllayerbox.h"
#include "input/inputpanel.h"
#include "input/tokenchips.h"
#include "step/shapediagram.h"
#include "step/stepnavigator.h"
#include "step/steppanel.h"
#include "step/tensorview.h"
#include "views/chartspanel.h"
#include "views/colormap.h"
#include "views/heatmapgrid.h"
#include "views/heatmapview.h"
#include "views/lineview.h"
#include "views/modelview.h"
#include "views/neuronview.h"
#include "window/mainwindow.h"
#include "windowfixture.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

using test::settle;

int indexOf(MainWindow& w, const std::string& id) { return w.controller()->current()->indexOf(id); }

}  // namespace

class TestMainWindow : public QObject {
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

  void opensOnTheBuiltInSampleAlreadyComputed() {
    const auto r = w_->controller()->current();
    QCOMPARE(r->batch.text.batch(), 3);
    QCOMPARE(w_->navigator()->count(), static_cast<int>(r->trace.steps().size()));
    QVERIFY(!w_->stepPanel()->locationText().isEmpty());
    QCOMPARE(w_->inputs()->chips()->rows().size(), 3u);
    QVERIFY(w_->inputs()->chips()->rows()[1].back() == "[PAD]");  // padding is visible
  }

  void typingASentenceRecomputes() {
    QPlainTextEdit* edit = w_->inputs()->sentencesEdit();
    edit->selectAll();
    QTest::keyClick(edit, Qt::Key_Delete);
    QTest::keyClicks(edit, QStringLiteral("the cat sat"));
    QCOMPARE(w_->inputs()->chips()->rows().size(), 1u);
    QCOMPARE(w_->inputs()->chips()->rows()[0].size(), 3u);  // chips update while typing
    settle(*w_);
    const auto r = w_->controller()->current();
    QCOMPARE(r->batch.text.tokens, (std::vector<std::vector<std::string>>{{"the", "cat", "sat"}}));
  }

  // The Sample box says what the sentences are: the built-in batch at first, "Your sentences" from
  // the first key typed (into either box), a sample's name when one is chosen — with no leftover
  // item — and in a window started again, whichever of those the saved sentences are.
  void theSampleBoxSaysWhatIsLoaded() {
    InputPanel* in = w_->inputs();
    QComboBox* box = in->sampleBox();
    QCOMPARE(in->sourceLabel(), QStringLiteral("Built-in: English + Chinese batch"));
    QCOMPARE(box->currentIndex(), 0);
    QPlainTextEdit* edit = in->sentencesEdit();
    edit->setFocus();
    edit->moveCursor(QTextCursor::End);
    QTest::keyClicks(edit, QStringLiteral(" again"));
    QCOMPARE(in->sourceLabel(), QStringLiteral("Your sentences"));
    QCOMPARE(box->currentText(), QStringLiteral("Your sentences"));
    QVERIFY(box->toolTip().contains(QStringLiteral("Your sentences")));
    settle(*w_);
    w_->persist();
    {
      MainWindow again(QStringLiteral("test"));
      settle(again);
      QVERIFY(again.inputs()->sentencesEdit()->toPlainText().endsWith(QStringLiteral(" again")));
      QCOMPARE(again.inputs()->sourceLabel(), QStringLiteral("Your sentences"));
    }
    const int translation = in->sampleNames().indexOf(QStringLiteral("Translation (cross-attention)"));
    QVERIFY(translation > 0);
    box->setCurrentIndex(translation);
    emit box->activated(translation);  // as a click on the item
    QCOMPARE(in->sourceLabel(), QStringLiteral("Translation (cross-attention)"));
    QCOMPARE(box->count(), in->sampleNames().size());  // "Your sentences" is gone with what it named
    in->sourceEdit()->setFocus();
    in->sourceEdit()->moveCursor(QTextCursor::End);
    QTest::keyClicks(in->sourceEdit(), QStringLiteral(" encore"));
    QCOMPARE(in->sourceLabel(), QStringLiteral("Your sentences"));
    box->setCurrentIndex(translation);
    emit box->activated(translation);
    settle(*w_);
    w_->persist();
    MainWindow again(QStringLiteral("test"));
    settle(again);
    QCOMPARE(again.inputs()->sourceLabel(), QStringLiteral("Translation (cross-attention)"));
  }

  // 3000 words do not push the knobs screens away: the chips stop at TokenChips::kMaxLines lines,
  // the tokens not drawn counted in a note at the end of each sentence (the shorter sentence's
  // [PAD] chips still drawn dashed and counted as [PAD]), and d_model stays on the input panel's
  // first screen.
  void threeThousandTokensKeepTheKnobsInView() {
    InputPanel* in = w_->inputs();
    in->attentionBox()->setCurrentIndex(1);  // tiled: a 3000-token run keeps no score tensor
    auto* scroll = qobject_cast<QScrollArea*>(in->parentWidget()->parentWidget());
    QVERIFY(scroll);
    TokenChips* chips = in->chips();
    QPlainTextEdit* edit = in->sentencesEdit();
    edit->setPlainText(QStringLiteral("a short one"));
    QCoreApplication::processEvents();
    const int oneLine = chips->height();
    QCOMPARE(chips->shownLines(), 1);
    QVERIFY(chips->overflowNotes().isEmpty());

    QStringList words;
    for (int i = 0; i < 3000; ++i) words << QStringLiteral("w%1").arg(i % 97);
    edit->setPlainText(words.join(QLatin1Char(' ')) + QStringLiteral("\nshort one"));
    edit->setFocus();
    edit->moveCursor(QTextCursor::End);
    QTest::keyClicks(edit, QStringLiteral(" here"));  // typing on: "short one here"
    QCoreApplication::processEvents();
    QCOMPARE(chips->rows().size(), 2u);
    QCOMPARE(chips->rows()[0].size(), 3000u);
    QCOMPARE(chips->rows()[1][2], std::string("here"));
    QCOMPARE(chips->rows()[1].back(), std::string(kPadToken));
    QVERIFY2(chips->shownLines() <= TokenChips::kMaxLines, qPrintable(QString::number(chips->shownLines())));
    QVERIFY2(chips->height() <= TokenChips::kMaxLines * oneLine,
             qPrintable(QStringLiteral("%1 px, one line %2 px").arg(chips->height()).arg(oneLine)));
    // Every token is drawn or counted: the notes say how many of each sentence are not drawn.
    const QStringList notes = chips->overflowNotes();
    QCOMPARE(notes.size(), 2);
    // Counts as the locale writes them ("2,970" in English).
    const QRegularExpression tokensNote(QStringLiteral("^… and (\\S+) more tokens$"));
    const QRegularExpression padsNote(QStringLiteral("^… and (\\S+) more (?:\\[PAD\\]|tokens, (\\S+) of them \\[PAD\\])$"));
    const auto count = [](const QString& n) {
      bool ok = false;
      const int v = QLocale().toInt(n, &ok);
      return ok ? v : -1;
    };
    const auto first = tokensNote.match(notes[0]), second = padsNote.match(notes[1]);
    QVERIFY2(first.hasMatch(), qPrintable(notes[0]));
    QVERIFY2(second.hasMatch(), qPrintable(notes[1]));
    const int hidden0 = count(first.captured(1)), hidden1 = count(second.captured(1));
    QVERIFY(hidden0 > 2000 && hidden1 > 2000);
    QCOMPARE(chips->shownChips() + hidden0 + hidden1, 6000);
    const int hiddenPads = second.captured(2).isEmpty() ? hidden1 : count(second.captured(2));
    QVERIFY(hiddenPads > 0 && hiddenPads < 2997);  // some [PAD] chips are drawn, dashed as ever
    // The knobs: d_model within the first screenful of the panel, nothing to scroll to reach it.
    const int bottom = in->dModelBox()->mapTo(in, QPoint(0, in->dModelBox()->height())).y();
    QVERIFY2(bottom <= scroll->viewport()->height(),
             qPrintable(QStringLiteral("d_model ends at %1 px, the panel shows %2 px").arg(bottom).arg(scroll->viewport()->height())));
    QVERIFY2(in->height() < 2 * scroll->viewport()->height(), qPrintable(QString::number(in->height())));
    QDir().mkpath(QStringLiteral(ATTNLAB_SCREENSHOT_DIR));
    scroll->grab().save(QStringLiteral(ATTNLAB_SCREENSHOT_DIR "/tokens-3000.png"));
    settle(*w_);
    QCOMPARE(w_->controller()->current()->batch.text.seq(), int64_t{3000});
  }

  void headsThatDoNotDivideAreExplainedNotComputed() {
    QSignalSpy requests(w_->inputs(), &InputPanel::requestChanged);
    const auto before = w_->controller()->current();
    QSpinBox* heads = w_->inputs()->headsBox();
    heads->setFocus();
    heads->selectAll();
    QTest::keyClicks(heads, QStringLiteral("7"));
    QCOMPARE(heads->value(), 7);
    QVERIFY(w_->inputs()->explanationLabel()->isVisibleTo(w_.get()));
    QVERIFY(w_->inputs()->explanationLabel()->text().contains(QStringLiteral("7 heads")));
    QVERIFY(w_->inputs()->explanationLabel()->text().contains(QStringLiteral("64")));
    QTest::qWait(400);
    QCOMPARE(requests.count(), 0);
    QCOMPARE(w_->controller()->current(), before);

    heads->selectAll();
    QTest::keyClicks(heads, QStringLiteral("4"));
    QVERIFY(!w_->inputs()->explanationLabel()->isVisibleTo(w_.get()));
    settle(*w_);
    QCOMPARE(requests.count(), 1);
    QCOMPARE(w_->controller()->current()->cfg.heads, 4);
  }

  void keyboardSteppingAndTitles() {
    auto* tree = w_->navigator()->tree();
    tree->setFocus();
    QTest::keyClick(w_.get(), Qt::Key_Home);
    QCOMPARE(w_->navigator()->current(), 0);
    QTest::keyClick(tree, Qt::Key_Right);
    QCOMPARE(w_->navigator()->current(), 1);
    QTest::keyClick(tree, Qt::Key_Left);
    QCOMPARE(w_->navigator()->current(), 0);
    QTest::keyClick(tree, Qt::Key_PageDown);  // to the first step of encoder layer 0
    const auto r = w_->controller()->current();
    // The step list's groups: the stack's input, then its layers counted from 0, as in the ids.
    QCOMPARE(tree->topLevelItem(0)->text(0), QStringLiteral("Encoder"));
    QCOMPARE(tree->topLevelItem(1)->text(0), QStringLiteral("Encoder · layer 0"));
    QCOMPARE(r->trace.steps()[static_cast<size_t>(w_->navigator()->current())].info.id,
             std::string("encoder.layers.0.norm1"));
    QTest::keyClick(tree, Qt::Key_End);
    QCOMPARE(w_->navigator()->current(), w_->navigator()->count() - 1);

    const int scores = indexOf(*w_, "encoder.layers.0.self_attn.scores");
    w_->navigator()->setCurrent(scores);
    const QString loc = w_->stepPanel()->locationText();
    // Layers count from 0, as the step ids: "encoder.layers.0…" is "Layer 0".
    QVERIFY2(loc.startsWith(QStringLiteral("Layer 0 · Self-attention · ")) && loc.contains(QStringLiteral("√d_head")),
             qPrintable(loc));
    QVERIFY(w_->stepPanel()->codeText().contains(QStringLiteral("math.sqrt(8)")));
  }

  void headSplitShowsShapesAndContiguity() {
    w_->navigator()->setCurrent(indexOf(*w_, "encoder.layers.0.self_attn.q"));
    const QStringList boxes = w_->stepPanel()->diagram()->boxTexts();
    const QString all = boxes.join(QLatin1Char('\n'));
    QVERIFY2(all.contains(QStringLiteral("H 8")) && all.contains(QStringLiteral("Dh 8")), qPrintable(all));
    // Its values: the head spin box counts from 0 (8 heads: 0 … 7) and the caption names that head.
    TensorView* values = w_->stepPanel()->values();
    QCOMPARE(values->headBox()->minimum(), 0);
    QCOMPARE(values->headBox()->maximum(), 7);
    values->headBox()->setValue(0);
    const QString head0 = QStringLiteral("Sentence %1, head 0, ").arg(w_->stepPanel()->selection().batch);
    QVERIFY2(values->captionText().startsWith(head0), qPrintable(values->captionText()));
    values->headBox()->setValue(7);
    QVERIFY2(values->captionText().contains(QStringLiteral(", head 7, ")), qPrintable(values->captionText()));
    QVERIFY2(w_->stepPanel()->diagram()->moveText().contains(QStringLiteral("transpose")),
             qPrintable(w_->stepPanel()->diagram()->moveText()));
    QVERIFY(!w_->stepPanel()->changeText().isEmpty());
  }

  void attentionStepShowsHeadsAndEnlarges() {
    const int idx = indexOf(*w_, "encoder.layers.0.self_attn.weights");
    w_->navigator()->setCurrent(idx);
    QVERIFY(w_->stepPanel()->showingHeatmaps());
    HeatmapGrid* grid = w_->stepPanel()->heatmaps();
    QCOMPARE(grid->headCount(), 8);
    const Tensor& t = w_->controller()->current()->trace.steps()[static_cast<size_t>(idx)].tensor;
    HeatmapView* head2 = grid->headView(2);
    for (int i = 0; i < head2->rows(); ++i)
      for (int j = 0; j < head2->cols(); ++j) QCOMPARE(head2->value(i, j), t.at({0, 2, i, j}));
    // Sentence 2 is padded: its [PAD] keys are hatched as masked and weigh exactly 0.
    w_->stepPanel()->setSentence(1);
    HeatmapView* padded = grid->headView(2);
    const int lastKey = padded->cols() - 1;
    QVERIFY(padded->cellMasked(0, lastKey));
    QCOMPARE(padded->value(0, lastKey), 0.0f);
    QVERIFY(!padded->cellMasked(0, 0));
    w_->stepPanel()->setSentence(0);
    head2 = grid->headView(2);
    QSignalSpy enlarged(grid, &HeatmapGrid::headEnlarged);
    QTest::mouseClick(head2, Qt::LeftButton, {}, head2->cellRect(0, 0).center().toPoint());
    QCOMPARE(grid->enlargedHead(), 2);
    QCOMPARE(enlarged.count(), 1);
  }

  void sameStepIsKeptWhenTheConfigurationChanges() {
    w_->navigator()->setCurrent(indexOf(*w_, "encoder.layers.0.ffn.hidden"));
    QSpinBox* seed = w_->inputs()->seedBox();
    seed->setValue(seed->value() + 1);
    settle(*w_);
    const auto r = w_->controller()->current();
    QCOMPARE(r->cfg.seed, 1u);
    QCOMPARE(r->trace.steps()[static_cast<size_t>(w_->navigator()->current())].info.id,
             std::string("encoder.layers.0.ffn.hidden"));
  }

  void crossAttentionFromTheSampleMenu() {
    const int translation = w_->inputs()->sampleNames().indexOf(QStringLiteral("Translation (cross-attention)"));
    QVERIFY(translation >= 0);
    w_->inputs()->loadSample(translation);
    settle(*w_);
    const auto r = w_->controller()->current();
    QVERIFY(r->cfg.cross);
    const int idx = indexOf(*w_, "decoder.layers.0.multihead_attn.weights");
    QVERIFY(idx >= 0);
    w_->navigator()->setCurrent(idx);
    QVERIFY(w_->stepPanel()->locationText().contains(QStringLiteral("Cross-attention")));
    HeatmapView* head0 = w_->stepPanel()->heatmaps()->headView(0);
    QCOMPARE(head0->rows(), static_cast<int>(r->batch.text.seq()));    // decoder tokens (T)
    QCOMPARE(head0->cols(), static_cast<int>(r->batch.memory.seq()));  // source tokens (S)
  }

  void copyHeatmapAndSwitchColours() {
    w_->navigator()->setCurrent(indexOf(*w_, "encoder.layers.0.self_attn.weights"));
    // The second sentence is sentence 1: sentences count from 0 in the chooser and the status bar.
    auto* chooser = w_->stepPanel()->findChild<QComboBox*>(QStringLiteral("sentence"));
    QVERIFY(chooser && chooser->count() > 1);
    chooser->setCurrentIndex(1);
    QCOMPARE(w_->stepPanel()->selection().batch, 1);
    QVERIFY2(chooser->itemText(1).startsWith(QStringLiteral("1: ")), qPrintable(chooser->itemText(1)));
    QGuiApplication::clipboard()->clear();
    QTest::keyClick(w_.get(), Qt::Key_C, Qt::ControlModifier | Qt::ShiftModifier);
    const QImage copied = QGuiApplication::clipboard()->image();
    QVERIFY(!copied.isNull());
    QVERIFY(copied.width() > 200 && copied.height() > 200);
    const int enlarged = w_->stepPanel()->heatmaps()->enlargedHead();
    const QString said = QStringLiteral("Copied head %1 of sentence 1 to the clipboard.")
                             .arg(enlarged >= 0 ? enlarged : w_->stepPanel()->selection().head);
    bool shown = false;
    for (QLabel* l : w_->statusBar()->findChildren<QLabel*>()) shown = shown || l->text() == said;
    QVERIFY2(shown, qPrintable(said));

    QAction* cividis = nullptr;
    for (QAction* a : w_->findChildren<QAction*>())
      if (a->text() == colorSchemeName(ColorScheme::Cividis)) cividis = a;
    QVERIFY(cividis);
    const QImage before = w_->stepPanel()->heatmaps()->headView(0)->grab().toImage();
    cividis->trigger();
    QCOMPARE(colorScheme(), ColorScheme::Cividis);
    QCoreApplication::processEvents();
    const QImage after = w_->stepPanel()->heatmaps()->headView(0)->grab().toImage();
    QVERIFY(before != after);  // the maps were repainted with the colour-blind-safe scheme
    setColorScheme(ColorScheme::Viridis);
  }

  void viewTabsFollowTheSelection() {
    // Two layers, so the model view has more than one row to jump between.
    auto* layers = w_->inputs()->layersBox();
    layers->setValue(2);
    settle(*w_);
    w_->navigator()->setCurrent(indexOf(*w_, "encoder.layers.0.norm1"));
    QTabWidget* tabs = w_->stepPanel()->tabs();
    tabs->setCurrentIndex(StepPanel::ModelTab);
    ModelView* model = w_->stepPanel()->model();
    QCOMPARE(model->thumbnailCount(), 2 * 8);
    // The rows are labelled by layer from 0, as the ids and the location line.
    QCOMPARE(ModelView::blockName("encoder.layers.0.self_attn"), QStringLiteral("Encoder layer 0 · Self-attention"));
    QCOMPARE(ModelView::blockName("encoder.layers.1.self_attn"), QStringLiteral("Encoder layer 1 · Self-attention"));
    const QRect thumb = model->thumbnailRect(1, 3);  // layer 1, head 3
    QTest::mouseClick(model, Qt::LeftButton, {}, thumb.center());
    const auto r = w_->controller()->current();
    QCOMPARE(r->trace.steps()[static_cast<size_t>(w_->navigator()->current())].info.id,
             std::string("encoder.layers.1.self_attn.weights"));
    QCOMPARE(w_->stepPanel()->selection().head, 3);
    const QString loc = w_->stepPanel()->locationText();
    QVERIFY2(loc.startsWith(QStringLiteral("Layer 1 · Self-attention · ")), qPrintable(loc));
    tabs->setCurrentIndex(StepPanel::NeuronTab);
    QCOMPARE(w_->stepPanel()->neuron()->rows(), static_cast<int>(r->batch.text.seq()));
    tabs->setCurrentIndex(StepPanel::ChartsTab);
    QCOMPARE(w_->stepPanel()->charts()->entropyBars().size(), 8);
  }

  void anyViewExportsAsPngAndSvg() {
    w_->navigator()->setCurrent(indexOf(*w_, "encoder.layers.0.self_attn.weights"));
    w_->stepPanel()->tabs()->setCurrentIndex(StepPanel::LinesTab);
    QCoreApplication::processEvents();
    QWidget* view = w_->currentView();
    QCOMPARE(view, static_cast<QWidget*>(w_->stepPanel()->lines()));
    QTemporaryDir dir;
    const QString png = dir.filePath(QStringLiteral("lines.png")), svg = dir.filePath(QStringLiteral("lines.svg"));
    QCOMPARE(saveWidgetPng(view, png, 2), QString());
    const QImage img(png);
    QCOMPARE(img.size(), view->size() * 2);
    QCOMPARE(saveWidgetSvg(view, svg), QString());
    QFile f(svg);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray xml = f.readAll();
    QVERIFY(xml.contains("<svg") && xml.contains("<text"));
    QVERIFY(xml.contains(">cat</text>"));  // the tokens stay text, not pixels
    QVERIFY(!saveWidgetPng(view, QStringLiteral("/proc/attnlab-no/x.png"), 1).isEmpty());
    QVERIFY(!QFile::exists(QStringLiteral("/proc/attnlab-no/x.png")));
  }

  // The backend knob: "Vulkan (any device)" computes on Vulkan (lavapipe in CI) and the numbers
  // stay within the spec's Vulkan-vs-CPU tolerance of the CPU's; the status bar says where.
  void backendKnobRunsOnVulkan() {
    if (!vulkan_compiled_in()) QSKIP("built without the Vulkan compute path");
    const auto cpu = w_->controller()->current();
    QCOMPARE(cpu->backend, QStringLiteral("cpu"));
    w_->inputs()->backendBox()->setCurrentIndex(2);
    settle(*w_);
    const auto r = w_->controller()->current();
    if (r->backend != QLatin1String("vulkan")) QSKIP("no usable Vulkan device on this machine");
    QVERIFY(!r->device.isEmpty());
    QVERIFY2(w_->statusBar()->findChild<QLabel*>()->text().contains(QStringLiteral("Vulkan on")),
             qPrintable(w_->statusBar()->findChild<QLabel*>()->text()));
    const auto& want = cpu->trace.steps();
    QCOMPARE(r->trace.steps().size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      const auto x = r->trace.steps()[i].tensor.to_vector(), y = want[i].tensor.to_vector();
      for (size_t j = 0; j < y.size(); ++j)
        if (!std::isnan(y[j]) && !std::isinf(y[j]))
          QVERIFY2(std::abs(x[j] - y[j]) <= 1e-4 + 1e-3 * std::abs(y[j]), want[i].info.id.c_str());
    }
    w_->inputs()->backendBox()->setCurrentIndex(0);  // back to the CPU for the tests after
    settle(*w_);
  }

  // A run that takes more than a moment shows a progress bar counting steps and a Cancel
  // button; Cancel stops it at its next step, the previous result stays, the status bar says so.
  void longRunShowsProgressAndCancels() {
    const auto before = w_->controller()->current();
    QSignalSpy progress(w_->controller(), &Controller::progress);
    QSignalSpy cancelled(w_->controller(), &Controller::cancelled);
    QStringList words;
    for (int i = 0; i < 800; ++i) words << QStringLiteral("w%1").arg(i % 97);
    w_->inputs()->layersBox()->setValue(12);  // the knob's largest
    w_->inputs()->dModelBox()->setValue(512);
    w_->inputs()->sentencesEdit()->setPlainText(words.join(' '));
    auto* bar = w_->statusBar()->findChild<QProgressBar*>(QStringLiteral("progress"));
    auto* cancel = w_->statusBar()->findChild<QToolButton*>(QStringLiteral("cancelComputation"));
    QVERIFY(bar && cancel);
    QTRY_VERIFY_WITH_TIMEOUT(cancel->isVisible(), 20000);
    QTRY_VERIFY_WITH_TIMEOUT(bar->maximum() > 0 && bar->text().contains(QStringLiteral("step")), 20000);
    QVERIFY(!progress.isEmpty());
    const qint64 total = progress.last().at(1).toLongLong();
    ModelConfig asked = before->cfg;
    asked.layers = 12;
    asked.d_model = 512;
    QCOMPARE(total, count_steps(asked));
    QTest::mouseClick(cancel, Qt::LeftButton);
    w_->controller()->waitForIdle();
    QCoreApplication::processEvents();
    QCOMPARE(cancelled.count(), 1);
    QCOMPARE(w_->controller()->current(), before);
    QVERIFY(!cancel->isVisible());
    QVERIFY2(w_->statusBar()->findChild<QLabel*>()->text().contains(QStringLiteral("Cancelled")),
             qPrintable(w_->statusBar()->findChild<QLabel*>()->text()));
  }

  // A text over the memory budget is not computed; the window offers the tiled path, whose run
  // keeps no score tensor and shows the weights as overview heatmaps (block means).
  void overBudgetOffersTheTiledPath() {
    w_->inputs()->budgetBox()->setValue(64);
    settle(*w_);
    const auto before = w_->controller()->current();
    QStringList words;
    for (int i = 0; i < 600; ++i) words << QStringLiteral("w%1").arg(i % 89);
    w_->inputs()->layersBox()->setValue(2);
    w_->inputs()->sentencesEdit()->setPlainText(words.join(' '));
    settle(*w_);
    QCOMPARE(w_->controller()->current(), before);
    QMessageBox* offer = nullptr;
    QTRY_VERIFY((offer = w_->findChild<QMessageBox*>(QStringLiteral("overBudgetOffer"))) && offer->isVisible());
    QVERIFY2(offer->text().contains(QStringLiteral("64 MiB")), qPrintable(offer->text()));
    auto* tiled = offer->findChild<QPushButton*>(QStringLiteral("computeTiled"));
    QVERIFY(tiled);
    QTest::mouseClick(tiled, Qt::LeftButton);
    QCOMPARE(w_->inputs()->attentionBox()->currentIndex(), 1);
    settle(*w_);
    const auto r = w_->controller()->current();
    QVERIFY(r != before);
    QCOMPARE(r->cfg.overview_cap, kOverviewCap);
    QVERIFY(r->trace.find("encoder.layers.0.self_attn.scores") == nullptr);
    const int idx = indexOf(*w_, "encoder.layers.1.self_attn.weights_overview");
    QVERIFY(idx >= 0);
    QCOMPARE(r->trace.steps()[size_t(idx)].tensor.shape(), (Shape{1, 8, 200, 200}));  // 600 tokens in bins of 3
    w_->navigator()->setCurrent(idx);
    QVERIFY(w_->stepPanel()->showingHeatmaps());
    QCOMPARE(w_->stepPanel()->heatmaps()->headCount(), 8);
    QCOMPARE(w_->stepPanel()->heatmaps()->headView(0)->rows(), 200);
    QDir().mkpath(QStringLiteral(ATTNLAB_SCREENSHOT_DIR));
    w_->grab().save(QStringLiteral(ATTNLAB_SCREENSHOT_DIR "/tiled-overview.png"));

    // "full scores in: layer 1" (shown with tiled only): that layer's heads cell by cell, the
    // other layer still the overview
    FullLayerBox* full = w_->inputs()->fullLayerBox();
    QVERIFY(full->isVisibleTo(w_.get()));
    QCOMPARE(full->count(), 3);  // no layer, layer 0, layer 1
    w_->inputs()->budgetBox()->setValue(256);
    full->setCurrentIndex(2);
    settle(*w_);
    const auto m = w_->controller()->current();
    QVERIFY(m->cfg.full_layers == (std::vector<int64_t>{1}));
    QVERIFY(m->trace.find("encoder.layers.0.self_attn.weights_overview"));
    QVERIFY(!m->trace.find("encoder.layers.1.self_attn.weights_overview"));
    const int cells = indexOf(*w_, "encoder.layers.1.self_attn.weights");
    QVERIFY(cells >= 0);
    w_->navigator()->setCurrent(cells);
    QVERIFY(w_->stepPanel()->showingHeatmaps());
    QCOMPARE(w_->stepPanel()->heatmaps()->headView(0)->rows(), 600);
    w_->grab().save(QStringLiteral(ATTNLAB_SCREENSHOT_DIR "/tiled-full-layer.png"));
    w_->inputs()->grab().save(QStringLiteral(ATTNLAB_SCREENSHOT_DIR "/tiled-full-layer-knobs.png"));

    // the layer in full is what passes the budget: the offer is every layer tiled again
    w_->inputs()->budgetBox()->setValue(64);
    settle(*w_);
    QCOMPARE(w_->controller()->current(), m);
    QTRY_VERIFY((offer = w_->findChild<QMessageBox*>(QStringLiteral("overBudgetOffer"))) && offer->isVisible());
    QVERIFY2(offer->text().contains(QStringLiteral("layer 1's score tensors")), qPrintable(offer->text()));
    QCOMPARE(offer->findChild<QPushButton*>(QStringLiteral("computeTiled"))->text(), QStringLiteral("Tile every layer"));
    QTest::mouseClick(offer->findChild<QPushButton*>(QStringLiteral("computeTiled")), Qt::LeftButton);
    settle(*w_);
    QCOMPARE(full->currentIndex(), 0);
    QVERIFY(w_->controller()->current()->cfg.full_layers.empty());
    QVERIFY(w_->controller()->current()->trace.find("encoder.layers.1.self_attn.weights_overview"));
    full->setCurrentIndex(2);
    settle(*w_);  // over the budget again: the last result stays
    w_->inputs()->layersBox()->setValue(1);  // layer 1 is gone: none is kept in full
    settle(*w_);
    QCOMPARE(full->currentIndex(), 0);
    QVERIFY(w_->controller()->current()->cfg.layers == 1 && w_->controller()->current()->cfg.full_layers.empty());
    w_->inputs()->attentionBox()->setCurrentIndex(0);
    QVERIFY(!full->isVisibleTo(w_.get()));
  }

  // A session (or the command line) may keep several layers in full; the window keeps them as one
  // more item of "full scores in:" instead of opening with the first alone, and saves them back.
  void aSessionWithTwoFullLayersOpensWithBoth() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("two-full.attnlab"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"format": "attnlab-session", "version": 1, "texts": ["a b c d e f g h"],
      "config": {"d_model": 16, "heads": 2, "d_ff": 32, "layers": 3, "overview_cap": 256, "full_layers": [0, 2]}})");
    f.close();
    QCOMPARE(w_->openSession(path, false), QString());
    settle(*w_);
    FullLayerBox* full = w_->inputs()->fullLayerBox();
    QCOMPARE(full->count(), 5);  // no layer, layers 0 … 2, the session's list
    QCOMPARE(full->currentText(), QStringLiteral("layers 0, 2"));
    const auto r = w_->controller()->current();
    QVERIFY(r->cfg.full_layers == (std::vector<int64_t>{0, 2}));
    QVERIFY(!r->trace.find("encoder.layers.0.self_attn.weights_overview"));
    QVERIFY(r->trace.find("encoder.layers.1.self_attn.weights_overview"));
    QVERIFY(!r->trace.find("encoder.layers.2.self_attn.weights_overview"));
    const QString saved = dir.filePath(QStringLiteral("saved.attnlab"));
    QCOMPARE(w_->saveSession(saved), QString());
    QFile back(saved);
    QVERIFY(back.open(QIODevice::ReadOnly));
    QVERIFY2(QString::fromUtf8(back.readAll()).remove(QRegularExpression(QStringLiteral("\\s"))).contains(
                 QStringLiteral("\"full_layers\":[0,2]")), "the saved session keeps both layers");
    full->setCurrentIndex(2);  // layer 1 alone; the list stays offered
    QVERIFY(full->layers() == (std::vector<int64_t>{1}));
    full->setCurrentIndex(4);
    QVERIFY(full->layers() == (std::vector<int64_t>{0, 2}));
    full->setLayerCount(2);  // layer 2 is gone: so is the list, and none is chosen
    QCOMPARE(full->count(), 3);
    QVERIFY(full->layers().empty());
    QVERIFY(layerListFrom(QStringLiteral("0, 2"), 3) == (std::vector<int64_t>{0, 2}));
    for (const char* bad : {"2, 0", "0, 0", "0, 3", "x", "-1"})
      QVERIFY2(layerListFrom(QString::fromLatin1(bad), 3).empty(), bad);
  }

  void zoomScalesTheText() {
    const qreal before = w_->font().pointSizeF();
    QTest::keyClick(w_.get(), Qt::Key_Equal, Qt::ControlModifier);
    QVERIFY(w_->font().pointSizeF() > before * 1.1);
    QTest::keyClick(w_.get(), Qt::Key_0, Qt::ControlModifier);
    QCOMPARE(w_->font().pointSizeF(), before);
  }

  // Renders the window at two sizes; each picture must be far from blank, and is kept for a look.
  void screenshotsAtTwoSizes() {
    QDir().mkpath(QStringLiteral(ATTNLAB_SCREENSHOT_DIR));
    w_->navigator()->setCurrent(indexOf(*w_, "encoder.layers.0.self_attn.weights"));
    for (const QSize size : {QSize(1280, 800), QSize(1920, 1080)}) {
      w_->resize(size);
      QTest::qWait(50);
      const QImage img = w_->grab().toImage();
      QCOMPARE(img.size(), size * img.devicePixelRatio());
      QSet<QRgb> colours;
      for (int y = 0; y < img.height(); y += 7)
        for (int x = 0; x < img.width(); x += 7) colours.insert(img.pixel(x, y));
      QVERIFY2(colours.size() > 50, "the window looks blank");
      // Nothing clipped: the step panel fits its width (no sideways scrolling), the shape diagram
      // gets at least the room it asks for, and the input panel is not squeezed below its minimum.
      QVERIFY(w_->stepPanel()->width() >= 560);  // the centre never goes below 560 px
      QVERIFY(w_->stepPanel()->diagram()->width() >= w_->stepPanel()->diagram()->minimumSizeHint().width());
      QVERIFY(w_->inputs()->parentWidget()->width() >= w_->inputs()->minimumSizeHint().width());
      QVERIFY(!w_->stepPanel()->locationText().isEmpty());
      QVERIFY(img.save(QStringLiteral(ATTNLAB_SCREENSHOT_DIR "/mainwindow-%1x%2.png").arg(size.width()).arg(size.height())));
    }
  }

  // Every dock can be closed, so every dock can be reopened from View; Ctrl+E only ever brings
  // the exercises forward; Help has the guide and an About box.
  void everyPanelComesBackAndHelpSaysWhatThisIs() {
    QMenu* view = nullptr;
    for (QAction* a : w_->menuBar()->actions())
      if (a->menu() && a->text().remove(QLatin1Char('&')) == QLatin1String("View")) view = a->menu();
    QVERIFY(view);
    const auto docks = w_->findChildren<QDockWidget*>();
    QVERIFY(docks.size() >= 5);
    for (QDockWidget* d : docks) {
      QVERIFY2(view->actions().contains(d->toggleViewAction()), qPrintable(d->objectName()));
      d->close();
      d->toggleViewAction()->trigger();
      QVERIFY2(d->isVisible(), qPrintable(d->objectName()));
    }
    QAction* exercises = w_->findChild<QAction*>(QStringLiteral("showExercisesAction"));
    QVERIFY(exercises);
    QCOMPARE(exercises->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_E));
    w_->exerciseDock()->hide();
    for (int i = 0; i < 2; ++i) {  // twice: never a toggle that hides them again
      exercises->trigger();
      QVERIFY(w_->exerciseDock()->isVisible());
    }
    QString text;
    test::acceptNextMessage(&text);
    w_->findChild<QAction*>(QStringLiteral("aboutAction"))->trigger();
    QVERIFY2(text.contains(QStringLiteral(ATTNLAB_VERSION)) && text.contains(QStringLiteral("Qt")), qPrintable(text));
    test::acceptNextMessage(&text);  // a test binary has no guide beside it: the box says where it is
    w_->findChild<QAction*>(QStringLiteral("guideAction"))->trigger();
    QVERIFY2(text.contains(QStringLiteral("docs/guide.md")), qPrintable(text));
  }

  // Inputs that cannot run leave the last result on show, marked as such over the step with its
  // own sizes, and the reason under the knobs in view; a result that can run clears the mark.
  void aConfigurationThatCannotRunMarksTheLastResultStale() {
    QVERIFY(w_->stepPanel()->staleNote().isEmpty());
    QCOMPARE(w_->controller()->current()->cfg.heads, 8);
    w_->inputs()->headsBox()->setValue(7);  // 7 does not divide d_model 64
    QCoreApplication::processEvents();
    const QString note = w_->stepPanel()->staleNote();
    QVERIFY2(note.contains(QStringLiteral("heads 8")) && note.contains(QStringLiteral("d_model 64")), qPrintable(note));
    auto* why = w_->inputs()->findChild<QLabel*>(QStringLiteral("explanation"));
    QVERIFY(why && why->isVisible() && why->text().contains(QStringLiteral("7 heads")));
    test::settle(*w_);
    QCOMPARE(w_->controller()->current()->cfg.heads, 8);  // nothing recomputed meanwhile
    QVERIFY(!w_->stepPanel()->staleNote().isEmpty());
    w_->inputs()->headsBox()->setValue(4);
    test::settle(*w_);
    QCOMPARE(w_->controller()->current()->cfg.heads, 4);
    QVERIFY(w_->stepPanel()->staleNote().isEmpty());
  }

  // In cross mode the encoder reads the source: its steps' sentence chooser says "Source" and
  // lists the source sentences; the decoder's steps list the sentences themselves.
  void encoderStepsOfCrossAttentionNameTheSource() {
    w_->inputs()->crossBox()->setChecked(true);
    w_->inputs()->sourceEdit()->setPlainText(QStringLiteral("le chat dort"));
    w_->inputs()->sentencesEdit()->setPlainText(QStringLiteral("the cat sleeps"));
    test::settle(*w_);
    const auto r = w_->controller()->current();
    QVERIFY(r && r->batch.cross());
    auto* label = w_->stepPanel()->findChild<QLabel*>(QStringLiteral("sentenceLabel"));
    auto* chooser = w_->stepPanel()->findChild<QComboBox*>(QStringLiteral("sentence"));
    QVERIFY(label && chooser);
    w_->navigator()->setCurrent(r->indexOf("encoder.layers.0.self_attn.weights"));
    QCOMPARE(label->text(), QStringLiteral("Source sentence:"));
    QVERIFY2(chooser->itemText(0).contains(QStringLiteral("chat")), qPrintable(chooser->itemText(0)));
    w_->navigator()->setCurrent(r->indexOf("decoder.layers.0.self_attn.weights"));
    QCOMPARE(label->text(), QStringLiteral("Sentence:"));
    QVERIFY2(chooser->itemText(0).contains(QStringLiteral("cat")) && !chooser->itemText(0).contains(QStringLiteral("chat")),
             qPrintable(chooser->itemText(0)));
  }
};

QTEST_MAIN(TestMainWindow)
#include "test_mainwindow.moc"
