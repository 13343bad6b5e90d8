// "Which tokens mattered?" side by side (core/explain): for one sentence and its explained position
// (its [MASK], else its last token), one row per method — the last layer's attention averaged
// over heads, attention rollout, attention flow, and with a loss chosen gradient-weighted attention
// and gradient × input — beside token ablation, the ground truth (each token masked, the model run
// again), with each method's Spearman ρ against it. Computed off the window's thread when a result
// arrives while the panel is shown (or when it is shown); each method has its "what is computed"
// text. Under the table, every head as a button: a click knocks it out (the window runs again
// without it), and with a loss chosen each shows its effect on the loss, ranked.
#pragma once

#include <QWidget>

#include <memory>

#include "explain/explain.h"
#include "views/backgroundjob.h"
#include "window/traceresult.h"

class QComboBox;
class QLabel;
class QTableWidget;

namespace attnlab::ui {

class HeadKnockout;

class ExplainPanel : public QWidget {
  Q_OBJECT
 public:
  explicit ExplainPanel(QWidget* parent = nullptr);
  ~ExplainPanel() override;

  // Computes when shown (or at once if visible); a newer result replaces an older one's job.
  void setResult(TraceResultPtr result);
  // Blocks until the running computation (if any) has finished and been shown (tests).
  void waitForIdle();

  QTableWidget* table() const { return table_; }
  QComboBox* sentenceBox() const { return sentence_; }
  // The position explained in the shown sentence: its [MASK] or last token until one is chosen
  // here (kept while the sentence is that long); a choice computes the explanations again.
  QComboBox* positionBox() const { return position_; }
  QLabel* messageLabel() const { return message_; }
  // The row's method key ("attention", "rollout", "flow", "grad_attention", "saliency",
  // "token_ablation"), in table order.
  QStringList methodKeys() const { return keys_; }
  HeadKnockout* knockout() const { return knockout_; }
  // The shown table: .png / .svg as drawn, anything else CSV (csv()). "" when saved.
  QString exportTo(const QString& path);
  // One row per token (the explained one marked), one column per method, then the ρ row; in an
  // encoder–decoder run one row per source token, each naming the decoder position explained, and
  // no ρ row. Empty when nothing is shown.
  QString csv() const;

 signals:
  void computed();  // the table shows the newest result's explanations
  // The learner knocked a head out or brought one back (HeadKnockout): the window runs again.
  void headsChanged(const std::vector<explain::HeadRef>& heads);
  void ablateModeChanged(explain::AblateMode mode);  // the knock-out's Zero / Mean

 protected:
  void showEvent(QShowEvent* e) override;
  void hideEvent(QHideEvent* e) override;

 private:
  struct Outcome {
    std::shared_ptr<const Explanations> ex;
    QString error;
    bool stopped = false;  // given up for a newer result (BackgroundJob::stop)
    TraceResultPtr source;  // the result it explains
    std::vector<int64_t> chosen;  // the positions chosen when it started (chosen_)
  };
  void start();
  void finished();
  void showSentence();
  void choosePosition(int index);

  TraceResultPtr result_;                  // the newest result (what is asked for)
  TraceResultPtr shown_;                   // the result ex_ explains: the table reads only these two
  std::shared_ptr<const Explanations> ex_;
  std::weak_ptr<const TraceResult> asked_;  // the result last asked for
  BackgroundJob<Outcome> job_{this, [this] { finished(); }};
  QComboBox *sentence_, *position_;
  std::vector<int64_t> chosen_;  // per sentence: the position chosen, −1 for the default
  QLabel *intro_, *message_, *help_;
  QTableWidget* table_;
  QStringList keys_;
  QWidget* knockoutBox_;
  HeadKnockout* knockout_;
};

}  // namespace attnlab::ui
