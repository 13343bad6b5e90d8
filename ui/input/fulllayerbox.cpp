#include "input/fulllayerbox.h"

#include <QSignalBlocker>
#include <QStringList>

namespace attnlab::ui {

namespace {
constexpr int kSeveral = -2;  // the item holding the list of several layers
}

QString layerList(const std::vector<int64_t>& layers) {
  QStringList parts;
  for (int64_t l : layers) parts << QString::number(l);
  return parts.join(QStringLiteral(", "));
}

std::vector<int64_t> layerListFrom(const QString& text, int64_t count) {
  std::vector<int64_t> out;
  if (text.trimmed().isEmpty()) return out;
  for (const QString& part : text.split(QLatin1Char(','))) {
    bool ok = false;
    const qlonglong l = part.trimmed().toLongLong(&ok);
    if (!ok || l < 0 || l >= count || (!out.empty() && l <= out.back())) return {};
    out.push_back(l);
  }
  return out;
}

FullLayerBox::FullLayerBox(QWidget* parent) : QComboBox(parent) {
  setObjectName(QStringLiteral("fullLayer"));
  setToolTip(tr("Keep every score step of one layer (all its heads, cell by cell) while the other layers run "
                "tiled: a long text's whole trace would not fit, one layer's does."));
  setLayerCount(1);
}

void FullLayerBox::rebuild() {
  const QSignalBlocker quiet(this);
  clear();
  addItem(tr("no layer"), -1);
  for (int l = 0; l < count_; ++l) addItem(tr("layer %1").arg(l), l);
  if (!several_.empty()) addItem(tr("layers %1").arg(layerList(several_)), kSeveral);
}

void FullLayerBox::select(const std::vector<int64_t>& layers) {
  const QSignalBlocker quiet(this);
  int index = 0;
  if (layers.size() == 1 && layers.front() >= 0 && layers.front() < count_) index = static_cast<int>(layers.front()) + 1;
  if (layers.size() > 1 && layers == several_) index = count() - 1;
  setCurrentIndex(index);
}

void FullLayerBox::setLayerCount(int layers) {
  if (layers == count_) return;
  const std::vector<int64_t> chosen = this->layers();
  count_ = layers;
  if (!several_.empty() && several_.back() >= layers) several_.clear();  // one of its layers is gone
  rebuild();
  select(chosen);  // the chosen layer (or list) kept while it exists
}

std::vector<int64_t> FullLayerBox::layers() const {
  if (currentIndex() < 0) return {};  // no items yet
  const int l = currentData().toInt();
  if (l == kSeveral) return several_;
  return l < 0 ? std::vector<int64_t>{} : std::vector<int64_t>{l};
}

void FullLayerBox::setLayers(const std::vector<int64_t>& layers) {
  if (layers.size() > 1 && layers.front() >= 0 && layers.back() < count_ && layers != several_) {
    several_ = layers;
    rebuild();
  }
  select(layers);
}

}  // namespace attnlab::ui
