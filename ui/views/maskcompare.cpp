#include "views/maskcompare.h"

#include <QFutureWatcher>
#include <QGridLayout>
#include <QLabel>
#include <QtConcurrent>

#include <algorithm>
#include <cmath>
#include <exception>

#include "forward/model.h"
#include "model/weights.h"
#include "views/colormap.h"
#include "views/heatmapview.h"
#include "views/modelview.h"
#include "words/coretext.h"

namespace attnlab::ui {

namespace {

constexpr std::array<MaskKind, MaskComparison::kMasks> kKinds{MaskKind::None, MaskKind::Padding, MaskKind::Causal,
                                                              MaskKind::PaddingCausal};

bool endsWith(const std::string& s, const std::string& tail, std::string* head) {
  if (!s.ends_with(tail)) return false;
  *head = s.substr(0, s.size() - tail.size());
  return true;
}

// Keeps only what the comparison shows: each block's weights and where its scores were −∞.
class KeepAttention final : public Recorder {
 public:
  explicit KeepAttention(std::map<std::string, MaskComparison::BlockMaps>& out) : out_(out) {}
  bool enabled() const override { return true; }
  void record(StepInfo info, const Tensor& t) override {
    std::string block;
    if (t.dim() != 4) return;
    const bool weights = endsWith(info.id, ".weights", &block);
    if (!weights && !endsWith(info.id, ".masked_scores", &block)) return;
    MaskComparison::BlockMaps& m = out_[block];
    m.b = t.size(0), m.h = t.size(1), m.tq = t.size(2), m.tk = t.size(3);
    const std::vector<float> v = t.to_vector();  // (B, H, Tq, Tk), C order
    if (weights) {
      m.w = v;
      return;
    }
    m.masked.resize(v.size());
    for (size_t n = 0; n < v.size(); ++n) m.masked[n] = std::isinf(v[n]) && v[n] < 0;
  }

 private:
  std::map<std::string, MaskComparison::BlockMaps>& out_;
};

QString maskTitle(int k) {
  switch (kKinds[static_cast<size_t>(k)]) {
    case MaskKind::None: return MaskComparison::tr("none");
    case MaskKind::Padding: return MaskComparison::tr("padding");
    case MaskKind::Causal: return MaskComparison::tr("causal");
    case MaskKind::PaddingCausal: return MaskComparison::tr("padding + causal");
  }
  return {};
}

QString maskExplanation(int k) {
  switch (kKinds[static_cast<size_t>(k)]) {
    case MaskKind::None: return MaskComparison::tr("Hides nothing: every token, [PAD] included, may attend to every key.");
    case MaskKind::Padding: return MaskComparison::tr("Hides the [PAD] keys (grey columns), so the filler that evens out the batch gets no weight.");
    case MaskKind::Causal: return MaskComparison::tr("Hides every later key (the upper triangle), so a token sees only itself and what came before.");
    case MaskKind::PaddingCausal: return MaskComparison::tr("Hides both: later keys and [PAD] keys, as a decoder reading a padded batch does.");
  }
  return {};
}

}  // namespace

std::shared_ptr<const MaskComparison::Comparison> MaskComparison::computeAll(const TraceResult& result) {
  auto out = std::make_shared<Comparison>();
  try {
    for (int k = 0; k < kMasks; ++k) {
      ModelConfig cfg = result.cfg;
      cfg.mask = kKinds[static_cast<size_t>(k)];
      const Weights w = init_weights(cfg);
      KeepAttention keep(out->masks[static_cast<size_t>(k)]);
      forward(cfg, w, result.batch, keep);
    }
  } catch (const std::exception& e) {
    out->error = CoreText::of(e);
  }
  return out;
}

// [caption]
// [none] [padding] [causal] [padding + causal]
// [why]  [why]     [why]    [why]
// [legend] [status]
MaskComparison::MaskComparison(QWidget* parent) : QWidget(parent) {
  caption_ = new QLabel(this);
  caption_->setObjectName(QStringLiteral("caption"));
  caption_->setWordWrap(true);
  status_ = new QLabel(this);
  status_->setObjectName(QStringLiteral("status"));
  status_->setWordWrap(true);
  legend_ = new ColorLegend(this);
  legend_->setOrientation(Qt::Horizontal);
  legend_->setTitle(tr("weight"));
  legend_->setMarks(true, false);
  auto* grid = new QGridLayout(this);
  grid->addWidget(caption_, 0, 0, 1, kMasks);
  for (int k = 0; k < kMasks; ++k) {
    views_[static_cast<size_t>(k)] = new HeatmapView(this);
    views_[static_cast<size_t>(k)]->setObjectName(QStringLiteral("mask%1").arg(k));
    explain_[static_cast<size_t>(k)] = new QLabel(maskExplanation(k), this);
    explain_[static_cast<size_t>(k)]->setWordWrap(true);
    explain_[static_cast<size_t>(k)]->setAlignment(Qt::AlignTop | Qt::AlignHCenter);
    grid->addWidget(views_[static_cast<size_t>(k)], 1, k);
    grid->addWidget(explain_[static_cast<size_t>(k)], 2, k);
    grid->setColumnStretch(k, 1);
  }
  grid->addWidget(legend_, 3, 0, 1, 2);
  grid->addWidget(status_, 3, 2, 1, 2);
  grid->setRowStretch(4, 1);  // maps keep square cells; spare height goes below
  clearMaps(tr("Choose a step inside the model to compare the masks."));
}

MaskComparison::~MaskComparison() = default;  // a running worker owns its inputs and finishes alone

void MaskComparison::setSelection(const ViewSelection& sel) {
  sel_ = sel;
  if (!sel.result || sel.block.empty()) {
    clearMaps(tr("Choose a step inside the model to compare the masks."));
    return;
  }
  if (cache_ && cachedFor_ == sel.result) return showMaps();
  if (pending_ != sel.result) start();
  clearMaps(tr("computing the four masks…"));
}

void MaskComparison::start() {
  pending_ = sel_.result;
  const quint64 gen = ++generation_;
  auto* watcher = new QFutureWatcher<std::shared_ptr<const Comparison>>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, gen] {
    finished(gen, watcher->result());
    watcher->deleteLater();
  });
  const TraceResultPtr input = sel_.result;  // kept alive by the worker
  watcher->setFuture(QtConcurrent::run([input] { return computeAll(*input); }));
}

void MaskComparison::finished(quint64 generation, std::shared_ptr<const Comparison> c) {
  if (generation != generation_) return;  // a newer result was asked for meanwhile
  cache_ = std::move(c);
  cachedFor_ = pending_;
  pending_.reset();
  if (cachedFor_ == sel_.result) showMaps();
}

bool MaskComparison::ready() const { return shownOk_ && cache_ && cachedFor_ == sel_.result; }

float MaskComparison::value(int maskKind, int i, int j) const {
  return shown_.at(static_cast<size_t>(maskKind)).at(static_cast<size_t>(i) * tk_ + j);
}

void MaskComparison::clearMaps(const QString& status) {
  shownOk_ = false;
  tq_ = tk_ = 0;
  for (int k = 0; k < kMasks; ++k) {
    shown_[static_cast<size_t>(k)].clear();
    views_[static_cast<size_t>(k)]->setMatrix(nullptr, 0, 0, {}, {}, ColorMap{});
    views_[static_cast<size_t>(k)]->setTitle(maskTitle(k));
  }
  status_->setText(status);
}

// The four (Tq, Tk) slices of the current block, sentence and head, on one shared scale.
void MaskComparison::showMaps() {
  if (!cache_->error.isEmpty()) return clearMaps(tr("Could not compute the comparison: %1").arg(cache_->error));
  const auto found = cache_->masks[0].find(sel_.block);
  if (found == cache_->masks[0].end()) return clearMaps(tr("This block has no attention weights."));
  const BlockMaps& first = found->second;
  const int64_t b = std::clamp<int64_t>(sel_.batch, 0, first.b - 1), h = std::clamp<int64_t>(sel_.head, 0, first.h - 1);
  tq_ = static_cast<int>(first.tq);
  tk_ = static_cast<int>(first.tk);
  const size_t n = static_cast<size_t>(tq_) * tk_, offset = static_cast<size_t>(b * first.h + h) * n;
  std::array<std::vector<char>, kMasks> masked;
  std::vector<float> all;
  for (int k = 0; k < kMasks; ++k) {
    const BlockMaps& m = cache_->masks[static_cast<size_t>(k)].at(sel_.block);  // (B, H, Tq, Tk)
    shown_[static_cast<size_t>(k)].assign(m.w.begin() + offset, m.w.begin() + offset + n);
    if (m.masked.size() == m.w.size()) masked[static_cast<size_t>(k)].assign(m.masked.begin() + offset, m.masked.begin() + offset + n);
    all.insert(all.end(), m.w.begin() + offset, m.w.begin() + offset + n);
  }
  const ColorMap map = ColorMap::fitted(all.data(), static_cast<long long>(all.size()), true);
  const AxisTokens tokens = attention_tokens(sel_.result->batch, sel_.blockStep("weights"), b);
  for (int k = 0; k < kMasks; ++k) {
    HeatmapView* v = views_[static_cast<size_t>(k)];
    v->setMatrix(shown_[static_cast<size_t>(k)].data(), tq_, tk_, tokens.query, tokens.key, map);
    v->setMaskedCells(masked[static_cast<size_t>(k)]);
    const bool current = kKinds[static_cast<size_t>(k)] == sel_.result->cfg.mask;
    v->setTitle(current ? tr("%1 (current)").arg(maskTitle(k)) : maskTitle(k));
    v->setHighlighted(current);
  }
  legend_->setMap(map);
  caption_->setText(tr("%1 · head %2 · sentence %3: the same input under each mask")
                        .arg(ModelView::blockName(sel_.block)).arg(h).arg(b));
  shownOk_ = true;
  const QString mismatch = checkAgainstTrace();
  status_->setText(mismatch.isEmpty() ? appliesNote() : mismatch);
  emit comparisonReady();
}

QString MaskComparison::appliesNote() const {
  if (!sel_.result->cfg.cross || (sel_.block.starts_with("decoder.") && sel_.block.ends_with(".self_attn"))) return {};
  return tr("In an encoder–decoder model the mask setting applies to the decoder's self-attention only: this block "
            "always hides the source's [PAD] keys, so its maps differ only through the layers before it.");
}

// The map under the result's own mask was recomputed here; it must be the one on the step pages.
QString MaskComparison::checkAgainstTrace() const {
  const Step* s = sel_.result->trace.find(sel_.blockStep("weights"));
  if (!s || s->tensor.dim() != 4) return {};
  const int64_t b = std::clamp<int64_t>(sel_.batch, 0, s->tensor.size(0) - 1);
  const int64_t h = std::clamp<int64_t>(sel_.head, 0, s->tensor.size(1) - 1);
  const auto& mine = shown_[static_cast<size_t>(sel_.result->cfg.mask)];
  for (int i = 0; i < tq_; ++i)
    for (int j = 0; j < tk_; ++j) {
      const float a = s->tensor.at({b, h, i, j}), c = mine[static_cast<size_t>(i) * tk_ + j];
      if (!(std::abs(a - c) <= 1e-5f) && !(std::isnan(a) && std::isnan(c)))
        return tr("These maps use the seeded weights and differ from the model on show (were its weights loaded "
                  "from a file?).");
    }
  return {};
}

}  // namespace attnlab::ui
