#include "io/session.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "forward/model.h"
#include "io/base64.h"
#include "io/bundle.h"
#include "tensor/ops.h"
#include "text/errors.h"
#include "text/tokenizer.h"

namespace attnlab {

using nlohmann::json;

namespace {

constexpr const char* kFormat = "attnlab-session";
constexpr size_t kMaxSentences = 4096, kMaxSentenceBytes = 1u << 20;
const std::string kViewTabs[] = {"values", "lines", "model", "neuron", "masks", "charts"};

// Typed access to one session file; every failure names the file and the field.
class Fields {
 public:
  explicit Fields(const std::string& origin) : origin_(origin) {}

  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw DataError(origin_ + ": " + (field.empty() ? "" : "field \"" + field + "\": ") + what);
  }
  const json* find(const json& obj, const char* key) const {
    const auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
  }
  std::string text(const json& obj, const char* key, const std::string& fallback, const std::string& path = "") const {
    const json* v = find(obj, key);
    if (!v) return fallback;
    if (!v->is_string()) fail(path + key, "should be a string");
    std::string out = v->get<std::string>();
    if (const std::string why = text_problem(out); !why.empty()) fail(path + key, why);
    return out;
  }
  // A whole number that fits int64 (a larger one would wrap): anything else names the field.
  int64_t integer(const json& obj, const std::string& path, const char* key, int64_t fallback) const {
    const json* v = find(obj, key);
    if (!v) return fallback;
    if (!v->is_number_integer() || (v->is_number_unsigned() && v->get<uint64_t>() > uint64_t(INT64_MAX)))
      fail(path + key, "should be a whole number");
    return v->get<int64_t>();
  }
  uint64_t unsigned_integer(const json& obj, const std::string& path, const char* key, uint64_t fallback) const {
    const json* v = find(obj, key);
    if (!v) return fallback;
    if (!v->is_number_unsigned()) fail(path + key, "should be a whole number 0 … 2^64 − 1");
    return v->get<uint64_t>();
  }
  std::vector<std::string> lines(const json& obj, const char* key) const {
    const json* v = find(obj, key);
    if (!v) return {};
    if (!v->is_array() || v->size() > kMaxSentences) fail(key, "should be a list of at most 4096 sentences");
    std::vector<std::string> out;
    for (const json& s : *v) {
      if (!s.is_string() || s.get_ref<const std::string&>().size() > kMaxSentenceBytes)
        fail(key, "every sentence should be a string of at most 1 MiB");
      if (const std::string why = sentence_problem(s.get_ref<const std::string&>()); !why.empty())
        fail(std::string(key) + "[" + std::to_string(out.size()) + "]", why);
      out.push_back(s.get<std::string>());
    }
    return out;
  }

 private:
  const std::string& origin_;
};

// "config.variant": {"kind", "layer", and the kind's knobs} (variant_params).
VariantConfig read_variant(const Fields& f, const json& v) {
  if (!v.is_object()) f.fail("config.variant", "should be an object");
  VariantConfig out;
  out.kind = parse_variant(f.text(v, "kind", "none", "config.variant."));
  out.layer = f.integer(v, "config.variant.", "layer", 0);
  for (const auto& p : variant_params(out.kind)) out.*p.field = f.integer(v, "config.variant.", p.name, out.*p.field);
  return out;
}

// The session's "config" object → a ModelConfig, each knob checked as the command line does.
ModelConfig read_config(const Fields& f, const json& c, bool cross) {
  if (!c.is_object()) f.fail("config", "should be an object");
  ModelConfig cfg;
  cfg.cross = cross;  // the encoder's mask (what a variant sees) depends on it
  try {
    cfg.d_model = f.integer(c, "config.", "d_model", cfg.d_model);
    cfg.heads = f.integer(c, "config.", "heads", cfg.heads);
    cfg.d_ff = f.integer(c, "config.", "d_ff", 4 * cfg.d_model);
    cfg.layers = f.integer(c, "config.", "layers", cfg.layers);
    cfg.seed = f.unsigned_integer(c, "config.", "seed", 0);
    cfg.overview_cap = f.integer(c, "config.", "overview_cap", 0);
    cfg.mask = parse_mask(f.text(c, "mask", std::string(mask_name(cfg.mask)), "config."));
    cfg.norm = parse_norm(f.text(c, "norm", std::string(norm_name(cfg.norm)), "config."));
    cfg.activation = parse_activation(f.text(c, "activation", std::string(activation_name(cfg.activation)), "config."));
    cfg.positional = parse_positional(f.text(c, "positional", std::string(positional_name(cfg.positional)), "config."));
    if (cfg.overview_cap < 0 || cfg.overview_cap > 4096) f.fail("config.overview_cap", "should be 0 or 1 … 4096");
    if (const json* v = f.find(c, "variant")) cfg.variant = read_variant(f, *v);
    cfg.validate();
  } catch (const ConfigError& e) {
    f.fail("config", std::string("cannot be used: ") + e.what());
  }
  return cfg;
}

json lesson_text(const LessonText& t) { return {{"en", t.en}, {"zh", t.zh}}; }

LessonText read_lesson_text(const Fields& f, const json& lesson, const char* key) {
  const json* v = f.find(lesson, key);
  if (!v) return {};
  const std::string path = std::string("lesson.") + key + ".";
  if (!v->is_object()) f.fail(path.substr(0, path.size() - 1), "should be an object with \"en\" and \"zh\"");
  return {f.text(*v, "en", "", path), f.text(*v, "zh", "", path)};
}

SessionWeights read_weights(const Fields& f, const json& w) {
  if (!w.is_object()) f.fail("weights", "should be an object");
  SessionWeights out;
  out.name = f.text(w, "name", "", "weights.");
  out.file = f.text(w, "file", "", "weights.");
  const std::string embedded = f.text(w, "embedded", "", "weights.");
  if (out.file.empty() == embedded.empty()) f.fail("weights", "needs exactly one of \"file\" and \"embedded\"");
  if (!embedded.empty()) {
    try {
      out.bytes = base64_decode(embedded, "base64");
    } catch (const DataError& e) {
      f.fail("weights.embedded", e.what());
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
        {"positional", std::string(positional_name(c.positional))}, {"seed", c.seed},
        {"overview_cap", c.overview_cap}}},
      {"step", s.step},
      {"view",
       {{"backend", std::string(backend_kind_name(s.backend))}, {"memory_budget_mib", s.memory_budget_mib},
        {"tab", s.view_tab.empty() ? std::string("values") : s.view_tab}, {"sentence", s.sentence}, {"head", s.head}}}};
  if (c.variant.on()) j["config"]["variant"] = variant_config_json(c.variant);
  if (!s.weights.empty()) {  // version 2: an older reader refuses instead of showing seeded weights
    j["version"] = kSessionVersion;
    j["weights"] = {{"name", s.weights.name}};
    if (!s.weights.bytes.empty()) j["weights"]["embedded"] = base64_encode(s.weights.bytes);
    else j["weights"]["file"] = s.weights.file;
  }
  if (!s.title.empty() || !s.description.empty())
    j["lesson"] = {{"title", lesson_text(s.title)}, {"description", lesson_text(s.description)}};
  return j.dump(2) + "\n";
}

Session parse_session(std::string_view text, const std::string& origin) {
  const Fields f(origin);
  if (text.size() > kMaxSessionBytes) f.fail("", "larger than 16 MiB: not a session file");
  const json j = json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded()) f.fail("", "not valid JSON (damaged or not a session file)");
  if (!j.is_object() || !j.contains("format") || j["format"] != kFormat)
    f.fail("", "not an Attention Lab session (no \"format\": \"attnlab-session\")");
  const int64_t version = f.integer(j, "", "version", -1);
  if (version < 1) f.fail("version", "missing or not a positive whole number");
  if (version > kSessionVersion)
    f.fail("", "saved by a newer Attention Lab (session version " + std::to_string(version) +
                   "; this one reads up to version " + std::to_string(kSessionVersion) +
                   "): open it with a newer Attention Lab");
  Session s;
  s.texts = f.lines(j, "texts");
  if (s.texts.empty()) f.fail("texts", "no sentences: a session needs at least one");
  s.memory_texts = f.lines(j, "memory_texts");
  if (s.memory_texts.size() > 1 && s.memory_texts.size() != s.texts.size())
    f.fail("memory_texts", "should hold one source sentence for all, or one per sentence (" +
                               std::to_string(s.texts.size()) + " sentences, " + std::to_string(s.memory_texts.size()) +
                               " source sentences)");
  s.cfg = read_config(f, j.contains("config") ? j["config"] : json::object(), !s.memory_texts.empty());
  try {  // a session that cannot run is refused now, not when the window computes it
    const Batch batch = make_batch(s.texts, s.memory_texts);
    if (s.cfg.traces_variant()) check_walk_length(s.cfg.variant, batch.encoder_tokens().seq());
  } catch (const ConfigError& e) {
    f.fail("texts", std::string("cannot be used: ") + e.what());
  }
  s.step = f.text(j, "step", "");
  if (const json* v = f.find(j, "view")) {
    if (!v->is_object()) f.fail("view", "should be an object");
    try {
      s.backend = parse_backend(f.text(*v, "backend", "cpu", "view."));
    } catch (const ConfigError& e) {
      f.fail("view.backend", e.what());
    }
    s.memory_budget_mib = f.integer(*v, "view.", "memory_budget_mib", 4096);
    if (s.memory_budget_mib < 1 || s.memory_budget_mib > (int64_t{1} << 30))
      f.fail("view.memory_budget_mib", "should be between 1 and 2^30");
    s.view_tab = f.text(*v, "tab", "values", "view.");
    if (std::find(std::begin(kViewTabs), std::end(kViewTabs), s.view_tab) == std::end(kViewTabs))
      f.fail("view.tab", "'" + s.view_tab + "' is not one of values, lines, model, neuron, masks, charts");
    s.sentence = f.integer(*v, "view.", "sentence", 0);
    s.head = f.integer(*v, "view.", "head", 0);
    if (s.sentence < 0 || s.sentence >= static_cast<int64_t>(s.texts.size()))
      f.fail("view.sentence", "should be 0 … the number of sentences − 1");
    if (s.head < 0 || s.head >= s.cfg.heads) f.fail("view.head", "should be 0 … heads − 1");
  }
  if (const json* w = f.find(j, "weights")) s.weights = read_weights(f, *w);
  if (const json* l = f.find(j, "lesson")) {
    if (!l->is_object()) f.fail("lesson", "should be an object");
    s.title = read_lesson_text(f, *l, "title");
    s.description = read_lesson_text(f, *l, "description");
  }
  return s;
}

}  // namespace attnlab
