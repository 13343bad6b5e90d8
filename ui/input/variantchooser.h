// The attention variant chooser of the input panel (beside the mask): which variant runs beside
// one encoder self-attention block (core/variants/variants.h), in which layer, and that kind's knobs
// (variant_params) — only the knobs the chosen kind reads are shown, each from its minimum to
// VariantLimits::kMaxParam. The layer is shown from 0, as the step ids and the step navigator count layers.
// The kind's combo box (kindBox) is laid out by the owner, beside the other knobs' labels; this
// widget holds the layer and the kind's knobs under it.
#pragma once

#include <QWidget>

#include <map>
#include <string>

#include "model/config.h"

class QComboBox;
class QFormLayout;
class QSpinBox;

namespace attnlab::ui {

class VariantChooser : public QWidget {
  Q_OBJECT
 public:
  explicit VariantChooser(QWidget* parent = nullptr);

  VariantConfig config() const;
  void setConfig(const VariantConfig& v);  // shows v; emits nothing
  // Bounds the layer spin to 0 … layers − 1 (a layer beyond is clamped, and changed() follows).
  void setLayerCount(int layers);

  // Why `v` cannot run with `layers` layers and `mask`, in the user's language; "" when it can.
  static QString problem(const VariantConfig& v, int64_t layers, MaskKind mask);

  QComboBox* kindBox() const { return kind_; }  // one item per VariantKind, data: variant_name
  QSpinBox* layerBox() const { return layer_; }
  QSpinBox* paramBox(const std::string& name) const;  // VariantParam::name; null when unknown

 signals:
  void changed();

 private:
  void showKnobs();  // the rows of the chosen kind's knobs, labelled for it

  QComboBox* kind_;
  QSpinBox* layer_;
  QFormLayout* form_;
  std::map<std::string, QSpinBox*> params_;  // every kind's knobs by name; hidden when unused
  bool quiet_ = false;
};

}  // namespace attnlab::ui
