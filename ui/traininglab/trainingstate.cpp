// The Training panel's side of a session (docs/sessions.md "training"): its knobs, the run it
// replays, the run kept for comparison, and the timeline's step — saved and restored.
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileInfo>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTimer>

#include <algorithm>

#include "text/errors.h"
#include "traininglab/trainingpanel.h"
#include "words/coretext.h"

namespace attnlab::ui {

QString TrainingPanel::localFolder(const QString& dir, std::shared_ptr<QTemporaryDir>& copy, QString& error) const {
  if (!dir.startsWith(QLatin1String(":/"))) return dir;
  copy = std::make_shared<QTemporaryDir>();  // a Qt resource: its files copied out first
  const QDir res(dir);
  for (const QString& name : res.entryList(QDir::Files))
    if (!QFile::copy(res.filePath(name), copy->filePath(name))) {
      error = tr("Could not write %1: %2").arg(copy->filePath(name), tr("no room in the temporary folder?"));
      return {};
    }
  return copy->path();
}

QString TrainingPanel::sessionFolder(const std::string& path, const QString& sessionDir) {
  if (path == kShippedRun) return kShippedRunDir;
  return QDir(sessionDir).absoluteFilePath(QFile::decodeName(QByteArray::fromStdString(path)));
}

std::string TrainingPanel::sessionPath(const QString& dir, const QString& sessionDir) {
  if (dir == kShippedRunDir) return std::string(kShippedRun);
  const QString rel = QDir(sessionDir).relativeFilePath(QFileInfo(dir).absoluteFilePath());
  return QFile::encodeName(rel.startsWith(QLatin1String("..")) ? QFileInfo(dir).absoluteFilePath() : rel).toStdString();
}

SessionKnobs TrainingPanel::knobs() const {
  SessionKnobs k;
  k.task = std::string(train_task_name(TrainTask(task_->currentData().toInt())));
  k.layers = layers_->value(), k.d_model = dModel_->value(), k.heads = heads_->value();
  k.batch = batch_->value(), k.steps = steps_->value(), k.seed = seed_->value();
  k.norm = norm_->currentIndex() == 0 ? "pre" : "post";
  k.attention_only = attentionOnly_->isChecked();
  k.scaling = scaling_->isChecked();
  k.lr = lr_->value();
  k.text_file = QFile::encodeName(textPath_).toStdString();
  return k;
}

void TrainingPanel::setKnobs(const SessionKnobs& k) {
  setTask(parse_train_task(k.task));  // the task's defaults first: what k leaves out
  layers_->setValue(int(k.layers)), dModel_->setValue(int(k.d_model)), heads_->setValue(int(k.heads));
  batch_->setValue(int(k.batch)), steps_->setValue(int(k.steps)), seed_->setValue(int(k.seed));
  norm_->setCurrentIndex(k.norm == "post" ? 1 : 0);
  attentionOnly_->setChecked(k.attention_only);
  scaling_->setChecked(k.scaling);
  lr_->setValue(k.lr);
  textPath_ = QFile::decodeName(QByteArray::fromStdString(k.text_file));
  textFile_->setText(textPath_.isEmpty() ? tr("Text file…") : QFileInfo(textPath_).fileName());
}

SessionTraining TrainingPanel::sessionState(const QString& liveDir, const QString& keptDir, const QString& sessionDir) {
  SessionTraining t;
  // The knobs when they say something: a run, or settings other than a fresh panel's.
  const SessionKnobs k = knobs();
  if (session_->hasRun() || k != freshKnobs_) t.knobs = k;
  if (!session_->hasRun()) return t;
  if (!session_->recorded()) session_->saveRun(liveDir);
  t.run = sessionPath(session_->recorded() ? recordedSource_ : liveDir, sessionDir);
  t.step = timelineStep();
  if (kept_ && !keptSource_.isEmpty()) t.kept = sessionPath(keptSource_, sessionDir);
  else if (kept_ && TrainingSession::saveKept(*kept_, keptDir)) t.kept = sessionPath(keptDir, sessionDir);
  return t;
}

QString TrainingPanel::restoreSessionState(const SessionTraining& t, const QString& sessionDir) {
  if (!t.knobs.empty()) {  // an unknown task is refused before anything changes
    try {
      parse_train_task(t.knobs.task);
    } catch (const UserError& e) {
      return CoreText::translate(e.text());
    }
  }
  if (t.run.empty()) {
    if (!t.knobs.empty()) setKnobs(t.knobs);
    return {};
  }
  const QString dir = sessionFolder(t.run, sessionDir);
  if (const QString problem = openRecorded(dir, /*offer=*/false); !problem.isEmpty()) return problem;
  const auto steps = session_->snapshotSteps();
  int index = int(steps.size()) - 1;
  if (t.step >= 0) index = int(std::upper_bound(steps.begin(), steps.end(), t.step) - steps.begin()) - 1;
  lastOffered_ = steps[size_t(std::max(0, index))];  // the session shows its own model: not replaced
  setTimelineIndex(std::max(0, index));
  offerTimer_->stop();
  if (!t.knobs.empty()) setKnobs(t.knobs);  // after the replay, which set its own task's
  return t.kept.empty() ? QString() : restoreKept(t.kept, sessionDir);
}

QString TrainingPanel::restoreKept(const std::string& kept, const QString& sessionDir) {
  const QString dir = sessionFolder(kept, sessionDir);
  std::shared_ptr<QTemporaryDir> copy;
  QString problem;
  const QString from = localFolder(dir, copy, problem);
  if (from.isEmpty()) return tr("the run kept for comparison: %1").arg(problem);
  try {
    KeptRun k = TrainingSession::readKept(from);
    k.keepAlive = copy;
    kept_ = std::move(k);
  } catch (const UserError& e) {
    return tr("the run kept for comparison: %1").arg(CoreText::translate(e.text()));
  }
  keptSource_ = dir;
  pinnedName_ = keptName(kept_->setup);
  refresh();
  return {};
}

}  // namespace attnlab::ui
