#include "window/dialogfolders.h"

#include <QDir>
#include <QFileInfo>
#include <QSettings>

namespace attnlab::ui {

namespace {

QString key(const char* kind) { return QStringLiteral("dialogFolders/") + QLatin1String(kind); }

}  // namespace

QString dialogFolder(const char* kind) {
  const QString saved = QSettings().value(key(kind)).toString();
  return !saved.isEmpty() && QFileInfo(saved).isDir() ? saved : QDir::homePath();
}

QString dialogPath(const char* kind, const QString& name) { return QDir(dialogFolder(kind)).filePath(name); }

void rememberDialogFolder(const char* kind, const QString& chosen, bool isFolder) {
  if (chosen.isEmpty()) return;
  QSettings().setValue(key(kind), isFolder ? QDir(chosen).absolutePath() : QFileInfo(chosen).absolutePath());
}

}  // namespace attnlab::ui
