#include "traininglab/trainingsession.h"

#include <QDir>
#include <QFile>
#include <QtConcurrent>

#include <chrono>
#include <filesystem>

#include "io/files.h"
#include "io/weights_file.h"
#include "training/run_folder.h"

#include "text/errors.h"
#include "words/coretext.h"

namespace attnlab::ui {

namespace {

constexpr int64_t kSnapshotBudget = 256ll << 20;  // 256 MiB of weights in memory, then thinned

// A recorded run's snapshot at the latest step ≤ `step` (the first one when there is none).
std::map<int64_t, std::string>::const_iterator fileAtOrBefore(const std::map<int64_t, std::string>& files, qint64 step) {
  auto it = files.upper_bound(step);
  return it == files.begin() ? it : std::prev(it);
}

// The weights file of the snapshot at the latest step ≤ `step` (the first one when there is none):
// a recorded run's file as written (`files` in `dir`), or a live run's snapshot serialized with
// `model`; *shown: that snapshot's step. DataError when a recorded file cannot be read.
std::string snapshotFileAt(const std::map<int64_t, std::string>& files, const QString& dir, const SnapshotStore& snaps,
                           const ModelConfig& model, qint64 step, qint64* shown) {
  if (!files.empty()) {
    const auto it = fileAtOrBefore(files, step);
    if (shown) *shown = it->first;
    const QString path = QDir(dir).filePath(QString::fromStdString(it->second));
    return read_regular_file(QFile::encodeName(path).toStdString(), kMaxWeightsFileBytes, Msg::weights_file);
  }
  if (shown) {
    const std::vector<int64_t> steps = snaps.steps();
    const auto it = std::upper_bound(steps.begin(), steps.end(), step);
    *shown = it == steps.begin() ? steps.front() : *std::prev(it);
  }
  return serialize_weights(model, snaps.at(step));
}

}  // namespace

TrainingSession::TrainingSession(QObject* parent)
    : QObject(parent), snaps_(kSnapshotBudget), watcher_(new QFutureWatcher<Chunk>(this)) {
  connect(watcher_, &QFutureWatcher<Chunk>::finished, this, &TrainingSession::chunkDone);
}

TrainingSession::~TrainingSession() {
  if (stop_) stop_->store(true);
  watcher_->waitForFinished();
}

void TrainingSession::waitForIdle() {
  while (busy_) {
    watcher_->waitForFinished();
    QCoreApplication::processEvents();  // delivers finished(), which may launch the next chunk
  }
}

void TrainingSession::reset(const TrainSetup& setup, qint64 logEvery) {
  wantRun_ = false;
  if (stop_) stop_->store(true);
  watcher_->waitForFinished();
  QCoreApplication::processEvents();
  auto t = std::make_unique<Trainer>(setup);  // throws before anything is dropped
  trainer_ = std::move(t);
  recordedDir_.clear();
  recordedFiles_.clear();
  resumable_ = false;
  logEvery_ = std::max<qint64>(1, logEvery);
  curves_.clear();
  savedDir_.clear(), savedStep_ = -1;
  snaps_ = SnapshotStore(kSnapshotBudget);
  phase_ = -1;
  secondsPerStep_ = 0;
  Chunk first;
  first.points.push_back(CurvePoint{0, 0, 0, 0, trainer_->evaluate()});
  first.resume = std::make_shared<const ResumePoint>(trainer_->resume_point());
  first.snapshot = std::make_shared<const Weights>(first.resume->weights);  // shares its never-changed copy
  record(first);
  emit stateChanged();
  emit progressed();
}

namespace {

// A recorded-run folder: its record, what it trained and its snapshot files by step.
struct Recorded {
  RunRecord rec;
  TrainSetup setup;
  std::map<int64_t, std::string> files;
};

Recorded readRecorded(const QString& dir) {
  const std::string d = QFile::encodeName(dir).toStdString();
  Recorded r{read_run_record(d), {}, {}};
  // The first snapshot says the model (sizes, options, vocabulary); the others are read on demand.
  const LoadedWeights first =
      load_weights_file((std::filesystem::path(d) / r.rec.snapshots.front().second).string(), ModelConfig{}, {});
  for (const auto& [step, file] : r.rec.snapshots) r.files[step] = file;
  r.setup.task = r.rec.task, r.setup.seed = r.rec.seed, r.setup.steps = r.rec.steps;
  r.setup.batch = r.rec.batch, r.setup.model = first.cfg;
  return r;
}

// Writes a live run (its setup, curves, snapshots and resume point when given) as a recorded-run
// folder.
void writeLive(const QString& dir, const TrainSetup& s, const QVector<CurvePoint>& curves, qint64 phase,
               const SnapshotStore& snaps, const ResumePoint* resume = nullptr) {
  RunRecord rec = run_record_of(s);
  rec.steps_done = curves.back().step, rec.phase_change = phase;
  rec.curves.assign(curves.begin(), curves.end());
  const Weights first = snaps.at(snaps.steps().front());  // the vocabulary (the trainer may be busy)
  write_run_folder(QFile::encodeName(dir).toStdString(), rec, s, snaps, weights_file_metadata(s.model, first), /*f16=*/false,
                   resume);
}

}  // namespace

KeptRun TrainingSession::readKept(const QString& dir) {
  Recorded r = readRecorded(dir);
  KeptRun k;
  k.setup = r.setup;
  k.curves = QVector<CurvePoint>(r.rec.curves.begin(), r.rec.curves.end());
  k.dir = dir;
  k.files = std::move(r.files);
  k.phase = r.rec.phase_change;
  return k;
}

bool TrainingSession::saveKept(const KeptRun& k, const QString& dir) {
  if (!k.dir.isEmpty() || k.curves.isEmpty() || k.snaps.empty()) return false;
  writeLive(dir, k.setup, k.curves, k.phase, k.snaps);
  return true;
}

void TrainingSession::openRecorded(const QString& dir) {
  Recorded r = readRecorded(dir);
  wantRun_ = false;
  if (stop_) stop_->store(true);
  watcher_->waitForFinished();
  QCoreApplication::processEvents();
  trainer_.reset();
  recordedDir_ = dir;
  recordedFiles_ = std::move(r.files);
  recordedSetup_ = r.setup;
  recordedDone_ = r.rec.steps_done;
  resumable_ = !r.rec.resume.empty();
  resume_.reset();
  curves_ = QVector<CurvePoint>(r.rec.curves.begin(), r.rec.curves.end());
  phase_ = r.rec.phase_change;
  snaps_ = SnapshotStore(kSnapshotBudget);
  secondsPerStep_ = 0;
  emit stateChanged();
  emit progressed();
}

void TrainingSession::saveRun(const QString& dir) const {
  if (!trainer_ || curves_.isEmpty() || snaps_.empty()) return;
  // Saved there already and not trained since: the folder is the run (a session saved again after
  // a pause rewrote every snapshot before).
  if (dir == savedDir_ && curves_.back().step == savedStep_ && is_run_folder(QFile::encodeName(dir).toStdString()))
    return;
  // The resume point goes with it when it is the curves' last step (it always is, but for a run
  // whose chunk failed half-way).
  const ResumePoint* resume = resume_ && resume_->steps_done == curves_.back().step ? resume_.get() : nullptr;
  writeLive(dir, trainer_->setup(), curves_, phase_, snaps_, resume);
  savedDir_ = dir, savedStep_ = curves_.back().step;
}

void TrainingSession::continueRun(const QString& textFile) {
  if (!canContinue()) return;
  const std::string dir = QFile::encodeName(recordedDir_).toStdString();
  auto point = std::make_shared<const ResumePoint>(read_run_resume(dir));
  std::shared_ptr<const TextCorpus> corpus;
  if (point->setup.task == TrainTask::Text) {
    if (textFile.isEmpty()) throw ConfigError(Text(Msg::tr_text_needs_file));
    corpus = readTextCorpus(textFile, point->text_vocab_size, point->text_max_len);
  }
  auto trainer = std::make_unique<Trainer>(*point, corpus);
  SnapshotStore snaps(kSnapshotBudget);
  for (const auto& [step, file] : recordedFiles_)
    snaps.add(step, std::make_shared<const Weights>(weightsAt(step)));
  // Everything read: the recorded run becomes the live one.
  trainer_ = std::move(trainer);
  snaps_ = std::move(snaps);
  resume_ = std::move(point);
  savedDir_ = recordedDir_, savedStep_ = curves_.isEmpty() ? -1 : curves_.back().step;
  recordedDir_.clear();
  recordedFiles_.clear();
  resumable_ = false;
  emit stateChanged();
  emit progressed();
}

std::shared_ptr<const TextCorpus> readTextCorpus(const QString& path, int64_t vocabSize, int64_t maxLen) {
  const std::string p = QFile::encodeName(path).toStdString();
  const std::string text = read_regular_file(p, kMaxTrainTextBytes, Msg::io_text_file_option);
  return std::make_shared<TextCorpus>(build_text_corpus(text, printable_name(p), vocabSize, maxLen));
}

QString TrainingSession::recordedFile(qint64 step) const {
  if (recordedFiles_.empty()) return {};
  return QDir(recordedDir_).filePath(QString::fromStdString(fileAtOrBefore(recordedFiles_, step)->second));
}

std::string TrainingSession::weightsFileAt(qint64 step) const {
  const TrainSetup* s = setup();
  return snapshotFileAt(recordedFiles_, recordedDir_, snaps_, s ? s->model : ModelConfig{}, step, nullptr);
}

std::vector<int64_t> TrainingSession::snapshotSteps() const {
  if (!recorded()) return snaps_.steps();
  std::vector<int64_t> out;
  for (const auto& [step, file] : recordedFiles_) out.push_back(step);
  return out;
}

void TrainingSession::start() {
  if (!trainer_ || trainer_->done()) return;  // a recorded run only replays
  wantRun_ = true;
  if (!busy_) launch(logEvery_);
  emit stateChanged();
}

void TrainingSession::pause() {
  wantRun_ = false;
  if (stop_) stop_->store(true);
  emit stateChanged();
}

void TrainingSession::stepOnce() {
  if (!trainer_ || busy_ || trainer_->done()) return;
  wantRun_ = false;
  launch(1);
  emit stateChanged();
}

void TrainingSession::launch(qint64 steps) {
  busy_ = true;
  stop_ = std::make_shared<std::atomic<bool>>(false);
  Trainer* t = trainer_.get();
  const qint64 every = logEvery_;
  watcher_->setFuture(QtConcurrent::run([t, stop = stop_, steps, every] {
    Chunk c;
    const auto t0 = std::chrono::steady_clock::now();
    try {
      StepStats st;
      bool logged = false;
      for (qint64 i = 0; i < steps && !t->done() && !stop->load(); ++i) {
        st = t->step();
        ++c.steps;
        logged = st.step % every == 0 || t->done();
        if (logged) c.points.push_back(CurvePoint{st.step, st.loss, st.lr, st.grad_norm, t->evaluate()});
      }
      // Stopped between two logging steps, or one step: the moment it stopped is recorded too.
      if (c.steps > 0 && !logged) c.points.push_back(CurvePoint{st.step, st.loss, st.lr, st.grad_norm, t->evaluate()});
      if (c.steps > 0) {  // one deep copy of the weights serves the snapshot and the resume point
        c.resume = std::make_shared<const ResumePoint>(t->resume_point());
        c.snapshot = std::make_shared<const Weights>(c.resume->weights);
      }
    } catch (const UserError& e) {
      c.error = e.text();
    } catch (const std::bad_alloc&) {
      c.error = Text(Msg::cli_out_of_memory);
    }
    c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return c;
  }));
}

void TrainingSession::record(const Chunk& c) {
  for (const CurvePoint& p : c.points) {
    curves_.push_back(p);
    if (phase_ < 0 && p.eval.past_phase_change())
      phase_ = p.step;
  }
  if (c.snapshot && !c.points.empty()) snaps_.add(c.points.back().step, c.snapshot);
  if (c.resume) resume_ = c.resume;
  if (c.steps > 0) secondsPerStep_ = c.seconds / double(c.steps);
}

void TrainingSession::chunkDone() {
  busy_ = false;
  const Chunk c = watcher_->result();
  if (!c.error.empty()) {
    wantRun_ = false;
    emit failed(CoreText::translate(c.error));
    emit stateChanged();
    return;
  }
  record(c);
  emit progressed();
  if (wantRun_ && trainer_ && !trainer_->done()) {
    launch(logEvery_);
  } else {
    wantRun_ = false;
    emit stateChanged();
  }
}

Weights TrainingSession::weightsAt(qint64 step) const {
  if (recorded()) return load_weights_file(QFile::encodeName(recordedFile(step)).toStdString(), ModelConfig{}, {}).weights;
  return snaps_.at(step);
}

Weights TrainingSession::weightsNow() const { return trainer_->copy(); }

std::optional<KeptRun> TrainingSession::keep() const {
  const TrainSetup* s = setup();
  if (!s || curves_.isEmpty()) return std::nullopt;
  KeptRun k;
  k.setup = *s;
  k.curves = curves_;
  k.phase = phase_;
  if (recorded()) {
    k.dir = recordedDir_;
    k.files = recordedFiles_;
  } else {
    k.snaps = snaps_;
  }
  return k;
}

std::string KeptRun::weightsFileAt(qint64 step, qint64* shownStep) const {
  return snapshotFileAt(files, dir, snaps, setup.model, step, shownStep);
}

}  // namespace attnlab::ui
