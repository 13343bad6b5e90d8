// What a trained model's attention is for: its output head's top-k guesses at one position of one
// sentence (the next word — by default after the last word —, or the answer's token there), the top guess at every position, and the
// model's note on which heads to look at. Reads the trace's {stack}.output_head.probs (B, S, V).
#pragma once

#include <QWidget>

#include "window/traceresult.h"

class QComboBox;
class QLabel;
class QProgressBar;

namespace attnlab::ui {

class ContinueBox;

// p (0 … 1) as the rows' bars spell it: whole percents from 10 %, two significant digits below
// (a flat distribution over GPT-2's 50,257 pieces gives each about 0.0020 %, not 0 %), in the
// window's locale; "0%" for 0.
QString percentText(double p);

class PredictionsPanel : public QWidget {
  Q_OBJECT
 public:
  static constexpr int kTopK = 5;
  explicit PredictionsPanel(QWidget* parent = nullptr);

  // A result without a trained model shows how to choose one. Keeps the sentence and position
  // when they still exist.
  void setResult(TraceResultPtr result);
  bool hasPredictions() const { return !top_.empty(); }

  QComboBox* sentenceBox() const { return sentence_; }
  QComboBox* positionBox() const { return position_; }
  // Row r of the top-k list: the token's text, its probability in per mille (the bar's length) and
  // as the label beside the bar spells it (percentText; "" when empty or NaN).
  QString rowToken(int r) const;
  int rowPerMille(int r) const;
  QString rowPercent(int r) const;
  QProgressBar* rowBar(int r) const { return rows_.at(static_cast<size_t>(r)).bar; }
  QLabel* rowPercentLabel(int r) const { return rows_.at(static_cast<size_t>(r)).percent; }
  QLabel* questionLabel() const { return question_; }
  QLabel* answerLabel() const { return answer_; }
  QLabel* noteLabel() const { return note_; }
  // A find-the-head exercise: the model's note names its heads, so it waits for the answer.
  void setNoteHidden(bool hidden);
  // "Append and continue" (a next-token model only): draws after the chosen sentence's last piece.
  ContinueBox* continueBox() const { return continue_; }

 signals:
  // A piece drawn for sentence b (from 0): the window appends it to that sentence's text.
  void pieceDrawn(int sentence, int id, double probability);

 private:
  void showSentence();
  void showPosition();

  TraceResultPtr result_;
  std::vector<std::vector<std::vector<Prediction>>> top_;  // [b][s][rank]
  QLabel *title_, *note_, *question_, *answer_, *empty_;
  QComboBox *sentence_, *position_;
  QWidget* body_;
  ContinueBox* continue_;
  struct Row {
    QLabel* token;
    QProgressBar* bar;  // the probability as a bar, no text on it (a long bar would cover it)
    QLabel* percent;    // the probability beside the bar, in its own column
  };
  std::vector<Row> rows_;
  // What the position list was made for, and whether the learner picked a position in it.
  const TrainedVocab* shownVocab_ = nullptr;
  int shownBatch_ = -1, shownLength_ = -1;
  bool picked_ = false, noteHidden_ = false;
};

}  // namespace attnlab::ui
