#include "input/sentenceedit.h"

#include <QMimeData>

namespace attnlab::ui {

namespace {

// Whether `text` holds more than n characters in a row without a space or line break.
bool hasLongRun(const QString& text, int n) {
  int run = 0;
  for (const QChar c : text) {
    run = c.isSpace() ? 0 : run + 1;
    if (run > n) return true;
  }
  return false;
}

}  // namespace

void SentenceEdit::chooseWrap(const QString& incoming) {
  const bool longRun = hasLongRun(incoming, kLongRun) || hasLongRun(toPlainText(), kLongRun);
  setWordWrapMode(longRun ? QTextOption::WrapAnywhere : QTextOption::WrapAtWordBoundaryOrAnywhere);
}

void SentenceEdit::setSentences(const QString& text) {
  chooseWrap(text);
  setPlainText(text);
}

void SentenceEdit::insertFromMimeData(const QMimeData* source) {
  if (source && source->hasText()) chooseWrap(source->text());
  QPlainTextEdit::insertFromMimeData(source);
}

}  // namespace attnlab::ui
