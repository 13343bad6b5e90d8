#include "window/mainwindow.h"

#include <QAbstractSpinBox>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QFileInfo>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QStatusBar>
#include <QTabBar>

#include "input/fulllayerbox.h"
#include "input/inputpanel.h"
#include "input/weightsimport.h"
#include "io/files.h"
#include "lessons/guidedtour.h"
#include "step/stepnavigator.h"
#include "step/steppanel.h"
#include "text/tokenizer.h"
#include "views/colormap.h"
#include "views/heatmapgrid.h"
#include "views/continuebox.h"
#include "views/explainpanel.h"
#include "views/lenspanel.h"
#include "views/predictionspanel.h"
#include "views/variantpanel.h"
#include "window/generation.h"
#include "traininglab/trainingpanel.h"
#include "window/busyindicator.h"
#include "window/dockfit.h"
#include "window/wheelguard.h"
#include "window/presenter.h"
#include "words/coretext.h"

namespace attnlab::ui {

// How long a note about the start (what the settings or the command line could not restore)
// stays in the status bar: the first results' status lines do not cover it.
constexpr int kStartupNoteMs = 30000;

namespace {

// A panel dock just shown on the right: 2/5 of the window's width (at least minWidth; the dock
// fitter keeps the step's minimum) and three quarters of the column's height, the inputs above it
// keeping a quarter.
void giveDockRoom(QMainWindow& w, QDockWidget* dock, int minWidth) {
  w.resizeDocks({dock}, {std::max(minWidth, w.width() * 2 / 5)}, Qt::Horizontal);
  if (auto* inputDock = w.findChild<QDockWidget*>(QStringLiteral("inputDock")); inputDock && !inputDock->isFloating())
    w.resizeDocks({inputDock, dock}, {w.height() / 4, w.height() * 3 / 4}, Qt::Vertical);
}

}  // namespace

MainWindow::MainWindow(const QString& settingsKey, QWidget* parent)
    : QMainWindow(parent), settingsKey_(settingsKey), controller_(new Controller(this)) {
  setWindowTitle(tr("Attention Lab"));
  baseFontPt_ = font().pointSizeF() > 0 ? font().pointSizeF() : 10;
  panel_ = new StepPanel;  // a screen, not a document: it fits the centre, nothing scrolls
  setCentralWidget(panel_);

  inputs_ = new InputPanel;
  auto* inputDock = new QDockWidget(tr("Input and model"), this);
  inputDock->setObjectName(QStringLiteral("inputDock"));
  auto* inputScroll = new QScrollArea;
  inputScroll->setWidget(inputs_);
  inputScroll->setWidgetResizable(true);
  inputScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);  // chips and labels wrap instead
  inputDock->setWidget(inputScroll);
  addDockWidget(Qt::RightDockWidgetArea, inputDock);

  navigator_ = new StepNavigator;
  auto* navDock = new QDockWidget(tr("Steps"), this);
  navDock->setObjectName(QStringLiteral("stepsDock"));
  navDock->setWidget(navigator_);
  addDockWidget(Qt::LeftDockWidgetArea, navDock);
  // Steps on the left, inputs on the right, the step itself gets the middle.
  resizeDocks({navDock, inputDock}, {260, 360}, Qt::Horizontal);
  fitter_ = new DockFitter(this, navDock, inputDock);
  buildExercises(inputDock);
  // A trained model's guesses, under the inputs (shown when the first trained result arrives).
  predictions_ = new PredictionsPanel;
  predictionsDock_ = addPanelDock(predictions_, tr("Predictions"), QStringLiteral("predictionsDock"));
  connect(predictions_, &PredictionsPanel::pieceDrawn, this, &MainWindow::appendDrawnPiece);
  // The logit lens, a tab beside the predictions (computed only while shown).
  lens_ = new LensPanel;
  lensDock_ = addPanelDock(lens_, tr("Logit lens"), QStringLiteral("lensDock"));
  connect(lensDock_->toggleViewAction(), &QAction::triggered, this, [this](bool on) {
    if (!on || lensDock_->isFloating()) return;
    if (!predictionsDock_->isHidden() && !predictionsDock_->isFloating()) tabifyDockWidget(predictionsDock_, lensDock_);
    lensDock_->raise();
    giveDockRoom(*this, lensDock_, 420);  // a few layers' columns
  });
  explain_ = new ExplainPanel;  // computed only while shown
  explainDock_ = addPanelDock(explain_, tr("Explanations"), QStringLiteral("explainDock"));
  connect(explain_, &ExplainPanel::headsChanged, this, [this](const std::vector<explain::HeadRef>& heads) {
    ablated_ = heads;
    send(inputs_->currentRequest());
  });
  connectHeadMenu();
  connect(explain_, &ExplainPanel::ablateModeChanged, this, [this](explain::AblateMode mode) {
    ablateMode_ = mode;
    send(inputs_->currentRequest());  // the heads out, and the head table, in the new mode
  });
  // Shown from the View menu: room for its table.
  connect(explainDock_->toggleViewAction(), &QAction::triggered, this, [this](bool on) {
    if (on && !explainDock_->isFloating()) giveDockRoom(*this, explainDock_, 440);
  });
  buildVariantDock();
  // The training lab (View ▸ Training panel): the model it trains is shown in the whole window.
  training_ = new TrainingPanel;
  trainingDock_ = addPanelDock(training_, tr("Training"), QStringLiteral("trainingDock"));
  // A tab beside the inputs, brought to the front when shown: the curves get the column's height.
  tabifyDockWidget(inputDock, trainingDock_);
  connect(trainingDock_->toggleViewAction(), &QAction::triggered, this, [this](bool on) {
    if (on) bringTrainingForward();
  });
  training_->setSentenceSource([this] {
    try {
      return inputs_->currentRequest().texts;
    } catch (const std::exception&) {  // a sentence being typed that cannot be used yet
      return QStringList();
    }
  });
  connect(training_, &TrainingPanel::modelChosen, this, [this](ImportedWeightsPtr m, bool withExamples) {
    inputs_->setImportedWeights(std::move(m), withExamples);
  });

  status_ = new QLabel;
  busy_ = new BusyIndicator;
  statusBar()->addWidget(status_, 1);
  statusBar()->addPermanentWidget(busy_);

  connect(inputs_, &InputPanel::requestChanged, this, &MainWindow::send);
  connect(inputs_, &InputPanel::importFileRequested, this, [this] {
    if (auto* a = findChild<QAction*>(QStringLiteral("importWeights"))) a->trigger();
  });
  connect(controller_, &Controller::resultReady, this, &MainWindow::showResult);
  connect(controller_, &Controller::failed, this, [this](const QString& msg) {
    pendingView_.reset();  // an opened session's view belongs to its own result only
    inputs_->setError(msg);
    status_->setText(tr("Not recomputed: %1").arg(msg));
    markStale(msg);
  });
  connect(inputs_, &InputPanel::problemChanged, this, [this](const QString& why) {
    if (!why.isEmpty()) markStale(tr("the inputs cannot run as they are; the note under the knobs says why."));
  });
  connect(controller_, &Controller::busyChanged, busy_, &BusyIndicator::setBusy);
  connect(controller_, &Controller::progress, busy_, &BusyIndicator::setProgress);
  connect(busy_, &BusyIndicator::cancelRequested, controller_, &Controller::cancel);
  connect(controller_, &Controller::overBudget, this, &MainWindow::offerTiled);
  connect(controller_, &Controller::cancelled, this, [this] {
    status_->setText(tr("Cancelled: the window still shows the previous result. Change an input to compute again."));
  });
  connect(navigator_, &StepNavigator::currentChanged, this, &MainWindow::showStep);
  connect(panel_, &StepPanel::stepRequested, this, [this](const QString& id) {
    if (const auto r = controller_->current()) navigator_->setCurrent(r->indexOf(id.toStdString()));
  });
  presenter_ = new PresenterMode(this);
  buildMenus();
  qApp->installEventFilter(this);
  WheelGuard::install();  // the wheel scrolls a scrolling panel, not its boxes (one guard per application)
  restoreSettings();
  nameDockTabs();
  send(inputs_->currentRequest());
}

MainWindow::~MainWindow() { qApp->removeEventFilter(this); }

// Over the memory budget: offer the tiled path (same outputs, overview heatmaps) when it fits,
// otherwise say what else to change. Non-modal: the window stays usable behind it.
void MainWindow::offerTiled(qint64 needBytes, qint64 tiledBytes, qint64 budgetMiB) {
  const auto mib = [](qint64 bytes) { return QString::number(double(bytes) / (1024.0 * 1024.0), 'f', 0); };
  auto* box = new QMessageBox(this);
  box->setObjectName(QStringLiteral("overBudgetOffer"));
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->setIcon(QMessageBox::Warning);
  box->setWindowTitle(tr("Over the memory budget"));
  // tiled already, one layer kept in full: that layer is what does not fit
  const std::vector<int64_t> full = inputs_->attentionBox()->currentIndex() == 1 ? inputs_->fullLayerBox()->layers()
                                                                                 : std::vector<int64_t>{};
  QString text = full.empty() ? tr("Keeping every score tensor of this text needs about %1 MiB, more than the memory "
                                   "budget of %2 MiB.").arg(mib(needBytes)).arg(budgetMiB)
                  : full.size() == 1 ? tr("Keeping layer %1's score tensors in full needs about %2 MiB, more than the "
                                          "memory budget of %3 MiB.").arg(full.front()).arg(mib(needBytes)).arg(budgetMiB)
                                     : tr("Keeping the score tensors of layers %1 in full needs about %2 MiB, more than "
                                          "the memory budget of %3 MiB.")
                                           .arg(layerList(full)).arg(mib(needBytes)).arg(budgetMiB);
  const bool fits = tiledBytes > 0 && tiledBytes <= budgetMiB * 1024 * 1024;
  if (fits) {
    text += QLatin1Char(' ') + tr("The tiled path computes the same outputs block by block without the "
                                  "(heads × queries × keys) tensors and shows overview heatmaps: about %1 MiB.")
                                   .arg(mib(tiledBytes));
    QPushButton* tiled = box->addButton(full.empty() ? tr("Compute tiled") : tr("Tile every layer"), QMessageBox::AcceptRole);
    tiled->setObjectName(QStringLiteral("computeTiled"));
    box->addButton(tr("Keep the previous result"), QMessageBox::RejectRole);
    connect(tiled, &QPushButton::clicked, this, [this] {
      inputs_->attentionBox()->setCurrentIndex(1);
      inputs_->fullLayerBox()->setCurrentIndex(0);  // every layer tiled
    });
  } else {
    text += QLatin1Char(' ') + (tiledBytes > 0 ? tr("Even the tiled path would need about %1 MiB. ").arg(mib(tiledBytes))
                                               : QString()) +
            tr("Shorten the text, use fewer layers or a smaller d_model, or raise the memory budget.");
    box->addButton(QMessageBox::Ok);
  }
  box->setText(text);
  box->open();
}

GuidedTour* MainWindow::startTour() {
  if (auto* running = findChild<GuidedTour*>()) running->end();
  auto* tour = new GuidedTour(this);
  tour->start();
  return tour;
}

// The tab bars QMainWindow makes for tabbed docks have no name of their own.
void MainWindow::nameDockTabs() {
  for (QTabBar* t : findChildren<QTabBar*>(Qt::FindDirectChildrenOnly)) t->setAccessibleName(tr("Panels"));
}

void MainWindow::setZoom(double factor) {
  factor = std::clamp(factor, 0.6, 4.0);
  if (!presenter_->active()) fitter_->beforeFontScale(factor / zoom_);  // the docks make room before they grow
  zoom_ = factor;
  QFont f = font();
  f.setPointSizeF(baseFontPt_ * zoom_);
  setFont(f);
  for (QDockWidget* d : findChildren<QDockWidget*>()) d->setFont(f);
  status_->setText(tr("Zoom %1 %").arg(qRound(zoom_ * 100)));
}

// A panel in a vertically scrolling dock on the right, hidden until its first result.
QDockWidget* MainWindow::addPanelDock(QWidget* panel, const QString& title, const QString& objectName) {
  auto* dock = new QDockWidget(title, this);
  dock->setObjectName(objectName);
  auto* scroll = new QScrollArea;
  scroll->setWidget(panel);
  scroll->setWidgetResizable(true);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  dock->setWidget(scroll);
  addDockWidget(Qt::RightDockWidgetArea, dock, Qt::Vertical);
  dock->hide();
  return dock;
}

// An attention variant beside full attention (variantpanel.h), under the inputs; shown when a
// variant is chosen, hidden again with "Full attention (none)".
void MainWindow::buildVariantDock() {
  variant_ = new VariantPanel;
  variantDock_ = addPanelDock(variant_, tr("Variant"), QStringLiteral("variantDock"));
  connect(variant_, &VariantPanel::stepRequested, this, [this](const QString& id) {
    if (const auto r = controller_->current()) navigator_->setCurrent(r->indexOf(id.toStdString()));
  });
}

void MainWindow::showVariant(const TraceResultPtr& result) {
  variant_->setResult(result);
  const bool chosen = result->cfg.variant.on();
  if (chosen && variantDock_->isHidden()) {
    if (!predictionsDock_->isHidden() && !predictionsDock_->isFloating()) tabifyDockWidget(predictionsDock_, variantDock_);
    variantDock_->show();
    variantDock_->raise();
    auto* inputDock = findChild<QDockWidget*>(QStringLiteral("inputDock"));
    if (inputDock && !inputDock->isFloating() && predictionsDock_->isHidden())
      resizeDocks({inputDock, variantDock_}, {height() / 2, height() / 2}, Qt::Vertical);
    nameDockTabs();
  } else if (!chosen && !variantDock_->isHidden()) {
    variantDock_->hide();
  }
}

// The step on show is the last result, not what the inputs now ask for: said over the step,
// with that result's sizes, until the next result arrives.
void MainWindow::markStale(const QString& why) {
  const TraceResultPtr r = controller_->current();
  if (!r) return;
  panel_->setStale(tr("Showing the last result (d_model %1, heads %2, layers %3): %4")
                       .arg(r->cfg.d_model)
                       .arg(r->cfg.heads)
                       .arg(r->cfg.layers)
                       .arg(why));
}

void MainWindow::bringTrainingForward() {
  trainingDock_->show();
  trainingDock_->raise();
  if (trainingDock_->isFloating()) return;
  resizeDocks({trainingDock_}, {std::max(width() / 3, 480)}, Qt::Horizontal);
  if (!predictionsDock_->isHidden() && !predictionsDock_->isFloating())
    resizeDocks({trainingDock_, predictionsDock_}, {height() * 2 / 3, height() / 3}, Qt::Vertical);
}

void MainWindow::appendDrawnPiece(int sentence, int id) {
  const auto r = controller_->current();
  if (!r) return;
  const QString refused = appendPiece(inputs_->sentencesEdit(), sentence, *r, inputs_->importedWeights().get(), id);
  if (!refused.isEmpty()) predictions_->continueBox()->refuse(refused);
  else appended_ = appendedPieces(*r, sentence, id);  // the edit's request (after the typing pause) checks it
}

void MainWindow::showResult(TraceResultPtr result) {
  inputs_->setError({});
  panel_->setStale({});
  showVariant(result);
  const bool hadPredictions = predictions_->hasPredictions();
  predictions_->setResult(result);
  explain_->setResult(result);
  lens_->setResult(result);
  if (predictions_->hasPredictions() && !hadPredictions && predictionsDock_->isHidden()) {
    predictionsDock_->show();  // about half of the right side: the guesses are the point of a trained model
    if (!trainingDock_->isHidden() && !trainingDock_->visibleRegion().isEmpty())
      bringTrainingForward();  // the Training panel in front (a training lesson): its curves keep two thirds
    else if (auto* inputDock = findChild<QDockWidget*>(QStringLiteral("inputDock")); inputDock && !inputDock->isFloating())
      resizeDocks({inputDock, predictionsDock_}, {height() / 2, height() / 2}, Qt::Vertical);
  }
  int index = result->indexOf(currentId_);
  const bool missing = askedStep_ && index < 0;
  if (missing) index = result->indexOf(askedStep_->before);
  if (index < 0) index = std::min(navigator_->current(), static_cast<int>(result->trace.steps().size()) - 1);
  navigator_->setResult(result, std::max(index, 0));
  showStep(navigator_->current());
  if (missing) {
    const QString msg = tr("There is no step “%1” in this trace; the window shows “%2” instead.")
                            .arg(QString::fromStdString(askedStep_->id), QString::fromStdString(currentId_));
    statusBar()->showMessage(msg, kStartupNoteMs);
    emit stepMissing(msg);
  }
  askedStep_.reset();
  if (pendingView_) {  // an opened session: its tab, sentence and head, once
    panel_->setCurrentTabId(pendingView_->tab);
    panel_->setSentence(std::min(pendingView_->sentence, static_cast<int>(result->batch.text.batch()) - 1));
    panel_->setHead(std::min(pendingView_->head, static_cast<int>(result->cfg.heads) - 1));
    pendingView_.reset();
  }
  saveSettings();  // the lesson so far survives a crash: the next start reopens it
  QString where = result->backend == QLatin1String("vulkan")
                      ? tr("Vulkan on %1, device time %2 ms").arg(result->device).arg(result->device_ms, 0, 'f', 1)
                      : CoreText::translate(result->deviceText);
  if (!result->noteText.empty()) where += tr(" — %1").arg(CoreText::translate(result->noteText));
  if (!result->ablated.empty()) {
    QStringList heads;
    for (const auto& h : result->ablated) heads << QString::fromStdString(explain::head_label(h, result->cfg.cross));
    where += result->ablateMode == explain::AblateMode::Mean ? tr(" — heads mean-ablated: %1").arg(heads.join(QStringLiteral(", ")))
                                                             : tr(" — heads knocked out: %1").arg(heads.join(QStringLiteral(", ")));
  }
  status_->setText(tr("%1 steps computed in %2 ms, about %3 MiB (%4)")
                       .arg(result->trace.steps().size())
                       .arg(result->forward_ms, 0, 'f', 1)
                       .arg(double(result->estimateBytes) / (1024.0 * 1024.0), 0, 'f', 1)
                       .arg(where));
}

void MainWindow::showStepId(const std::string& id) {
  askedStep_ = AskedStep{id, currentId_};
  currentId_ = id;
  if (const TraceResultPtr r = controller_->current(); r && !controller_->busy()) showResult(r);  // nothing pending
}

void MainWindow::showStep(int index) {
  const TraceResultPtr r = controller_->current();
  if (!r || index < 0) return;
  currentId_ = r->trace.steps()[static_cast<size_t>(index)].info.id;
  panel_->setStep(r, index);
}

bool MainWindow::handleStepKey(int key) {
  switch (key) {
    case Qt::Key_Right: navigator_->next(); return true;
    case Qt::Key_Left: navigator_->previous(); return true;
    case Qt::Key_Space: navigator_->togglePlay(); return true;
    case Qt::Key_Home: navigator_->first(); return true;
    case Qt::Key_End: navigator_->last(); return true;
    case Qt::Key_PageDown: navigator_->nextLayer(); return true;
    case Qt::Key_PageUp: navigator_->previousLayer(); return true;
    default: return false;
  }
}

// Stepping keys work everywhere except where the user is typing or turning a knob.
bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() != QEvent::KeyPress || !isActiveWindow()) return QMainWindow::eventFilter(watched, event);
  auto* ke = static_cast<QKeyEvent*>(event);
  if (presenter_->active() && ke->key() == Qt::Key_Escape) {  // back from an enlarged head first
    if (panel_->showingHeatmaps() && panel_->heatmaps()->enlargedHead() >= 0) panel_->heatmaps()->enlargeHead(-1);
    else presenter_->setActive(false);
    return true;
  }
  QWidget* focus = QApplication::focusWidget();
  const bool typing = qobject_cast<QPlainTextEdit*>(focus) || qobject_cast<QLineEdit*>(focus) ||
                      qobject_cast<QAbstractSpinBox*>(focus) || qobject_cast<QComboBox*>(focus);
  if (typing || (ke->modifiers() & (Qt::ControlModifier | Qt::AltModifier))) return QMainWindow::eventFilter(watched, event);
  if (watched != focus && !(focus == nullptr && watched == this)) return QMainWindow::eventFilter(watched, event);
  return handleStepKey(ke->key()) || QMainWindow::eventFilter(watched, event);
}

void MainWindow::closeEvent(QCloseEvent* event) {
  saveSettings();
  controller_->waitForIdle();
  event->accept();
}

void MainWindow::saveSettings() const {
  QSettings s;
  s.beginGroup(settingsKey_);
  const bool presenting = presenter_ && presenter_->active();  // the window as it was before
  s.setValue(QStringLiteral("geometry"), presenting ? presenter_->geometryBefore() : saveGeometry());
  s.setValue(QStringLiteral("state"), presenting ? presenter_->stateBefore() : saveState());
  s.setValue(QStringLiteral("zoom"), presenting ? presenter_->zoomBefore() : zoom_);
  s.setValue(QStringLiteral("stepsTabbedToFit"), fitter_->stepsTabbed());
  // During an exercise, the teacher's inputs and step (what Leave gives back), never the exercise's:
  // a window closed or rebuilt mid-exercise must not lose the lesson.
  const Request r = beforeExercise_ ? beforeExercise_->request : inputs_->currentRequest();
  s.setValue(QStringLiteral("texts"), r.texts);
  s.setValue(QStringLiteral("memoryTexts"), r.memoryTexts);
  s.setValue(QStringLiteral("d_model"), static_cast<int>(r.cfg.d_model));
  s.setValue(QStringLiteral("heads"), static_cast<int>(r.cfg.heads));
  s.setValue(QStringLiteral("d_ff"), static_cast<int>(r.cfg.d_ff));
  s.setValue(QStringLiteral("layers"), static_cast<int>(r.cfg.layers));
  s.setValue(QStringLiteral("mask"), QString::fromUtf8(mask_name(r.cfg.mask).data()));
  s.setValue(QStringLiteral("norm"), QString::fromUtf8(norm_name(r.cfg.norm).data()));
  s.setValue(QStringLiteral("activation"), QString::fromUtf8(activation_name(r.cfg.activation).data()));
  s.setValue(QStringLiteral("positional"), QString::fromUtf8(positional_name(r.cfg.positional).data()));
  s.setValue(QStringLiteral("maxPositions"), static_cast<qlonglong>(r.cfg.max_positions));
  s.setValue(QStringLiteral("finalNorm"), r.cfg.final_norm);
  s.setValue(QStringLiteral("seed"), static_cast<qulonglong>(r.cfg.seed));
  s.setValue(QStringLiteral("step"), QString::fromStdString(beforeExercise_ ? beforeExercise_->step : currentId_));
  s.setValue(QStringLiteral("backend"), static_cast<int>(r.backend));
  s.setValue(QStringLiteral("tiled"), r.cfg.overview_cap > 0);
  s.setValue(QStringLiteral("fullLayers"), layerList(r.cfg.full_layers));
  s.setValue(QStringLiteral("fullHeads"),  // the heads kept whole that this run can keep ("1.2,3.0")
             QString::fromStdString(full_heads_text(r.cfg.overview_cap > 0 ? keptHeadsFor(r.cfg)
                                                                           : std::vector<ModelConfig::LayerHead>{})));
  s.setValue(QStringLiteral("loss"), r.loss ? QString::fromUtf8(loss_name(*r.loss).data()) : QString());
  s.setValue(QStringLiteral("answers"), r.answers);
  s.setValue(QStringLiteral("variant"), QString::fromUtf8(variant_name(r.cfg.variant.kind).data()));
  s.setValue(QStringLiteral("variantLayer"), static_cast<int>(r.cfg.variant.layer));
  for (VariantKind k : all_variants())
    for (const VariantParam& p : variant_params(k))
      s.setValue(QStringLiteral("variant_") + QLatin1String(p.name), static_cast<qlonglong>(r.cfg.variant.*p.field));
  s.setValue(QStringLiteral("memoryBudgetMiB"), r.memoryBudgetMiB);
  s.setValue(QStringLiteral("weightsPath"), r.weights ? r.weights->path : QString());
}

void MainWindow::restoreSettings() {
  QSettings s;
  const int scheme = s.value(QStringLiteral("colorScheme"), 0).toInt();
  if (scheme >= 0 && scheme <= static_cast<int>(ColorScheme::Grayscale)) setColorScheme(static_cast<ColorScheme>(scheme));
  s.beginGroup(settingsKey_);
  if (!restoreGeometry(s.value(QStringLiteral("geometry")).toByteArray())) {
    // First run: most of the screen, centred; the step panel needs the room.
    const QRect avail = screen() ? screen()->availableGeometry() : QRect(0, 0, 1600, 1000);
    resize(avail.size() * 0.9);
    move(avail.center() - rect().center());
  }
  restoreState(s.value(QStringLiteral("state")).toByteArray());
  fitter_->adoptTabbed(s.value(QStringLiteral("stepsTabbedToFit"), false).toBool());
  setZoom(s.value(QStringLiteral("zoom"), 1.0).toDouble());
  if (!s.contains(QStringLiteral("texts"))) return;
  Request r;
  r.texts = s.value(QStringLiteral("texts")).toStringList();
  r.memoryTexts = s.value(QStringLiteral("memoryTexts")).toStringList();
  // Sentences from the settings file are typed text like any other: one with a NUL or nothing
  // but control characters is not restored (the built-in sample stays), and the status bar says so.
  for (const QStringList* list : {&r.texts, &r.memoryTexts})
    for (const QString& t : *list)
      if (const Text why = sentence_problem(t.toStdString()); !why.empty()) {
        // A temporary message: the first results' status lines do not cover it.
        statusBar()->showMessage(tr("The sentences saved last time were not restored: %1")
                                     .arg(CoreText::translate(why)),
                                 kStartupNoteMs);
        return;
      }
  try {
    r.cfg.d_model = s.value(QStringLiteral("d_model"), 64).toInt();
    r.cfg.heads = s.value(QStringLiteral("heads"), 8).toInt();
    r.cfg.d_ff = s.value(QStringLiteral("d_ff"), 256).toInt();
    r.cfg.layers = s.value(QStringLiteral("layers"), 1).toInt();
    r.cfg.mask = parse_mask(s.value(QStringLiteral("mask"), QStringLiteral("padding")).toString().toStdString());
    r.cfg.norm = parse_norm(s.value(QStringLiteral("norm"), QStringLiteral("pre")).toString().toStdString());
    r.cfg.activation = parse_activation(s.value(QStringLiteral("activation"), QStringLiteral("relu")).toString().toStdString());
    r.cfg.positional = parse_positional(s.value(QStringLiteral("positional"), QStringLiteral("sinusoidal")).toString().toStdString());
    r.cfg.max_positions = s.value(QStringLiteral("maxPositions"), 1024).toLongLong();
    r.cfg.final_norm = s.value(QStringLiteral("finalNorm"), false).toBool();
    r.cfg.seed = s.value(QStringLiteral("seed"), 0).toULongLong();
    r.cfg.overview_cap = s.value(QStringLiteral("tiled"), false).toBool() ? kOverviewCap : 0;
    if (r.cfg.overview_cap > 0) r.cfg.full_layers = layerListFrom(s.value(QStringLiteral("fullLayers")).toString(), r.cfg.layers);
    try {  // a damaged list: no head kept whole, the rest restored
      fullHeads_ = parse_full_heads(s.value(QStringLiteral("fullHeads")).toString().toStdString());
    } catch (const ConfigError&) {
      fullHeads_.clear();
    }
    r.cfg.variant.kind = parse_variant(s.value(QStringLiteral("variant"), QStringLiteral("none")).toString().toStdString());
    r.cfg.variant.layer = s.value(QStringLiteral("variantLayer"), 0).toLongLong();
    for (VariantKind k : all_variants())
      for (const VariantParam& p : variant_params(k))
        r.cfg.variant.*p.field = s.value(QStringLiteral("variant_") + QLatin1String(p.name), static_cast<qlonglong>(r.cfg.variant.*p.field)).toLongLong();
    r.memoryBudgetMiB = s.value(QStringLiteral("memoryBudgetMiB"), 4096).toLongLong();
    if (const QString loss = s.value(QStringLiteral("loss")).toString(); !loss.isEmpty()) r.loss = parse_loss(loss.toStdString());
    r.answers = s.value(QStringLiteral("answers")).toStringList();
  } catch (const std::exception&) {
    return;  // a damaged settings file: keep the built-in sample
  }
  currentId_ = s.value(QStringLiteral("step")).toString().toStdString();
  const int backend = s.value(QStringLiteral("backend"), 0).toInt();
  if (backend >= 0 && backend <= static_cast<int>(BackendKind::Auto)) inputs_->setBackendKind(static_cast<BackendKind>(backend));
  if (!r.texts.isEmpty()) inputs_->restore(r);
  const QString weights = s.value(QStringLiteral("weightsPath")).toString();
  if (!weights.isEmpty()) {
    try {  // the file may have moved since: then seeded weights, and a word in the status bar
      inputs_->setImportedWeights(QFileInfo(weights).isDir() ? importModelFolder(weights)
                                                             : importWeightsFile(weights, inputs_->currentRequest().cfg));
    } catch (const std::exception& e) {
      statusBar()->showMessage(tr("The weights used last time could not be loaded: %1")
                                   .arg(CoreText::of(e)),
                               kStartupNoteMs);
    }
  }
}

}  // namespace attnlab::ui
