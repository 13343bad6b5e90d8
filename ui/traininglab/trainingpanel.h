// The Training panel: choose a task and a model, Start / Pause / Step / Reset, the learning rate
// and batch, and watch the curves grow (trainingcurves.h). A timeline over the run's snapshots
// shows the model as it was at any step in the whole window (every view, gradients included);
// Play animates the heads forming. "Keep for comparison" pins a run so that the next run (1 layer
// against 2, with or without the √d scaling, pre- against post-norm) is drawn beside it: its
// curves dashed in the charts, and with "Compare heads" both runs' attention heatmaps side by side
// at the timeline's step. Save model writes a trained-model weights file.
#pragma once

#include <QPointer>
#include <QWidget>

#include <functional>
#include <memory>
#include <optional>

#include "io/session.h"
#include "traininglab/trainingsession.h"
#include "views/runcompare.h"
#include "window/controller.h"

QT_BEGIN_NAMESPACE
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QGridLayout;
class QLabel;
class QPushButton;
class QSlider;
class QSpinBox;
class QTemporaryDir;
class QTimer;
class QToolButton;
QT_END_NAMESPACE

namespace attnlab::ui {

// The shipped recorded induction run (sample_inputs/runs/induction), a Qt resource folder.
inline const QString kShippedRunDir = QStringLiteral(":/runs/induction");

class TrainingCurves;

class TrainingPanel : public QWidget {
  Q_OBJECT
 public:
  explicit TrainingPanel(QWidget* parent = nullptr);
  ~TrainingPanel() override;

  TrainingSession* session() const { return session_; }
  TrainingCurves* curves() const { return curves_; }
  // The setup the knobs describe (throws ConfigError / DataError: e.g. the text file).
  TrainSetup setupFromKnobs() const;
  void setTask(TrainTask t);  // the task's defaults into the knobs
  // The model at the timeline's step, as the window imports a weights file.
  ImportedWeightsPtr modelAtTimeline() const;
  qint64 timelineStep() const;
  void setTimelineIndex(int index);
  QString saveModel(const QString& path) const;  // "" on success, else the message shown
  // Replays a recorded run (a folder of attnlab train --snapshots, or ":/runs/induction", the
  // shipped one): "" on success (the status line says what was opened), else why not (the run
  // shown stays). offer: show its last snapshot in the window (with its examples).
  QString openRecorded(const QString& dir, bool offer = true);
  // The curves as a picture (.png, 2× scale; .svg) or their numbers (.csv), by the suffix; "" on
  // success, else the message shown.
  QString exportCurves(const QString& path) const;
  // "Compare heads": the kept run beside this one at the timeline's step, every attention block's
  // weights as heatmaps (headcompare.h); it follows the timeline while open. "" on success, else
  // why not (no kept run, no run, a snapshot unreadable). The sentences are the window's (from
  // setSentenceSource) when both models know every word of them, else this run's model's examples;
  // the dialog says which.
  QString compareHeads();
  void setSentenceSource(std::function<QStringList()> source) { sentenceSource_ = std::move(source); }
  RunComparison* headComparison() const { return comparison_; }
  // What a session keeps of the panel (docs/sessions.md "training"): the run it replays — the
  // shipped one, the folder it was opened from, or the live run, written first as the recorded-run
  // folder `liveDir` — and the timeline's step; empty without a run. ConfigError / DataError when
  // the live run cannot be written. A path below `sessionDir` is kept relative to it. The knobs go
  // with it, and without a run too when they differ from a new panel's. The run kept for
  // comparison goes as its source, or written first as `keptDir` when it was trained live.
  SessionTraining sessionState(const QString& liveDir, const QString& keptDir, const QString& sessionDir);
  // The session's run replayed again at its step, and its kept run kept again, without changing
  // the window's model (the session has its own): "" on success, else the message shown.
  QString restoreSessionState(const SessionTraining& t, const QString& sessionDir);
  // The knobs as a session keeps them, and set from one (the task's defaults for the rest).
  SessionKnobs knobs() const;
  void setKnobs(const SessionKnobs& k);

 signals:
  // Show this model in the window; withExamples: put its example sentences in too (a new run).
  void modelChosen(attnlab::ui::ImportedWeightsPtr model, bool withExamples);

 private:
  void buildKnobs(QGridLayout* grid);
  void resetRun();
  // A recorded run with a resume point becomes live (TrainingSession::continueRun); false, with
  // the reason in the status line, when it cannot.
  bool continueRecorded();
  void refresh();        // buttons, timeline, curves, status
  void offerModel(bool withExamples);
  void pickTextFile();
  void keepForComparison();
  QString keptName(const TrainSetup& s) const;
  // Every token of `texts` is a word of `model`'s vocabulary (false without a trained vocabulary)…
  static bool readsEveryWord(const QStringList& texts, const ImportedWeightsPtr& model);
  // … and there is a kept run, of the same task.
  bool knowsEveryWord(const QStringList& texts, const ImportedWeightsPtr& model) const;

  TrainingSession* session_;
  TrainingCurves* curves_;
  QComboBox* task_;
  QPushButton* textFile_;
  QString textPath_;
  QSpinBox *layers_, *dModel_, *heads_, *batch_, *steps_, *seed_;
  QCheckBox *attentionOnly_, *scaling_;
  QComboBox* norm_;
  QDoubleSpinBox* lr_;
  QPushButton *startPause_, *step_, *reset_, *save_, *keep_, *compare_, *play_, *export_, *openRun_, *shippedRun_;
  QSlider* timeline_;
  QLabel *timelineLabel_, *status_;
  QTimer* playTimer_;
  QToolButton* knobsToggle_;
  QWidget* knobs_;
  QTimer* offerTimer_;  // the window follows the timeline, at most a few times a second
  bool newRun_ = false;
  qint64 lastOffered_ = -1;
  SessionKnobs freshKnobs_;       // a new panel's: a session without a run saves other knobs only
  std::optional<KeptRun> kept_;  // the run kept for comparison
  QString pinnedName_;
  QPointer<RunComparison> comparison_;
  QString recordedSource_;  // the folder (or ":/runs/induction") the recorded run was opened from
  QString keptSource_;      // the kept run's, "" when it was a live run
  std::function<QStringList()> sentenceSource_;  // the window's sentences, for Compare heads
  // A recorded-run folder as a folder on disk: the shipped run's resources copied out into `copy`;
  // "" with `error` set when they cannot be.
  QString localFolder(const QString& dir, std::shared_ptr<QTemporaryDir>& copy, QString& error) const;
  // How a session names a run's folder: the shipped run by kShippedRun, else relative to it.
  static std::string sessionPath(const QString& dir, const QString& sessionDir);
  // The inverse: a session's run name as the folder to open (kShippedRunDir for the shipped run).
  static QString sessionFolder(const std::string& path, const QString& sessionDir);
  QString restoreKept(const std::string& kept, const QString& sessionDir);
  std::shared_ptr<QTemporaryDir> shippedCopy_;  // the shipped run's files, out of the resources (a kept run shares it)
};

}  // namespace attnlab::ui
