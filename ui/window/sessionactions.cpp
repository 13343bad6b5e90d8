// MainWindow's side of sessions (.attnlab, core/io/session.h): File ▸ Open session, Save session,
// Recent sessions, Import weights. Writes go through QSaveFile (a temporary renamed into place), so a crash or
// a full disk never leaves half a lesson behind.
#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QMessageBox>
#include <QMenu>
#include <QSaveFile>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QLabel>

#include "input/inputpanel.h"
#include "input/weightsimport.h"
#include "io/files.h"
#include "io/session.h"
#include "step/steppanel.h"
#include "traininglab/trainingpanel.h"
#include "views/continuebox.h"
#include "views/predictionspanel.h"
#include "text/errors.h"
#include "window/mainwindow.h"
#include "words/coretext.h"
#include "words/qtstrings.h"
#include "window/dialogfolders.h"

namespace attnlab::ui {

namespace {

constexpr int kRecent = 6;

// Weights that came embedded in a session, written to the app's data folder so that the settings
// can point the next start at them; "" when that folder cannot be written (they then last until
// the window closes).
QString keepEmbeddedWeights(const std::string& bytes) {
  const QString dir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
  if (dir.isEmpty() || !QDir().mkpath(dir)) return {};
  const QString path = QDir(dir).filePath(QStringLiteral("session-weights.safetensors"));
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly) || f.write(bytes.data(), static_cast<qint64>(bytes.size())) != static_cast<qint64>(bytes.size()) ||
      !f.commit())
    return {};
  return path;
}

// A small weights file travels inside the session (the lesson works on another computer); a
// large one is referenced, relative to the session's folder when it lies below it.
SessionWeights sessionWeights(const ImportedWeights& w, const QString& sessionPath) {
  SessionWeights out;
  out.name = w.name.toStdString();
  const QDir dir = QFileInfo(sessionPath).absoluteDir();
  if (w.checkpoint) {  // a folder is referenced, never embedded
    const QString rel = dir.relativeFilePath(w.path);
    out.model_folder = (rel.startsWith(QLatin1String("..")) ? w.path : rel).toStdString();
    return out;
  }
  if (w.bytes.size() <= kMaxEmbeddedWeightsBytes || w.path.isEmpty()) {
    out.bytes = w.bytes;
    return out;
  }
  const QString rel = dir.relativeFilePath(w.path);
  out.file = (rel.startsWith(QLatin1String("..")) ? w.path : rel).toStdString();
  return out;
}

}  // namespace

void MainWindow::buildSessionMenu(QMenu* file) {
  file->addAction(tr("&Open session…"), QKeySequence::Open, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open session"), dialogFolder("sessions"),
                                                      tr("Attention Lab sessions (*.attnlab);;All files (*)"));
    rememberDialogFolder("sessions", path);
    if (!path.isEmpty()) openSession(path);
  });
  file->addAction(tr("&Save session…"), QKeySequence::Save, this, [this] {
    QString path = QFileDialog::getSaveFileName(this, tr("Save session"), dialogPath("sessions", QStringLiteral("lesson.attnlab")),
                                                tr("Attention Lab sessions (*.attnlab)"));
    if (path.isEmpty()) return;
    rememberDialogFolder("sessions", path);
    if (!path.endsWith(QLatin1String(".attnlab"))) path += QStringLiteral(".attnlab");
    saveSession(path);
  });
  QAction* import = file->addAction(tr("&Import weights…"), this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Import weights"), dialogFolder("weights"),
                                                      tr("Weights (*.safetensors);;All files (*)"));
    rememberDialogFolder("weights", path);
    if (!path.isEmpty()) importWeights(path);
  });
  import->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_I));
  import->setObjectName(QStringLiteral("importWeights"));
  QAction* folder = file->addAction(tr("Open &model folder…"), this, [this] {
    const QString path = QFileDialog::getExistingDirectory(this, tr("Open model folder"), dialogFolder("models"));
    rememberDialogFolder("models", path);
    if (!path.isEmpty()) openModelFolder(path);
  });
  folder->setObjectName(QStringLiteral("openModelFolder"));
  recentMenu_ = file->addMenu(tr("&Recent sessions"));
  connect(recentMenu_, &QMenu::aboutToShow, this, [this] {
    recentMenu_->clear();
    const QStringList recent = QSettings().value(settingsKey_ + QStringLiteral("/recentSessions")).toStringList();
    for (const QString& path : recent) recentMenu_->addAction(path, this, [this, path] { openSession(path); });
    if (recent.isEmpty()) recentMenu_->addAction(tr("(none yet)"))->setEnabled(false);
  });
}

void MainWindow::rememberSession(const QString& path) {
  QSettings s;
  const QString key = settingsKey_ + QStringLiteral("/recentSessions");
  QStringList recent = s.value(key).toStringList();
  recent.removeAll(path);
  recent.prepend(path);
  while (recent.size() > kRecent) recent.removeLast();
  s.setValue(key, recent);
}

QString MainWindow::importWeights(const QString& path) {
  QString error;
  try {
    inputs_->setImportedWeights(importWeightsFile(path, inputs_->currentRequest().cfg), /*withExamples=*/true);
  } catch (const std::exception& e) {
    error = CoreText::of(e);
  }
  warn(tr("Importing weights"), error);
  if (error.isEmpty()) status_->setText(tr("Weights imported from %1").arg(QFileInfo(path).fileName()));
  return error;
}

QString MainWindow::openModelFolder(const QString& folder) {
  QString error;
  QGuiApplication::setOverrideCursor(Qt::WaitCursor);  // GPT-2 small is half a gigabyte to read and check
  try {
    inputs_->setImportedWeights(importModelFolder(folder));
  } catch (const std::exception& e) {
    error = CoreText::of(e);
  }
  QGuiApplication::restoreOverrideCursor();
  warn(tr("Opening the model folder"), error);
  if (error.isEmpty()) status_->setText(tr("Model opened from %1").arg(QFileInfo(folder).fileName()));
  return error;
}

QString MainWindow::saveSession(const QString& path) {
  const Request r = inputs_->currentRequest();
  Session s;
  if (r.weights) s.weights = sessionWeights(*r.weights, path);
  s.weights.prepend_bos = r.prependBos;  // set only for a GPT-2 folder (InputPanel::currentRequest)
  s.texts = toStdStrings(r.texts);
  s.memory_texts = toStdStrings(r.memoryTexts);
  s.cfg = r.cfg;
  s.cfg.faults.clear();
  s.cfg.full_heads = r.cfg.overview_cap > 0 ? keptHeadsFor(r.cfg) : std::vector<ModelConfig::LayerHead>{};
  s.step = currentId_;
  s.backend = r.backend;
  s.memory_budget_mib = r.memoryBudgetMiB;
  s.view_tab = panel_->currentTabId().toStdString();
  if (r.loss) s.loss = std::string(loss_name(*r.loss));
  s.answers = toStdStrings(r.answers);
  s.ablate = explain::heads_text(ablated_);
  if (ablateMode_ == explain::AblateMode::Mean) s.ablate_mode = explain::ablate_mode_name(ablateMode_);
  s.sampling = predictions_->continueBox()->sessionSampling();
  // The view of the last result, within the sentences and heads being saved (they may differ
  // while a recompute is pending or has failed).
  s.sentence = std::clamp<int64_t>(panel_->sentence(), 0, static_cast<int64_t>(s.texts.size()) - 1);
  s.head = std::clamp<int64_t>(panel_->selection().head, 0, r.cfg.heads - 1);
  // The Training panel's run: a live one goes beside the session as NAME.run (a recorded run).
  const QFileInfo where(path);
  try {
    const QDir beside = where.absoluteDir();
    s.training = training_->sessionState(beside.filePath(where.completeBaseName() + QStringLiteral(".run")),
                                         beside.filePath(where.completeBaseName() + QStringLiteral(".kept-run")),
                                         where.absolutePath());
  } catch (const UserError& e) {
    const QString error = tr("Not saved: the training run could not be written beside the session: %1").arg(CoreText::of(e));
    warn(tr("Saving the session"), error);
    return error;
  }
  const QByteArray bytes = QByteArray::fromStdString(session_json(s));
  QSaveFile f(path);
  QString error;
  if (bytes.size() > static_cast<qsizetype>(kMaxSessionBytes))
    error = tr("Not saved: the session would be %1 MiB, more than the 16 MiB a session may have. Use fewer or "
               "shorter sentences, or weights that are referenced rather than embedded (a file over 8 MiB).")
                .arg(double(bytes.size()) / (1024.0 * 1024.0), 0, 'f', 1);
  else if (!f.open(QIODevice::WriteOnly)) error = tr("Cannot write %1: %2").arg(path, f.errorString());
  else if (f.write(bytes) != bytes.size() || !f.commit()) error = tr("Cannot write %1: %2").arg(path, f.errorString());
  warn(tr("Saving the session"), error);
  if (!error.isEmpty()) return error;
  rememberSession(path);
  status_->setText(tr("Session saved to %1").arg(path));
  return {};
}

QString MainWindow::openSession(const QString& path, bool dialog) {
  QString error;
  Session s;
  try {  // a shipped lesson is a Qt resource; anything else goes through core's careful reader
    std::string bytes;
    if (path.startsWith(QLatin1String(":/"))) {
      QFile f(path);
      if (f.open(QIODevice::ReadOnly)) bytes = f.readAll().toStdString();
    } else {
      bytes = read_regular_file(QFile::encodeName(path).toStdString(), kMaxSessionFileBytes, Msg::session_file);
    }
    s = parse_session(bytes, QFileInfo(path).fileName().toStdString());
  } catch (const DataError& e) {
    error = CoreText::of(e);
  }
  ImportedWeightsPtr weights;
  if (error.isEmpty() && !s.weights.empty()) {
    const QString name = QString::fromStdString(s.weights.name);
    try {
      if (!s.weights.bytes.empty()) {  // kept in the app's data too, so that the next start finds them
        weights = importWeightsBytes(s.weights.bytes, name, keepEmbeddedWeights(s.weights.bytes), s.cfg);
      } else if (!s.weights.model_folder.empty()) {
        weights = importModelFolder(QFileInfo(path).absoluteDir().absoluteFilePath(QString::fromStdString(s.weights.model_folder)));
      } else {
        const QString file = QFileInfo(path).absoluteDir().absoluteFilePath(QString::fromStdString(s.weights.file));
        weights = importWeightsFile(file, s.cfg);
      }
    } catch (const std::exception& e) {
      error = tr("%1: its weights could not be loaded: %2").arg(path, CoreText::of(e));
    }
  }
  if (dialog) {
    warn(tr("Opening the session"), error);
  } else if (!error.isEmpty()) {
    auto* box = new QMessageBox(QMessageBox::Warning, tr("Opening the session"), error, QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
  }
  if (!error.isEmpty()) return error;  // the window keeps what it had
  Request r;
  r.weights = weights;
  r.prependBos = s.weights.prepend_bos;
  if (weights) applyWeightsConfig(s.cfg, weights->loaded);  // the knobs show what will be computed
  r.texts = toQStrings(s.texts);
  r.memoryTexts = toQStrings(s.memory_texts);
  r.cfg = s.cfg;
  r.backend = s.backend;
  r.memoryBudgetMiB = s.memory_budget_mib;
  if (!s.loss.empty()) r.loss = parse_loss(s.loss);  // checked by parse_session
  r.answers = toQStrings(s.answers);
  fullHeads_ = s.cfg.full_heads;  // checked by parse_session (validate)
  ablated_ = s.ablate.empty() ? std::vector<explain::HeadRef>{} : explain::parse_heads(s.ablate);  // checked by parse_session
  ablateMode_ = explain::ablate_mode_of(s.ablate_mode);  // checked by parse_session
  predictions_->continueBox()->restoreSampling(s.sampling);  // checked by parse_session
  currentId_ = s.step;
  pendingView_ = ViewState{QString::fromStdString(s.view_tab), static_cast<int>(s.sentence), static_cast<int>(s.head)};
  inputs_->setBackendKind(r.backend);
  inputs_->restore(r, /*quiet=*/true);
  inputs_->setSourceLabel(InputPanel::lessonLabel(s, QFileInfo(path).fileName()));  // the Sample box names the lesson
  send(inputs_->currentRequest());  // now: the next result delivered is this session's (stale ones are dropped)
  QString trainingError;
  if (!s.training.empty()) {  // the Training panel replays the session's run, brought to the front
    trainingError = training_->restoreSessionState(s.training, QFileInfo(path).absolutePath());
    bringTrainingForward();
  }
  if (!path.startsWith(QLatin1String(":/"))) rememberSession(path);  // a shipped lesson is one click away anyway
  status_->setText(trainingError.isEmpty() ? tr("Session %1 opened").arg(QFileInfo(path).fileName())
                                           : tr("Session %1 opened, but not its training run: %2").arg(QFileInfo(path).fileName(), trainingError));
  return {};
}

}  // namespace attnlab::ui
