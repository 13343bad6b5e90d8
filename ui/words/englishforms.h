// Translating the English that core writes (step titles and formulas, refusals): core is Qt-free
// and English, so the UI keeps a table of the forms it writes — each a regular expression over the
// English, its varying parts (numbers, names, letters) captured — with a tr() template whose
// %1 … %9 take the captures. StepText and ErrorText are the two tables.
#pragma once

#include <QRegularExpression>
#include <QString>

#include <span>
#include <vector>

namespace attnlab::ui {

struct EnglishForm {
  const char* pattern;  // a regular expression over core's English
  const char* text;     // the English template, marked with QT_TRANSLATE_NOOP(context, …)
};

class EnglishForms {
 public:
  // context: the tr() context of the templates; whole: a form must match the whole text.
  EnglishForms(const char* context, std::span<const EnglishForm> forms, bool whole);
  // The first form matching `english` (whole), translated; a null QString when none matches.
  QString translateWhole(const QString& english) const;
  // Every match of every form anywhere in `english` replaced by its translation, form by form in
  // table order (so longer forms listed first win over the shorter ones inside them).
  QString translateEach(const QString& english) const;

 private:
  QString translated(const char* text, const QRegularExpressionMatch& m) const;

  const char* context_;
  std::vector<std::pair<QRegularExpression, const char*>> forms_;
};

}  // namespace attnlab::ui
