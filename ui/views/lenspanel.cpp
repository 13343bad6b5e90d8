#include "views/lenspanel.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include "explain/explain.h"
#include "export/widgetexport.h"
#include "subword/subword_token.h"
#include "views/colormap.h"
#include "views/predictionspanel.h"
#include "views/sentencechoices.h"
#include "window/smallwidgets.h"
#include "words/coretext.h"

namespace attnlab::ui {

LensPanel::LensPanel(QWidget* parent) : QWidget(parent) {
  auto* v = new QVBoxLayout(this);
  intro_ = wrappedLabel(QStringLiteral("lensIntro"));
  intro_->setText(tr("What would the model predict if it stopped after each layer? Run a trained model to see."));
  v->addWidget(intro_);
  auto* form = new QFormLayout;
  sentence_ = new QComboBox;
  sentence_->setObjectName(QStringLiteral("lensSentence"));
  auto* row = new QHBoxLayout;
  row->addWidget(sentence_, 1);
  row->addWidget(exportButton(this, tr("Export the logit lens"), QStringLiteral("logit-lens.png"),
                              [this](const QString& path) { return exportTo(path); }));
  form->addRow(tr("Sentence:"), row);
  v->addLayout(form);
  message_ = shadedLabel(QStringLiteral("lensMessage"));
  v->addWidget(message_);
  table_ = new QTableWidget;
  table_->setObjectName(QStringLiteral("lensTable"));
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionMode(QAbstractItemView::NoSelection);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->setMinimumHeight(140);
  v->addWidget(table_, 1);
  help_ = wrappedLabel(QStringLiteral("lensHelp"));
  // Short, so that the table keeps the dock's height; how a column is made in the tooltip.
  help_->setText(tr("Colour: the probability of the model's final answer — a row that brightens to the right is the "
                    "answer forming. Hover a cell for the top %1. Caveat: earlier layers were never trained to be "
                    "read by the output head, so a miss there does not mean the information is missing "
                    "(nostalgebraist 2020).")
                     .arg(explain::kLensTopDefault));
  help_->setToolTip(tr("Each column sends the residual stream after that layer through what follows the last layer: "
                       "the final LayerNorm where the model has one, then the output head, then a softmax over the "
                       "vocabulary."));
  intro_->setToolTip(help_->toolTip());
  v->addWidget(help_);
  connect(sentence_, &QComboBox::currentIndexChanged, this, [this] { showSentence(); });
}

LensPanel::~LensPanel() = default;  // job_ stops a running computation and waits for it

void LensPanel::setResult(TraceResultPtr result) {
  result_ = std::move(result);
  if (result_ != asked_.lock()) job_.stop();  // a running computation for an older result: finished() starts one for this
  if (result_ && isVisible()) start();
}

// Hidden (its dock closed, or behind another tab): nothing is computed for it until shown again.
void LensPanel::hideEvent(QHideEvent* e) {
  QWidget::hideEvent(e);
  job_.stop();
}

void LensPanel::showEvent(QShowEvent* e) {
  QWidget::showEvent(e);
  if (result_ && result_ != asked_.lock()) start();
}

void LensPanel::waitForIdle() { job_.waitForIdle(); }

void LensPanel::start() {
  if (job_.running()) return;  // finished() starts again for the newest result
  asked_ = result_;
  message_->setText(tr("Computing the logit lens…"));
  message_->show();
  job_.run([r = result_](const std::atomic<bool>* stop) -> Outcome {
    Outcome out{.source = r};
    try {
      check_explain(r->cfg, r->batch.encoder_tokens().seq(), {ExplainMethod::LogitLens}, false, r->weights.vocab() != nullptr);
      out.lens = std::make_shared<const explain::LogitLens>(
          explain::logit_lens(r->cfg, r->weights, r->trace, explain::kLensTopDefault, cpu_backend(), stop));
    } catch (const Cancelled&) {
      out.stopped = true;
    } catch (const std::exception& e) {
      out.error = CoreText::of(e);
    }
    return out;
  });
}

void LensPanel::finished() {
  const Outcome o = job_.result();
  if (o.stopped || (result_ && result_ != o.source)) {  // a newer result arrived meanwhile
    asked_.reset();  // not shown: showEvent asks again
    if (isVisible()) start();
    return;
  }
  lens_ = o.lens;
  shown_ = o.lens ? o.source : nullptr;
  message_->setText(o.error);
  message_->setVisible(!o.error.isEmpty());
  const int keep = sentence_->currentIndex();
  const QSignalBlocker block(sentence_);
  sentence_->clear();
  if (lens_ && shown_) {
    sentence_->addItems(sentenceChoices(shown_->batch.encoder_tokens()));
    sentence_->setCurrentIndex(keep >= 0 && keep < sentence_->count() ? keep : 0);
  }
  showSentence();
  emit computed();
}

QString LensPanel::pieceText(int64_t id) const {
  const TrainedVocab& v = *shown_->weights.vocab();
  return QString::fromStdString(subword::display_piece(v.words().at(static_cast<size_t>(id)), v.byte_level));
}

void LensPanel::showSentence() {
  table_->clear();
  const int b = sentence_->currentIndex();
  if (!lens_ || !shown_ || b < 0) {
    table_->setRowCount(0);
    table_->setColumnCount(0);
    return;
  }
  intro_->setText(tr("What would the model predict if it stopped after each layer?"));
  const TokenBatch& tokens = shown_->batch.encoder_tokens();
  const int len = tokens.lengths[static_cast<size_t>(b)];
  const int layers = static_cast<int>(lens_->probs.size(1));
  const int k = static_cast<int>(lens_->probs.size(3));
  const auto& shown = tokens.shown_row(b);
  // Rows: the sentence's positions (a long sentence scrolls down); columns: the layers, the
  // model's answer last.
  table_->setRowCount(len);
  table_->setColumnCount(layers);
  for (int s = 0; s < len; ++s) table_->setVerticalHeaderItem(s, new QTableWidgetItem(QString::fromStdString(shown[static_cast<size_t>(s)])));
  const ColorMap map{ColorMapKind::Sequential, 0, 1};
  for (int l = 0; l < layers; ++l) {
    const QString name = l == 0 ? tr("Embeddings") : tr("After layer %1").arg(l - 1);
    auto* head = new QTableWidgetItem(l == 0 ? tr("Input") : l == layers - 1 ? tr("Layer %1 = answer").arg(l - 1) : tr("Layer %1").arg(l - 1));
    head->setToolTip(l == layers - 1 ? tr("%1 (the model's answer)").arg(name) : name);
    table_->setHorizontalHeaderItem(l, head);
    for (int s = 0; s < len; ++s) {
      const int64_t top = static_cast<int64_t>(lens_->ids.at({b, l, s, 0}));
      const int64_t answer = static_cast<int64_t>(lens_->ids.at({b, layers - 1, s, 0}));
      const double p = lens_->probs.at({b, l, s, 0}), pAnswer = lens_->answer.at({b, l, s});
      // one line a cell, so that a classroom sentence's rows fit the dock without scrolling
      auto* cell = new QTableWidgetItem(QStringLiteral("%1  %2").arg(pieceText(top), percentText(p)));
      const QColor color = map.color(pAnswer);
      cell->setBackground(color);
      cell->setForeground(inkOn(color));
      cell->setTextAlignment(Qt::AlignCenter);
      if (top == answer) {
        QFont bold = cell->font();
        bold.setBold(true);
        cell->setFont(bold);
      }
      QString tip = QStringLiteral("<b>%1</b><br>").arg(name.toHtmlEscaped());
      for (int i = 0; i < k; ++i)
        tip += QStringLiteral("%1. %2 — %3<br>")
                   .arg(i + 1)
                   .arg(pieceText(static_cast<int64_t>(lens_->ids.at({b, l, s, i}))).toHtmlEscaped(), percentText(lens_->probs.at({b, l, s, i})));
      tip += tr("The final answer %1: %2").arg(pieceText(answer).toHtmlEscaped(), percentText(pAnswer));
      cell->setToolTip(tip);
      table_->setItem(s, l, cell);
    }
  }
}

QString LensPanel::exportTo(const QString& path) {
  if (!lens_ || !shown_) return tr("There is no logit lens to export yet: run a trained model with the panel shown.");
  return saveWidgetOrCsv(table_, path, [this] { return csv(); });
}

QString LensPanel::csv() const {
  if (!lens_ || !shown_ || sentence_->currentIndex() < 0) return QString();
  const int b = sentence_->currentIndex();
  const TokenBatch& tokens = shown_->batch.encoder_tokens();
  const auto& shown = tokens.shown_row(b);
  const auto quoted = [](QString t) { return QLatin1Char('"') + t.replace(QLatin1Char('"'), QLatin1String("\"\"")) + QLatin1Char('"'); };
  QStringList head{QStringLiteral("position"), QStringLiteral("token")};
  for (int64_t l = 0; l < lens_->probs.size(1); ++l) {
    const QString name = l == 0 ? QStringLiteral("input") : QStringLiteral("layer_%1").arg(l - 1);
    head << name + QStringLiteral("_top") << name + QStringLiteral("_p") << name + QStringLiteral("_answer_p");
  }
  QString out = head.join(QLatin1Char(',')) + QLatin1Char('\n');
  for (int s = 0; s < tokens.lengths[static_cast<size_t>(b)]; ++s) {
    QStringList cells{QString::number(s), quoted(QString::fromStdString(shown[static_cast<size_t>(s)]))};
    for (int64_t l = 0; l < lens_->probs.size(1); ++l)
      cells << quoted(pieceText(static_cast<int64_t>(lens_->ids.at({b, l, s, 0}))))
            << QString::number(lens_->probs.at({b, l, s, 0}), 'g', 7) << QString::number(lens_->answer.at({b, l, s}), 'g', 7);
    out += cells.join(QLatin1Char(',')) + QLatin1Char('\n');
  }
  return out;
}

}  // namespace attnlab::ui
