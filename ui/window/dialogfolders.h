// Where each file dialog opens: the folder last used for that kind of file (sessions, weights,
// images, handouts, bundles), kept in QSettings ("dialogFolders/<kind>"), else the home folder —
// a teacher saving ten lessons does not walk to the lessons folder ten times.
#pragma once

#include <QString>

namespace attnlab::ui {

// The folder to open a dialog for `kind` in: the last one remembered while it still exists,
// otherwise the home folder.
QString dialogFolder(const char* kind);
// `name` inside dialogFolder(kind), as a save dialog's suggestion.
QString dialogPath(const char* kind, const QString& name);
// Remembers the folder of `chosen` (a file, or a folder itself when `isFolder`); "" is ignored.
void rememberDialogFolder(const char* kind, const QString& chosen, bool isFolder = false);

}  // namespace attnlab::ui
