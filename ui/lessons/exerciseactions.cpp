// MainWindow's side of the exercises: the dock, and what starting, answering and leaving an
// exercise does to the window (the setup loaded, a shape concealed, a bug planted).
#include <QDockWidget>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>

#include <memory>
#include <utility>

#include "input/inputpanel.h"
#include "lessons/exercisepanel.h"
#include "step/steppanel.h"
#include "views/heatmapgrid.h"
#include "views/predictionspanel.h"
#include "window/mainwindow.h"

namespace attnlab::ui {

void MainWindow::buildExercises(QDockWidget* besides) {
  const QString group = settingsKey_ == QLatin1String("main") ? QStringLiteral("exercises") : settingsKey_ + QStringLiteral("/exercises");
  exercises_ = new ExercisePanel(group);
  exerciseDock_ = new QDockWidget(tr("Exercises"), this);
  exerciseDock_->setObjectName(QStringLiteral("exerciseDock"));
  auto* scroll = new QScrollArea;  // the feedback and the mask grid can outgrow a short screen
  scroll->setWidget(exercises_);
  scroll->setWidgetResizable(true);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  exerciseDock_->setWidget(scroll);
  addDockWidget(Qt::RightDockWidgetArea, exerciseDock_);
  tabifyDockWidget(besides, exerciseDock_);
  besides->raise();
  exerciseDock_->hide();  // View → Exercises (Ctrl+E) shows it; restoreState may too

  connect(exercises_, &ExercisePanel::started, this, &MainWindow::startExercise);
  // On a short screen the list fills the dock: once an exercise starts, its question and Check
  // button are kept in view while the dock settles (the result arrives, the docks are laid out
  // again), and the feedback once there is some, until the learner scrolls or leaves.
  auto follow = std::make_shared<bool>(false);
  const auto toAnswer = [this, scroll] {
    scroll->ensureWidgetVisible(exercises_->checkButton(), 0, 12);
    if (!exercises_->feedbackText().isEmpty()) scroll->ensureWidgetVisible(exercises_->feedbackLabel(), 0, 12);
  };
  connect(exercises_, &ExercisePanel::started, scroll, [follow, toAnswer] { *follow = true, toAnswer(); });
  connect(exercises_, &ExercisePanel::feedbackShown, scroll, [follow, toAnswer] { *follow = true, toAnswer(); });
  connect(scroll->verticalScrollBar(), &QScrollBar::rangeChanged, scroll, [follow, toAnswer] {
    if (*follow) toAnswer();
  });
  connect(scroll->verticalScrollBar(), &QScrollBar::actionTriggered, scroll, [follow] { *follow = false; });
  connect(exercises_, &ExercisePanel::stopped, scroll, [follow] { *follow = false; });
  // A find-the-head exercise: clicking a head's heatmap (a small one, or the enlarged one) chooses
  // it as the answer.
  connect(panel_->heatmaps(), &HeatmapGrid::headClicked, this, [this](int head) {
    exercises_->chooseHead(QString::fromStdString(currentId_), head);
  });
  connect(exercises_, &ExercisePanel::answeredOrRevealed, this, [this] {
    panel_->setConcealed({});
    predictions_->setNoteHidden(false);
    if (!exerciseHideFaults_) return;
    exerciseHideFaults_ = false;
    send(lastRequest_);  // the same run, now with its faulty steps labelled
  });
  connect(exercises_, &ExercisePanel::stopped, this, [this] {
    panel_->setConcealed({});
    predictions_->setNoteHidden(false);
    exerciseHideFaults_ = false;
    exerciseFaults_.clear();
    if (beforeExercise_) {  // the teacher's sentences, model, step and view, exactly (and their name)
      inputs_->restore(beforeExercise_->request, /*quiet=*/true);
      currentId_ = beforeExercise_->step;
      pendingView_ = beforeExercise_->view;
      beforeExercise_.reset();
    }
    send(inputs_->currentRequest());  // without the bug, on what the window had
  });
}

void MainWindow::send(Request r) {
  r.cfg.faults.insert(exerciseFaults_.begin(), exerciseFaults_.end());
  r.hideFaults = exerciseHideFaults_;
  if (!exercises_->active()) r.ablate = ablated_;  // an exercise runs its own setup, every head in
  r.cfg.full_heads = keptHeadsFor(r.cfg);  // heads of tiled layers kept whole
  r.ablateMode = ablateMode_;  // the panel's box and its head table follow it either way
  r.appended = std::exchange(appended_, std::nullopt);  // only the next request; it checks the pieces
  lastRequest_ = r;
  controller_->request(r);
}

void MainWindow::startExercise(const Request& setup, const QString& concealStep, const QString& showStep,
                               bool hasSetup) {
  if (!beforeExercise_)  // the first exercise of a run keeps what the teacher had; later ones do not
    beforeExercise_ = Before{inputs_->currentRequest(), currentId_,
                             ViewState{panel_->currentTabId(), panel_->sentence(), panel_->selection().head}};
  exerciseFaults_ = setup.cfg.faults;
  exerciseHideFaults_ = setup.hideFaults;
  panel_->setConcealed(concealStep);
  const Exercise* ex = exercises_->active();
  predictions_->setNoteHidden(ex && ex->kind == ExerciseKind::FindHead);
  if (ex && ex->kind == ExerciseKind::FindHead) panel_->heatmaps()->enlargeHead(-1);  // every head to choose from
  if (!concealStep.isEmpty()) currentId_ = concealStep.toStdString();
  if (!showStep.isEmpty()) currentId_ = showStep.toStdString();
  if (!hasSetup) return;  // nothing to compute (every shipped kind has a run: a mask exercise its grid's sentence)
  inputs_->restore(setup, true);
  if (ex)  // the Sample box says whose sentences these are
    inputs_->setSourceLabel(InputPanel::exerciseLabel(QString::fromStdString(ex->title.in(exercises_->language()))));
  Request r = setup;
  r.backend = inputs_->backendKind();
  send(r);  // exactly the setup (the knobs do not show every field)
}

void MainWindow::resetExerciseProgress() {
  exercises_->resetProgress();
}

}  // namespace attnlab::ui
