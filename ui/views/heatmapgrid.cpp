#include "views/heatmapgrid.h"

#include <QCursor>
#include <QEvent>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QApplication>
#include <QComboBox>
#include <QPointer>
#include <QThreadPool>
#include <QTimer>
#include <QToolTip>
#include <QVBoxLayout>
#include <QLabel>
#include <QPushButton>

#include <algorithm>
#include <cmath>
#include <tuple>
#include <utility>

#include "backend/attention_tiled.h"
#include "backward/model_backward.h"
#include "variants/variant_table.h"
#include "forward/attention.h"
#include "forward/model.h"
#include "views/heatmaprender.h"
#include "views/heatmapview.h"
#include "views/tilegrid.h"
#include "words/numbers.h"
#include "words/steptext.h"

namespace attnlab::ui {

namespace {

// The attention whose heads a step shows, for the knock-out menu: "encoder.layers.1.self_attn.weights"
// → layer 1 of the encoder's self-attention; the decoder's self_attn and multihead_attn (its
// cross-attention) likewise; layer −1 for any other step.
std::pair<int, explain::HeadBlock> attentionOf(const std::string& id) {
  const bool decoder = id.starts_with("decoder.layers.");
  const std::string pre = decoder ? "decoder.layers." : "encoder.layers.";
  const size_t dot = id.find('.', pre.size());
  if (!id.starts_with(pre) || dot == std::string::npos) return {-1, explain::HeadBlock::Encoder};
  const int layer = std::atoi(id.substr(pre.size(), dot - pre.size()).c_str());
  if (id.compare(dot, 11, ".self_attn.") == 0) return {layer, decoder ? explain::HeadBlock::Decoder : explain::HeadBlock::Encoder};
  if (decoder && id.compare(dot, 16, ".multihead_attn.") == 0) return {layer, explain::HeadBlock::Cross};
  return {-1, explain::HeadBlock::Encoder};
}

// The hover readout: 4 significant digits, the ASCII minus.
QString num(float v) { return formatNumber(v, {.digits = 4, .minusSign = false, .plusOnInfinity = true}); }

std::string lastComponent(const std::string& id) { return id.substr(id.rfind('.') + 1); }  // npos + 1 = 0: all

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
// [head tiles | enlarged head] [legend]
// [note: explanations and hints]
// The hover readout is a tooltip by the cursor (info_ keeps it for screen readers, unshown).
HeatmapGrid::HeatmapGrid(QWidget* parent) : QWidget(parent) {
  setFocusPolicy(Qt::StrongFocus);
  caption_ = new QLabel(this);
  caption_->setObjectName(QStringLiteral("caption"));
  caption_->setWordWrap(true);
  scaleBox_ = new QComboBox(this);
  scaleBox_->setObjectName(QStringLiteral("colorScale"));
  scaleBox_->addItems({tr("Linear"), tr("Per row"), tr("Log")});
  scaleBox_->setToolTip(tr("Colour scale of the weights: as they are, each query row divided by its largest weight "
                           "(the structure of long texts), or log₁₀ (small weights told apart). The hover readout "
                           "always gives the true numbers."));
  scaleBox_->setAccessibleName(tr("Colour scale"));
  connect(scaleBox_, &QComboBox::currentIndexChanged, this, [this] { rebuild(); });
  back_ = new QPushButton(tr("← All heads"), this);
  back_->setObjectName(QStringLiteral("allHeads"));
  back_->setToolTip(tr("Show every head again (Esc)"));
  back_->hide();
  connect(back_, &QPushButton::clicked, this, [this] { enlargeHead(-1); });
  gridHost_ = new QWidget(this);
  gridHost_->setObjectName(QStringLiteral("headTiles"));
  gridHost_->installEventFilter(this);
  large_ = new HeatmapView(this);
  large_->hide();
  large_->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(large_, &QWidget::customContextMenuRequested, this, [this](QPoint at) {
    if (knockLayer_ >= 0 && enlarged_ >= 0) emit headMenuRequested({knockLayer_, firstHead_ + enlarged_, knockBlock_}, large_->mapToGlobal(at));
  });
  connect(large_, &HeatmapView::cellHovered, this, [this](int r, int c) { onHover(enlarged_, r, c); });
  connect(large_, &HeatmapView::clicked, this, [this] {
    if (enlarged_ >= 0) emit headClicked(firstHead_ + enlarged_);
  });
  legend_ = new ColorLegend(this);
  info_ = new QLabel(this);
  info_->setObjectName(QStringLiteral("info"));
  info_->hide();
  note_ = new QLabel(this);
  note_->setObjectName(QStringLiteral("note"));
  note_->setWordWrap(true);
  note_->setTextFormat(Qt::PlainText);

  auto* top = new QHBoxLayout;
  top->addWidget(caption_, 1);
  top->addWidget(scaleBox_);
  top->addWidget(back_);
  top_ = new QHBoxLayout;  // the legend's place when it lies over the heads
  middle_ = new QHBoxLayout;
  middle_->addWidget(gridHost_, 1);
  middle_->addWidget(large_, 1);
  middle_->addWidget(legend_);
  auto* v = new QVBoxLayout(this);
  v->addLayout(top);
  v->addLayout(top_);
  v->addLayout(middle_, 1);
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
}

// The chosen sentence's (H, Tq, Tk) block of the step, its tokens, one shared map, one view per head.
void HeatmapGrid::rebuild() {
  clearViews();
  heads_ = tq_ = tk_ = 0;
  data_ = nullptr;
  dataSize_ = 0;
  rowMax_.clear();
  knockLayer_ = -1;
  firstHead_ = 0;
  drawn_.reset();
  latest_->store(++generation_);  // a drawing still under way is for another step now
  const Step* s = shownStep();
  if (!s || s->tensor.dim() != 4 || s->tensor.size(0) == 0) {
    caption_->setText(tr("This step is not an attention map (batch, heads, queries, keys)."));
    explanation_.clear();
    scaleBox_->hide();
    enlargeHead(-1);
    return;
  }
  shownTensor_ = s->tensor.contiguous();  // the trace's own storage when it is contiguous: no copy
  shownKeep_ = std::make_shared<const Tensor>(shownTensor_);  // keeps data_ alive for the views (a copy too)
  batch_ = std::clamp(batch_, 0, static_cast<int>(shownTensor_.size(0)) - 1);
  heads_ = static_cast<int>(shownTensor_.size(1));
  tq_ = static_cast<int>(shownTensor_.size(2));
  tk_ = static_cast<int>(shownTensor_.size(3));
  dataSize_ = static_cast<size_t>(heads_) * tq_ * tk_;
  data_ = shownTensor_.data() + batch_ * dataSize_;
  const std::string fid = forward_id_of(s->info.id);  // a gradient's axes, tokens and mask are its tensor's
  const bool gradient = is_grad_step(s->info.id);
  std::tie(knockLayer_, knockBlock_) = attentionOf(fid);
  loadTokens(fid);
  const std::string kind = lastComponent(fid);
  const int64_t kept = kept_head(fid);  // a head of a tiled layer kept whole: its step holds it alone
  firstHead_ = static_cast<int>(std::max<int64_t>(0, kept));
  // a variant's (B, H, T, T) weights-like tensors (core/variants/variants.h): weights of some kind
  const bool variantWeights = kind == "row_weights" || kind == "col_weights" || kind == "effective" || kind == "quadratic";
  const bool weights = !gradient && (kind == "weights" || kind == "weights_overview" || kept >= 0 || variantWeights);
  probabilities_ = weights || (!gradient && kind.ends_with("pattern"));
  scaleBox_->setVisible(weights);
  scale_ = weights ? static_cast<ColorScale>(std::max(0, scaleBox_->currentIndex())) : ColorScale::Linear;
  largeStep_ = offThread_ && static_cast<long long>(tq_) * tk_ > HeatmapView::kLargeCells;  // drawn off the GUI thread
  if (largeStep_) {
    masked_.clear();  // cells far below a pixel: no hatching to draw (and no 10⁸ flags to keep)
    skipped_ = false;
    maskChange_.clear();
  } else {
    loadMask(fid, dataSize_, gradient);
  }
  const QString scaleWord = scale_ == ColorScale::PerRow ? tr("weight ÷ its row's largest")
                            : scale_ == ColorScale::Log  ? tr("log₁₀ weight")
                                                         : QString();
  legend_->setTitle(gradient ? tr("gradient ∂L/∂%1").arg(kind == "weights_overview" ? "scores" : QString::fromStdString(kind))
                    : !scaleWord.isEmpty()            ? scaleWord
                    : kind == "weights_overview"  ? tr("mean weight")
                    : weights                     ? tr("weight")
                    : kind.ends_with("pattern")   ? tr("1 computed, 0 skipped")
                    : kind == "qk"                ? tr("raw score")
                                                  : tr("score"));
  const QString heads = kept >= 0    ? tr("head %1 of %2").arg(firstHead_).arg(result_->cfg.heads)
                        : heads_ == 1 ? tr("1 head")
                                      : tr("%1 heads").arg(heads_);
  caption_->setText(tr("%1 · sentence %2 · %3 · rows: queries, columns: keys").arg(StepText::title(s->info)).arg(batch_).arg(heads));
  const std::shared_ptr<const HeadDrawing> cached = largeStep_ ? fromCache() : nullptr;
  if (largeStep_) {
    drawn_ = cached;
    map_ = cached ? cached->map : ColorMap{};
  } else {
    map_ = shared_ && scale_ == ColorScale::Linear
               ? *shared_
               : scaledMap(scale_, ColorMap::fitted(data_, static_cast<long long>(dataSize_), probabilities_));
    rowMax_ = scale_ == ColorScale::PerRow ? rowMaxima(data_, heads_, tq_, tk_) : std::vector<float>{};
  }
  legend_->setMap(map_);
  for (int h = 0; h < heads_; ++h) {
    auto* view = new HeatmapView(gridHost_);
    view->setTitle(tr("Head %1").arg(firstHead_ + h));
    fillView(view, h, true);
    view->setToolTip(knockLayer_ >= 0 ? tr("Click to enlarge head %1; right-click to knock it out").arg(firstHead_ + h)
                                      : tr("Click to enlarge head %1").arg(firstHead_ + h));
    view->setCursor(Qt::PointingHandCursor);
    connect(view, &QWidget::customContextMenuRequested, this, [this, h, view](QPoint at) {
      if (knockLayer_ >= 0) emit headMenuRequested({knockLayer_, firstHead_ + h, knockBlock_}, view->mapToGlobal(at));
    });
    view->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(view, &HeatmapView::clicked, this, [this, h] {
      enlargeHead(h);
      emit headClicked(firstHead_ + h);
    });
    connect(view, &HeatmapView::cellHovered, this, [this, h](int r, int c) { onHover(h, r, c); });
    view->show();
    views_.push_back(view);
  }
  layoutTiles();
  legend_->setMaskedLabel(skipped_ ? tr("skipped by the pattern") : gradient ? tr("masked") : QString());
  info_->setText(defaultInfo());
  if (largeStep_ && !cached) {
    explanation_ = tr("Drawing %1 heatmaps of %2 × %3 cells…").arg(heads_).arg(tq_).arg(tk_);
    drawLarge();
  } else {
    const RowFacts facts = cached ? cached->facts : rowFacts(data_, maskedScores(), heads_, tq_, tk_);
    explanation_ = maskChange_.isEmpty() ? explain(facts) : maskChange_ + QLatin1Char(' ') + explain(facts);
  }
  enlargeHead(enlarged_ < heads_ ? enlarged_ : -1);
}

// A large step's pictures on a worker thread: the window stays live (a placeholder in each head
// meanwhile); the newest request wins, and the result is kept for stepping back.
void HeatmapGrid::drawLarge() {
  const quint64 generation = generation_;
  const Tensor* masked = sibling("masked_scores");
  const Tensor maskedKeep = masked && masked->is_contiguous() ? *masked : Tensor();  // shares storage
  const float* m = maskedScores();
  QPointer<HeatmapGrid> self(this);
  const Cached key{result_, step_, batch_, colorScheme(), scale_, nullptr};
  backgroundPool()->start([self, key, latest = latest_, keep = shownKeep_, maskedKeep, data = data_, m, heads = heads_,
                           tq = tq_, tk = tk_, probabilities = probabilities_, scale = scale_, generation] {
    if (latest->load() != generation) return;  // stepped on before it started: not drawn at all
    auto drawn = std::make_shared<const HeadDrawing>(drawHeads(data, m, heads, tq, tk, probabilities, scale));
    QMetaObject::invokeMethod(qApp, [self, key, drawn, generation] {
      if (!self) return;
      self->remember(key, drawn);  // finished: kept even when the window has moved on (stepping back)
      self->applyDrawn(drawn, generation);
    }, Qt::QueuedConnection);
  });
}

void HeatmapGrid::applyDrawn(std::shared_ptr<const HeadDrawing> drawn, quint64 generation) {
  if (generation != generation_ || !drawn) return;  // the step, sentence or scale changed since
  drawn_ = drawn;
  map_ = drawn->map;
  legend_->setMap(map_);
  for (size_t h = 0; h < views_.size() && h < drawn->images.size(); ++h) views_[h]->setOverview(drawn->images[h]);
  if (enlarged_ >= 0 && static_cast<size_t>(enlarged_) < drawn->images.size())
    large_->setOverview(drawn->images[static_cast<size_t>(enlarged_)]);
  explanation_ = explain(drawn->facts);
  updateNote();
  emit drawingDone();
}

bool HeatmapGrid::drawing() const { return data_ && largeStep_ && !drawn_; }

void HeatmapGrid::setSharedMap(std::optional<ColorMap> map, bool redraw) {
  shared_ = map;
  if (redraw && result_) rebuild();
}

ColorMap HeatmapGrid::unite(const ColorMap& a, const ColorMap& b) {
  ColorMap m;
  if (a.kind == ColorMapKind::Diverging || b.kind == ColorMapKind::Diverging) {
    m.kind = ColorMapKind::Diverging;
    m.hi = std::max({std::abs(a.lo), std::abs(a.hi), std::abs(b.lo), std::abs(b.hi)});
    m.lo = -m.hi;
  } else {
    m.lo = std::min(a.lo, b.lo);
    m.hi = std::max(a.hi, b.hi);
  }
  return m;
}

void HeatmapGrid::setDrawOffThread(bool on) {
  offThread_ = on;
  cache_.clear();
  if (result_) rebuild();
}

// The last few large drawings, by result (alive), step, sentence, colour scheme and scale.
std::shared_ptr<const HeadDrawing> HeatmapGrid::fromCache() const {
  for (const Cached& c : cache_)
    if (c.result.lock() == result_ && c.step == step_ && c.batch == batch_ && c.scheme == colorScheme() && c.scale == scale_)
      return c.drawn;
  return nullptr;
}

void HeatmapGrid::remember(Cached key, const std::shared_ptr<const HeadDrawing>& drawn) {
  key.drawn = drawn;
  cache_.push_front(std::move(key));
  constexpr size_t kKeep = 4;  // each up to heads × 1024² pixels
  while (cache_.size() > kKeep) cache_.pop_back();
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
  view->setMatrixShared(shownKeep_, data_ + off, tq_, tk_, queryTokens_, keyTokens_, map_, largeStep_);
  if (drawn_ && static_cast<size_t>(head) < drawn_->images.size()) view->setOverview(drawn_->images[static_cast<size_t>(head)]);
  if (scale_ != ColorScale::Linear && rowMax_.size() == static_cast<size_t>(heads_) * tq_)
    view->setCellScale(std::vector<float>(rowMax_.begin() + static_cast<long>(head) * tq_, rowMax_.begin() + static_cast<long>(head + 1) * tq_),
                       false);
  else if (scale_ == ColorScale::Log)
    view->setCellScale({}, true);
  view->setMaskedCells(masked_.empty() ? std::vector<char>{}
                                       : std::vector<char>(masked_.begin() + off, masked_.begin() + off + plane));
}

// The cells to hatch for the shown step (sentence batch_). The mask's cells (−∞ in the block's
// masked_scores step) only from "Apply the mask" on: before it, QKᵀ and the scaled scores of the
// padded keys are real numbers and are shown as such. A variant's pattern steps and the weights
// computed under them hatch the pairs the pattern skips instead.
void HeatmapGrid::loadMask(const std::string& id, size_t n, bool gradient) {
  masked_.clear();
  skipped_ = false;
  maskChange_.clear();
  if (loadSkipped(id, n)) return;
  const std::string kind = lastComponent(id);
  if (!gradient && (kind == "qk" || kind == "scores")) return;  // before the mask: nothing is hidden yet
  if (kept_head(id) >= 0) {  // no masked_scores beside a kept head in a tiled layer: its own mask
    masked_ = keptHeadMask(result_->trace, *shownStep(), batch_, n);
    return;
  }
  const int idx = result_->indexOf(blockOf(id) + ".masked_scores");
  if (idx < 0) return;
  const Tensor m = result_->trace.steps()[static_cast<size_t>(idx)].tensor.contiguous();
  if (m.numel() != static_cast<int64_t>(n) * m.size(0)) return;
  const float* p = m.data() + static_cast<size_t>(batch_) * n;
  masked_.resize(n);
  long long hidden = 0;
  for (size_t i = 0; i < n; ++i) hidden += masked_[i] = isNegInf(p[i]);
  if (gradient && heads_ > 0)  // a score's gradient is exactly 0 where the mask hides it; a weight's is not
    maskChange_ = kind == "weights" || kind == "unmasked_weights"
                      ? tr("Hatched: the %1 masked cells of each head. Their gradient is not 0, but the softmax multiplies "
                           "it by P = 0: nothing flows on to the scores.").arg(hidden / heads_)
                      : tr("Hatched: the %1 masked cells of each head, whose gradient is exactly 0.").arg(hidden / heads_);
  else if (kind == "masked_scores" && heads_ > 0)
    maskChange_ = tr("The mask set %1 of the %2 scores of each head to −∞ (hatched); before this step they held "
                     "numbers like the others.")
                      .arg(hidden / heads_)
                      .arg(static_cast<long long>(tq_) * tk_);
}

// A variant's pattern (1 computed, 0 skipped) and the weights under it: "pattern" → "weights",
// "row_pattern" → "row_weights", "col_pattern" → "col_weights".
bool HeatmapGrid::loadSkipped(const std::string& id, size_t n) {
  if (!variant_step_of(id)) return false;
  std::string kind = lastComponent(id);
  if (kind.ends_with("weights")) kind = kind.substr(0, kind.size() - 7) + "pattern";
  if (!kind.ends_with("pattern")) return false;
  const Step* pattern = result_->trace.find(blockOf(id) + "." + kind);
  if (!pattern || pattern->tensor.numel() != static_cast<int64_t>(n) * pattern->tensor.size(0)) return false;
  const Tensor t = pattern->tensor.contiguous();
  const float* p = t.data() + static_cast<size_t>(batch_) * n;
  masked_.resize(n);
  for (size_t i = 0; i < n; ++i) masked_[i] = p[i] == 0.0f;
  skipped_ = true;
  return true;
}

void HeatmapGrid::enlargeHead(int head) {
  if (head < -1 || head >= heads_) head = -1;
  const bool changed = head != enlarged_;
  enlarged_ = head;
  if (head >= 0) {
    fillView(large_, head, true);
    large_->setTitle(tr("Head %1").arg(firstHead_ + head));
  }
  gridHost_->setVisible(head < 0);
  large_->setVisible(head >= 0);
  back_->setVisible(head >= 0);
  updateNote();
  if (head >= 0) setFocus(Qt::OtherFocusReason);  // so that Esc comes here
  if (changed) emit headEnlarged(head < 0 ? head : firstHead_ + head);
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
  const Step* sib = result_->trace.find(blockOf(forward_id_of(s->info.id)) + "." + name);
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
  if (const Step* s = shownStep(); s && is_grad_step(s->info.id)) parts << tr("gradient = %1").arg(num(shown(head, i, j)));
  else if (parts.isEmpty()) parts << tr("value = %1").arg(num(shown(head, i, j)));
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
QString HeatmapGrid::explain(const RowFacts& f) const {
  QStringList fullRows;
  for (int i : f.fullRows) fullRows << tr("‘%1’").arg(QString::fromStdString(queryTokens_[static_cast<size_t>(i)]));
  QStringList out;
  if (fullRows.size() == 1)
    out << tr("Row %1 has every key masked: softmax of all −∞ is 0/0 = NaN (PyTorch gives NaN too). "
              "Unmask at least one key.").arg(fullRows.front());
  else if (fullRows.size() > 1)
    out << tr("Rows %1 have every key masked: softmax of all −∞ is 0/0 = NaN (PyTorch gives NaN too). "
              "Unmask at least one key in each.").arg(fullRows.join(tr(", ")));
  if (f.nans == 1)
    out << tr("1 cell is NaN (magenta): a NaN or an overflow came in from an earlier step.");
  else if (f.nans > 1)
    out << tr("%1 cells are NaN (magenta): a NaN or an overflow came in from an earlier step.").arg(f.nans);
  if (f.anyMasked && lastComponent(shownStep()->info.id) == "weights")
    out << tr("Masked keys get weight exactly 0.");
  return out.join(QLatin1Char(' '));
}

// The block's masked_scores for the shown sentence, (H, Tq, Tk) like data_, or null.
const float* HeatmapGrid::maskedScores() const {
  const Tensor* t = sibling("masked_scores");
  return t && t->is_contiguous() ? t->data() + static_cast<size_t>(batch_) * dataSize_ : nullptr;
}

QString HeatmapGrid::noteText() const { return note_->text(); }

void HeatmapGrid::updateNote() {
  const bool knock = knockLayer_ >= 0;  // an encoder self-attention step: a right-click knocks the head out
  // a tiled layer's overview: the same menu keeps a head whole (MainWindow::toggleWholeHead)
  const bool overview = knock && shownStep() && shownStep()->info.id.ends_with(".weights_overview");
  // a head kept whole beside the overview: the same menu gives it back
  const bool kept = knock && shownStep() && kept_head(shownStep()->info.id) >= 0;
  const QString hint = heads_ == 0 ? QString()
                       : overview  ? (enlarged_ < 0 ? tr("Click a head to enlarge it; right-click it to knock it out or to see it cell by cell.")
                                                    : tr("Right-click to knock this head out or to see it cell by cell. Esc or “All heads” shows every head again."))
                       : kept      ? tr("Right-click this head to knock it out, or to show only its layer's overview again.")
                       : enlarged_ < 0 ? (knock ? tr("Click a head to enlarge it; right-click it to knock it out.")
                                                : tr("Click a head to enlarge it."))
                                       : (knock ? tr("Right-click to knock this head out. Esc or “All heads” shows every head again.")
                                                : tr("Esc or “All heads” shows every head again."));
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
