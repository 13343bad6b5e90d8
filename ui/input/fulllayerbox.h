// The input panel's "full scores in:" choice beside tiled attention: the one layer (counted from
// 0, as the step ids and the navigator count layers) whose attention is still traced in full —
// every score step, every head cell by cell — while the others run tiled with their overview
// (ModelConfig::full_layers). Shown only when attention is tiled; the command line takes several.
#pragma once

#include <QComboBox>

#include <cstdint>
#include <vector>

namespace attnlab::ui {

class FullLayerBox : public QComboBox {
  Q_OBJECT
 public:
  explicit FullLayerBox(QWidget* parent = nullptr);

  // One item per layer after "no layer"; a chosen layer beyond the new count falls back to none.
  void setLayerCount(int layers);
  // {} or {the chosen layer}.
  std::vector<int64_t> layers() const;
  // Chooses the first of `layers` (none when empty or beyond the count); emits nothing.
  void setLayers(const std::vector<int64_t>& layers);
};

}  // namespace attnlab::ui
