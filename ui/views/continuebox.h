// "Append and continue" for a next-token model (a GPT-2 checkpoint, a shipped language model): the
// sampling controls of `attnlab export --generate` (temperature, top-k, top-p, seed) and a button
// that draws the next piece after the chosen sentence's last piece from the logits already in the
// trace, by docs/cli.md's rule (pretrained/generate.h: draw_piece with u = uniform(k) of the stream
// "generate:<sentence>", k the pieces drawn for that sentence since the controls last changed) —
// so the window's k-th draw is the command line's k-th, as long as the appended text cuts back into
// the same pieces. After an append, the new result's KV-cache check (pretrained/kv_check.h): the
// drawn piece decoded alone against the cached keys and values, what that saves, and whether it
// gives the whole pass's numbers.
#pragma once

#include <QWidget>

#include <map>

#include "io/session.h"
#include "pretrained/generate.h"
#include "window/traceresult.h"

class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSpinBox;

namespace attnlab::ui {

class ContinueBox : public QWidget {
  Q_OBJECT
 public:
  explicit ContinueBox(QWidget* parent = nullptr);

  // The result whose logits the next draw reads; sentence b's draws count on while its text only
  // grows by what was drawn.
  void setResult(TraceResultPtr result);
  pretrained::Sampling sampling() const;  // steps 1, as the controls say
  // The controls as a session keeps them (io/session.h), and set back from one (every sentence's
  // draws then count from 0).
  SessionSampling sessionSampling() const;
  void restoreSampling(const SessionSampling& s);
  // Draws the next piece of sentence b (from 0) and emits pieceDrawn; false when b has no logits.
  bool drawFor(int b);
  // The drawn piece was not appended (why): said under the button, which may draw again.
  void refuse(const QString& why);

  QDoubleSpinBox* temperatureBox() const { return temperature_; }
  QSpinBox* topKBox() const { return topK_; }
  QDoubleSpinBox* topPBox() const { return topP_; }
  QSpinBox* seedBox() const { return seed_; }
  QPushButton* appendButton() const { return append_; }
  QLabel* drawnLabel() const { return drawn_; }
  QLabel* kvCheckLabel() const { return kvCheck_; }

 signals:
  void appendRequested();                              // the button: the panel says which sentence
  void pieceDrawn(int sentence, int id, double probability);

 private:
  void restart();  // a control changed: every sentence's draws count from 0 again
  void showKvCheck();  // result_'s check of the appended piece by the KV cache, or nothing

  TraceResultPtr result_;
  QDoubleSpinBox *temperature_, *topP_;
  QSpinBox *topK_, *seed_;
  QPushButton* append_;
  QLabel *drawn_, *kvCheck_;
  std::map<int, int64_t> drawnSoFar_;  // sentence → pieces drawn for it (the stream's next step)
};

}  // namespace attnlab::ui
