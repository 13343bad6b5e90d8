// The box sentences are typed into: a QPlainTextEdit that stays responsive whatever is pasted.
// Qt lays out a line that has no place to break at a word boundary in quadratic time (a pasted
// 1 MiB word took over four minutes, the window frozen), so text with a run of more than
// kLongRun characters without a space is wrapped anywhere (linear: 1 MiB in about a second);
// ordinary sentences keep wrapping at words.
#pragma once

#include <QPlainTextEdit>

namespace attnlab::ui {

class SentenceEdit : public QPlainTextEdit {
 public:
  static constexpr int kLongRun = 512;
  using QPlainTextEdit::QPlainTextEdit;
  // setPlainText with the wrap mode chosen for `text` first (before Qt lays it out).
  void setSentences(const QString& text);

 protected:
  void insertFromMimeData(const QMimeData* source) override;

 private:
  void chooseWrap(const QString& incoming);
};

}  // namespace attnlab::ui
