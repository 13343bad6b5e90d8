// What the exports share (internal to ui/export): the words of a refusal and the one safe way to
// write a file.
#pragma once

#include <QCoreApplication>
#include <QString>

#include <functional>

class QSaveFile;

namespace attnlab::ui {

// The translation context of every export's words.
struct Exporter {
  Q_DECLARE_TR_FUNCTIONS(Exporter)
};

namespace exportio {

QString cannotWrite(const QString& path, const QString& why);  // "Cannot write “path”: why"
QString cancelled();                                           // the user stopped it: nothing written
QString noTrace();                                             // no result to export yet
// Writes through a QSaveFile (a temporary beside path, renamed by commit()); "" or the refusal.
QString writeAtomically(const QString& path, const std::function<bool(QSaveFile&)>& write);

}  // namespace exportio
}  // namespace attnlab::ui
