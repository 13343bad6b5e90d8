#include "views/heatmapgrid.h"

#include <QCursor>
#include <QGridLayout>
#include <QToolTip>
#include <QKeyEvent>
#include <QLabel>
#include <QPushButton>

#include <algorithm>
#include <cmath>

#include "backend/attention_tiled.h"
#include "forward/model.h"
#include "views/heatmapview.h"
#include "words/numbers.h"
#include "words/steptext.h"

namespace attnlab::ui {

namespace {

// The hover readout: 4 significant digits, the ASCII minus.
QString num(float v) { return formatNumber(v, {.digits = 4, .minusSign = false, .plusOnInfinity = true}); }

bool isNegInf(float v) { return std::isinf(v) && v < 0; }

std::string lastComponent(const std::string& id) {
  const auto dot = id.rfind('.');
  return dot == std::string::npos ? id : id.substr(dot + 1);
}

std::string blockOf(const std::string& id) {
  const auto dot = id.rfind('.');
  return dot == std::string::npos ? std::string() : id.substr(0, dot);
}

std::vector<std::string> indexLabels(int n) {
  std::vector<std::string> v;
  for (int i = 0; i < n; ++i) v.push_back(std::to_string(i));
  return v;
}

}  // namespace

// [caption ........ "← All heads"]
// [head grid | enlarged head] [legend]
// [hover info]
// [note: explanations and hints]
HeatmapGrid::HeatmapGrid(QWidget* parent) : QWidget(parent) {
  setFocusPolicy(Qt::StrongFocus);
  caption_ = new QLabel(this);
  caption_->setObjectName(QStringLiteral("caption"));
  caption_->setWordWrap(true);
  back_ = new QPushButton(tr("← All heads"), this);
  back_->setObjectName(QStringLiteral("allHeads"));
  back_->setToolTip(tr("Show every head again (Esc)"));
  back_->hide();
  connect(back_, &QPushButton::clicked, this, [this] { enlargeHead(-1); });
  gridHost_ = new QWidget(this);
  grid_ = new QGridLayout(gridHost_);
  grid_->setContentsMargins(0, 0, 0, 0);
  large_ = new HeatmapView(this);
  large_->hide();
  connect(large_, &HeatmapView::cellHovered, this, [this](int r, int c) { onHover(enlarged_, r, c); });
  legend_ = new ColorLegend(this);
  info_ = new QLabel(this);
  info_->setObjectName(QStringLiteral("info"));
  info_->setWordWrap(true);
  info_->setTextFormat(Qt::PlainText);
  note_ = new QLabel(this);
  note_->setObjectName(QStringLiteral("note"));
  note_->setWordWrap(true);
  note_->setTextFormat(Qt::PlainText);

  auto* top = new QHBoxLayout;
  top->addWidget(caption_, 1);
  top->addWidget(back_);
  auto* middle = new QHBoxLayout;
  middle->addWidget(gridHost_, 1);
  middle->addWidget(large_, 1);
  middle->addWidget(legend_);
  auto* v = new QVBoxLayout(this);
  v->addLayout(top);
  v->addLayout(middle, 1);
  v->addWidget(info_);
  v->addWidget(note_);
  info_->setText(defaultInfo());
}

QString HeatmapGrid::defaultInfo() const {
  return tr("Hover a cell: query token, key token, raw score, scaled score and weight.");
}

void HeatmapGrid::setStep(TraceResultPtr result, int stepIndex, int batchIndex) {
  result_ = std::move(result);
  step_ = stepIndex;
  batch_ = batchIndex;
  rebuild();
}

const Step* HeatmapGrid::shownStep() const {
  if (!result_ || step_ < 0 || step_ >= static_cast<int>(result_->trace.steps().size())) return nullptr;
  return &result_->trace.steps()[static_cast<size_t>(step_)];
}

void HeatmapGrid::clearViews() {
  for (HeatmapView* view : views_) delete view;
  views_.clear();
  delete grid_;  // a fresh layout: no row/column stretch left over from a larger head count
  grid_ = new QGridLayout(gridHost_);
  grid_->setContentsMargins(0, 0, 0, 0);
}

// The chosen sentence's (H, Tq, Tk) block of the step, its tokens, one shared map, one view per head.
void HeatmapGrid::rebuild() {
  clearViews();
  heads_ = tq_ = tk_ = 0;
  data_.clear();
  const Step* s = shownStep();
  if (!s || s->tensor.dim() != 4 || s->tensor.size(0) == 0) {
    caption_->setText(tr("This step is not an attention map (batch, heads, queries, keys)."));
    explanation_.clear();
    enlargeHead(-1);
    return;
  }
  const Tensor t = s->tensor.contiguous();
  batch_ = std::clamp(batch_, 0, static_cast<int>(t.size(0)) - 1);
  heads_ = static_cast<int>(t.size(1));
  tq_ = static_cast<int>(t.size(2));
  tk_ = static_cast<int>(t.size(3));
  const size_t n = static_cast<size_t>(heads_) * tq_ * tk_;
  data_.assign(t.data() + batch_ * n, t.data() + (batch_ + 1) * n);
  loadTokens(s->info.id);
  loadMask(s->info.id, n);
  const std::string kind = lastComponent(s->info.id);
  // a variant's (B, H, T, T) weights-like tensors (core/variants/variants.h): weights of some kind
  const bool variantWeights = kind == "row_weights" || kind == "col_weights" || kind == "effective" || kind == "quadratic";
  const bool weights = kind == "weights" || kind == "weights_overview" || variantWeights;
  map_ = ColorMap::fitted(data_.data(), static_cast<long long>(n), weights || kind.ends_with("pattern"));
  legend_->setMap(map_);
  legend_->setTitle(kind == "weights_overview"  ? tr("mean weight")
                    : weights                   ? tr("weight")
                    : kind.ends_with("pattern") ? tr("1 computed, 0 skipped")
                    : kind == "qk"              ? tr("raw score")
                                                : tr("score"));
  const QString heads = heads_ == 1 ? tr("1 head") : tr("%1 heads").arg(heads_);
  caption_->setText(tr("%1 · sentence %2 · %3").arg(StepText::title(s->info)).arg(batch_ + 1).arg(heads));
  const int cols = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(heads_))));
  for (int h = 0; h < heads_; ++h) {
    auto* view = new HeatmapView(gridHost_);
    fillView(view, h, heads_ <= 4 || tq_ <= 16);  // labels while they can still be read
    view->setTitle(tr("Head %1").arg(h));
    view->setToolTip(tr("Click to enlarge head %1").arg(h));
    view->setCursor(Qt::PointingHandCursor);
    connect(view, &HeatmapView::clicked, this, [this, h] { enlargeHead(h); });
    connect(view, &HeatmapView::cellHovered, this, [this, h](int r, int c) { onHover(h, r, c); });
    grid_->addWidget(view, h / cols, h % cols);
    view->show();  // a layout shows a new child only later (queued) when the grid is already visible
    views_.push_back(view);
  }
  grid_->setRowStretch((heads_ + cols - 1) / cols, 1);  // spare height below the heads, not between them
  explanation_ = explain();
  info_->setText(defaultInfo());
  enlargeHead(enlarged_ < heads_ ? enlarged_ : -1);
}

void HeatmapGrid::loadTokens(const std::string& id) {
  queryTokens_.clear();
  keyTokens_.clear();
  try {
    AxisTokens a = attention_tokens(result_->batch, id, batch_);
    if (const int64_t cap = result_->cfg.overview_cap; cap > 0 && lastComponent(id) == "weights_overview") {
      a.query = bin_labels(a.query, overview_bin(static_cast<int64_t>(a.query.size()), cap));
      a.key = bin_labels(a.key, overview_bin(static_cast<int64_t>(a.key.size()), cap));
    }
    queryTokens_ = std::move(a.query);
    keyTokens_ = std::move(a.key);
  } catch (const std::exception&) {  // a hand-made trace without its sentences: number the axes
  }
  if (static_cast<int>(queryTokens_.size()) != tq_) queryTokens_ = indexLabels(tq_);
  if (static_cast<int>(keyTokens_.size()) != tk_) keyTokens_ = indexLabels(tk_);
}

void HeatmapGrid::fillView(HeatmapView* view, int head, bool labels) const {
  view->setShowLabels(labels);
  const size_t plane = static_cast<size_t>(tq_) * tk_, off = static_cast<size_t>(head) * plane;
  view->setMatrix(data_.data() + off, tq_, tk_, queryTokens_, keyTokens_, map_);
  view->setMaskedCells(masked_.empty() ? std::vector<char>{}
                                       : std::vector<char>(masked_.begin() + off, masked_.begin() + off + plane));
}

// The cells the mask hides, read from the same block's masked_scores step (sentence batch_).
void HeatmapGrid::loadMask(const std::string& id, size_t n) {
  masked_.clear();
  const int idx = result_->indexOf(id.substr(0, id.rfind('.')) + ".masked_scores");
  if (idx < 0) return;
  const Tensor m = result_->trace.steps()[static_cast<size_t>(idx)].tensor.contiguous();
  if (m.numel() != static_cast<int64_t>(n) * m.size(0)) return;
  const float* p = m.data() + static_cast<size_t>(batch_) * n;
  masked_.resize(n);
  for (size_t i = 0; i < n; ++i) masked_[i] = std::isinf(p[i]) && p[i] < 0;
}

void HeatmapGrid::enlargeHead(int head) {
  if (head < -1 || head >= heads_) head = -1;
  const bool changed = head != enlarged_;
  enlarged_ = head;
  if (head >= 0) {
    fillView(large_, head, true);
    large_->setTitle(tr("Head %1").arg(head));
  }
  gridHost_->setVisible(head < 0);
  large_->setVisible(head >= 0);
  back_->setVisible(head >= 0);
  updateNote();
  if (head >= 0) setFocus(Qt::OtherFocusReason);  // so that Esc comes here
  if (changed) emit headEnlarged(head);
}

int HeatmapGrid::headCount() const { return heads_; }

HeatmapView* HeatmapGrid::headView(int head) const {
  if (head < 0 || head >= heads_) return nullptr;
  if (head == enlarged_) return large_;
  return head < static_cast<int>(views_.size()) ? views_[static_cast<size_t>(head)] : nullptr;
}

QString HeatmapGrid::hoverText() const { return hoverText_; }

float HeatmapGrid::shown(int head, int i, int j) const {
  return data_[(static_cast<size_t>(head) * tq_ + i) * tk_ + j];
}

// The step `<block>.<name>` when it has the shown step's (B, H, Tq, Tk) shape, else nullptr.
const Tensor* HeatmapGrid::sibling(const std::string& name) const {
  const Step* s = shownStep();
  if (!s) return nullptr;
  const Step* sib = result_->trace.find(blockOf(s->info.id) + "." + name);
  if (!sib || sib->tensor.shape() != s->tensor.shape()) return nullptr;
  return &sib->tensor;
}

bool HeatmapGrid::siblingValue(const std::string& name, int head, int i, int j, float* out) const {
  const Tensor* t = sibling(name);
  if (t) *out = t->at({batch_, head, i, j});
  return t != nullptr;
}

// "query ‘cat’ (row 2) → key ‘mat’ (col 5): raw score qk = …, scaled = …, weight = …"
QString HeatmapGrid::describeCell(int head, int i, int j) const {
  if (head < 0 || head >= heads_ || i < 0 || i >= tq_ || j < 0 || j >= tk_) return {};
  const QString where = tr("query ‘%1’ (row %2) → key ‘%3’ (col %4)")
                            .arg(QString::fromStdString(queryTokens_[static_cast<size_t>(i)]))
                            .arg(i)
                            .arg(QString::fromStdString(keyTokens_[static_cast<size_t>(j)]))
                            .arg(j);
  QStringList parts;
  float qk = 0, scaled = 0, masked = 0, weight = 0;
  if (siblingValue("qk", head, i, j, &qk)) parts << tr("raw score qk = %1").arg(num(qk));
  if (siblingValue("scores", head, i, j, &scaled)) parts << tr("scaled = %1").arg(num(scaled));
  const bool hasMasked = siblingValue("masked_scores", head, i, j, &masked);
  const bool hasWeight = siblingValue("weights", head, i, j, &weight);
  const bool isMasked = (hasMasked && isNegInf(masked)) || isNegInf(shown(head, i, j));
  if (isMasked && hasWeight && std::isnan(weight))
    parts << tr("masked (−∞) → weight NaN (every key of this row is masked)");
  else if (isMasked && (!hasWeight || weight == 0.0f))
    parts << tr("masked (−∞) → weight 0");
  else if (hasWeight)
    parts << tr("weight = %1").arg(num(weight));
  if (parts.isEmpty()) parts << tr("value = %1").arg(num(shown(head, i, j)));
  return tr("%1: %2").arg(where, parts.join(tr(", ")));
}

void HeatmapGrid::onHover(int head, int row, int col) {
  if (row < 0 || col < 0 || head < 0) {
    info_->setText(defaultInfo());
    QToolTip::hideText();
    return;
  }
  hoverText_ = describeCell(head, row, col);
  info_->setText(hoverText_);
  // By the cursor too: the line under the grid may be off screen on a projector.
  if (HeatmapView* v = headView(head)) QToolTip::showText(QCursor::pos(), hoverText_, v, v->cellRect(row, col).toRect());
}

// Rows whose every key is masked (NaN weights, or all −∞ scores), then any other NaN, then
// what masking does to the weights.
QString HeatmapGrid::explain() const {
  const Tensor* maskedT = sibling("masked_scores");
  const Tensor ms = maskedT ? maskedT->contiguous() : Tensor();
  const size_t n = data_.size();
  const float* m = maskedT ? ms.data() + batch_ * n : nullptr;  // (H, Tq, Tk) like data_
  QStringList fullRows;
  long long nans = 0;
  bool anyMasked = false;
  for (int i = 0; i < tq_; ++i) {
    bool full = false;
    for (int h = 0; h < heads_; ++h) {
      int rowNan = 0, rowMasked = 0;
      for (int j = 0; j < tk_; ++j) {
        const size_t k = (static_cast<size_t>(h) * tq_ + i) * tk_ + j;
        rowNan += std::isnan(data_[k]) ? 1 : 0;
        rowMasked += (isNegInf(data_[k]) || (m && isNegInf(m[k]))) ? 1 : 0;
      }
      const bool allMasked = tk_ > 0 && rowMasked == tk_;
      anyMasked = anyMasked || (rowMasked > 0 && !allMasked);
      const bool nanFromMask = tk_ > 0 && rowNan == tk_ && (!m || allMasked);
      full = full || allMasked || nanFromMask;
      if (!nanFromMask) nans += rowNan;
    }
    if (full) fullRows << tr("‘%1’").arg(QString::fromStdString(queryTokens_[static_cast<size_t>(i)]));
  }
  QStringList out;
  if (fullRows.size() == 1)
    out << tr("Row %1 has every key masked: softmax of all −∞ is 0/0 = NaN (PyTorch gives NaN too). "
              "Unmask at least one key.").arg(fullRows.front());
  else if (fullRows.size() > 1)
    out << tr("Rows %1 have every key masked: softmax of all −∞ is 0/0 = NaN (PyTorch gives NaN too). "
              "Unmask at least one key in each.").arg(fullRows.join(tr(", ")));
  if (nans == 1)
    out << tr("1 cell is NaN (magenta): a NaN or an overflow came in from an earlier step.");
  else if (nans > 1)
    out << tr("%1 cells are NaN (magenta): a NaN or an overflow came in from an earlier step.").arg(nans);
  if (anyMasked && lastComponent(shownStep()->info.id) == "weights")
    out << tr("Masked keys get weight exactly 0.");
  return out.join(QLatin1Char(' '));
}

void HeatmapGrid::updateNote() {
  const QString hint = heads_ == 0 ? QString()
                       : enlarged_ < 0 ? tr("Click a head to enlarge it.")
                                       : tr("Esc or “All heads” shows every head again.");
  note_->setText(explanation_.isEmpty() ? hint : explanation_ + QLatin1Char(' ') + hint);
}

void HeatmapGrid::keyPressEvent(QKeyEvent* e) {
  if (e->key() == Qt::Key_Escape && enlarged_ >= 0) {
    enlargeHead(-1);
    e->accept();
    return;
  }
  QWidget::keyPressEvent(e);
}

}  // namespace attnlab::ui
