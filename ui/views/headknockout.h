// Knock heads out by clicking them: one checkable button per head of the encoder's self-attention,
// a row per layer ("1.3" = layer 1, head 3, both from 0); an encoder–decoder has rows for its
// decoder's self-attention and its cross-attention too (explain::HeadBlock). A checked head has its output zeroed, or
// set to its mean over the batch (the mode box; explain/head_ablation.h), and the window runs the
// model again, so every panel shows the model without it. With a loss chosen, each button also shows what knocking that head out alone does
// to the loss (its colour and Δ), and the largest effects are listed, ranked.
#pragma once

#include <QWidget>

#include <vector>

#include "explain/head_ablation.h"

class QComboBox;
class QLabel;
class QToolButton;
class QVBoxLayout;

namespace attnlab::ui {

class HeadKnockout : public QWidget {
  Q_OBJECT
 public:
  explicit HeadKnockout(QWidget* parent = nullptr);

  // The model's shape and the heads knocked out in the run shown; rebuilds the buttons when the
  // shape changes. `cross`: an encoder–decoder (three attentions). Emits nothing.
  void setModel(int layers, int heads, const std::vector<explain::HeadRef>& ablated,
                explain::AblateMode mode = explain::AblateMode::Zero, bool cross = false);
  // Every head's effect on the loss (head_effects, largest first); empty: none computed.
  void setEffects(const std::vector<explain::HeadEffect>& effects, double loss);

  std::vector<explain::HeadRef> checkedHeads() const;
  QToolButton* button(int layer, int head, explain::HeadBlock block = explain::HeadBlock::Encoder) const;  // null outside the model
  QLabel* rankingLabel() const { return ranking_; }
  QComboBox* modeBox() const { return mode_; }  // Knocked out as: zero output / mean output
  explain::AblateMode mode() const;

 signals:
  // The learner checked or unchecked a head: the heads now knocked out, in explain::head_before's
  // order (block, layer, head).
  void headsChanged(const std::vector<explain::HeadRef>& heads);
  void modeChanged(explain::AblateMode mode);  // the learner chose how heads are knocked out

 private:
  struct Row {  // one layer of one attention: its buttons, [head]
    explain::HeadBlock block;
    int layer;
    std::vector<QToolButton*> buttons;
  };
  void rebuild(int layers, int heads, bool cross);
  QVBoxLayout* rows_;  // a row of buttons per layer (and attention)
  QLabel *ranking_, *note_;
  QComboBox* mode_;
  std::vector<Row> buttons_;  // the encoder's layers, then the decoder's, then the cross-attention's
  bool cross_ = false;
};

}  // namespace attnlab::ui
