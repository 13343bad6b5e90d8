// The input panel's "full scores in:" choice beside tiled attention: the layer (counted from 0,
// as the step ids and the navigator count layers) whose attention is still traced in full —
// every score step, every head cell by cell — while the others run tiled with their overview
// (ModelConfig::full_layers). Shown only when attention is tiled. The command line and a session
// may keep several layers: such a list ("layers 0, 5") becomes one more item, kept while its
// layers exist, so a session opens with what it saved and the teacher can go back to it.
#pragma once

#include <QComboBox>

#include <cstdint>
#include <vector>

namespace attnlab::ui {

class FullLayerBox : public QComboBox {
  Q_OBJECT
 public:
  explicit FullLayerBox(QWidget* parent = nullptr);

  // One item per layer after "no layer" (and the list of several, while its layers exist); a
  // chosen layer beyond the new count falls back to none.
  void setLayerCount(int layers);
  // {}, {the chosen layer} or the list of several.
  std::vector<int64_t> layers() const;
  // Chooses `layers` (ascending, as ModelConfig::validate wants them): none when empty or beyond the
  // count; a list of several adds its item. Emits nothing.
  void setLayers(const std::vector<int64_t>& layers);

 private:
  void rebuild();
  void select(const std::vector<int64_t>& layers);

  int count_ = 0;                  // the model's layers
  std::vector<int64_t> several_;   // the list of several layers offered as one item; empty: none
};

// "0, 5": a list of layers as the window spells it (and keeps it in its settings).
QString layerList(const std::vector<int64_t>& layers);
// The list back from such text: {} unless every entry is a layer below `count`, ascending, each once.
std::vector<int64_t> layerListFrom(const QString& text, int64_t count);

}  // namespace attnlab::ui
