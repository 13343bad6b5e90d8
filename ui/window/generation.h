// What "Append the next piece" (views/continuebox.h) does to the sentences: the drawn piece joined
// to sentence b's text, and that line of the input replaced, so the model runs again on the
// longer text.
#pragma once

#include <QString>

#include "window/controller.h"
#include "window/traceresult.h"

class QPlainTextEdit;

namespace attnlab::ui {

// Sentence b's text with piece `id` appended: a checkpoint's pieces decoded by its own tokenizer
// (GPT-2's bytes put back together, so "␣mat" adds " mat"; a piece that is part of a character
// shows as U+FFFD), a word model's word after a space. `line` is the sentence as typed.
QString continuedSentence(const QString& line, const TraceResult& r, const ImportedWeights* weights, int b, int id);

// Replaces the b-th non-blank line of the edit (the batch's sentence b; blank lines are skipped
// as the input panel skips them) by continuedSentence, as one edit Ctrl+Z takes back. Returns ""
// or why nothing was appended: a drawn line break (a sentence is one line), or no such sentence.
QString appendPiece(QPlainTextEdit* edit, int b, const TraceResult& r, const ImportedWeights* weights, int id);

// The pieces sentence b should cut into once `id` is appended: its pieces in `r`, then the piece
// (what the next request checks with the KV cache: Request::appended).
AppendedPiece appendedPieces(const TraceResult& r, int b, int id);

}  // namespace attnlab::ui
