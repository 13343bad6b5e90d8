#include "views/scalingtable.h"

#include <QFutureWatcher>
#include <QHeaderView>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent>

#include "words/coretext.h"
#include "words/numbers.h"

namespace attnlab::ui {

namespace {

QString num(double v) { return formatNumber(v, {.digits = 3}); }
QString percent(double share) { return QStringLiteral("%1 %").arg(share * 100, 0, 'f', 0); }

// A column's heading, on short lines: the columns share a projector's narrow centre.
QString scalingName(ScoreScaling s, double divisor) {
  switch (s) {
    case ScoreScaling::ByHeadWidth: return ScalingTable::tr("÷ √d_head\n= %1\n(the model)").arg(num(divisor));
    case ScoreScaling::ByModelWidth: return ScalingTable::tr("÷ √d_model\n= %1").arg(num(divisor));
    case ScoreScaling::None: return ScalingTable::tr("no scaling");
  }
  return {};
}

struct Outcome {
  std::shared_ptr<const std::vector<ScalingRun>> runs;
  QString error;
};

}  // namespace

ScalingTable::ScalingTable(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("scalingExperiment"));
  auto* v = new QVBoxLayout(this);
  v->setContentsMargins(0, 0, 0, 0);
  title_ = new QLabel(tr("The √d experiment: the same input, the scores divided three ways"));
  QFont bold = title_->font();
  bold.setBold(true);
  title_->setFont(bold);
  title_->setWordWrap(true);
  summary_ = new QLabel;
  summary_->setObjectName(QStringLiteral("scalingSummary"));
  summary_->setWordWrap(true);
  // One column per scaling, one row per measure: narrow enough for a 1024-wide projector.
  table_ = new QTableWidget(0, 0);
  table_->setObjectName(QStringLiteral("scalingTable"));
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
  v->addWidget(title_);
  v->addWidget(table_);
  v->addWidget(summary_);
}

ScalingTable::~ScalingTable() = default;  // a running worker owns its inputs and finishes alone

void ScalingTable::setSelection(const TraceResultPtr& result, const std::string& block) {
  setVisible(result && result->gradients);
  if (!result || !result->gradients) return;
  if (result == for_ && block == block_) return;
  if (result == pending_ && block == pendingBlock_) return;
  const Step* w = result->trace.find(block + ".weights");
  if (!w) {
    runs_.clear();
    table_->setRowCount(0);
    summary_->setText(tr("The experiment needs an attention block's weights: choose a step inside one."));
    return;
  }
  if (w->tensor.numel() > kMaxCells) {
    runs_.clear();
    table_->setRowCount(0);
    summary_->setText(tr("Too long for three more runs here (%1 scores a run): try a shorter text.").arg(w->tensor.numel()));
    return;
  }
  pending_ = result;
  pendingBlock_ = block;
  const quint64 gen = ++generation_;
  summary_->setText(tr("computing three runs…"));
  auto* watcher = new QFutureWatcher<Outcome>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, gen] {
    const Outcome o = watcher->result();
    finished(gen, o.runs, o.error);
    watcher->deleteLater();
  });
  const TraceResultPtr input = result;  // kept alive by the worker
  const LossKind loss = result->gradients->kind;
  watcher->setFuture(QtConcurrent::run([input, loss, block]() -> Outcome {
    try {
      return {std::make_shared<const std::vector<ScalingRun>>(
                  scaling_experiment(input->cfg, input->weights, input->batch, loss, block)),
              {}};
    } catch (const std::exception& e) {
      return {nullptr, CoreText::of(e)};
    }
  }));
}

void ScalingTable::finished(quint64 generation, std::shared_ptr<const std::vector<ScalingRun>> runs, const QString& error) {
  if (generation != generation_) return;  // a newer selection was asked for meanwhile
  for_ = pending_;
  block_ = pendingBlock_;
  pending_.reset();
  if (!runs) {
    runs_.clear();
    table_->setRowCount(0);
    summary_->setText(error);
  } else {
    show(*runs);
  }
  emit done();
}

void ScalingTable::show(const std::vector<ScalingRun>& runs) {
  runs_ = runs;
  const QStringList measures = {tr("saturated rows"), tr("rows with ~no gradient"), tr("‖∂L/∂scores‖"), tr("‖∂L/∂Q‖"),
                                 tr("‖∂L/∂K‖")};
  table_->setRowCount(static_cast<int>(measures.size()));
  table_->setColumnCount(static_cast<int>(runs.size()));
  table_->setVerticalHeaderLabels(measures);
  table_->verticalHeaderItem(1)->setToolTip(tr("Query rows whose gradient is below 1/100 of the median row's"));
  for (int c = 0; c < static_cast<int>(runs.size()); ++c) {
    const ScalingRun& r = runs[static_cast<size_t>(c)];
    table_->setHorizontalHeaderItem(c, new QTableWidgetItem(scalingName(r.scaling, r.divisor)));
    const QStringList cells = {percent(r.saturated), percent(r.starved), num(r.grad_scores), num(r.grad_q), num(r.grad_k)};
    for (int row = 0; row < cells.size(); ++row) {
      auto* item = new QTableWidgetItem(cells[row]);
      item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      table_->setItem(row, c, item);
    }
  }
  const ScalingRun* model = runs.empty() ? nullptr : &runs.front();
  const ScalingRun* none = runs.size() < 3 ? nullptr : &runs.back();
  if (!model || !none) return;
  if (model->grad_q < 1e-6 && model->grad_k < 1e-6) {
    summary_->setText(tr("No gradient reaches this block at all (a post-norm model under the sum loss: the trap), so "
                         "the experiment shows nothing here. Choose the pre-norm model."));
    return;
  }
  // Said as the numbers are: the starving shows only when the dot products are large.
  const bool starves = none->starved > model->starved + 0.05 || none->saturated > model->saturated + 0.05;
  if (starves)
    summary_->setText(tr("Without the scaling %1 of the rows saturate (the model: %2) and %3 of them get almost no gradient "
                         "(the model: %4): a saturated softmax passes almost nothing back, so those queries and keys "
                         "stop learning. The total ‖∂L/∂Q‖ can still grow: the other rows are no longer divided by √d_head.")
                          .arg(percent(none->saturated), percent(model->saturated), percent(none->starved), percent(model->starved)));
  else
    summary_->setText(tr("Here the dot products are still small (d_head %1): without the scaling only %2 of the rows "
                         "saturate and %3 get almost no gradient. The starving needs wide heads, whose unscaled scores "
                         "grow with √d_head: try d_model 512 with 8 heads (d_head 64).")
                          .arg(qRound(runs.front().divisor * runs.front().divisor))
                          .arg(percent(none->saturated), percent(none->starved)));
}

}  // namespace attnlab::ui
