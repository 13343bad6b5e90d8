#include "views/explainpanel.h"

#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QLocale>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

#include "explain/ablation.h"
#include "export/widgetexport.h"
#include "views/colormap.h"
#include "views/headknockout.h"
#include "views/sentencechoices.h"
#include "window/smallwidgets.h"
#include "words/coretext.h"

namespace attnlab::ui {

namespace {

struct Method {
  const char* key;  // the step's name after "explain.", or "attention"
  QString name, help, column;  // column: the short name over the table's column
};

// Each row's name and its "what is computed and its caveats" text.
std::vector<Method> methods() {
  return {
      {"attention", ExplainPanel::tr("Attention (last layer, mean of heads)"),
       ExplainPanel::tr("The weights the explained position gives each token in the last layer, averaged over the heads. "
                        "Caveat: it ignores every earlier layer and the values' sizes, so a large weight need not mean "
                        "a large effect."),
       ExplainPanel::tr("Attention")},
      {"rollout", ExplainPanel::tr("Attention rollout"),
       ExplainPanel::tr("Each layer's head average plus the identity of the residual connection, rows renormalised, "
                        "multiplied through the layers (Abnar & Zuidema 2020). Caveat: it treats every head and the "
                        "residual as equal and ignores the values and the feed-forward layers."),
       ExplainPanel::tr("Rollout")},
      {"flow", ExplainPanel::tr("Attention flow"),
       ExplainPanel::tr("The same graph as rollout, but how much can flow from each token to the position through "
                        "the layers: an exact maximum flow per pair of tokens, each row divided by its sum. Caveat: "
                        "slow (refused beyond a few dozen tokens) and often flat — many tokens reach the same maximum."),
       ExplainPanel::tr("Flow")},
      {"grad_attention", ExplainPanel::tr("Gradient-weighted attention"),
       ExplainPanel::tr("Each head's weights times the loss's gradient with respect to them, negative parts dropped, "
                        "averaged over heads and accumulated through the layers (Chefer et al. 2021). Caveat: it "
                        "explains the loss chosen for the backward pass, not one prediction."),
       ExplainPanel::tr("Grad-attn")},
      {"saliency", ExplainPanel::tr("Gradient × input"),
       ExplainPanel::tr("The first layer's input times the loss's gradient there, summed over its features; the cell "
                        "shows the signed number, its colour the size. Caveat: a first-order guess that ignores the "
                        "attention pattern itself."),
       ExplainPanel::tr("Grad×input")},
      {"token_ablation", ExplainPanel::tr("Token ablation (ground truth)"),
       ExplainPanel::tr("Each token masked as a key for every other position and the model run again: how much the "
                        "prediction at the explained position changes (|Δ log p| of its top guess for a trained model, "
                        "how far its output vector moves otherwise). One run per token. With a source sentence, each "
                        "source token is masked in the encoder and in every cross-attention."),
       ExplainPanel::tr("Ablation")},
  };
}

// How to read the table (`scored`: with its ρ row), then each method's text; under the table, so
// that the question and the table stay in view.
QString helpText(bool scored) {
  const QString columns = ExplainPanel::tr("Each column ranks the sentence's tokens by one method; a darker or brighter "
                                           "cell matters more (each column scaled to its own largest value).");
  const QString rho = ExplainPanel::tr("The last row, ρ, compares a method's ranking with token ablation's: 1 is the same "
                                       "order, 0 no relation.");
  QString help = QStringLiteral("<p>%1</p>").arg(scored ? columns + QLatin1Char(' ') + rho : columns);
  for (const Method& m : methods()) help += QStringLiteral("<p><b>%1</b>: %2</p>").arg(m.name.toHtmlEscaped(), m.help.toHtmlEscaped());
  return help;
}

// Two decimals, but small values (token ablation's |Δ log p| is often a few thousandths) to two
// significant digits, so that a column never reads as all zeros.
QString number(double v) {
  if (v != 0 && std::abs(v) < 0.1) return QLocale().toString(v, 'g', 2);
  return QLocale().toString(v, 'f', std::abs(v) >= 10 ? 1 : 2);
}

}  // namespace

ExplainPanel::ExplainPanel(QWidget* parent) : QWidget(parent) {
  auto* v = new QVBoxLayout(this);
  intro_ = wrappedLabel(QStringLiteral("explainIntro"));
  v->addWidget(intro_);
  auto* form = new QFormLayout;
  sentence_ = new QComboBox;
  sentence_->setObjectName(QStringLiteral("explainSentence"));
  auto* row = new QHBoxLayout;
  row->addWidget(sentence_, 1);
  row->addWidget(exportButton(this, tr("Export the explanations"), QStringLiteral("explanations.png"),
                              [this](const QString& path) { return exportTo(path); }));
  form->addRow(tr("Sentence:"), row);
  position_ = new QComboBox;
  position_->setObjectName(QStringLiteral("explainPosition"));
  position_->setToolTip(tr("The position whose prediction is explained: the sentence's [MASK] or last token unless "
                           "you choose another"));
  form->addRow(tr("Position:"), position_);
  v->addLayout(form);
  message_ = shadedLabel(QStringLiteral("explainMessage"));
  v->addWidget(message_);
  table_ = new QTableWidget;
  table_->setObjectName(QStringLiteral("explainTable"));
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionMode(QAbstractItemView::NoSelection);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->setMinimumHeight(160);
  v->addWidget(table_, 1);
  auto* group = new QGroupBox(tr("Knock heads out"));
  group->setObjectName(QStringLiteral("knockoutBox"));
  auto* gv = new QVBoxLayout(group);
  knockout_ = new HeadKnockout;
  gv->addWidget(knockout_);
  knockoutBox_ = group;
  knockoutBox_->hide();
  v->addWidget(group);
  connect(knockout_, &HeadKnockout::headsChanged, this, &ExplainPanel::headsChanged);
  connect(knockout_, &HeadKnockout::modeChanged, this, &ExplainPanel::ablateModeChanged);
  help_ = wrappedLabel(QStringLiteral("explainHelp"));
  help_->setText(helpText(true));
  v->addWidget(help_);
  intro_->setText(tr("Run a model to see which tokens mattered."));
  connect(sentence_, &QComboBox::currentIndexChanged, this, [this] { showSentence(); });
  connect(position_, &QComboBox::activated, this, &ExplainPanel::choosePosition);
}

ExplainPanel::~ExplainPanel() = default;  // job_ stops a running computation and waits for it

void ExplainPanel::setResult(TraceResultPtr result) {
  result_ = std::move(result);
  if (result_ != asked_.lock()) job_.stop();  // a running computation for an older result: finished() starts one for this
  if (result_)  // the encoder's self-attention heads (an encoder–decoder's three attentions)
    knockout_->setModel(static_cast<int>(result_->cfg.layers), static_cast<int>(result_->cfg.heads), result_->ablated,
                        result_->ablateMode, result_->cfg.cross);
  knockoutBox_->setVisible(result_ != nullptr);
  if (result_ && isVisible()) start();
}

// Hidden (its dock closed, or behind another tab): nothing is computed for it until shown again.
void ExplainPanel::hideEvent(QHideEvent* e) {
  QWidget::hideEvent(e);
  job_.stop();
}

void ExplainPanel::showEvent(QShowEvent* e) {
  QWidget::showEvent(e);
  if (result_ && result_ != asked_.lock()) start();
}

void ExplainPanel::waitForIdle() { job_.waitForIdle(); }

// The methods the result allows, worked out off the window's thread.
void ExplainPanel::start() {
  if (job_.running()) return;  // finished() starts again for the newest result
  asked_ = result_;
  message_->setText(tr("Computing the explanations…"));
  message_->show();
  job_.run([r = result_, chosen = chosen_](const std::atomic<bool>* stop) -> Outcome {
    Outcome out{.source = r, .chosen = chosen};
    try {
      const int64_t seq = r->batch.encoder_tokens().seq();
      std::vector<ExplainMethod> asked{ExplainMethod::Rollout};
      if (seq <= flow_max_tokens(r->cfg.layers)) asked.push_back(ExplainMethod::Flow);
      BackwardResult bw;
      if (r->gradients) {
        asked.push_back(ExplainMethod::GradAttention);
        asked.push_back(ExplainMethod::Saliency);
        bw.kind = r->gradients->kind;
        bw.loss = r->gradients->loss;
        const auto& steps = r->trace.steps();
        for (size_t i = static_cast<size_t>(r->gradients->firstStep); i < steps.size(); ++i) bw.steps.record(steps[i].info, steps[i].tensor);
      }
      if (seq <= explain::kAblationMaxTokens) asked.push_back(ExplainMethod::Ablation);
      if (r->gradients) asked.push_back(ExplainMethod::Heads);  // each head's effect on the loss
      std::erase_if(asked, [&](ExplainMethod m) { return !defined_for(r->cfg, m); });  // an encoder–decoder's
      check_explain(r->cfg, seq, asked, r->gradients.has_value(), r->weights.vocab() != nullptr);
      out.ex = std::make_shared<const Explanations>(compute_explanations(
          r->cfg, r->weights, r->batch, r->trace,
          {.bw = r->gradients ? &bw : nullptr, .loss = r->gradients ? &r->gradients->spec : nullptr,
           .mode = r->ablateMode, .query = chosen, .stop = stop},
          asked));
    } catch (const Cancelled&) {
      out.stopped = true;
    } catch (const std::exception& e) {
      out.error = CoreText::of(e);
    }
    return out;
  });
}

void ExplainPanel::finished() {
  const Outcome o = job_.result();
  if (o.stopped || (result_ && result_ != o.source) || o.chosen != chosen_) {  // a newer result or position meanwhile
    asked_.reset();  // not shown: showEvent asks again
    if (isVisible()) start();
    return;
  }
  ex_ = o.ex;
  shown_ = o.ex ? o.source : nullptr;
  knockout_->setEffects(ex_ ? ex_->heads : std::vector<explain::HeadEffect>{}, ex_ ? ex_->loss : 0.0);
  message_->setText(o.error);
  message_->setVisible(!o.error.isEmpty());
  const int keep = sentence_->currentIndex();
  const QSignalBlocker block(sentence_);
  sentence_->clear();
  if (ex_ && shown_) {
    sentence_->addItems(sentenceChoices(shown_->batch.text));  // the explained (decoder's) sentences
    sentence_->setCurrentIndex(keep >= 0 && keep < sentence_->count() ? keep : 0);
  }
  showSentence();
  emit computed();
}

void ExplainPanel::showSentence() {
  table_->clear();
  keys_.clear();
  const int b = sentence_->currentIndex();
  if (!ex_ || !shown_ || b < 0 || ex_->query.empty()) {
    position_->clear();
    table_->setRowCount(0);
    table_->setColumnCount(0);
    return;
  }
  // The positions are the explained sentence's; the rows its keys — in an encoder–decoder, the
  // decoder's positions and the source's tokens.
  const bool cross = shown_->cfg.cross;
  const TokenBatch& queries = shown_->batch.text;
  const TokenBatch& tokens = shown_->batch.encoder_tokens();
  const int len = tokens.lengths[static_cast<size_t>(b)];
  const int64_t q = ex_->query[static_cast<size_t>(b)];
  const auto& shown = tokens.shown_row(b);
  const auto& asked = queries.shown_row(b);
  {
    const QSignalBlocker block(position_);
    position_->clear();
    for (int j = 0; j < queries.lengths[static_cast<size_t>(b)]; ++j)
      position_->addItem(tr("%1: %2").arg(j).arg(QString::fromStdString(asked[static_cast<size_t>(j)])));
    position_->setCurrentIndex(static_cast<int>(q));
  }
  const QString word = QString::fromStdString(asked[static_cast<size_t>(q)]).toHtmlEscaped();
  intro_->setText(cross ? tr("Which source tokens mattered for the decoder's <b>%1</b> (position %2)? Rollout and "
                             "gradient-weighted attention follow Chefer et al. 2021's rules for encoder–decoders: "
                             "through the encoder's self-attention, the decoder's and the cross-attention between "
                             "them — through the decoder's self-attention a row also gathers what the later "
                             "positions that read it took from the source. Token ablation masks one source token "
                             "at a time. Flow is defined for one stack only.")
                              .arg(word)
                              .arg(q)
                        : tr("Which tokens mattered for <b>%1</b> (position %2)?").arg(word).arg(q));
  const Tensor& mask = shown_->trace.find("encoder.mask")->tensor;  // self-attention: who position q may see
  const auto visible = [&](int j) { return cross || mask.at({b, q, j}) != 0.0f; };  // the source: every real token
  // Rows: the sentence's tokens, then ρ; columns: the methods computed for this result.
  std::vector<std::pair<const Method*, std::vector<double>>> cols;
  const std::vector<Method> all = methods();
  for (const Method& m : all) {
    std::vector<double> row = explained_row(shown_->cfg, shown_->trace, *ex_, m.key, b);
    if (row.empty()) continue;  // not computed for this result
    cols.emplace_back(&m, std::move(row));
    keys_ << QString::fromLatin1(m.key);
  }
  const bool scored = !ex_->spearman.empty();  // the ρ row: token ablation was computed to score against
  help_->setText(helpText(scored));
  table_->setRowCount(len + (scored ? 1 : 0));
  table_->setColumnCount(static_cast<int>(cols.size()));
  for (int j = 0; j < len; ++j)
    table_->setVerticalHeaderItem(j, new QTableWidgetItem((j == q && !cross ? QStringLiteral("▸ ") : QString()) +
                                                          QString::fromStdString(shown[static_cast<size_t>(j)])));
  if (scored) {
    auto* rhoHead = new QTableWidgetItem(tr("ρ"));
    rhoHead->setToolTip(cross ? tr("Spearman's ρ between the column's ranking of the source tokens and token ablation's")
                              : tr("Spearman's ρ between the column's ranking of the other tokens and token ablation's"));
    table_->setVerticalHeaderItem(len, rhoHead);
  }
  for (int c = 0; c < static_cast<int>(cols.size()); ++c) {
    const auto& [m, row] = cols[static_cast<size_t>(c)];
    auto* head = new QTableWidgetItem(m->column);
    head->setToolTip(QStringLiteral("<b>%1</b><br>%2").arg(m->name.toHtmlEscaped(), m->help.toHtmlEscaped()));
    table_->setHorizontalHeaderItem(c, head);
    double top = 0;
    for (int j = 0; j < len; ++j)
      if (visible(j)) top = std::max(top, std::abs(row[static_cast<size_t>(j)]));
    const ColorMap map{ColorMapKind::Sequential, 0, top > 0 ? top : 1};
    for (int j = 0; j < len; ++j) {
      auto* cell = new QTableWidgetItem;
      if (!visible(j)) {  // the position cannot attend to this token
        cell->setText(QStringLiteral("·"));
        cell->setBackground(ColorMap::maskedColor());
      } else {
        cell->setText(number(row[static_cast<size_t>(j)]));
        const QColor color = map.color(std::abs(row[static_cast<size_t>(j)]));
        cell->setBackground(color);
        cell->setForeground(inkOn(color));
      }
      cell->setTextAlignment(Qt::AlignCenter);
      table_->setItem(j, c, cell);
    }
    if (!scored) continue;
    QString rho = QStringLiteral("—");
    for (const auto& [name, values] : ex_->spearman)
      if (name == m->key && std::isfinite(values[static_cast<size_t>(b)])) rho = number(values[static_cast<size_t>(b)]);
    auto* rhoCell = new QTableWidgetItem(rho);
    rhoCell->setTextAlignment(Qt::AlignCenter);
    QFont bold = rhoCell->font();
    bold.setBold(true);
    rhoCell->setFont(bold);
    table_->setItem(len, c, rhoCell);
  }
}

void ExplainPanel::choosePosition(int index) {
  const int b = sentence_->currentIndex();
  if (b < 0 || index < 0) return;
  if (chosen_.size() <= static_cast<size_t>(b)) chosen_.resize(static_cast<size_t>(b) + 1, -1);
  chosen_[static_cast<size_t>(b)] = index;
  job_.stop();  // the running one explains another position
  if (result_) start();  // a running job is followed by a new one (finished() sees chosen_ changed)
}

QString ExplainPanel::exportTo(const QString& path) {
  if (!ex_ || !shown_) return tr("There are no explanations to export yet: run a model with the panel shown.");
  return saveWidgetOrCsv(table_, path, [this] { return csv(); });
}

QString ExplainPanel::csv() const {
  const int b = sentence_->currentIndex();
  if (!ex_ || !shown_ || b < 0 || ex_->query.empty()) return QString();
  const TokenBatch& tokens = shown_->batch.encoder_tokens();
  const auto& shown = tokens.shown_row(b);
  const int64_t q = ex_->query[static_cast<size_t>(b)];
  const auto quoted = [](QString t) { return QLatin1Char('"') + t.replace(QLatin1Char('"'), QLatin1String("\"\"")) + QLatin1Char('"'); };
  std::vector<std::vector<double>> cols;
  for (const QString& key : keys_) cols.push_back(explained_row(shown_->cfg, shown_->trace, *ex_, key.toStdString(), b));
  // An encoder–decoder's rows are source tokens explained for one decoder position (every row
  // names it); otherwise the explained row is marked. ρ follows when token ablation was computed.
  const bool cross = shown_->cfg.cross;
  QString out = QLatin1String(cross ? "position,source_token,decoder_position," : "position,token,explained,") +
                keys_.join(QLatin1Char(',')) + QLatin1Char('\n');
  for (int j = 0; j < tokens.lengths[static_cast<size_t>(b)]; ++j) {
    const QString third = cross ? QString::number(q) : j == q ? QStringLiteral("1") : QStringLiteral("0");
    QStringList cells{QString::number(j), quoted(QString::fromStdString(shown[static_cast<size_t>(j)])), third};
    for (const auto& c : cols) cells << QString::number(c[static_cast<size_t>(j)], 'g', 7);
    out += cells.join(QLatin1Char(',')) + QLatin1Char('\n');
  }
  if (ex_->spearman.empty()) return out;
  QStringList rho{QString(), QStringLiteral("\"spearman_rho\""), QString()};
  for (const QString& key : keys_) {
    QString v;  // empty: not scored (ablation itself) or too few keys
    for (const auto& [name, values] : ex_->spearman)
      if (name == key.toStdString() && std::isfinite(values[static_cast<size_t>(b)])) v = QString::number(values[static_cast<size_t>(b)], 'g', 7);
    rho << v;
  }
  return out + rho.join(QLatin1Char(',')) + QLatin1Char('\n');
}

}  // namespace attnlab::ui
