#include "views/heatmapgrid.h"

#include <QCursor>
#include <QEvent>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QTimer>
#include <QToolTip>
#include <QVBoxLayout>
#include <QLabel>
#include <QPushButton>

#include <algorithm>
#include <cmath>

#include "backend/attention_tiled.h"
#include "variants/variant_table.h"
#include "forward/model.h"
#include "views/heatmapview.h"
#include "views/tilegrid.h"
#include "words/numbers.h"
#include "words/steptext.h"

namespace attnlab::ui {

namespace {

// The hover readout: 4 significant digits, the ASCII minus.
QString num(float v) { return formatNumber(v, {.digits = 4, .minusSign = false, .plusOnInfinity = true}); }

bool isNegInf(float v) { return std::isinf(v) && v < 0; }

constexpr double kMinLabelledCell = 4;  // px: below it the heads drop their token labels

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
// [head tiles | enlarged head] [legend]
// [note: explanations and hints]
// The hover readout is a tooltip by the cursor (info_ keeps it for screen readers, unshown).
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
  gridHost_->setObjectName(QStringLiteral("headTiles"));
  gridHost_->installEventFilter(this);
  large_ = new HeatmapView(this);
  large_->hide();
  connect(large_, &HeatmapView::cellHovered, this, [this](int r, int c) { onHover(enlarged_, r, c); });
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
  top->addWidget(back_);
  top_ = new QHBoxLayout;  // the legend's place when it lies over the heads
  middle_ = new QHBoxLayout;
  middle_->addWidget(gridHost_, 1);
  middle_->addWidget(large_, 1);
  middle_->addWidget(legend_);
  auto* middle = middle_;
  auto* v = new QVBoxLayout(this);
  v->addLayout(top);
  v->addLayout(top_);
  v->addLayout(middle, 1);
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

void HeatmapGrid::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() == QEvent::FontChange) QTimer::singleShot(0, this, &HeatmapGrid::layoutTiles);  // once the views have it too
}

bool HeatmapGrid::eventFilter(QObject* watched, QEvent* event) {
  if (watched == gridHost_ && event->type() == QEvent::Resize) layoutTiles();
  return QWidget::eventFilter(watched, event);
}

// The rows × columns that give every head the largest cells while all of them fit, each with
// its "Head N" title whole. The heads share their tokens, so the rows are labelled left of the
// first column and the columns under the bottom tile of each column: the cells of every head line
// up and get the room that repeated labels would take.
void HeatmapGrid::layoutTiles() {
  if (views_.empty() || tq_ == 0 || tk_ == 0) return;
  const HeatmapView* probe = views_.back();  // the longest title ("Head 11" rather than "Head 0")
  placeLegend();
  const double sp = std::ceil(fontMetrics().height() / 3.0), lh = probe->fontMetrics().height();
  const double W = gridHost_->width(), H = gridHost_->height();
  TileGrid g = tileGrid(QSizeF(W, H), true);
  bool labels = true;
  if (g.cell < kMinLabelledCell) {  // too small to read with token labels: the heads without them (the enlarged head has them)
    const TileGrid bare = tileGrid(QSizeF(W, H), false);
    if (bare.cell > g.cell) g = bare, labels = false;
  }
  HeatmapView::Margins m;
  const double cell = tileCell(QSizeF(W, H), g.cols, g.rows, &m, labels);
  const double plotW = tk_ * cell, plotH = tq_ * cell, padL = m.left - m.rowLabels;
  const int n = static_cast<int>(views_.size());
  for (int h = 0; h < n; ++h) {
    const int r = h / g.cols, c = h % g.cols;
    const bool rowLabels = c == 0, colLabels = h + g.cols >= n;  // no tile below
    views_[static_cast<size_t>(h)]->setLabelSides(labels && rowLabels, labels && colLabels);
    const double x = c == 0 ? 0 : m.rowLabels + c * (padL + plotW + m.right + sp);
    const double y = r * (m.top + plotH + m.bottomBare + sp);
    const double w = (rowLabels ? m.rowLabels : 0) + padL + plotW + m.right;
    const double ht = m.top + plotH + (colLabels ? m.bottom : m.bottomBare) + (cell < 1 ? lh : 0);
    views_[static_cast<size_t>(h)]->setGeometry(QRectF(x, y, w, ht).toAlignedRect());
  }
}

// The cell side of `cols` × `rows` heads in an area: level column labels when they fit across
// that cell, else turned (the labels' room, with a view's padding, into *used).
double HeatmapGrid::tileCell(QSizeF area, int cols, int rows, HeatmapView::Margins* used, bool labels) const {
  const HeatmapView* probe = views_.back();
  const double W = area.width(), H = area.height();
  const double sp = std::ceil(fontMetrics().height() / 3.0), lh = probe->fontMetrics().height();
  const HeatmapView::Margins level = probe->marginsFor(1e9, labels), turned = probe->marginsFor(0, labels);
  const double bare = level.left - level.rowLabels + level.right;  // a tile's side padding
  const double fromW = (W - level.rowLabels - cols * bare - (cols - 1) * sp) / (cols * tk_);
  double cell = 0;
  for (const HeatmapView::Margins& m : {level, turned}) {
    const double chrome = rows * (m.top + m.bottomBare) + (m.bottom - m.bottomBare) + (rows - 1) * sp;
    double fromH = (H - chrome) / (rows * tq_);
    if (std::min(fromW, fromH) < 1) fromH = (H - chrome - rows * lh) / (rows * tq_);  // the "downsampled" note
    cell = std::max(0.0, std::min(fromW, fromH));
    if (cell >= 3) cell = std::floor(cell);
    *used = m;
    if (probe->marginsFor(cell, labels).bottom <= m.bottom) break;  // the labels this cell gets fit the room
  }
  return cell;
}

TileGrid HeatmapGrid::tileGrid(QSizeF area, bool labels) const {
  const double title = views_.back()->marginsFor(1e9).titleWidth;
  HeatmapView::Margins m;
  return bestTileGrid(
      static_cast<int>(views_.size()), [&](int cols, int rows) { return tileCell(area, cols, rows, &m, labels); },
      [&](int, int, double cell) { return tk_ * cell >= title; });
}

// The colour key to the right of the heads, or in a band over them (horizontal) when that gives
// the heads larger cells: a wide screen of few tall heads wants it on the right, a row of many
// heads above.
void HeatmapGrid::placeLegend() {
  if (views_.empty() || enlarged_ >= 0) return;
  const bool onTop = top_->indexOf(legend_) >= 0;
  const double gap = middle_->spacing() > 0 ? middle_->spacing() : 6;
  const QSizeF now(gridHost_->size());
  const QSize vertical = legend_->sizeFor(Qt::Vertical), horizontal = legend_->sizeFor(Qt::Horizontal);
  const QSizeF right = onTop ? QSizeF(now.width() - vertical.width() - gap, now.height() + horizontal.height() + gap) : now;
  const QSizeF above = onTop ? now : QSizeF(now.width() + vertical.width() + gap, now.height() - horizontal.height() - gap);
  const TileGrid r = tileGrid(right), a = tileGrid(above);
  const bool wantTop = onTop ? a.cell >= r.cell : a.cell > r.cell * 1.05;  // a margin against flapping
  if (wantTop == onTop) return;
  legend_->setOrientation(wantTop ? Qt::Horizontal : Qt::Vertical);
  if (wantTop) top_->addWidget(legend_);
  else middle_->addWidget(legend_);
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
  caption_->setText(tr("%1 · sentence %2 · %3").arg(StepText::title(s->info)).arg(batch_).arg(heads));
  for (int h = 0; h < heads_; ++h) {
    auto* view = new HeatmapView(gridHost_);
    fillView(view, h, true);
    view->setTitle(tr("Head %1").arg(h));
    view->setToolTip(tr("Click to enlarge head %1").arg(h));
    view->setCursor(Qt::PointingHandCursor);
    connect(view, &HeatmapView::clicked, this, [this, h] { enlargeHead(h); });
    connect(view, &HeatmapView::cellHovered, this, [this, h](int r, int c) { onHover(h, r, c); });
    view->show();
    views_.push_back(view);
  }
  layoutTiles();
  explanation_ = maskChange_.isEmpty() ? explain() : maskChange_ + QLatin1Char(' ') + explain();
  legend_->setMaskedLabel(skipped_ ? tr("skipped by the pattern") : QString());
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

// The cells to hatch for the shown step (sentence batch_). The mask's cells (−∞ in the block's
// masked_scores step) only from "Apply the mask" on: before it, QKᵀ and the scaled scores of the
// padded keys are real numbers and are shown as such. A variant's pattern steps and the weights
// computed under them hatch the pairs the pattern skips instead.
void HeatmapGrid::loadMask(const std::string& id, size_t n) {
  masked_.clear();
  skipped_ = false;
  maskChange_.clear();
  if (loadSkipped(id, n)) return;
  const std::string kind = lastComponent(id);
  if (kind == "qk" || kind == "scores") return;  // before the mask: nothing is hidden yet
  const int idx = result_->indexOf(blockOf(id) + ".masked_scores");
  if (idx < 0) return;
  const Tensor m = result_->trace.steps()[static_cast<size_t>(idx)].tensor.contiguous();
  if (m.numel() != static_cast<int64_t>(n) * m.size(0)) return;
  const float* p = m.data() + static_cast<size_t>(batch_) * n;
  masked_.resize(n);
  long long hidden = 0;
  for (size_t i = 0; i < n; ++i) hidden += masked_[i] = isNegInf(p[i]);
  if (kind == "masked_scores" && heads_ > 0)
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
