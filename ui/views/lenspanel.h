// The logit lens (core/explain/logit_lens.h) beside the Predictions panel: what the model would
// predict if it stopped after each layer. For one sentence, rows are the sentence's positions,
// columns the residual stream from the embeddings to the last layer; each cell shows that layer's
// most likely token and its probability, coloured by the probability it gives the model's final
// answer at that position, so the answer is seen forming layer by layer (the top K in the
// tooltip). Computed off the window's thread while the panel is shown; a model without a trained
// output head gets the reason instead.
#pragma once

#include <QWidget>

#include <memory>

#include "explain/logit_lens.h"
#include "views/backgroundjob.h"
#include "window/traceresult.h"

class QComboBox;
class QLabel;
class QTableWidget;

namespace attnlab::ui {

class LensPanel : public QWidget {
  Q_OBJECT
 public:
  explicit LensPanel(QWidget* parent = nullptr);
  ~LensPanel() override;

  // Computes when shown (or at once if visible); a newer result replaces an older one's job.
  void setResult(TraceResultPtr result);
  // Blocks until the running computation (if any) has finished and been shown (tests).
  void waitForIdle();

  QTableWidget* table() const { return table_; }
  QComboBox* sentenceBox() const { return sentence_; }
  QLabel* messageLabel() const { return message_; }
  // The shown sentence's table: .png / .svg as drawn, anything else CSV (csv()). "" when saved.
  QString exportTo(const QString& path);
  // One row per position: the token, then per layer its top token, that probability and the final
  // answer's probability. Empty when nothing is shown.
  QString csv() const;

 signals:
  void computed();  // the table shows the newest result's lens

 protected:
  void showEvent(QShowEvent* e) override;
  void hideEvent(QHideEvent* e) override;

 private:
  struct Outcome {
    std::shared_ptr<const explain::LogitLens> lens;
    QString error;
    bool stopped = false;  // given up for a newer result (BackgroundJob::stop)
    TraceResultPtr source;  // the result it reads
  };
  void start();
  void finished();
  void showSentence();
  QString pieceText(int64_t id) const;  // a vocabulary entry as a chip spells it

  TraceResultPtr result_;  // the newest result (what is asked for)
  TraceResultPtr shown_;   // the result lens_ reads: the table reads only these two
  std::shared_ptr<const explain::LogitLens> lens_;
  std::weak_ptr<const TraceResult> asked_;
  BackgroundJob<Outcome> job_{this, [this] { finished(); }};
  QComboBox* sentence_;
  QLabel *intro_, *message_, *help_;
  QTableWidget* table_;
};

}  // namespace attnlab::ui
