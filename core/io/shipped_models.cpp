#include "io/shipped_models.h"

#include "shipped_models_data.h"  // generated: kShippedModelData, the .incbin symbols

namespace attnlab {

const std::vector<ShippedModel>& shipped_models() {
  static const std::vector<ShippedModel> all = [] {
    std::vector<ShippedModel> out;
    for (const auto& m : kShippedModelData)
      if (m.file) out.push_back({m.file, std::string_view(m.begin, static_cast<size_t>(m.end - m.begin))});
    return out;
  }();
  return all;
}

const ShippedModel* find_shipped_model(std::string_view name) {
  for (const auto& m : shipped_models())
    if (m.name() == name || m.file == name) return &m;
  return nullptr;
}

}  // namespace attnlab
