#include "io/session.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "explain/head_ablation.h"
#include "forward/model.h"
#include "io/base64.h"
#include "io/bundle.h"
#include "io/json_kind.h"
#include "tensor/ops.h"
#include "text/errors.h"
#include "text/tokenizer.h"

namespace attnlab {

using nlohmann::json;

namespace {

constexpr const char* kFormat = "attnlab-session";
constexpr size_t kMaxSessionSentences = 4096, kMaxSentenceBytes = 1u << 20;
const std::string kViewTabs[] = {"values", "lines", "model", "neuron", "masks", "charts", "gradients"};

// Typed access to one session file; every failure names the file and the field.
class Fields {
 public:
  explicit Fields(const std::string& origin) : origin_(origin) {}

  [[noreturn]] void fail(const std::string& field, Text what) const {
    throw DataError(Text(Msg::io_name_colon, origin_) + (field.empty() ? Text() : Text(Msg::field_prefix, field)) +
                    std::move(what));
  }
  const json* find(const json& obj, const char* key) const {
    const auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
  }
  std::string text(const json& obj, const char* key, const std::string& fallback, const std::string& path = "") const {
    const json* v = find(obj, key);
    if (!v) return fallback;
    if (!v->is_string()) fail(path + key, Text(Msg::should_string));
    std::string out = v->get<std::string>();
    if (Text why = text_problem(out); !why.empty()) fail(path + key, std::move(why));
    return out;
  }
  // A whole number that fits int64 (a larger one would wrap).
  static bool fits_int64(const json& v) {
    return v.is_number_integer() && !(v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX));
  }
  // Such a number, or the fallback when absent: anything else names the field.
  int64_t integer(const json& obj, const std::string& path, const char* key, int64_t fallback) const {
    const json* v = find(obj, key);
    if (!v) return fallback;
    if (!fits_int64(*v)) fail(path + key, Text(Msg::should_whole_number));
    return v->get<int64_t>();
  }
  // A list of layer numbers (config.full_layers), each a whole number; their range is validate()'s.
  std::vector<int64_t> layers(const json& obj, const std::string& path, const char* key) const {
    const json* v = find(obj, key);
    if (!v) return {};
    if (!v->is_array() || v->size() > size_t(Limits::kMaxLayers)) fail(path + key, Text(Msg::should_list_of_layers));
    std::vector<int64_t> out;
    for (const json& e : *v) {
      if (!fits_int64(e)) fail(path + key, Text(Msg::should_list_of_layers));
      out.push_back(e.get<int64_t>());
    }
    return out;
  }
  // A list of [layer, head] pairs (config.full_heads), each a whole number; their range is validate()'s.
  std::vector<ModelConfig::LayerHead> heads(const json& obj, const std::string& path, const char* key) const {
    const json* v = find(obj, key);
    if (!v) return {};
    if (!v->is_array() || v->size() > 4096) fail(path + key, Text(Msg::should_list_of_heads));
    std::vector<ModelConfig::LayerHead> out;
    for (const json& e : *v) {
      if (!e.is_array() || e.size() != 2 || !fits_int64(e[0]) || !fits_int64(e[1]))
        fail(path + key, Text(Msg::should_list_of_heads));
      out.push_back({e[0].get<int64_t>(), e[1].get<int64_t>()});
    }
    return out;
  }
  uint64_t unsigned_integer(const json& obj, const std::string& path, const char* key, uint64_t fallback) const {
    const json* v = find(obj, key);
    if (!v) return fallback;
    if (!v->is_number_unsigned()) fail(path + key, Text(Msg::should_whole_number_0_64));
    return v->get<uint64_t>();
  }
  std::vector<std::string> lines(const json& obj, const char* key) const {
    const json* v = find(obj, key);
    if (!v) return {};
    if (!v->is_array() || v->size() > kMaxSessionSentences) fail(key, Text(Msg::should_list_most_4096_sentences));
    std::vector<std::string> out;
    for (const json& s : *v) {
      if (!s.is_string() || s.get_ref<const std::string&>().size() > kMaxSentenceBytes)
        fail(key, Text(Msg::every_sentence_should_string_most_mib));
      if (Text why = sentence_problem(s.get_ref<const std::string&>()); !why.empty())
        fail(std::string(key) + "[" + std::to_string(out.size()) + "]", std::move(why));
      out.push_back(s.get<std::string>());
    }
    return out;
  }

 private:
  const std::string& origin_;
};

// "config.variant": {"kind", "layer", and the kind's knobs} (variant_params).
VariantConfig read_variant(const Fields& f, const json& v) {
  if (!v.is_object()) f.fail("config.variant", Text(Msg::should_object));
  VariantConfig out;
  out.kind = parse_variant(f.text(v, "kind", "none", "config.variant."));
  out.layer = f.integer(v, "config.variant.", "layer", 0);
  for (const auto& p : variant_params(out.kind)) out.*p.field = f.integer(v, "config.variant.", p.name, out.*p.field);
  return out;
}

// "training.knobs": the Training panel's knobs, each a number within the panel's range (a field
// left out keeps its default).
SessionKnobs read_knobs(const Fields& f, const json& k) {
  const std::string at = "training.knobs.";
  if (!k.is_object()) f.fail("training.knobs", Text(Msg::should_object));
  SessionKnobs out;
  out.task = f.text(k, "task", "", at);  // its name is checked by the window (core/training is above io)
  if (out.task.empty()) f.fail(at + "task", Text(Msg::ls_missing));
  const auto whole = [&](const char* key, int64_t& v, KnobRange r) {
    v = f.integer(k, at, key, v);
    if (v < r.lo || v > r.hi) f.fail(at + key, Text(Msg::ls_out_of_range, v, r.lo, r.hi));
  };
  whole("layers", out.layers, kKnobLayers);
  whole("d_model", out.d_model, kKnobDModel);
  whole("heads", out.heads, kKnobHeads);
  whole("batch", out.batch, kKnobBatch);
  whole("steps", out.steps, kKnobSteps);
  whole("seed", out.seed, kKnobSeed);
  out.norm = f.text(k, "norm", out.norm, at);
  if (out.norm != "pre" && out.norm != "post") f.fail(at + "norm", Text(Msg::not_one_of, out.norm, "pre, post"));
  const auto flag = [&](const char* key, bool& v) {
    const json* x = f.find(k, key);
    if (!x) return;
    if (!x->is_boolean()) f.fail(at + key, Text(Msg::ls_expected_found, Text(Msg::ls_json_boolean), json_kind(*x)));
    v = x->get<bool>();
  };
  flag("attention_only", out.attention_only);
  flag("scaling", out.scaling);
  if (const json* x = f.find(k, "lr")) {
    if (!x->is_number()) f.fail(at + "lr", Text(Msg::ls_expected_found, Text(Msg::ls_json_number), json_kind(*x)));
    out.lr = x->get<double>();
    if (!(out.lr >= kKnobLrMin && out.lr <= kKnobLrMax))
      f.fail(at + "lr", Text(Msg::ls_out_of_range, x->dump(), json(kKnobLrMin).dump(), json(kKnobLrMax).dump()));
  }
  out.text_file = f.text(k, "text_file", "", at);
  return out;
}

// "view.sampling": the continue box's controls, each a number within its range (a field left out
// keeps its default).
SessionSampling read_sampling(const Fields& f, const json& v) {
  const std::string at = "view.sampling.";
  if (!v.is_object()) f.fail("view.sampling", Text(Msg::should_object));
  SessionSampling out;
  const auto real = [&](const char* key, double& x, double lo, double hi) {
    const json* j = f.find(v, key);
    if (!j) return;
    if (!j->is_number()) f.fail(at + key, Text(Msg::ls_expected_found, Text(Msg::ls_json_number), json_kind(*j)));
    x = j->get<double>();
    if (!(x >= lo && x <= hi)) f.fail(at + key, Text(Msg::ls_out_of_range, j->dump(), json(lo).dump(), json(hi).dump()));
  };
  const auto whole = [&](const char* key, int64_t& x, KnobRange r) {
    x = f.integer(v, at, key, x);
    if (x < r.lo || x > r.hi) f.fail(at + key, Text(Msg::ls_out_of_range, x, r.lo, r.hi));
  };
  real("temperature", out.temperature, 0, kSamplingTemperatureMax);
  real("top_p", out.top_p, kSamplingTopPMin, 1);
  whole("top_k", out.top_k, kSamplingTopK);
  whole("seed", out.seed, kSamplingSeed);
  return out;
}

// The session's "config" object → a ModelConfig, each knob checked as the command line does.
ModelConfig read_config(const Fields& f, const json& c, bool cross) {
  if (!c.is_object()) f.fail("config", Text(Msg::should_object));
  ModelConfig cfg;
  cfg.cross = cross;  // the encoder's mask (what a variant sees) depends on it
  try {
    cfg.d_model = f.integer(c, "config.", "d_model", cfg.d_model);
    cfg.heads = f.integer(c, "config.", "heads", cfg.heads);
    cfg.d_ff = f.integer(c, "config.", "d_ff", 4 * cfg.d_model);
    cfg.layers = f.integer(c, "config.", "layers", cfg.layers);
    cfg.seed = f.unsigned_integer(c, "config.", "seed", 0);
    cfg.overview_cap = f.integer(c, "config.", "overview_cap", 0);
    cfg.full_layers = f.layers(c, "config.", "full_layers");
    cfg.full_heads = f.heads(c, "config.", "full_heads");
    cfg.mask = parse_mask(f.text(c, "mask", std::string(mask_name(cfg.mask)), "config."));
    cfg.norm = parse_norm(f.text(c, "norm", std::string(norm_name(cfg.norm)), "config."));
    cfg.activation = parse_activation(f.text(c, "activation", std::string(activation_name(cfg.activation)), "config."));
    cfg.positional = parse_positional(f.text(c, "positional", std::string(positional_name(cfg.positional)), "config."));
    cfg.max_positions = f.integer(c, "config.", "max_positions", cfg.max_positions);
    if (const json* v = f.find(c, "final_norm")) {
      if (!v->is_boolean()) f.fail("config.final_norm", Text(Msg::ls_expected_found, Text(Msg::ls_json_boolean), json_kind(*v)));
      cfg.final_norm = v->get<bool>();
    }
    if (cfg.overview_cap < 0 || cfg.overview_cap > 4096) f.fail("config.overview_cap", Text(Msg::should_0_4096));
    if (const json* v = f.find(c, "variant")) cfg.variant = read_variant(f, *v);
    cfg.validate();
  } catch (const ConfigError& e) {
    f.fail("config", Text(Msg::cannot_used) + e.text());
  }
  return cfg;
}

json lesson_text(const LessonText& t) { return {{"en", t.en}, {"zh", t.zh}}; }

LessonText read_lesson_text(const Fields& f, const json& lesson, const char* key) {
  const json* v = f.find(lesson, key);
  if (!v) return {};
  const std::string path = std::string("lesson.") + key + ".";
  if (!v->is_object()) f.fail(path.substr(0, path.size() - 1), Text(Msg::should_object_en_zh));
  return {f.text(*v, "en", "", path), f.text(*v, "zh", "", path)};
}

SessionWeights read_weights(const Fields& f, const json& w) {
  if (!w.is_object()) f.fail("weights", Text(Msg::should_object));
  SessionWeights out;
  out.name = f.text(w, "name", "", "weights.");
  out.file = f.text(w, "file", "", "weights.");
  const std::string embedded = f.text(w, "embedded", "", "weights.");
  out.model_folder = f.text(w, "model_folder", "", "weights.");
  if (!out.file.empty() + !embedded.empty() + !out.model_folder.empty() != 1)
    f.fail("weights", Text(Msg::needs_exactly_file_embedded));
  if (const json* v = f.find(w, "prepend_bos")) {
    if (!v->is_boolean()) f.fail("weights.prepend_bos", Text(Msg::ls_expected_found, Text(Msg::ls_json_boolean), json_kind(*v)));
    if (v->get<bool>() && out.model_folder.empty()) f.fail("weights.prepend_bos", Text(Msg::prepend_bos_needs_model_folder));
    out.prepend_bos = v->get<bool>();
  }
  if (!embedded.empty()) {
    try {
      out.bytes = base64_decode(embedded, "base64");
    } catch (const DataError& e) {
      f.fail("weights.embedded", e.text());
    }
  }
  return out;
}

}  // namespace

std::string session_json(const Session& s) {
  const ModelConfig& c = s.cfg;
  json j = {
      {"format", kFormat},
      {"version", 1},  // 2 below when there are weights
      {"texts", s.texts},
      {"memory_texts", s.memory_texts},
      {"config",
       {{"d_model", c.d_model}, {"heads", c.heads}, {"d_ff", c.d_ff}, {"layers", c.layers},
        {"mask", std::string(mask_name(c.mask))}, {"norm", std::string(norm_name(c.norm))},
        {"activation", std::string(activation_name(c.activation))},
        {"positional", std::string(positional_name(c.positional))}, {"max_positions", c.max_positions},
        {"final_norm", c.final_norm}, {"seed", c.seed}, {"overview_cap", c.overview_cap},
        {"full_layers", c.full_layers}}},
      {"step", s.step},
      {"view",
       {{"backend", std::string(backend_kind_name(s.backend))}, {"memory_budget_mib", s.memory_budget_mib},
        {"tab", s.view_tab.empty() ? std::string("values") : s.view_tab}, {"sentence", s.sentence}, {"head", s.head}}}};
  if (!s.loss.empty()) j["view"]["loss"] = s.loss;  // absent: no backward pass, as before
  if (!s.answers.empty()) j["view"]["answers"] = s.answers;
  if (!s.ablate.empty()) j["view"]["ablate"] = s.ablate;  // absent: every head in, as before
  if (!s.ablate.empty() && s.ablate_mode == "mean") j["view"]["ablate_mode"] = s.ablate_mode;  // absent: zero
  if (const SessionSampling& g = s.sampling; g != SessionSampling{})  // absent: the defaults, as before
    j["view"]["sampling"] = {{"temperature", g.temperature}, {"top_k", g.top_k}, {"top_p", g.top_p}, {"seed", g.seed}};
  if (c.variant.on()) j["config"]["variant"] = variant_config_json(c.variant);
  if (!c.full_heads.empty()) j["config"]["full_heads"] = full_heads_json(c.full_heads);  // absent: none, as before
  if (!s.weights.empty()) {  // version 2: an older reader refuses instead of showing seeded weights
    j["version"] = kSessionVersion;
    j["weights"] = {{"name", s.weights.name}};
    if (!s.weights.bytes.empty()) j["weights"]["embedded"] = base64_encode(s.weights.bytes);
    else if (!s.weights.model_folder.empty()) j["weights"]["model_folder"] = s.weights.model_folder;
    else j["weights"]["file"] = s.weights.file;
    if (s.weights.prepend_bos) j["weights"]["prepend_bos"] = true;  // absent: nothing added, as before
  }
  if (!s.training.run.empty()) j["training"] = {{"run", s.training.run}, {"step", s.training.step}};
  if (const SessionKnobs& k = s.training.knobs; !k.empty()) {
    j["training"]["knobs"] = {{"task", k.task}, {"layers", k.layers}, {"d_model", k.d_model}, {"heads", k.heads},
                              {"norm", k.norm}, {"attention_only", k.attention_only}, {"scaling", k.scaling},
                              {"lr", k.lr}, {"batch", k.batch}, {"steps", k.steps}, {"seed", k.seed}};
    if (!k.text_file.empty()) j["training"]["knobs"]["text_file"] = k.text_file;
  }
  if (!s.training.kept.empty()) j["training"]["kept"] = s.training.kept;
  if (!s.title.empty() || !s.description.empty())
    j["lesson"] = {{"title", lesson_text(s.title)}, {"description", lesson_text(s.description)}};
  return j.dump(2) + "\n";
}

Session parse_session(std::string_view text, const std::string& origin) {
  const Fields f(origin);
  if (text.size() > kMaxSessionBytes) f.fail("", Text(Msg::larger_than_16_mib_not_session_file));
  const json j = json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded()) f.fail("", Text(Msg::not_valid_json_damaged_not_session_file));
  if (!j.is_object() || !j.contains("format") || j["format"] != kFormat)
    f.fail("", Text(Msg::not_attention_lab_session_no_format_attnlab));
  const int64_t version = f.integer(j, "", "version", -1);
  if (version < 1) f.fail("version", Text(Msg::missing_not_positive_whole_number));
  if (version > kSessionVersion)
    f.fail("", Text(Msg::saved_newer_attention_lab_session_version_reads, version, int{kSessionVersion}));
  Session s;
  s.texts = f.lines(j, "texts");
  if (s.texts.empty()) f.fail("texts", Text(Msg::no_sentences_session_needs_least));
  s.memory_texts = f.lines(j, "memory_texts");
  if (s.memory_texts.size() > 1 && s.memory_texts.size() != s.texts.size())
    f.fail("memory_texts",
           Text(Msg::should_hold_source_sentence_all_per_sentence, s.texts.size(), s.memory_texts.size()));
  s.cfg = read_config(f, j.contains("config") ? j["config"] : json::object(), !s.memory_texts.empty());
  try {  // a session that cannot run is refused now, not when the window computes it
    const Batch batch = make_batch(s.texts, s.memory_texts);
    if (s.cfg.traces_variant()) check_walk_length(s.cfg.variant, batch.encoder_tokens().seq());
  } catch (const ConfigError& e) {
    f.fail("texts", Text(Msg::cannot_used) + e.text());
  }
  s.step = f.text(j, "step", "");
  if (const json* v = f.find(j, "view")) {
    if (!v->is_object()) f.fail("view", Text(Msg::should_object));
    try {
      s.backend = parse_backend(f.text(*v, "backend", "cpu", "view."));
    } catch (const ConfigError& e) {
      f.fail("view.backend", e.text());
    }
    s.memory_budget_mib = f.integer(*v, "view.", "memory_budget_mib", 4096);
    if (s.memory_budget_mib < 1 || s.memory_budget_mib > (int64_t{1} << 30))
      f.fail("view.memory_budget_mib", Text(Msg::should_between_30));
    s.view_tab = f.text(*v, "tab", "values", "view.");
    if (std::find(std::begin(kViewTabs), std::end(kViewTabs), s.view_tab) == std::end(kViewTabs))
      f.fail("view.tab", Text(Msg::not_one_of, s.view_tab, "values, lines, model, neuron, masks, charts, gradients"));
    s.sentence = f.integer(*v, "view.", "sentence", 0);
    s.head = f.integer(*v, "view.", "head", 0);
    if (s.sentence < 0 || s.sentence >= static_cast<int64_t>(s.texts.size()))
      f.fail("view.sentence", Text(Msg::should_0_number_sentences));
    if (s.head < 0 || s.head >= s.cfg.heads) f.fail("view.head", Text(Msg::should_0_heads));
    s.loss = f.text(*v, "loss", "", "view.");
    if (!s.loss.empty()) {
      try {
        parse_loss(s.loss);
      } catch (const ConfigError& e) {
        f.fail("view.loss", e.text());
      }
    }
    s.answers = f.lines(*v, "answers");  // checked against the sentences when the loss runs
    s.ablate = f.text(*v, "ablate", "", "view.");  // heads beyond the model are dropped when it runs
    try {
      if (!s.ablate.empty()) explain::parse_heads(s.ablate);
    } catch (const ConfigError& e) {
      f.fail("view.ablate", e.text());
    }
    s.ablate_mode = f.text(*v, "ablate_mode", "", "view.");
    if (!s.ablate_mode.empty() && s.ablate_mode != "zero" && s.ablate_mode != "mean")
      f.fail("view.ablate_mode", Text(Msg::not_one_of, s.ablate_mode, "zero, mean"));
    if (const json* g = f.find(*v, "sampling")) s.sampling = read_sampling(f, *g);
  }
  if (const json* w = f.find(j, "weights")) s.weights = read_weights(f, *w);
  if (const json* t = f.find(j, "training")) {
    if (!t->is_object()) f.fail("training", Text(Msg::should_object));
    s.training.run = f.text(*t, "run", "", "training.");
    s.training.step = f.integer(*t, "training.", "step", -1);
    s.training.step = std::max<int64_t>(s.training.step, -1);  // any negative step: the last snapshot
    if (const json* k = f.find(*t, "knobs")) s.training.knobs = read_knobs(f, *k);
    s.training.kept = f.text(*t, "kept", "", "training.");
  }
  if (const json* l = f.find(j, "lesson")) {
    if (!l->is_object()) f.fail("lesson", Text(Msg::should_object));
    s.title = read_lesson_text(f, *l, "title");
    s.description = read_lesson_text(f, *l, "description");
  }
  return s;
}

}  // namespace attnlab
