#include "input/fulllayerbox.h"

#include <QSignalBlocker>

namespace attnlab::ui {

FullLayerBox::FullLayerBox(QWidget* parent) : QComboBox(parent) {
  setObjectName(QStringLiteral("fullLayer"));
  setToolTip(tr("Keep every score step of one layer (all its heads, cell by cell) while the other layers run "
                "tiled: a long text's whole trace would not fit, one layer's does."));
  setLayerCount(1);
}

void FullLayerBox::setLayerCount(int layers) {
  if (count() == layers + 1) return;
  const int chosen = currentIndex();
  {
    const QSignalBlocker quiet(this);
    clear();
    addItem(tr("no layer"), -1);
    for (int l = 0; l < layers; ++l) addItem(tr("layer %1").arg(l), l);
  }
  setCurrentIndex(chosen > 0 && chosen <= layers ? chosen : 0);  // the chosen layer kept while it exists
}

std::vector<int64_t> FullLayerBox::layers() const {
  const int l = currentData().toInt();
  return l < 0 ? std::vector<int64_t>{} : std::vector<int64_t>{l};
}

void FullLayerBox::setLayers(const std::vector<int64_t>& layers) {
  const QSignalBlocker quiet(this);
  setCurrentIndex(!layers.empty() && layers.front() >= 0 && layers.front() + 1 < count() ? int(layers.front()) + 1 : 0);
}

}  // namespace attnlab::ui
