#include "model/config.h"

#include <algorithm>
#include <cmath>

#include "model/comma_list.h"
#include "model/option_range.h"
#include "text/errors.h"

namespace attnlab {

namespace {
// full_heads: heads the model has, ascending, each once, none in a layer traced in full.
void validate_full_heads(const ModelConfig& c) {
  for (size_t i = 0; i < c.full_heads.size(); ++i) {
    const ModelConfig::LayerHead& h = c.full_heads[i];
    const std::string name = full_heads_text({h});
    if (h.layer < 0 || h.layer >= c.layers || h.head < 0 || h.head >= c.heads)
      throw ConfigError(verbatim("--full-heads: ") + Text(Msg::full_head_outside, name, c.layers - 1, c.heads - 1));
    if (i > 0 && h <= c.full_heads[i - 1])
      throw ConfigError(verbatim("--full-heads: ") + Text(Msg::full_heads_not_ascending, name));
    if (std::binary_search(c.full_layers.begin(), c.full_layers.end(), h.layer))
      throw ConfigError(verbatim("--full-heads: ") + Text(Msg::full_head_in_full_layer, name, h.layer));
  }
}

}  // namespace

void ModelConfig::validate() const {
  require_in_range("--d-model", d_model, 1, Limits::kMaxDModel);
  require_in_range("--heads", heads, 1, d_model);
  if (d_model % heads != 0 && !has(Fault::IndivisibleHeads))
    throw ConfigError(verbatim("--heads: ") + Text(Msg::heads_do_not_divide_d_model, heads, d_model) + verbatim(" ") +
                      Text(Msg::d_model_must_heads_d_head_try_heads_d_model, heads,
                           ((d_model + heads - 1) / heads) * heads));
  require_in_range("--d-ff", d_ff, 1, Limits::kMaxDff);
  require_in_range("--layers", layers, 1, Limits::kMaxLayers);
  if (positional == Positional::Learned) require_in_range("--max-positions", max_positions, 1, Limits::kMaxPositions);
  if (!std::isfinite(eps) || eps <= 0 || eps >= 1)
    throw ConfigError(verbatim("--eps: " + format_double(eps) + " ") + Text(Msg::must_positive_number_below));
  require_in_range("token_types", token_types, 0, 64);
  if (cross && bert_parts()) throw ConfigError(Text(Msg::en_bert_parts_encoder_only));
  validate_variant(variant, layers, encoder_mask());
  for (size_t i = 0; i < full_layers.size(); ++i) {
    require_in_range("--full-layers", full_layers[i], 0, layers - 1);
    if (i > 0 && full_layers[i] <= full_layers[i - 1])
      throw ConfigError(verbatim("--full-layers: ") + Text(Msg::full_layers_not_ascending, full_layers[i]));
  }
  validate_full_heads(*this);
}

std::vector<int64_t> ModelConfig::full_heads_of(int64_t i) const {
  std::vector<int64_t> out;
  if (!tiled_layer(i)) return out;
  for (const LayerHead& h : full_heads)
    if (h.layer == i) out.push_back(h.head);
  return out;
}

int64_t ModelConfig::tiled_layers() const {
  if (!traces_overview()) return 0;
  return layers - static_cast<int64_t>(full_layers.size());
}

std::vector<ModelConfig::LayerHead> parse_full_heads(std::string_view text) {
  std::vector<ModelConfig::LayerHead> out;
  if (text.empty()) return out;
  for (const std::string_view piece : split_commas(text)) {
    const size_t dot = piece.find('.');
    ModelConfig::LayerHead h;
    if (dot == std::string_view::npos || !parse_index(piece.substr(0, dot), h.layer) || !parse_index(piece.substr(dot + 1), h.head))
      throw ConfigError(verbatim("--full-heads: ") + Text(Msg::full_head_malformed, std::string(piece)));
    out.push_back(h);
  }
  return out;
}

std::string full_heads_text(const std::vector<ModelConfig::LayerHead>& heads) {
  std::string out;
  for (const auto& h : heads) {
    if (!out.empty()) out += ',';
    out += std::to_string(h.layer) + "." + std::to_string(h.head);
  }
  return out;
}

std::string_view norm_name(Norm n) { return n == Norm::Pre ? "pre" : "post"; }

Norm parse_norm(std::string_view s) {
  if (s == "pre") return Norm::Pre;
  if (s == "post") return Norm::Post;
  throw ConfigError(verbatim("--norm: ") + Text(Msg::not_one_of, s, "pre, post"));
}

std::string_view positional_name(Positional p) {
  switch (p) {
    case Positional::Sinusoidal: return "sinusoidal";
    case Positional::None: return "none";
    case Positional::Learned: return "learned";
  }
  return "?";
}

Positional parse_positional(std::string_view s) {
  if (s == "sinusoidal") return Positional::Sinusoidal;
  if (s == "none") return Positional::None;
  if (s == "learned") return Positional::Learned;
  throw ConfigError(verbatim("--positional: ") + Text(Msg::not_one_of, s, "sinusoidal, none, learned"));
}

std::string format_double(double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

}  // namespace attnlab
