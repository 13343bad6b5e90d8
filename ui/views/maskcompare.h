// The same sentence and head under the four masks — none, padding, causal, padding + causal —
// side by side, each with one sentence saying what it hides.
//
// The trace on show holds one mask only, so this view runs the model four more times off the
// GUI thread: core's forward on a copy of the result's batch (the original tokens, so Chinese
// and punctuation stay exactly as tokenised) with a copy of its configuration whose `mask` is
// changed, and init_weights(cfg) — the same seeded weights the controller uses. Only the
// attention weights (B, H, Tq, Tk) and the masked cells of every block are kept. The result is
// cached per TraceResult (all blocks at once), so choosing another head, block or sentence of
// the same result does not recompute; a result that is replaced while computing is dropped.
//
// In an encoder–decoder model the mask setting applies to the decoder's self-attention only
// (the encoder and the cross-attention always mask the source's [PAD] keys); the view says so.
#pragma once

#include <QWidget>

#include <array>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "window/selection.h"

class QLabel;

namespace attnlab::ui {

class HeatmapView;
class ColorLegend;

class MaskComparison : public QWidget {
  Q_OBJECT
 public:
  static constexpr int kMasks = 4;  // index = static_cast<int>(MaskKind): none, padding, causal, padding+causal

  explicit MaskComparison(QWidget* parent = nullptr);
  ~MaskComparison() override;
  void setSelection(const ViewSelection& sel);

  // The maps of the current block, head and sentence are on show.
  bool ready() const;
  bool computing() const { return pending_ != nullptr; }
  // weights[b, head, i, j] under mask kind k for the shown sentence and head.
  float value(int maskKind, int i, int j) const;
  int shownRows() const { return tq_; }
  int shownCols() const { return tk_; }
  HeatmapView* map(int maskKind) const { return views_.at(static_cast<size_t>(maskKind)); }

  // Every block's weights under one mask: block id → (B, H, Tq, Tk) values and masked flags.
  struct BlockMaps {
    int64_t b = 0, h = 0, tq = 0, tk = 0;
    std::vector<float> w;
    std::vector<char> masked;
  };
  struct Comparison {
    std::array<std::map<std::string, BlockMaps>, kMasks> masks;
    QString error;
  };
  // Runs the four forward passes (the worker's job; also usable directly in tests).
  static std::shared_ptr<const Comparison> computeAll(const TraceResult& result);

 signals:
  void comparisonReady();  // emitted whenever the maps of the current selection are on show

 private:
  void start();
  void finished(quint64 generation, std::shared_ptr<const Comparison> c);
  void showMaps();
  void clearMaps(const QString& status);
  QString appliesNote() const;  // when the mask setting does not reach this block
  QString checkAgainstTrace() const;  // the current mask's map must be the trace's

  ViewSelection sel_;
  TraceResultPtr cachedFor_, pending_;
  std::shared_ptr<const Comparison> cache_;
  quint64 generation_ = 0;
  std::array<HeatmapView*, kMasks> views_{};
  std::array<QLabel*, kMasks> explain_{};
  std::array<std::vector<float>, kMasks> shown_;  // (Tq, Tk) each
  int tq_ = 0, tk_ = 0;
  bool shownOk_ = false;
  QLabel* caption_ = nullptr;
  QLabel* status_ = nullptr;
  ColorLegend* legend_ = nullptr;
};

}  // namespace attnlab::ui
