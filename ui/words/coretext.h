// What core says (refusals, notes: a Text of catalogue messages, core/text/message.h) in the
// window's language. Each message is translated by its id — its template looked up with
// QCoreApplication::translate under its catalogue context ("ErrorText", …) — and its arguments in
// turn; names (files, fields, tensors, numbers) are shown as they are. Nothing here reads English:
// a message the catalogue has is translated whatever its words, and the translations test walks
// the whole catalogue (tests/ui/test_language.cpp, tests/i18n/check_translations.py).
#pragma once

#include <QCoreApplication>
#include <QString>

#include <exception>

#include "text/message.h"

namespace attnlab::ui {

class CoreText {
  Q_DECLARE_TR_FUNCTIONS(CoreText)
 public:
  static QString translate(const Text& text);
  // An exception's words: a core UserError's Text translated, anything else (a library's own
  // message) as it is, on one line.
  static QString of(const std::exception& e);
};

}  // namespace attnlab::ui
