// MainWindow's side of sessions (.attnlab, core/session.h): File ▸ Open session, Save session,
// Recent sessions, Import weights. Writes go through QSaveFile (a temporary renamed into place), so a crash or
// a full disk never leaves half a lesson behind.
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QSaveFile>
#include <QSettings>
#include <QStatusBar>
#include <QLabel>

#include "errors.h"
#include "errortext.h"
#include "inputpanel.h"
#include "mainwindow.h"
#include "qtstrings.h"
#include "session.h"
#include "steppanel.h"
#include "weightsimport.h"

namespace attnlab::ui {

namespace {

constexpr int kRecent = 6;

// A small weights file travels inside the session (the lesson works on another computer); a
// large one is referenced, relative to the session's folder when it lies below it.
SessionWeights sessionWeights(const ImportedWeights& w, const QString& sessionPath) {
  SessionWeights out;
  out.name = w.name.toStdString();
  if (w.bytes.size() <= kMaxEmbeddedWeightsBytes || w.path.isEmpty()) {
    out.bytes = w.bytes;
    return out;
  }
  const QDir dir = QFileInfo(sessionPath).absoluteDir();
  const QString rel = dir.relativeFilePath(w.path);
  out.file = (rel.startsWith(QLatin1String("..")) ? w.path : rel).toStdString();
  return out;
}

}  // namespace

void MainWindow::buildSessionMenu(QMenu* file) {
  file->addAction(tr("&Open session…"), QKeySequence::Open, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open session"), QDir::homePath(),
                                                      tr("Attention Lab sessions (*.attnlab);;All files (*)"));
    if (!path.isEmpty()) openSession(path);
  });
  file->addAction(tr("&Save session…"), QKeySequence::Save, this, [this] {
    QString path = QFileDialog::getSaveFileName(this, tr("Save session"), QDir::home().filePath(QStringLiteral("lesson.attnlab")),
                                                tr("Attention Lab sessions (*.attnlab)"));
    if (path.isEmpty()) return;
    if (!path.endsWith(QLatin1String(".attnlab"))) path += QStringLiteral(".attnlab");
    saveSession(path);
  });
  QAction* import = file->addAction(tr("&Import weights…"), this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Import weights"), QDir::homePath(),
                                                      tr("Weights (*.safetensors);;All files (*)"));
    if (!path.isEmpty()) importWeights(path);
  });
  import->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_I));
  import->setObjectName(QStringLiteral("importWeights"));
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
    inputs_->setImportedWeights(importWeightsFile(path, inputs_->currentRequest().cfg));
  } catch (const std::exception& e) {
    error = ErrorText::translate(QString::fromStdString(e.what()));
  }
  warn(tr("Importing weights"), error);
  if (error.isEmpty()) status_->setText(tr("Weights imported from %1").arg(QFileInfo(path).fileName()));
  return error;
}

QString MainWindow::saveSession(const QString& path) {
  const Request r = inputs_->currentRequest();
  Session s;
  if (r.weights) s.weights = sessionWeights(*r.weights, path);
  s.texts = toStdStrings(r.texts);
  s.memory_texts = toStdStrings(r.memoryTexts);
  s.cfg = r.cfg;
  s.cfg.faults.clear();
  s.step = currentId_;
  s.backend = r.backend;
  s.memory_budget_mib = r.memoryBudgetMiB;
  s.view_tab = panel_->currentTabId().toStdString();
  s.sentence = std::max(0, panel_->sentence());
  s.head = panel_->selection().head;
  const QByteArray bytes = QByteArray::fromStdString(session_json(s));
  QSaveFile f(path);
  QString error;
  if (!f.open(QIODevice::WriteOnly)) error = tr("Cannot write %1: %2").arg(path, f.errorString());
  else if (f.write(bytes) != bytes.size() || !f.commit()) error = tr("Cannot write %1: %2").arg(path, f.errorString());
  warn(tr("Saving the session"), error);
  if (!error.isEmpty()) return error;
  rememberSession(path);
  status_->setText(tr("Session saved to %1").arg(path));
  return {};
}

QString MainWindow::openSession(const QString& path) {
  QFile f(path);
  QString error;
  Session s;
  if (!f.open(QIODevice::ReadOnly)) {
    error = tr("Cannot open %1: %2").arg(path, f.errorString());
  } else if (f.size() > static_cast<qint64>(kMaxSessionBytes)) {
    error = tr("%1 is larger than 16 MiB: not an Attention Lab session.").arg(path);
  } else {
    try {
      s = parse_session(f.readAll().toStdString(), QFileInfo(path).fileName().toStdString());
    } catch (const DataError& e) {
      error = ErrorText::translate(QString::fromStdString(e.what()));
    }
  }
  ImportedWeightsPtr weights;
  if (error.isEmpty() && !s.weights.empty()) {
    const QString name = QString::fromStdString(s.weights.name);
    try {
      if (!s.weights.bytes.empty()) {
        weights = importWeightsBytes(s.weights.bytes, name, QString(), s.cfg);
      } else {
        const QString file = QFileInfo(path).absoluteDir().absoluteFilePath(QString::fromStdString(s.weights.file));
        weights = importWeightsFile(file, s.cfg);
      }
    } catch (const std::exception& e) {
      error = tr("%1: its weights could not be loaded: %2").arg(path, ErrorText::translate(QString::fromStdString(e.what())));
    }
  }
  warn(tr("Opening the session"), error);
  if (!error.isEmpty()) return error;  // the window keeps what it had
  Request r;
  r.weights = weights;
  r.texts = toQStrings(s.texts);
  r.memoryTexts = toQStrings(s.memory_texts);
  r.cfg = s.cfg;
  r.backend = s.backend;
  r.memoryBudgetMiB = s.memory_budget_mib;
  currentId_ = s.step;
  pendingView_ = ViewState{QString::fromStdString(s.view_tab), static_cast<int>(s.sentence), static_cast<int>(s.head)};
  inputs_->setBackendKind(r.backend);
  inputs_->restore(r);
  if (!path.startsWith(QLatin1String(":/"))) rememberSession(path);  // a shipped lesson is one click away anyway
  status_->setText(tr("Session %1 opened").arg(QFileInfo(path).fileName()));
  return {};
}

}  // namespace attnlab::ui
