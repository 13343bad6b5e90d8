// The answer of a find-the-head exercise: a layer and a head, chosen in two boxes or by clicking
// a head's heatmap in the window (chooseFromStep). Both counted from 0, as every view numbers them.
#pragma once

#include <QWidget>

#include <optional>

#include "exercises/exercises.h"

class QComboBox;
class QLabel;

namespace attnlab::ui {

class HeadPicker : public QWidget {
  Q_OBJECT
 public:
  explicit HeadPicker(QWidget* parent = nullptr);
  // The model's size; a fixed layer (the question names it) leaves only the head to choose.
  void setModel(int layers, int heads, std::optional<int> fixedLayer);
  void setHead(int layer, int head);
  // A head clicked on step `stepId` ("encoder.layers.1.self_attn.weights"): chosen when the step
  // is an encoder self-attention step of a layer this question allows. Returns whether it was.
  bool chooseFromStep(const QString& stepId, int head);
  QString answerText() const;  // "1.2": layer 1, head 2
  // What a find-the-head question asks a head to do ("on the <b>previous token</b>"), rich text.
  static QString traitText(HeadTrait t);
  QComboBox* layerBox() const { return layer_; }
  QComboBox* headBox() const { return head_; }

 private:
  QComboBox *layer_, *head_;
  QLabel* note_;
  std::optional<int> fixed_;
};

}  // namespace attnlab::ui
