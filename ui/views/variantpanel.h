// The Variant dock: an attention variant (core/variants/variants.h) beside one encoder self-attention
// block, compared with the block's full attention for a chosen sentence and head —
//   the variant's name and what it changes; full attention's weights beside the variant's
//   weights (or the (T, T) matrix it amounts to) as two heatmaps sharing one colour map; what it
//   costs (FLOPs and memory against the reference, with the ratio); how far its output lands
//   (max |Δ|, relative error, and for the exact walk-throughs the check that they agree); and its
//   per-token difference (the `error` step) as bars.
// Reads summarize_variant and the trace; computes no attention of its own.
#pragma once

#include <QWidget>

#include <optional>

#include "variants/variants.h"
#include "window/traceresult.h"

class QComboBox;
class QLabel;
class QPushButton;

namespace attnlab::ui {

class HeatmapView;
class TokenBarChart;

class VariantPanel : public QWidget {
  Q_OBJECT
 public:
  explicit VariantPanel(QWidget* parent = nullptr);

  // A result without variant steps explains why (none chosen, a planted bug, the tiled overview).
  // Keeps the sentence and head when they still exist.
  void setResult(TraceResultPtr result);
  bool hasVariant() const { return summary_.has_value(); }
  const std::optional<VariantSummary>& summary() const { return summary_; }

  QComboBox* sentenceBox() const { return sentence_; }
  QComboBox* headBox() const { return head_; }
  HeatmapView* fullView() const { return full_; }
  HeatmapView* variantView() const { return variant_; }  // hidden for the tiled walk-through
  TokenBarChart* errorChart() const { return chart_; }
  QLabel* titleLabel() const { return title_; }
  QLabel* noteLabel() const { return note_; }          // why there is nothing to compare
  QLabel* walkNoteLabel() const { return walkNote_; }  // the exact walk-throughs: what the maps show
  // The cost table: row 0 the header (—, this variant, the reference, ratio), row 1 FLOPs, row 2
  // memory; columns: the row's name, the variant, the reference, the ratio.
  QString costCell(int row, int col) const;
  QLabel* errorLabel() const { return error_; }
  QLabel* agreementLabel() const { return agreement_; }
  QPushButton* stepsButton() const { return steps_; }
  // The step the right heatmap shows ("…variant.window.weights"); for the KV cache the first of
  // its rows ("…t0.attn", the rows assembled into (T, T)); "" when it shows none.
  std::string variantStepId() const;

  // Human units: 12.3 k / 4.5 M / 6.7 G; 512 B / 1.5 KiB / 2.0 MiB; a ratio "0.42 ×".
  static QString count(double n);
  static QString bytes(double n);
  static QString ratio(double variant, double reference);

 signals:
  void stepRequested(const QString& id);  // the variant's first step, for the navigator

 private:
  QString whyNone() const;  // the result has no variant steps: why
  void showSummary();
  void showSentence();      // heatmaps and bars for the chosen sentence and head
  void fillSentences();
  void showCost();
  QString agreementText() const;
  std::vector<float> variantMatrix(int b, int h, int t) const;  // (T, T), or empty

  TraceResultPtr result_;
  std::optional<VariantSummary> summary_;
  QLabel *title_, *description_, *note_, *walkNote_, *fullCaption_, *variantCaption_, *error_, *agreement_;
  QLabel* cost_[3][4];  // the cost table's cells
  QComboBox *sentence_, *head_;
  HeatmapView *full_, *variant_;
  TokenBarChart* chart_;
  QPushButton* steps_;
  QWidget* body_;
};

}  // namespace attnlab::ui
