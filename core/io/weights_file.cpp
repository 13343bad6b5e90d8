#include "io/weights_file.h"

#include <charconv>

#include "io/safetensors.h"
#include "text/errors.h"

namespace attnlab {

std::map<std::string, std::string> weights_metadata(const ModelConfig& c) {
  std::map<std::string, std::string> m{{"format", "attnlab-weights/1"},
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
  if (!c.ffn) m["ffn"] = "none";  // attention-only layers; absent: the feed-forward sub-layer is there
  if (c.positional == Positional::Learned) m["max_positions"] = std::to_string(c.max_positions);
  if (c.final_norm) m["final_norm"] = "true";  // absent: the stack ends with its last layer's output
  return m;
}

std::map<std::string, std::string> weights_file_metadata(const ModelConfig& cfg, const Weights& w) {
  auto meta = weights_metadata(cfg);
  if (w.vocab()) meta.merge(w.vocab()->metadata());
  if (w.head_tied()) meta["tied_head"] = "true";  // output_head.weight is embedding.weight, stored once
  return meta;
}

std::string serialize_weights(const ModelConfig& cfg, const Weights& w) {
  std::vector<std::pair<std::string, Shape>> shapes;
  const bool tied = w.head_tied();  // GPT-2's (V, D) table once, not twice (150 MB for GPT-2 small)
  for (const auto& name : w.names())
    if (!(tied && name == "output_head.weight")) shapes.push_back({name, w.shape(name)});
  // a tensor at a time: 16-bit parameters widened one by one, not all at once
  return serialize_safetensors(shapes, [&](size_t k) { return w.get(shapes[k].first); }, weights_file_metadata(cfg, w));
}

namespace {

template <typename T>
T parse_number(const std::string& path, const std::string& key, const std::string& v) {
  T out{};
  auto r = std::from_chars(v.data(), v.data() + v.size(), out);
  if (r.ec != std::errc() || r.ptr != v.data() + v.size())
    throw DataError(Text(Msg::io_name_colon, path) + Text(Msg::metadata_not_number, key, v));
  return out;
}

// Applies one metadata field, refusing an explicit option that says otherwise.
template <typename T, typename Show>
void apply(T& field, T file_value, const std::set<std::string>& given, const std::string& opt,
           const std::string& path, Show show) {
  if (given.count(opt) && field != file_value)
    throw ConfigError(Text(Msg::io_name_colon, opt) +
                      Text(Msg::conflicts_stored_drop_option_use_another_weights, show(field), show(file_value), path));
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

// `tied_head: true`: the head is the embedding table, one storage under both names (Weights::
// head_tied, so that a gradient through both is one sum). Files since 2026-12 store it once; an
// earlier file stored it twice, which is tied too where the two are equal.
void tie_head(const SafetensorsFile& f, Weights& w) {
  const auto t = f.metadata.find("tied_head");
  if (t == f.metadata.end() || t->second != "true" || !w.has("embedding.weight")) return;
  const Tensor& table = w.get("embedding.weight");
  // an earlier file's two copies that differ stay apart (reproduce.py names them)
  if (w.has("output_head.weight") && w.get("output_head.weight").to_vector() != table.to_vector()) return;
  w.set("output_head.weight", table);
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
  if (layers == 0)
    throw DataError(Text(Msg::io_name_colon, path) + Text(Msg::tensor_missing, "encoder.layers.0.self_attn.in_proj_weight"));
  const Tensor* in_proj = find(f, "encoder.layers.0.self_attn.in_proj_weight");
  const Tensor* lin1 = find(f, "encoder.layers.0.linear1.weight");
  if (in_proj->dim() != 2 || in_proj->size(0) != 3 * in_proj->size(1))
    throw DataError(Text(Msg::io_name_colon, path) + Text(Msg::tensor_has_shape_expected_d_d,
                                                          "encoder.layers.0.self_attn.in_proj_weight",
                                                          shape_str(in_proj->shape())));
  const auto ffn_field = f.metadata.find("ffn");
  const bool attention_only = ffn_field != f.metadata.end() && ffn_field->second == "none";
  if (ffn_field != f.metadata.end() && ffn_field->second != "none" && ffn_field->second != "mlp")
    throw DataError(Text(Msg::io_name_colon, path) + Text(Msg::io_metadata_prefix, "ffn") +
                    Text(Msg::not_one_of, ffn_field->second, "none, mlp"));
  c.ffn = !attention_only;
  const Tensor* table = find(f, position_table_name("encoder"));  // a learned position table, if any
  // A final norm: as the metadata says (true/false), or, without the field, as the tensors say.
  const auto final_field = f.metadata.find("final_norm");
  if (final_field != f.metadata.end() && final_field->second != "true" && final_field->second != "false")
    throw DataError(Text(Msg::io_name_colon, path) + Text(Msg::io_metadata_prefix, "final_norm") +
                    Text(Msg::not_one_of, final_field->second, "true, false"));
  const bool final_norm = final_field != f.metadata.end() ? final_field->second == "true"
                                                          : find(f, "encoder.norm.weight") != nullptr;
  apply(c.final_norm, final_norm, given, "--final-norm", path, [](bool v) { return std::string(v ? "true" : "false"); });
  // BERT's parts, as the tensors say (no option sets them): a token-type table, the embedding
  // LayerNorm, the masked-LM head's transform.
  const Tensor* types = find(f, "encoder.token_type_embedding.weight");
  c.token_types = types && types->dim() == 2 ? types->size(0) : 0;
  c.embedding_norm = find(f, "encoder.embedding_norm.weight") != nullptr;
  c.head_transform = find(f, "output_head.transform.weight") != nullptr;
  if (!attention_only && (!lin1 || lin1->dim() != 2))
    throw DataError(Text(Msg::io_name_colon, path) + Text(Msg::tensor_missing_not_d, "encoder.layers.0.linear1.weight"));
  const bool cross = count_layers(f, "decoder") > 0;
  if (cross != cli.cross)
    throw ConfigError(Text(Msg::io_name_colon, "--memory-text") +
                      (cross ? Text(Msg::holds_encoder_decoder_model_give_source_sentence, path)
                             : Text(Msg::holds_encoder_only_cross_attention_needs_decoder, path)));

  if (f.metadata.empty()) {
    if (!given.count("--heads"))
      throw ConfigError(Text(Msg::io_name_colon, "--heads") + Text(Msg::has_no_metadata_so_number_heads_must, path));
    // The shapes decide, and an explicit option that says otherwise is refused (docs/cli.md).
    apply(c.d_model, in_proj->size(1), given, "--d-model", path, str);
    apply(c.d_ff, lin1->size(0), given, "--d-ff", path, str);
    apply(c.layers, layers, given, "--layers", path, str);
    if (c.heads < 1 || c.heads > c.d_model || c.d_model % c.heads != 0)
      throw ConfigError(Text(Msg::io_name_colon, "--heads") +
                        Text(Msg::io_heads_do_not_divide_d_model_of_file, c.heads, c.d_model, path));
    if (table)  // a learned position table says what the model is
      apply(c.positional, Positional::Learned, given, "--positional", path,
            [](Positional p) { return std::string(positional_name(p)); });
    else if (c.positional == Positional::Learned && !given.count("--positional"))
      c.positional = Positional::Sinusoidal;  // no table, and nobody asked for one (the window's last choice)
  } else {
    const auto& m = f.metadata;
    auto get = [&](const std::string& k) -> const std::string& {
      auto it = m.find(k);
      if (it == m.end()) throw DataError(Text(Msg::io_name_colon, path) + Text(Msg::metadata_field_missing, k));
      return it->second;
    };
    if (get("format") != "attnlab-weights/1")
      throw DataError(Text(Msg::io_name_colon, path) +
                      Text(Msg::metadata_format_not_attnlab_weights_newer_version, get("format")));
    // cross_attention, when stored, must be a word this reader knows and agree with the layers.
    if (auto it = m.find("cross_attention"); it != m.end()) {
      if (it->second != "true" && it->second != "false")
        throw DataError(Text(Msg::io_name_colon, path) + Text(Msg::metadata_cross_attention_not_true_false, it->second));
      if ((it->second == "true") != cross)
        throw DataError(Text(Msg::io_name_colon, path) +
                        (cross ? Text(Msg::metadata_cross_attention_contradicts_tensors_has_decoder_layers, it->second)
                               : Text(Msg::metadata_cross_attention_contradicts_tensors_has_no_decoder, it->second)));
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
        throw DataError(Text(Msg::io_name_colon, path) + Text(Msg::io_metadata_prefix, k) + e.text());
      }
    };
    apply(c.norm, from_file(parse_norm, "norm"), given, "--norm", path,
          [](Norm n) { return std::string(norm_name(n)); });
    apply(c.activation, from_file(parse_activation, "activation"), given, "--activation", path,
          [](Activation a) { return std::string(activation_name(a)); });
    apply(c.positional, from_file(parse_positional, "positional"), given, "--positional", path,
          [](Positional p) { return std::string(positional_name(p)); });
    if (c.positional == Positional::Learned && m.count("max_positions"))
      apply(c.max_positions, parse_number<int64_t>(path, "max_positions", get("max_positions")), given,
            "--max-positions", path, str);
    if (has_trained_vocab(m)) {
      auto vocab = std::make_shared<TrainedVocab>(TrainedVocab::from_metadata(m, path));
      if (vocab->mask)
        apply(c.mask, *vocab->mask, given, "--mask", path, [](MaskKind k) { return std::string(mask_name(k)); });
      out.weights.set_vocab(std::move(vocab));
    }
  }
  // Without the field, the table's rows say how many positions it has (check_weights then checks the rest).
  if (c.positional == Positional::Learned && table && table->dim() == 2 && !f.metadata.count("max_positions"))
    apply(c.max_positions, table->size(0), given, "--max-positions", path, str);
  try {
    c.validate();
  } catch (const ConfigError& e) {
    throw DataError(Text(Msg::io_name_colon, path) + Text(Msg::stored_configuration_invalid) + e.text());
  }
  const auto expected = model_parameters(c, out.weights.vocab().get());
  for (const auto& [name, t] : f.tensors) {
    bool known = false;
    for (const auto& [k, s] : expected) known = known || k == name;
    if (!known && !out.weights.vocab() && (name.starts_with("embedding.") || name.starts_with("output_head.")))
      throw DataError(Text(Msg::io_name_colon, path) + Text(Msg::io_tensor_of_trained_model_without_vocab, name));
    if (!known) throw DataError(Text(Msg::io_name_colon, path) + Text(Msg::tensor_not_parameter_model, name));
    out.weights.set(name, t);
  }
  tie_head(f, out.weights);
  try {
    check_weights(c, out.weights);
  } catch (const DataError& e) {
    throw DataError(Text(Msg::io_name_colon, path) + e.text());
  }
  return out;
}

}  // namespace attnlab
