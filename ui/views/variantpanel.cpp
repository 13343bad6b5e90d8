#include "views/variantpanel.h"

#include <QComboBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include <cmath>

#include "text/tokenizer.h"
#include "views/chartspanel.h"
#include "views/heatmapview.h"
#include "window/smallwidgets.h"
#include "words/numbers.h"
#include "words/varianttext.h"

namespace attnlab::ui {

namespace {

constexpr double kAgree = 1e-5;  // "equal within" for the exact walk-throughs

QString num(double v) { return formatNumber(v); }

// (T, T) plane (b, h) of a (B, H, T, T) tensor, C order.
std::vector<float> plane(const Tensor& t, int b, int h) {
  const int64_t r = t.size(2), c = t.size(3);
  std::vector<float> out(static_cast<size_t>(r * c));
  for (int64_t i = 0; i < r; ++i)
    for (int64_t j = 0; j < c; ++j) out[static_cast<size_t>(i * c + j)] = t.at({b, h, i, j});
  return out;
}

}  // namespace

VariantPanel::VariantPanel(QWidget* parent) : QWidget(parent) {
  auto* v = new QVBoxLayout(this);
  note_ = shadedLabel(QStringLiteral("variantNote"));
  v->addWidget(note_);
  body_ = new QWidget;
  auto* b = new QVBoxLayout(body_);
  b->setContentsMargins(0, 0, 0, 0);
  title_ = wrappedLabel(QStringLiteral("variantTitle"));
  description_ = wrappedLabel(QStringLiteral("variantDescription"));
  b->addWidget(title_);
  b->addWidget(description_);
  auto* form = new QFormLayout;
  sentence_ = new QComboBox;
  sentence_->setObjectName(QStringLiteral("variantSentence"));
  head_ = new QComboBox;
  head_->setObjectName(QStringLiteral("variantHead"));
  for (QComboBox* c : {sentence_, head_}) {  // a long sentence must not widen the dock
    c->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    c->setMinimumContentsLength(8);
  }
  form->addRow(tr("Sentence:"), sentence_);
  form->addRow(tr("Head:"), head_);
  b->addLayout(form);
  auto* maps = new QGridLayout;
  fullCaption_ = wrappedLabel(QStringLiteral("fullCaption"));
  variantCaption_ = wrappedLabel(QStringLiteral("variantCaption"));
  full_ = new HeatmapView;
  variant_ = new HeatmapView;
  for (HeatmapView* h : {full_, variant_}) h->setMinimumSize(160, 160);
  maps->addWidget(fullCaption_, 0, 0);
  maps->addWidget(variantCaption_, 0, 1);
  maps->addWidget(full_, 1, 0);
  maps->addWidget(variant_, 1, 1);
  maps->setColumnStretch(0, 1);
  maps->setColumnStretch(1, 1);
  b->addLayout(maps);
  walkNote_ = wrappedLabel(QStringLiteral("variantWalkNote"));
  b->addWidget(walkNote_);
  auto* costs = new QGridLayout;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) {
      cost_[r][c] = new QLabel;
      cost_[r][c]->setTextInteractionFlags(Qt::TextSelectableByMouse);
      cost_[r][c]->setAlignment(c == 0 ? Qt::AlignLeft | Qt::AlignVCenter : Qt::AlignRight | Qt::AlignVCenter);
      if (r == 0 || c == 3) cost_[r][c]->setStyleSheet(QStringLiteral("QLabel { font-weight: bold; }"));
      cost_[r][c]->setWordWrap(r == 0);  // "decoding without a cache" may take two lines
      costs->addWidget(cost_[r][c], r, c);
    }
  costs->setColumnStretch(0, 1);
  error_ = wrappedLabel(QStringLiteral("variantError"));
  agreement_ = wrappedLabel(QStringLiteral("variantAgreement"));
  chart_ = new TokenBarChart;
  steps_ = new QPushButton(tr("Walk through its steps"));
  steps_->setObjectName(QStringLiteral("variantSteps"));
  steps_->setToolTip(tr("Show the variant's first step in the step navigator"));
  b->addLayout(costs);
  for (QWidget* w : std::initializer_list<QWidget*>{error_, agreement_, chart_, steps_}) b->addWidget(w);
  v->addWidget(body_);
  v->addStretch(1);
  body_->hide();
  connect(sentence_, &QComboBox::currentIndexChanged, this, &VariantPanel::showSentence);
  connect(head_, &QComboBox::currentIndexChanged, this, &VariantPanel::showSentence);
  connect(steps_, &QPushButton::clicked, this, [this] {
    if (!summary_) return;
    for (const Step& s : result_->trace.steps())
      if (s.info.id.starts_with(summary_->prefix)) {
        emit stepRequested(QString::fromStdString(s.info.id));
        return;
      }
  });
}

QString VariantPanel::count(double n) {
  static const char* const units[] = {"", " k", " M", " G", " T"};
  int u = 0;
  while (std::fabs(n) >= 1000 && u < 4) n /= 1000, ++u;
  return QString::number(n, 'g', 3) + QLatin1String(units[u]);
}

QString VariantPanel::bytes(double n) {
  static const char* const units[] = {" B", " KiB", " MiB", " GiB", " TiB"};
  int u = 0;
  while (std::fabs(n) >= 1024 && u < 4) n /= 1024, ++u;
  return QString::number(n, 'f', u == 0 ? 0 : 1) + QLatin1String(units[u]);
}

QString VariantPanel::ratio(double variant, double reference) {
  if (!(reference > 0)) return QStringLiteral("—");
  return tr("%1 ×", "a ratio, e.g. 0.42 ×").arg(QString::number(variant / reference, 'g', 3));
}

std::string VariantPanel::variantStepId() const {
  if (!summary_) return {};
  if (summary_->kind == VariantKind::KvCache) return summary_->prefix + "t0.attn";
  const std::string_view n = variant_weights_step(summary_->kind);  // variant_table.h
  return n.empty() ? std::string() : summary_->prefix + std::string(n);
}

QString VariantPanel::whyNone() const {
  const ModelConfig& c = result_->cfg;
  if (!c.variant.on())
    return tr("Choose an attention variant under “attention variant” in the input panel: it runs beside one encoder "
              "block on that block's own queries, keys and values, and this panel compares it with full attention.");
  if (!c.faults.empty())
    return tr("A planted bug is on: the variants run on the correct model only. Answer or leave the exercise to "
              "compare a variant again.");
  if (c.traces_overview())
    return tr("The tiled path for long texts keeps no (S, S) attention to compare with, so no variant runs beside "
              "it. Choose “full (every score)” under attention to see the variant.");
  return tr("This result has no variant steps.");
}

void VariantPanel::setResult(TraceResultPtr result) {
  result_ = std::move(result);
  summary_.reset();
  if (result_ && result_->cfg.traces_variant())
    summary_ = summarize_variant(result_->cfg.variant, result_->trace, result_->cfg.d_model);
  body_->setVisible(summary_.has_value());
  if (!result_) return;
  if (!summary_) {
    note_->setText(whyNone());
    note_->show();
    return;
  }
  fillSentences();
  showSummary();
  showSentence();
}

void VariantPanel::fillSentences() {
  const auto& rows = result_->batch.encoder_tokens().shown_rows();
  const int keep = sentence_->currentIndex(), keepHead = head_->currentIndex();
  const QSignalBlocker a(sentence_), c(head_);
  sentence_->clear();
  for (size_t b = 0; b < rows.size(); ++b) {
    QStringList words;
    for (const auto& t : rows[b])
      if (t != kPadToken) words << QString::fromStdString(t);
    sentence_->addItem(tr("%1: %2").arg(b).arg(words.join(QLatin1Char(' ')).left(50)));
  }
  sentence_->setCurrentIndex(std::clamp(keep, 0, sentence_->count() - 1));
  head_->clear();
  for (int64_t h = 0; h < result_->cfg.heads; ++h) head_->addItem(tr("Head %1").arg(h));
  head_->setCurrentIndex(std::clamp(keepHead, 0, head_->count() - 1));
}

void VariantPanel::showSummary() {
  const VariantSummary& s = *summary_;
  title_->setText(tr("<b>%1</b> beside the self-attention of layer %2")
                      .arg(VariantText::name(s.kind).toHtmlEscaped())
                      .arg(result_->cfg.variant.layer));  // from 0, as the ids and --variant-layer
  description_->setText(VariantText::description(s.kind));
  showCost();
  const bool kv = s.kind == VariantKind::KvCache;
  error_->setText((kv ? tr("Difference from full causal attention over %1 tokens: max |Δ| = %2, relative error %3.")
                      : tr("Difference from full attention over %1 tokens: max |Δ| = %2, relative error %3."))
                      .arg(s.counted_queries)
                      .arg(num(s.max_abs), num(s.rel_error)));
  agreement_->setText(agreementText());
  agreement_->setVisible(s.agreement >= 0);
  const bool exact = s.kind == VariantKind::KvCache || s.kind == VariantKind::Tiled;
  note_->hide();
  walkNote_->setText(kv ? tr("The KV cache computes full causal attention, one new token at a time: the right map is its "
                         "weights, assembled row by row from the cache, so the future (above the diagonal) is never read. "
                         "The left map is this block's own attention, under the model's mask.")
                     : exact ? tr("The tiled walk-through computes exactly full attention without ever holding the (S, S) "
                              "matrix, so there is no other map to show: the left map is what it reproduces.")
                         : QString());
  walkNote_->setVisible(exact);
}

QString VariantPanel::costCell(int row, int col) const {
  return row >= 0 && row < 3 && col >= 0 && col < 4 ? cost_[row][col]->text() : QString();
}

void VariantPanel::showCost() {
  const VariantSummary& s = *summary_;
  const QString ref = s.kind == VariantKind::KvCache ? tr("decoding without a cache") : tr("full attention");
  const QString cells[3][4] = {
      {QString(), tr("this variant"), ref, tr("ratio")},
      {tr("FLOPs"), count(s.cost.flops), count(s.reference_cost.flops), ratio(s.cost.flops, s.reference_cost.flops)},
      {tr("memory"), bytes(s.cost.bytes), bytes(s.reference_cost.bytes), ratio(s.cost.bytes, s.reference_cost.bytes)}};
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) cost_[r][c]->setText(cells[r][c]);
}

QString VariantPanel::agreementText() const {
  const VariantSummary& s = *summary_;
  if (s.agreement < 0) return {};
  const bool ok = s.agreement <= kAgree;
  switch (s.kind) {
    case VariantKind::Linear:
      return ok ? tr("Check: the O(S) form is equal to the quadratic form within 1e-5 (largest difference %1).").arg(num(s.agreement))
                : tr("Check failed: the O(S) form and the quadratic form differ by %1.").arg(num(s.agreement));
    case VariantKind::KvCache:
      return ok ? tr("Check: decoding with the cache is equal to full causal attention within 1e-5 (largest difference %1).")
                      .arg(num(s.agreement))
                : tr("Check failed: decoding with the cache differs from full causal attention by %1.").arg(num(s.agreement));
    default:
      return ok ? tr("Check: the tiled online softmax is equal to full attention within 1e-5 (largest difference %1).")
                      .arg(num(s.agreement))
                : tr("Check failed: the tiled online softmax differs from full attention by %1.").arg(num(s.agreement));
  }
}

// The variant's (T, T) matrix of sentence b, head h; the KV cache's from its rows t{i}.attn.
std::vector<float> VariantPanel::variantMatrix(int b, int h, int t) const {
  const std::string& p = summary_->prefix;
  if (summary_->kind == VariantKind::KvCache) {
    std::vector<float> m(static_cast<size_t>(t) * t, 0.0f);
    for (int i = 0; i < t; ++i)
      if (const Step* row = result_->trace.find(p + "t" + std::to_string(i) + ".attn"))  // (B, H, 1, i + 1)
        for (int j = 0; j <= i; ++j) m[static_cast<size_t>(i * t + j)] = row->tensor.at({b, h, 0, j});
    return m;
  }
  const std::string_view n = variant_weights_step(summary_->kind);  // "" for the tiled walk-through
  const Step* s = n.empty() ? nullptr : result_->trace.find(p + std::string(n));
  return s ? plane(s->tensor, b, h) : std::vector<float>{};
}

void VariantPanel::showSentence() {
  if (!summary_ || sentence_->currentIndex() < 0 || head_->currentIndex() < 0) return;
  const int b = sentence_->currentIndex(), h = head_->currentIndex();
  const std::string block = "encoder.layers." + std::to_string(result_->cfg.variant.layer) + ".self_attn.";
  const Step* w = result_->trace.find(block + "weights");
  const Step* err = result_->trace.find(summary_->prefix + "error");  // (B, T)
  if (!w || !err) return;
  const int t = static_cast<int>(w->tensor.size(2));
  const AxisTokens tokens = attention_tokens(result_->batch, block + "weights", b);
  const std::vector<float> full = plane(w->tensor, b, h), var = variantMatrix(b, h, t);
  std::vector<float> both = full;
  both.insert(both.end(), var.begin(), var.end());
  const ColorMap map = ColorMap::fitted(both.data(), static_cast<long long>(both.size()), true);
  full_->setMatrix(full.data(), t, t, tokens.query, tokens.key, map);
  if (const Step* ms = result_->trace.find(block + "masked_scores"); ms && ms->tensor.shape() == w->tensor.shape()) {
    const std::vector<float> m = plane(ms->tensor, b, h);
    std::vector<char> masked(m.size());
    for (size_t i = 0; i < m.size(); ++i) masked[i] = std::isinf(m[i]) && m[i] < 0;
    full_->setMaskedCells(std::move(masked));
  }
  fullCaption_->setText(tr("Full attention, head %1").arg(h));
  variant_->setVisible(!var.empty());
  variantCaption_->setVisible(!var.empty());
  if (!var.empty()) {
    variant_->setMatrix(var.data(), t, t, tokens.query, tokens.key, map);
    variantCaption_->setText(summary_->kind == VariantKind::Linformer || summary_->kind == VariantKind::Axial
                                 ? tr("%1: the weights it amounts to").arg(VariantText::name(summary_->kind))
                                 : tr("%1: its weights").arg(VariantText::name(summary_->kind)));
  }
  const int n = result_->batch.encoder_tokens().lengths.at(static_cast<size_t>(b));
  QStringList words;
  QVector<double> values;
  for (int i = 0; i < n; ++i) {
    words << QString::fromStdString(tokens.query.at(static_cast<size_t>(i)));
    values << err->tensor.at({b, i});
  }
  const QString title = summary_->kind == VariantKind::KvCache
                            ? tr("Difference from full causal attention per token (sentence %1)")
                            : tr("Difference from full attention per token (sentence %1)");
  chart_->setBars(words, values, title.arg(b), tr("max |Δ|"));
}

}  // namespace attnlab::ui
