#include "io/weights_file.h"

#include <charconv>

#include "io/safetensors.h"
#include "text/errors.h"

namespace attnlab {

std::map<std::string, std::string> weights_metadata(const ModelConfig& c) {
  return {{"format", "attnlab-weights/1"},
          {"d_model", std::to_string(c.d_model)},
          {"heads", std::to_string(c.heads)},
          {"d_ff", std::to_string(c.d_ff)},
          {"layers", std::to_string(c.layers)},
          {"norm", std::string(norm_name(c.norm))},
          {"activation", std::string(activation_name(c.activation))},
          {"eps", format_double(c.eps)},
          {"positional", std::string(positional_name(c.positional))},
          {"seed", std::to_string(c.seed)},
          {"cross_attention", c.cross ? "true" : "false"}};
}

std::string serialize_weights(const ModelConfig& cfg, const Weights& w) {
  std::vector<std::pair<std::string, Tensor>> tensors;
  for (const auto& name : w.names()) tensors.push_back({name, w.get(name)});
  auto meta = weights_metadata(cfg);
  if (w.vocab()) meta.merge(w.vocab()->metadata());
  return serialize_safetensors(tensors, meta);
}

namespace {

template <typename T>
T parse_number(const std::string& path, const std::string& key, const std::string& v) {
  T out{};
  auto r = std::from_chars(v.data(), v.data() + v.size(), out);
  if (r.ec != std::errc() || r.ptr != v.data() + v.size())
    throw DataError(path + ": metadata '" + key + "' = '" + v + "' is not a number");
  return out;
}

// Applies one metadata field, refusing an explicit option that says otherwise.
template <typename T, typename Show>
void apply(T& field, T file_value, const std::set<std::string>& given, const std::string& opt,
           const std::string& path, Show show) {
  if (given.count(opt) && field != file_value)
    throw ConfigError(opt + ": " + show(field) + " conflicts with " + show(file_value) + " stored in '" + path +
                      "'; drop the option or use another weights file");
  field = file_value;
}

int64_t count_layers(const SafetensorsFile& f, const std::string& stack) {
  int64_t n = 0;
  auto has = [&](const std::string& name) {
    for (const auto& [k, t] : f.tensors)
      if (k == name) return true;
    return false;
  };
  while (has(stack + ".layers." + std::to_string(n) + ".self_attn.in_proj_weight")) ++n;
  return n;
}

const Tensor* find(const SafetensorsFile& f, const std::string& name) {
  for (const auto& [k, t] : f.tensors)
    if (k == name) return &t;
  return nullptr;
}

}  // namespace

LoadedWeights load_weights_file(const std::string& path, const ModelConfig& cli, const std::set<std::string>& given) {
  return load_weights(read_safetensors(path), path, cli, given);
}

bool weights_have_decoder(const SafetensorsFile& f) { return count_layers(f, "decoder") > 0; }

LoadedWeights load_weights(const SafetensorsFile& f, const std::string& path, const ModelConfig& cli,
                           const std::set<std::string>& given) {
  LoadedWeights out{cli, {}};
  ModelConfig& c = out.cfg;
  auto str = [](const auto& v) { return std::to_string(v); };

  // What the shapes say.
  const int64_t layers = count_layers(f, "encoder");
  if (layers == 0) throw DataError(path + ": tensor 'encoder.layers.0.self_attn.in_proj_weight' is missing");
  const Tensor* in_proj = find(f, "encoder.layers.0.self_attn.in_proj_weight");
  const Tensor* lin1 = find(f, "encoder.layers.0.linear1.weight");
  if (in_proj->dim() != 2 || in_proj->size(0) != 3 * in_proj->size(1))
    throw DataError(path + ": tensor 'encoder.layers.0.self_attn.in_proj_weight' has shape " +
                    shape_str(in_proj->shape()) + ", expected (3·D, D)");
  if (!lin1 || lin1->dim() != 2) throw DataError(path + ": tensor 'encoder.layers.0.linear1.weight' is missing or not 2-D");
  const bool cross = count_layers(f, "decoder") > 0;
  if (cross != cli.cross)
    throw ConfigError(cross ? "--memory-text: '" + path + "' holds an encoder–decoder model; give a source sentence"
                            : "--memory-text: '" + path + "' holds an encoder only; cross-attention needs decoder layers");

  if (f.metadata.empty()) {
    if (!given.count("--heads"))
      throw ConfigError("--heads: '" + path + "' has no metadata, so the number of heads must be given");
    // The shapes decide, and an explicit option that says otherwise is refused (docs/cli.md).
    apply(c.d_model, in_proj->size(1), given, "--d-model", path, str);
    apply(c.d_ff, lin1->size(0), given, "--d-ff", path, str);
    apply(c.layers, layers, given, "--layers", path, str);
    if (c.heads < 1 || c.heads > c.d_model || c.d_model % c.heads != 0)
      throw ConfigError("--heads: " + std::to_string(c.heads) + " heads do not divide d_model " +
                        std::to_string(c.d_model) + " of '" + path + "'");
  } else {
    const auto& m = f.metadata;
    auto get = [&](const std::string& k) -> const std::string& {
      auto it = m.find(k);
      if (it == m.end()) throw DataError(path + ": metadata field '" + k + "' is missing");
      return it->second;
    };
    if (get("format") != "attnlab-weights/1")
      throw DataError(path + ": metadata format '" + get("format") + "' is not attnlab-weights/1 (a newer version?)");
    // cross_attention, when stored, must be a word this reader knows and agree with the layers.
    if (auto it = m.find("cross_attention"); it != m.end()) {
      if (it->second != "true" && it->second != "false")
        throw DataError(path + ": metadata 'cross_attention' = '" + it->second + "' is not one of true, false");
      if ((it->second == "true") != cross)
        throw DataError(path + ": metadata 'cross_attention' = '" + it->second + "' contradicts its tensors (" +
                        (cross ? "it has decoder layers" : "it has no decoder layers") + ")");
    }
    apply(c.d_model, parse_number<int64_t>(path, "d_model", get("d_model")), given, "--d-model", path, str);
    apply(c.heads, parse_number<int64_t>(path, "heads", get("heads")), given, "--heads", path, str);
    apply(c.d_ff, parse_number<int64_t>(path, "d_ff", get("d_ff")), given, "--d-ff", path, str);
    apply(c.layers, parse_number<int64_t>(path, "layers", get("layers")), given, "--layers", path, str);
    apply(c.seed, parse_number<uint64_t>(path, "seed", get("seed")), given, "--seed", path, str);
    apply(c.eps, parse_number<double>(path, "eps", get("eps")), given, "--eps", path, format_double);
    // A bad word in the file is the file's fault (exit 1), not the command line's.
    auto from_file = [&](auto parse, const std::string& k) {
      try {
        return parse(get(k));
      } catch (const ConfigError& e) {
        throw DataError(path + ": metadata '" + k + "': " + e.what());
      }
    };
    apply(c.norm, from_file(parse_norm, "norm"), given, "--norm", path,
          [](Norm n) { return std::string(norm_name(n)); });
    apply(c.activation, from_file(parse_activation, "activation"), given, "--activation", path,
          [](Activation a) { return std::string(activation_name(a)); });
    apply(c.positional, from_file(parse_positional, "positional"), given, "--positional", path,
          [](Positional p) { return std::string(positional_name(p)); });
    if (has_trained_vocab(m)) {
      auto vocab = std::make_shared<TrainedVocab>(TrainedVocab::from_metadata(m, path));
      if (vocab->mask)
        apply(c.mask, *vocab->mask, given, "--mask", path, [](MaskKind k) { return std::string(mask_name(k)); });
      out.weights.set_vocab(std::move(vocab));
    }
  }
  try {
    c.validate();
  } catch (const ConfigError& e) {
    throw DataError(path + ": the stored configuration is invalid: " + e.what());
  }
  const auto expected = expected_parameters(c, out.weights.vocab() ? out.weights.vocab()->size() : 0);
  for (const auto& [name, t] : f.tensors) {
    bool known = false;
    for (const auto& [k, s] : expected) known = known || k == name;
    if (!known && !out.weights.vocab() && (name.starts_with("embedding.") || name.starts_with("output_head.")))
      throw DataError(path + ": tensor '" + name + "' belongs to a trained model, but metadata 'vocab' (its "
                      "vocabulary) is missing");
    if (!known) throw DataError(path + ": tensor '" + name + "' is not a parameter of this model");
    out.weights.set(name, t);
  }
  try {
    check_weights(c, out.weights);
  } catch (const DataError& e) {
    throw DataError(path + ": " + e.what());
  }
  return out;
}

}  // namespace attnlab
