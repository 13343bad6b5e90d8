// The items of a panel's sentence chooser: "b: its first words" for each sentence of a batch.
#pragma once

#include <QCoreApplication>
#include <QStringList>

#include "text/tokenizer.h"

namespace attnlab::ui {

// At most about 40 characters of each sentence's real tokens (as shown), numbered from 0.
inline QStringList sentenceChoices(const TokenBatch& tokens) {
  QStringList out;
  const auto& rows = tokens.shown_rows();
  for (size_t b = 0; b < rows.size(); ++b) {
    QString words;
    for (int i = 0; i < tokens.lengths[b] && words.size() < 40; ++i)
      words += (i ? QStringLiteral(" ") : QString()) + QString::fromStdString(rows[b][static_cast<size_t>(i)]);
    out << QCoreApplication::translate("attnlab::ui::ExplainPanel", "%1: %2").arg(b).arg(words);
  }
  return out;
}

}  // namespace attnlab::ui
