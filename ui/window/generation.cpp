#include "window/generation.h"

#include <QCoreApplication>
#include <QPlainTextEdit>
#include <QTextBlock>
#include <QTextCursor>

#include "pretrained/pretrained_model.h"

namespace attnlab::ui {

QString continuedSentence(const QString& line, const TraceResult& r, const ImportedWeights* weights, int b, int id) {
  const TrainedVocab& vocab = *r.vocab();
  if (!weights || !weights->checkpoint) return line + QLatin1Char(' ') + QString::fromStdString(vocab.words()[static_cast<size_t>(id)]);
  const auto& tok = *weights->checkpoint->tokenizer;
  std::vector<int> ids;
  const auto& row = r.batch.text.tokens[static_cast<size_t>(b)];
  for (int i = 0; i < r.batch.text.lengths[static_cast<size_t>(b)]; ++i) ids.push_back(tok.id(row[static_cast<size_t>(i)]));
  ids.push_back(id);
  return QString::fromStdString(tok.decode(ids));
}

QString appendPiece(QPlainTextEdit* edit, int b, const TraceResult& r, const ImportedWeights* weights, int id) {
  if (!r.vocab() || b < 0 || static_cast<size_t>(b) >= r.batch.text.lengths.size())
    return QCoreApplication::translate("Generation", "There is no sentence %1 any more: nothing was appended.").arg(b);
  int seen = -1;
  for (QTextBlock block = edit->document()->begin(); block.isValid(); block = block.next()) {
    if (block.text().trimmed().isEmpty() || ++seen != b) continue;
    const QString text = continuedSentence(block.text(), r, weights, b, id);
    if (text.contains(QLatin1Char('\n')) || text.contains(QLatin1Char('\r')) || text.contains(QChar(0x2028)) ||
        text.contains(QChar(0x2029)))
      return QCoreApplication::translate("Generation", "The model drew a line break, which a sentence (one line) "
                                                       "cannot hold: nothing was appended. Draw again, or change the seed.");
    QTextCursor c(block);
    c.movePosition(QTextCursor::EndOfBlock, QTextCursor::KeepAnchor);
    c.insertText(text);
    return {};
  }
  return QCoreApplication::translate("Generation", "There is no sentence %1 any more: nothing was appended.").arg(b);
}

AppendedPiece appendedPieces(const TraceResult& r, int b, int id) {
  const auto& row = r.batch.text.tokens[static_cast<size_t>(b)];
  AppendedPiece out{.sentence = b, .pieces = {row.begin(), row.begin() + r.batch.text.lengths[static_cast<size_t>(b)]}};
  out.pieces.push_back(r.vocab()->words()[static_cast<size_t>(id)]);
  return out;
}

}  // namespace attnlab::ui
