// Not a test: makes the user guide's screenshots (docs/images/guide-*.png) in English and
// Chinese, from the same states a learner reaches by clicking. Run under the offscreen platform:
//   QT_QPA_PLATFORM=offscreen build/dev/tests/ui/doc_screenshots docs/images
#include <QApplication>
#include <QDir>
#include <QListWidget>
#include <QSettings>
#include <QStandardPaths>
#include <QTest>

#include <QComboBox>
#include <QAction>
#include <QDockWidget>
#include <QScrollArea>
#include <QTableWidget>

#include "input/inputpanel.h"
#include "views/explainpanel.h"
#include "views/headknockout.h"
#include "views/lenspanel.h"
#include "lessons/guidedtour.h"
#include "lessons/samplegallery.h"
#include "step/stepnavigator.h"
#include "window/mainwindow.h"
#include "windowfixture.h"
#include "words/language.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

bool shoot(QWidget* w, const QString& path) {
  const bool ok = w->grab().save(path);
  std::printf("%s %s\n", ok ? "wrote" : "FAILED", qPrintable(path));
  return ok;
}

bool goTo(MainWindow& w, const std::string& id) {
  const int i = w.controller()->current()->indexOf(id);
  if (i < 0) return false;
  w.navigator()->setCurrent(i);
  QCoreApplication::processEvents();
  return true;
}

bool shootLanguage(const QString& dir, const QString& lang) {
  Language::apply(lang == QLatin1String("zh") ? UiLanguage::Chinese : UiLanguage::English);
  QSettings().setValue(QStringLiteral("exerciseLanguage"), lang);
  auto w = test::openWindow(QStringLiteral("doc-") + lang);
  if (!w) return false;
  const auto name = [&](const char* what) { return dir + QStringLiteral("/guide-%1-%2.png").arg(QLatin1String(what), lang); };
  bool ok = goTo(*w, "encoder.layers.0.self_attn.weights") && shoot(w.get(), name("heatmaps"));
  ok = ok && goTo(*w, "encoder.layers.0.self_attn.q_view") && shoot(w.get(), name("shapes"));
  auto* gallery = new SampleGallery(w.get());
  gallery->list()->setCurrentRow(3);
  gallery->show();
  QTest::qWait(50);
  ok = ok && shoot(gallery, name("gallery"));
  gallery->close();
  // an attention variant: the sliding window beside layer 0, its dock given most of the right side
  QComboBox* variant = w->inputs()->variantBox();
  variant->setCurrentIndex(variant->findData(QStringLiteral("window")));
  test::settle(*w);
  if (auto* inputDock = w->findChild<QDockWidget*>(QStringLiteral("inputDock"))) {
    w->resizeDocks({inputDock, w->variantDock()}, {140, 760}, Qt::Vertical);
    w->resizeDocks({w->variantDock()}, {520}, Qt::Horizontal);
  }
  QTest::qWait(50);
  ok = ok && goTo(*w, "encoder.layers.0.variant.window.weights") && shoot(w.get(), name("variants"));
  variant->setCurrentIndex(0);
  test::settle(*w);
  // a trained model: the English one's layer-2 heads and its predictions
  QComboBox* model = w->inputs()->modelBox();
  const int english = model->findData(QStringLiteral(":/models/english-next-word.safetensors"));
  ok = ok && english > 0;
  if (ok) {
    model->setCurrentIndex(english);
    emit model->activated(english);
    test::settle(*w);
    ok = goTo(*w, "encoder.layers.1.self_attn.weights") && shoot(w.get(), name("models"));
    // which tokens mattered: the Explanations panel beside the inputs, at the projector's 1024 × 768
    w->resize(1024, 768);
    QTest::qWait(50);
    w->explainDock()->toggleViewAction()->trigger();  // as View ▸ Explanations panel does it
    QTest::qWait(50);
    // The right-hand docks 440 px wide, as the window gives them on an idle machine: on a busy
    // one the layout could settle with them narrow and the panel scrolled sideways.
    w->resizeDocks({w->explainDock()}, {440}, Qt::Horizontal);
    QTest::qWait(50);
    w->explanations()->waitForIdle();
    QTest::qWait(50);
    ok = ok && shoot(w.get(), name("explain"));
    // the heads as buttons, each with its effect on the next-token loss, scrolled into view
    auto* gradients = w->inputs()->findChild<QComboBox*>(QStringLiteral("gradients"));
    ok = ok && gradients;
    if (ok) {
      gradients->setCurrentIndex(2);  // next token (trained model), in either language
      test::settle(*w);
      w->explanations()->waitForIdle();
      if (auto* area = qobject_cast<QScrollArea*>(w->explainDock()->widget()))
        area->ensureWidgetVisible(w->explanations()->knockout());
      QTest::qWait(50);
      ok = shoot(w.get(), name("knockout"));
      gradients->setCurrentIndex(0);
      test::settle(*w);
    }
    w->explainDock()->hide();
    // what each layer would predict: the Logit lens tab beside the predictions, on the induction
    // model, whose answer appears only after its second layer
    ok = ok && test::chooseShippedModel(*w, QStringLiteral("induction-letters.safetensors"));
    w->inputs()->sentencesEdit()->setPlainText(QStringLiteral("q w e r t y q w e r t y"));
    test::settle(*w);
    w->lensDock()->toggleViewAction()->trigger();  // as View ▸ Logit lens panel does it
    QTest::qWait(50);
    w->logitLens()->waitForIdle();
    w->logitLens()->table()->scrollToBottom();  // the second copy, where the answers form
    QTest::qWait(50);
    ok = ok && shoot(w.get(), name("lens"));
    w->lensDock()->hide();
    w->resize(1400, 900);
    model->setCurrentIndex(0);
    emit model->activated(0);
    test::settle(*w);
  }
  GuidedTour* tour = w->startTour();
  for (int i = 0; i < 5; ++i) tour->next();  // the shapes stop
  QTest::qWait(50);
  ok = ok && shoot(w.get(), name("tour"));
  tour->end();
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: doc_screenshots OUTPUT_FOLDER\n");
    return 2;
  }
  test::isolateSettings();
  const QString dir = QString::fromLocal8Bit(argv[1]);
  QDir().mkpath(dir);
  const bool ok = shootLanguage(dir, QStringLiteral("en")) && shootLanguage(dir, QStringLiteral("zh"));
  return ok ? 0 : 1;
}
