#include "input/variantchooser.h"

#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QSpinBox>

#include <algorithm>

#include "text/errors.h"
#include "window/smallwidgets.h"
#include "words/coretext.h"
#include "words/varianttext.h"

namespace attnlab::ui {

namespace {

std::vector<VariantKind> kinds() {
  std::vector<VariantKind> out{VariantKind::None};
  for (VariantKind k : all_variants()) out.push_back(k);
  return out;
}

}  // namespace

VariantChooser::VariantChooser(QWidget* parent) : QWidget(parent) {
  form_ = new QFormLayout(this);
  form_->setContentsMargins(16, 0, 0, 0);  // the knobs indented under the kind
  kind_ = new QComboBox(this);  // placed by the owner (kindBox)
  kind_->setObjectName(QStringLiteral("variant"));
  for (VariantKind k : kinds()) kind_->addItem(VariantText::name(k), QString::fromUtf8(variant_name(k).data()));
  kind_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);  // the dock stays narrow
  kind_->setMinimumContentsLength(14);
  layer_ = spinBox(0, 0, 0);  // layers count from 0, as the step ids and --variant-layer
  layer_->setObjectName(QStringLiteral("variantLayer"));
  layer_->setToolTip(tr("The encoder layer whose self-attention the variant runs beside."));
  form_->addRow(tr("in layer:"), layer_);
  const VariantConfig defaults;
  for (VariantKind k : all_variants())
    for (const VariantParam& p : variant_params(k)) {
      if (params_.count(p.name)) continue;
      auto* s = spinBox(static_cast<int>(p.min), static_cast<int>(VariantLimits::kMaxParam), static_cast<int>(defaults.*p.field));
      s->setObjectName(QStringLiteral("variant_") + QString::fromUtf8(p.name));
      params_[p.name] = s;
      form_->addRow(QString::fromUtf8(p.name), s);  // labelled for the kind in showKnobs
      connect(s, &QSpinBox::valueChanged, this, [this] {
        if (!quiet_) emit changed();
      });
    }
  connect(layer_, &QSpinBox::valueChanged, this, [this] {
    if (!quiet_) emit changed();
  });
  connect(kind_, &QComboBox::currentIndexChanged, this, [this] {
    showKnobs();
    if (!quiet_) emit changed();
  });
  showKnobs();
}

QSpinBox* VariantChooser::paramBox(const std::string& name) const {
  const auto it = params_.find(name);
  return it == params_.end() ? nullptr : it->second;
}

VariantConfig VariantChooser::config() const {
  VariantConfig v;
  v.kind = parse_variant(kind_->currentData().toString().toStdString());
  v.layer = layer_->value();
  for (VariantKind k : all_variants())
    for (const VariantParam& p : variant_params(k)) v.*p.field = params_.at(p.name)->value();
  return v;
}

void VariantChooser::setConfig(const VariantConfig& v) {
  quiet_ = true;
  kind_->setCurrentIndex(std::max(0, kind_->findData(QString::fromUtf8(variant_name(v.kind).data()))));
  layer_->setValue(static_cast<int>(v.layer));
  for (VariantKind k : all_variants())
    for (const VariantParam& p : variant_params(k)) params_.at(p.name)->setValue(static_cast<int>(v.*p.field));
  quiet_ = false;
  showKnobs();
}

void VariantChooser::setLayerCount(int layers) { layer_->setMaximum(std::max(0, layers - 1)); }

void VariantChooser::showKnobs() {
  const VariantKind k = parse_variant(kind_->currentData().toString().toStdString());
  form_->setRowVisible(layer_, k != VariantKind::None);
  std::vector<VariantParam> used = variant_params(k);
  for (const auto& [name, spin] : params_) {
    const bool on = std::any_of(used.begin(), used.end(), [&](const VariantParam& p) { return name == p.name; });
    form_->setRowVisible(spin, on);
    if (!on) continue;
    if (auto* label = qobject_cast<QLabel*>(form_->labelForField(spin))) label->setText(VariantText::paramLabel(k, name));
    spin->setToolTip(VariantText::paramTip(k, name));
  }
  kind_->setToolTip(VariantText::description(k));
}

QString VariantChooser::problem(const VariantConfig& v, int64_t layers, MaskKind mask) {
  try {
    validate_variant(v, layers, mask);
    return {};
  } catch (const ConfigError& e) {
    if (v.kind == VariantKind::Linformer && (mask == MaskKind::Causal || mask == MaskKind::PaddingCausal))
      return tr("Linformer cannot keep a causal mask: its projection blends every position's key and value into a few "
                "rows, the later tokens included, so a token would read the future. Choose the mask \"padding\" or "
                "\"none\", or another variant. Nothing is recomputed until then.");
    return CoreText::of(e);
  }
}

}  // namespace attnlab::ui
