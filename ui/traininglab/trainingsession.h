// A training run in the window: core's Trainer driven off the GUI thread in chunks of steps (one
// logging interval each), with the curves it records and snapshots of its weights. Only one
// thread touches the trainer at a time: a chunk runs on the thread pool and the window reads what
// it left once it has finished. Cancel and Pause stop a chunk at its next step.
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QVector>

#include <atomic>
#include <memory>
#include <optional>

#include "training/resume.h"
#include "training/run_record.h"
#include "training/snapshots.h"
#include "training/trainer.h"

namespace attnlab::ui {


// A run kept for comparison: what it trained, its curves and its snapshots, still there when the
// session has moved on to another run (a live run's weights are shared, not copied; a recorded
// run's files are read when asked).
struct KeptRun {
  TrainSetup setup;
  QVector<CurvePoint> curves;
  SnapshotStore snaps;                         // a live run's
  QString dir;                                 // a recorded run's folder …
  std::map<int64_t, std::string> files;        // … and its snapshot files by step
  std::shared_ptr<const void> keepAlive;       // what must outlive it (the shipped run's copy)
  qint64 phase = -1;                           // its phase change (TrainingSession::phaseChangeStep)
  // The weights at the latest snapshot at or before `step` (the first one when there is none), as
  // a weights file's bytes. DataError when a recorded file cannot be read.
  std::string weightsFileAt(qint64 step, qint64* shownStep = nullptr) const;
};

// The text task's corpus from the text file at `path` (read under the file rules, at most
// kMaxTrainTextBytes); the window's runs build it with kTextVocabSize and kTextMaxLen (attnlab
// train's defaults). DataError naming the file.
inline constexpr int64_t kTextVocabSize = 2000, kTextMaxLen = 32;
std::shared_ptr<const TextCorpus> readTextCorpus(const QString& path, int64_t vocabSize, int64_t maxLen);

class TrainingSession : public QObject {
  Q_OBJECT
 public:
  explicit TrainingSession(QObject* parent = nullptr);
  ~TrainingSession() override;

  // A new run (the previous one stopped and dropped): its initial evaluation and snapshot at step
  // 0 are made at once. ConfigError / DataError from core (e.g. heads not dividing d_model).
  void reset(const TrainSetup& setup, qint64 logEvery = 50);
  void start();     // runs chunk after chunk until the last step, Pause or Cancel
  void pause();     // stops after the step under way; start() goes on from there
  void stepOnce();  // one step, then an evaluation and a snapshot
  void cancel() { pause(); }
  // Blocks until the chunk under way has finished (tests, shutdown).
  void waitForIdle();
  // A recorded run (attnlab train --snapshots DIR, e.g. the shipped sample_inputs/runs/induction):
  // its curves and snapshots, read from DIR, nothing to train. DataError / ConfigError naming what
  // is wrong (run.json, or the first snapshot's weights file); the current run stays then.
  void openRecorded(const QString& dir);
  bool recorded() const { return !recordedDir_.isEmpty(); }
  // The recorded run holds a resume point (training/resume.h) before its last step: continueRun()
  // can take it up.
  bool canContinue() const { return recorded() && resumable_ && recordedDone_ < recordedSetup_.steps; }
  // The recorded run becomes a live one at its resume point, exactly as if it had never stopped:
  // its snapshots read into memory (the timeline keeps them), its curves kept; start() and
  // stepOnce() go on from there. `textFile`: the text task's text, read again (the same file it
  // trained on). DataError / ConfigError from core (no resume point, another text, a file that
  // cannot be read); the recorded run stays then.
  void continueRun(const QString& textFile = {});
  // The recorded run's weights file at the latest snapshot at or before `step` ("" otherwise).
  QString recordedFile(qint64 step) const;
  // The weights file's bytes of the snapshot at or before `step`: a recorded run's file as
  // written, or a live run's snapshot serialized (as KeptRun::weightsFileAt). DataError when a
  // recorded file cannot be read.
  std::string weightsFileAt(qint64 step) const;

  // The live run as a recorded-run folder (core/training/run_folder.h): its curves, every
  // snapshot so far, F32, and its resume point, so that it can be continued once reopened. Safe while a chunk runs (it reads only what the window holds). Not
  // written again into the folder it was last written to while no step has been trained since.
  // ConfigError / DataError from core.
  void saveRun(const QString& dir) const;

  bool hasRun() const { return trainer_ != nullptr || recorded(); }
  bool running() const { return busy_; }
  bool wantsToRun() const { return wantRun_; }
  qint64 stepsDone() const { return trainer_ ? trainer_->steps_done() : recordedDone_; }
  qint64 totalSteps() const { return trainer_ ? trainer_->setup().steps : recordedSetup_.steps; }
  const TrainSetup* setup() const { return trainer_ ? &trainer_->setup() : recorded() ? &recordedSetup_ : nullptr; }
  const QVector<CurvePoint>& curves() const { return curves_; }
  // The first logged step whose best induction score passed 0.5 (the phase change), or −1.
  qint64 phaseChangeStep() const { return phase_; }
  std::vector<int64_t> snapshotSteps() const;
  // The weights at the latest snapshot at or before `step` (with the vocabulary; examples set).
  Weights weightsAt(qint64 step) const;
  // The trainer's weights now (only while no chunk runs).
  Weights weightsNow() const;
  // This run, kept (nullopt without a run).
  std::optional<KeptRun> keep() const;
  // A recorded-run folder read as a kept run (a session's comparison run): DataError / ConfigError
  // as openRecorded.
  static KeptRun readKept(const QString& dir);
  // A kept live run written as a recorded-run folder, as saveRun writes this run. False when
  // nothing was written: a recorded one is its own folder, a run without snapshots has none.
  // ConfigError / DataError from core.
  static bool saveKept(const KeptRun& k, const QString& dir);
  double secondsPerStep() const { return secondsPerStep_; }

 signals:
  void progressed();                 // curves and snapshots grew
  void stateChanged();               // started, paused, finished, reset
  void failed(const QString& message);

 private:
  struct Chunk {
    std::vector<CurvePoint> points;
    std::shared_ptr<const Weights> snapshot;
    std::shared_ptr<const ResumePoint> resume;  // where training stands after the chunk
    double seconds = 0;
    qint64 steps = 0;
    Text error;
  };
  void launch(qint64 steps);
  void chunkDone();
  void record(const Chunk& c);

  std::unique_ptr<Trainer> trainer_;
  QString recordedDir_;
  std::map<int64_t, std::string> recordedFiles_;
  TrainSetup recordedSetup_;
  qint64 recordedDone_ = 0;
  bool resumable_ = false;                     // the recorded run's folder holds a resume point
  std::shared_ptr<const ResumePoint> resume_;  // the live run's, at its last chunk (saveRun writes it)
  SnapshotStore snaps_;
  QVector<CurvePoint> curves_;
  qint64 logEvery_ = 50, phase_ = -1;
  mutable QString savedDir_;     // where saveRun last wrote the live run …
  mutable qint64 savedStep_ = -1;  // … at this step (not written again while unchanged)
  double secondsPerStep_ = 0;
  bool busy_ = false, wantRun_ = false;
  std::shared_ptr<std::atomic<bool>> stop_;
  QFutureWatcher<Chunk>* watcher_;
};

}  // namespace attnlab::ui
