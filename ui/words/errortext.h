// Core's error messages in the user's language. Core is Qt-free and writes English (the command
// line keeps it); each message is built from clauses ("field "x": should be a string", "tensor
// 'w' is missing", …). Here every clause core writes has a pattern and a tr() template, and a
// message is translated clause by clause; the names in it (files, fields, tensors) stay as they
// are. In English the result is the message itself. test_language checks the refusals a user can
// meet in the window (sessions, weights files, configurations) in both languages.
#pragma once

#include <QCoreApplication>
#include <QString>

namespace attnlab::ui {

class ErrorText {
  Q_DECLARE_TR_FUNCTIONS(ErrorText)
 public:
  static QString translate(const QString& coreMessage);
};

}  // namespace attnlab::ui
