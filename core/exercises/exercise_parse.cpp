// Reading an exercise file: every field checked with a message naming it, the setup run to compute
// the answers (docs/exercises.md). exercises.cpp loads folders of them.
#include "backward/model_backward.h"
#include "exercises/exercises.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "exercises/exercise_text.h"
#include "io/json_kind.h"
#include "io/shipped_models.h"
#include "io/weights_file.h"
#include "model/weights.h"
#include "tensor/scoped_threads.h"
#include "text/tokenizer.h"

namespace attnlab {

using nlohmann::json;
using namespace exercise_text;

namespace {

// Limits that keep every exercise small enough to load in milliseconds.
constexpr int64_t kMaxSentences = 8, kMaxTokens = 32, kMaxDModel = 256, kMaxHeads = 64, kMaxDff = 1024;
constexpr int64_t kMaxLayers = 3, kMaxMaskSize = 16, kMaxHints = 10, kMaxText = 4000;

// ----------------------------------------------------------------------------- small text tools

// ----------------------------------------------------------------------------- reading fields

Text type_name(const json& v) { return json_kind(v); }

// "<file>: " before a file's message (a file name, shown as it is).
Text file_prefix(const std::string& file) { return verbatim(file + ": "); }

// Reads fields of one file; every failure names the file and the field's path.
struct Reader {
  const std::string& file;
  // The number of a mask's first row and column in the file: 0 (attnlab-exercise/2, as every
  // view numbers tokens), 1 (attnlab-exercise/1 or no format). Errors name positions the same way.
  int first = 0;

  [[noreturn]] void fail(const std::string& field, Text msg) const {
    throw ExerciseError(file_prefix(file) + Text(Msg::field_prefix, field) + std::move(msg));
  }
  static std::string at(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }

  // Refuses keys other than `allowed` (keys starting with '_' or '$' are comments).
  void only(const json& obj, const std::string& path, std::initializer_list<const char*> allowed) const {
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      const std::string& k = it.key();
      if (!k.empty() && (k[0] == '_' || k[0] == '$')) continue;
      if (std::none_of(allowed.begin(), allowed.end(), [&](const char* a) { return k == a; })) {
        std::string list;
        for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
        fail(at(path, k), Text(Msg::ls_unknown_field_expected_one_of, list));
      }
    }
  }
  const json* get(const json& obj, const char* key) const {
    auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
  }
  const json& need(const json& obj, const std::string& path, const char* key) const {
    const json* v = get(obj, key);
    if (!v) fail(at(path, key), Text(Msg::ls_missing));
    return *v;
  }
  // what: the type expected, one of the ls_json_* messages.
  void want(const json& v, const std::string& field, bool ok, Msg what) const {
    if (!ok) fail(field, Text(Msg::ls_expected_found, Text(what), type_name(v)));
  }
  std::string text(const json& v, const std::string& field, size_t max = kMaxText) const {
    want(v, field, v.is_string(), Msg::ls_json_string);
    const std::string s = v.get<std::string>();
    if (s.find_first_not_of(" \t\r\n") == std::string::npos) fail(field, Text(Msg::ls_empty));
    if (s.size() > max) fail(field, Text(Msg::ls_longer_than_bytes, max));
    if (Text why = text_problem(s); !why.empty()) fail(field, std::move(why));  // a NUL, control characters only
    return s;
  }
  int64_t integer(const json& v, const std::string& field, int64_t lo, int64_t hi) const {
    want(v, field, v.is_number_integer() || v.is_number_unsigned(), Msg::ls_json_integer);
    const bool neg = v.is_number_integer() && v.get<int64_t>() < 0;
    const int64_t x = neg ? v.get<int64_t>() : static_cast<int64_t>(std::min<uint64_t>(v.get<uint64_t>(), INT64_MAX));
    if (x < lo || x > hi)
      fail(field, Text(Msg::ls_out_of_range, x, lo, hi));
    return x;
  }
  const json& array(const json& v, const std::string& field, size_t lo, size_t hi) const {
    want(v, field, v.is_array(), Msg::ls_json_array);
    if (v.size() < lo || v.size() > hi)
      fail(field, lo == hi ? Text(Msg::ls_has_entries_expected, v.size(), lo)
                           : Text(Msg::ls_has_entries_expected_range, v.size(), lo, hi));
    return v;
  }
  const json& object(const json& v, const std::string& field) const {
    want(v, field, v.is_object(), Msg::ls_json_object);
    return v;
  }
  LocalText local(const json& v, const std::string& field) const {
    object(v, field);
    only(v, field, {"en", "zh"});
    return {text(need(v, field, "en"), field + ".en"), text(need(v, field, "zh"), field + ".zh")};
  }
};

std::string idx(const std::string& path, size_t i) { return path + "[" + std::to_string(i) + "]"; }

// ----------------------------------------------------------------------------- the setup

// "model": a shipped model by name. Its file is the configuration: a setup that also sets a
// knob, or source sentences (a shipped model has one stack), is refused naming the field.
void read_model(const Reader& r, const json& v, const json& m, ExerciseSetup& s) {
  const std::string P = "setup";
  const std::string name = r.text(m, P + ".model", 100);
  const ShippedModel* model = find_shipped_model(name);
  if (!model) {
    std::string names;
    for (const auto& x : shipped_models()) names += (names.empty() ? "" : ", ") + std::string(x.name());
    r.fail(P + ".model", Text(Msg::ls_quoted_not_one_of, name, names));
  }
  for (const char* key : {"memory_texts", "d_model", "heads", "d_ff", "layers", "mask", "norm", "activation",
                          "positional", "eps", "seed"})
    if (r.get(v, key)) r.fail(P + "." + key, Text(Msg::ls_not_with_model, name));
  try {
    const std::string origin = "sample_inputs/models/" + std::string(model->file);
    LoadedWeights loaded = load_weights(parse_safetensors(std::string(model->bytes)), origin, ModelConfig{}, {});
    s.config = loaded.cfg;
    s.weights = std::make_shared<const Weights>(std::move(loaded.weights));
  } catch (const DataError& e) {  // a damaged build; test_exercises loads every shipped model
    r.fail(P + ".model", e.text());
  }
  s.model = std::string(model->name());
}

void read_setup(const Reader& r, const json& v, ExerciseSetup& s) {
  const std::string P = "setup";
  r.object(v, P);
  r.only(v, P, {"texts", "memory_texts", "d_model", "heads", "d_ff", "layers", "mask", "norm", "activation",
                "positional", "eps", "seed", "loss", "model"});
  if (const json* m = r.get(v, "model")) read_model(r, v, *m, s);
  auto sentences = [&](const char* key, size_t lo) {
    std::vector<std::string> out;
    const json* a = r.get(v, key);
    if (!a) {
      if (lo > 0) r.fail(P + "." + key, Text(Msg::ls_missing));
      return out;
    }
    r.array(*a, P + "." + key, lo, kMaxSentences);
    for (size_t i = 0; i < a->size(); ++i) {
      const std::string f = idx(P + "." + key, i);
      std::string t = r.text((*a)[i], f, 1000);
      try {
        if (static_cast<int64_t>(tokenize(t).size()) > kMaxTokens)
          r.fail(f, Text(Msg::ls_more_than_tokens, kMaxTokens));
      } catch (const ConfigError& e) {
        r.fail(f, e.text());
      }
      out.push_back(std::move(t));
    }
    return out;
  };
  s.texts = sentences("texts", 1);
  s.memory_texts = sentences("memory_texts", 0);
  if (s.memory_texts.size() > 1 && s.memory_texts.size() != s.texts.size())
    r.fail(P + ".memory_texts", Text(Msg::ls_one_source_sentence_per_text, s.texts.size()));
  if (const json* l = r.get(v, "loss")) {  // no target: the sum of the output only
    const std::string name = r.text(*l, P + ".loss", 40);
    if (name != "sum") r.fail(P + ".loss", Text(Msg::ls_quoted_not_one_of, name, "sum"));
    s.loss = LossKind::Sum;
  }
  if (s.weights) return;  // the shipped model's configuration, read by read_model
  ModelConfig& c = s.config;
  c.cross = !s.memory_texts.empty();
  auto num = [&](const char* key, int64_t lo, int64_t hi, int64_t def) {
    const json* x = r.get(v, key);
    return x ? r.integer(*x, P + "." + key, lo, hi) : def;
  };
  c.d_model = num("d_model", 1, kMaxDModel, 64);
  c.heads = num("heads", 1, kMaxHeads, 8);
  if (c.heads > c.d_model || c.d_model % c.heads != 0)
    r.fail(P + ".heads", Text(Msg::heads_do_not_divide_d_model, c.heads, c.d_model));
  c.d_ff = num("d_ff", 1, kMaxDff, std::min<int64_t>(4 * c.d_model, kMaxDff));
  c.layers = num("layers", 1, kMaxLayers, 1);
  c.seed = static_cast<uint64_t>(num("seed", 0, int64_t(1) << 53, 0));
  auto word = [&](const char* key, auto parse, auto def) {
    const json* x = r.get(v, key);
    if (!x) return def;
    const std::string f = P + "." + key;
    r.want(*x, f, x->is_string(), Msg::ls_json_string);
    try {
      return parse(x->get<std::string>());
    } catch (const ConfigError& e) {
      r.fail(f, e.text());
    }
  };
  c.mask = word("mask", parse_mask, c.cross ? MaskKind::PaddingCausal : MaskKind::Padding);
  c.norm = word("norm", parse_norm, Norm::Pre);
  c.activation = word("activation", parse_activation, Activation::Relu);
  c.positional = word("positional", parse_positional, Positional::Sinusoidal);
  if (const json* e = r.get(v, "eps")) {
    r.want(*e, P + ".eps", e->is_number(), Msg::ls_json_number);
    c.eps = e->get<double>();
    if (!(c.eps > 0 && c.eps < 1)) r.fail(P + ".eps", Text(Msg::ls_between_0_and_1_exclusive));
  }
  try {
    c.validate();
  } catch (const ConfigError& e) {
    r.fail(P, e.text());
  }
}

// Runs the setup (with the faults of cfg) into a trace; a faulty run may stop early with an error.
void run_setup(const ExerciseSetup& s, const ModelConfig& cfg, Trace& trace, bool allow_failure) {
  const ScopedThreads one(1);  // exercise setups are tiny: one thread beats waking a team
  const Batch batch = setup_batch(s);
  try {
    const Weights seeded = s.weights ? Weights{} : init_weights(cfg);
    const Weights& w = s.weights ? *s.weights : seeded;
    forward(cfg, w, batch, trace);
    if (s.loss) {  // the gradient steps after the forward's, as the window shows them
      const BackwardResult b = backward(cfg, w, trace, LossSpec{.kind = *s.loss});
      for (const Step& g : b.steps.steps()) trace.record(g.info, g.tensor);
    }
  } catch (const std::exception&) {
    if (!allow_failure) throw;
  }
}


// Refuses an id that is not among `ids`, suggesting one with the same last part.
std::string need_step(const Reader& r, const std::vector<std::string>& ids, const json& v, const std::string& field) {
  const std::string id = r.text(v, field, 200);
  if (std::find(ids.begin(), ids.end(), id) != ids.end()) return id;
  const std::string last = id.substr(id.rfind('.') == std::string::npos ? 0 : id.rfind('.') + 1);
  Text hint(Msg::ls_steps_listed_in_docs);
  for (const auto& s : ids)
    if (ends_with_part(s, last)) {
      hint = Text(Msg::ls_did_you_mean, s);
      break;
    }
  r.fail(field, Text(Msg::ls_not_a_step_of_setup, id) + std::move(hint));
}

std::vector<std::string> step_ids(const Exercise& ex) {
  std::vector<std::string> ids;
  for (const auto& s : ex.steps) ids.push_back(s.id);
  return ids;
}

// ----------------------------------------------------------------------------- the three kinds

void read_predict(const Reader& r, const json& v, Exercise& ex) {
  const std::string P = "predict_shape";
  r.object(v, P);
  r.only(v, P, {"step", "ask"});
  ex.predict.step = need_step(r, step_ids(ex), r.need(v, P, "step"), P + ".step");
  const std::string ask = r.text(r.need(v, P, "ask"), P + ".ask");
  if (ask == "shape") ex.predict.ask = ShapeAsk::Shape;
  else if (ask == "strides") ex.predict.ask = ShapeAsk::Strides;
  else if (ask == "contiguous") ex.predict.ask = ShapeAsk::Contiguous;
  else r.fail(P + ".ask", Text(Msg::ls_quoted_not_one_of, ask, "shape, strides, contiguous"));
}

bool same_values(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape()) return false;
  const auto x = a.to_vector(), y = b.to_vector();
  for (size_t i = 0; i < x.size(); ++i)
    if (std::isnan(x[i]) != std::isnan(y[i]) || (!std::isnan(x[i]) && x[i] != y[i])) return false;
  return true;
}

// find_head: the pattern's score of every head on the setup's run. A head reaching at_least is
// right; one just below it (within the margin) would make the question unclear: refused.
void read_head(const Reader& r, const json& v, Exercise& ex, const Trace& trace) {
  const std::string P = "find_head";
  r.object(v, P);
  r.only(v, P, {"pattern", "layer", "at_least", "margin"});
  FindHead& f = ex.head;
  const std::string name = r.text(r.need(v, P, "pattern"), P + ".pattern", 40);
  const auto trait = parse_head_trait(name);
  if (!trait) r.fail(P + ".pattern", Text(Msg::ls_quoted_not_one_of, name, head_trait_list()));
  f.pattern = *trait;
  if (!ex.setup.memory_texts.empty()) r.fail("setup.memory_texts", Text(Msg::ls_not_allowed_for_kind, "find_head"));
  const int64_t layers = ex.setup.config.layers;
  if (const json* l = r.get(v, "layer")) f.layer = static_cast<int>(r.integer(*l, P + ".layer", 0, layers - 1));
  auto fraction = [&](const char* key, double& out) {
    const json* m = r.get(v, key);
    if (!m) return;
    r.want(*m, P + "." + key, m->is_number(), Msg::ls_json_number);
    out = m->get<double>();
    if (!(out > 0 && out < 1)) r.fail(P + "." + key, Text(Msg::ls_between_0_and_1_exclusive));
  };
  fraction("at_least", f.at_least);
  fraction("margin", f.margin);
  const Batch batch = setup_batch(ex.setup);
  f.scores = head_trait_scores(trace, batch, f.pattern, layers, ex.setup.weights ? ex.setup.weights->vocab().get() : nullptr);
  const std::vector<RankedHead> ranked = ranked_heads(f);
  if (ranked.empty() || std::isnan(ranked.front().score)) r.fail(P + ".pattern", Text(Msg::ls_pattern_no_positions, name));
  const RankedHead& best = ranked.front();
  f.best_layer = best.layer, f.best_head = best.head;
  if (best.score < f.at_least)
    r.fail(P + ".at_least", Text(Msg::ls_no_head_reaches, score_text(f.at_least), head_name(best.layer, best.head),
                                 score_text(best.score)));
  for (const RankedHead& h : ranked)
    if (h.score < f.at_least && h.score >= f.at_least - f.margin)
      r.fail(P, Text(Msg::ls_head_question_unclear, head_name(h.layer, h.head), score_text(h.score),
                     score_text(f.at_least), score_text(f.margin)));
}

void read_bug(const Reader& r, const json& v, Exercise& ex) {
  const std::string P = "find_bug";
  r.object(v, P);
  r.only(v, P, {"fault", "faulty_step", "accept_block", "symptoms"});
  const std::string fid = r.text(r.need(v, P, "fault"), P + ".fault", 100);
  try {
    ex.bug.fault = parse_fault(fid);
  } catch (const ConfigError& e) {
    r.fail(P + ".fault", e.text());
  }
  if (ex.bug.fault == Fault::IndivisibleHeads) r.fail(P + ".fault", Text(Msg::ls_indivisible_heads_not_exercise));
  if (const json* b = r.get(v, "accept_block")) {
    r.want(*b, P + ".accept_block", b->is_boolean(), Msg::ls_json_boolean);
    ex.bug.accept_block = b->get<bool>();
  }
  const json& sym = r.object(r.need(v, P, "symptoms"), P + ".symptoms");
  r.only(sym, P + ".symptoms", {"en", "zh"});
  for (const char* lang : {"en", "zh"}) {
    const std::string f = P + ".symptoms." + lang;
    const json& a = r.array(r.need(sym, P + ".symptoms", lang), f, 1, 30);
    for (size_t i = 0; i < a.size(); ++i) {
      ex.bug.symptoms.push_back(r.text(a[i], idx(f, i), 100));
      if (keyword(ex.bug.symptoms.back()).empty()) r.fail(idx(f, i), Text(Msg::ls_holds_no_word));
    }
  }
  // What the fault really changes, by the engine (a faulty run may record extra steps).
  ModelConfig faulty = ex.setup.config;
  faulty.faults = {ex.bug.fault};
  Trace clean, bad;
  run_setup(ex.setup, ex.setup.config, clean, false);
  run_setup(ex.setup, faulty, bad, true);
  for (const auto& s : bad.steps()) {
    ex.bug.steps.push_back(s.info.id);
    std::stringstream ss(s.info.fault);
    for (std::string f; std::getline(ss, f, ',');)
      if (f == fid) ex.bug.marked.push_back(s.info.id);
  }
  ex.bug.faulty_step = need_step(r, ex.bug.steps, r.need(v, P, "faulty_step"), P + ".faulty_step");
  if (ex.bug.marked.empty()) r.fail(P + ".fault", Text(Msg::ls_fault_changes_no_step, fid));
  if (std::find(ex.bug.marked.begin(), ex.bug.marked.end(), ex.bug.faulty_step) == ex.bug.marked.end()) {
    std::string list;
    for (const auto& m : ex.bug.marked) list += (list.empty() ? "" : ", ") + m;
    r.fail(P + ".faulty_step", Text(Msg::ls_fault_changes_not, fid, list, ex.bug.faulty_step));
  }
  const Step* a = clean.find(ex.bug.faulty_step);
  const Step* b = bad.find(ex.bug.faulty_step);
  if (a && b && same_values(a->tensor, b->tensor))
    r.fail(P + ".faulty_step", Text(Msg::ls_fault_leaves_unchanged, fid, ex.bug.faulty_step));
}

std::vector<int> read_rows(const Reader& r, const json& v, const std::string& field, int n) {
  const std::string s = r.text(v, field, 1000);
  const auto rows = read_mask_rows(s);
  if (rows.empty()) r.fail(field, Text(Msg::ls_expected_rows_like));
  const auto wrong_length = [&](const std::string& x) { return static_cast<int>(x.size()) != n; };
  if (static_cast<int>(rows.size()) != n || std::any_of(rows.begin(), rows.end(), wrong_length))
    r.fail(field, Text(Msg::ls_expected_rows_of_cells, n, n));
  std::vector<int> out;
  for (const auto& row : rows)
    for (char ch : row) out.push_back(ch - '0');
  return out;
}

std::vector<int> positions(const Reader& r, const json& rule, const char* key, const std::string& path, int n) {
  std::vector<int> out;
  const json* a = r.get(rule, key);
  if (!a) return out;
  const std::string f = path + "." + key;
  r.array(*a, f, 1, static_cast<size_t>(n));
  for (size_t i = 0; i < a->size(); ++i)
    out.push_back(static_cast<int>(r.integer((*a)[i], idx(f, i), r.first, n - 1 + r.first)) - r.first);
  return out;
}

// Reads one rule and returns the cells it fixes: (cell index, required value).
std::vector<std::pair<int, int>> read_rule(const Reader& r, const json& v, const std::string& P, int n,
                                           MaskRule& rule) {
  r.object(v, P);
  const std::string type = r.text(r.need(v, P, "type"), P + ".type", 20);
  std::vector<std::pair<int, int>> cells;
  auto all_or = [n](std::vector<int> x) {
    if (x.empty())
      for (int i = 0; i < n; ++i) x.push_back(i);
    return x;
  };
  if (type == "hide" || type == "show") {
    r.only(v, P, {"type", "rows", "cols"});
    rule.type = type == "hide" ? MaskRule::Type::Hide : MaskRule::Type::Show;
    rule.rows = positions(r, v, "rows", P, n);
    rule.cols = positions(r, v, "cols", P, n);
    if (rule.rows.empty() && rule.cols.empty()) r.fail(P, Text(Msg::ls_give_rows_cols));
    for (int i : all_or(rule.rows))
      for (int j : all_or(rule.cols)) cells.push_back({i * n + j, type == "show" ? 1 : 0});
  } else if (type == "causal" || type == "padding") {
    if (type == "causal") r.only(v, P, {"type"});
    else r.only(v, P, {"type", "length"});
    rule.type = type == "causal" ? MaskRule::Type::Causal : MaskRule::Type::Padding;
    if (type == "padding") rule.length = static_cast<int>(r.integer(r.need(v, P, "length"), P + ".length", 1, n - 1));
    // The engine's own masks decide which cells these rules hide.
    const bool causal = type == "causal";
    const Tensor m = make_mask(causal ? MaskKind::Causal : MaskKind::Padding, {causal ? n : rule.length}, n, n);
    for (int c = 0; c < n * n; ++c)
      if (m.data()[c] == 0.0f) cells.push_back({c, 0});
  } else if (type == "window") {
    r.only(v, P, {"type", "before", "after"});
    rule.type = MaskRule::Type::Window;
    rule.before = static_cast<int>(r.integer(r.need(v, P, "before"), P + ".before", 0, n - 1));
    rule.after = static_cast<int>(r.integer(r.need(v, P, "after"), P + ".after", 0, n - 1));
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        if (j < i - rule.before || j > i + rule.after) cells.push_back({i * n + j, 0});
  } else if (type == "self") {
    r.only(v, P, {"type"});
    rule.type = MaskRule::Type::Self;
    for (int i = 0; i < n; ++i) cells.push_back({i * n + i, 1});
  } else {
    r.fail(P + ".type", Text(Msg::ls_quoted_not_one_of, type, "hide, show, causal, padding, window, self"));
  }
  return cells;
}

void read_mask(const Reader& r, const json& v, Exercise& ex) {
  const std::string P = "fix_mask";
  r.object(v, P);
  r.only(v, P, {"size", "labels", "start", "target", "rules", "others"});
  FixMask& m = ex.mask;
  m.size = static_cast<int>(r.integer(r.need(v, P, "size"), P + ".size", 2, kMaxMaskSize));
  const int n = m.size;
  if (ex.has_setup) {
    const Batch b = setup_batch(ex.setup);
    if (b.text.seq() != n)
      r.fail(P + ".size", Text(Msg::ls_differs_from_sentence_length, n, b.text.seq()));
    m.labels = b.text.tokens[0];
  }
  if (const json* l = r.get(v, "labels")) {
    r.array(*l, P + ".labels", static_cast<size_t>(n), static_cast<size_t>(n));
    m.labels.clear();
    for (size_t i = 0; i < l->size(); ++i) m.labels.push_back(r.text((*l)[i], idx(P + ".labels", i), 40));
  }
  if (m.labels.empty())
    for (int i = 0; i < n; ++i) m.labels.push_back(std::to_string(i));  // positions, from 0
  if (const json* o = r.get(v, "others")) {
    const std::string s = r.text(*o, P + ".others", 20);
    if (s != "visible" && s != "free") r.fail(P + ".others", Text(Msg::ls_quoted_not_one_of, s, "visible, free"));
    m.others_free = s == "free";
  }
  std::vector<int> req(static_cast<size_t>(n * n), -1);  // fixed by a rule, or -1
  auto fix = [&](const std::vector<std::pair<int, int>>& cells, const std::string& field) {
    for (auto [c, val] : cells) {
      if (req[c] != -1 && req[c] != val)
        r.fail(field, Text(Msg::ls_contradicts_earlier_rule, c / n + r.first, c % n + r.first));
      req[c] = val;
    }
  };
  const json* target = r.get(v, "target");
  const json* rules = r.get(v, "rules");
  if (!target && !rules) r.fail(P + ".rules", Text(Msg::ls_missing_give_rules_target));
  if (target) {
    const auto t = read_rows(r, *target, P + ".target", n);
    std::vector<std::pair<int, int>> cells;
    for (int c = 0; c < n * n; ++c) cells.push_back({c, t[c]});
    fix(cells, P + ".target");
  }
  if (rules) {
    r.array(*rules, P + ".rules", 1, 20);
    for (size_t i = 0; i < rules->size(); ++i) {
      MaskRule rule;
      const std::string f = idx(P + ".rules", i);
      fix(read_rule(r, (*rules)[i], f, n, rule), f);
      m.rules.push_back(rule);
    }
  }
  for (auto& c : req)
    if (c == -1 && !m.others_free) c = 1;
  for (int i = 0; i < n; ++i)
    if (std::all_of(req.begin() + i * n, req.begin() + (i + 1) * n, [](int c) { return c == 0; }))
      r.fail(P + ".rules", Text(Msg::ls_row_hides_every_key, i + r.first));
  m.required = req;
  std::vector<int> start(static_cast<size_t>(n * n), 1);
  if (const json* s = r.get(v, "start")) start = read_rows(r, *s, P + ".start", n);
  bool solved = true;
  for (int c = 0; c < n * n; ++c) solved = solved && (req[c] == -1 || req[c] == start[c]);
  if (solved) r.fail(P + ".start", Text(Msg::ls_start_already_satisfies));
  m.start.clear();
  for (int c = 0; c < n * n; ++c) {
    if (c > 0 && c % n == 0) m.start += '/';
    m.start += char('0' + start[c]);
  }
}

}  // namespace

Exercise parse_exercise(std::string_view json_text, const std::string& file) {
  Reader r{file};
  json doc;
  try {
    doc = json::parse(json_text, nullptr, true, /*ignore_comments=*/true);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for a number that overflows
    std::string msg = e.what();
    const auto p = msg.find("] ");
    throw ExerciseError(file_prefix(file) +
                        Text(Msg::ls_invalid_json, p == std::string::npos ? msg : msg.substr(p + 2)));
  }
  if (!doc.is_object()) throw ExerciseError(file_prefix(file) + Text(Msg::ls_expected_one_json_object, type_name(doc)));
  r.only(doc, "", {"format", "id", "kind", "level", "title", "goal", "hints", "explanation", "setup",
                   "predict_shape", "find_bug", "fix_mask", "find_head"});
  r.first = 1;  // no format: the first format's positions
  if (const json* f = r.get(doc, "format")) {
    const std::string format = r.text(*f, "format", 100);
    if (format != "attnlab-exercise/1" && format != "attnlab-exercise/2")
      r.fail("format", Text(Msg::ls_format_not_exercise_1, format));
    r.first = format == "attnlab-exercise/2" ? 0 : 1;
  }
  Exercise ex;
  ex.file = file;
  ex.id = r.text(r.need(doc, "", "id"), "id", 64);
  for (char c : ex.id)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_'))
      r.fail("id", Text(Msg::ls_id_may_hold_only, ex.id));
  const std::string kind = r.text(r.need(doc, "", "kind"), "kind", 40);
  if (kind == "predict_shape") ex.kind = ExerciseKind::PredictShape;
  else if (kind == "find_bug") ex.kind = ExerciseKind::FindBug;
  else if (kind == "fix_mask") ex.kind = ExerciseKind::FixMask;
  else if (kind == "find_head") ex.kind = ExerciseKind::FindHead;
  else r.fail("kind", Text(Msg::ls_quoted_not_one_of, kind, "predict_shape, find_bug, fix_mask, find_head"));
  ex.level = static_cast<int>(r.integer(r.need(doc, "", "level"), "level", 1, 5));
  ex.title = r.local(r.need(doc, "", "title"), "title");
  ex.goal = r.local(r.need(doc, "", "goal"), "goal");
  ex.explanation = r.local(r.need(doc, "", "explanation"), "explanation");
  const json& hints = r.array(r.need(doc, "", "hints"), "hints", 1, kMaxHints);
  for (size_t i = 0; i < hints.size(); ++i) ex.hints.push_back(r.local(hints[i], idx("hints", i)));
  for (const char* k : {"predict_shape", "find_bug", "fix_mask", "find_head"}) {
    const bool mine = kind == k;
    if (mine && !r.get(doc, k)) r.fail(k, Text(Msg::ls_missing_kind_is, kind));
    if (!mine && r.get(doc, k)) r.fail(k, Text(Msg::ls_not_allowed_for_kind, kind));
  }
  const json* setup = r.get(doc, "setup");
  if (!setup && ex.kind != ExerciseKind::FixMask) r.fail("setup", Text(Msg::ls_missing));
  Trace trace;
  if (setup) {
    read_setup(r, *setup, ex.setup);
    ex.has_setup = true;
    run_setup(ex.setup, ex.setup.config, trace, false);
    for (const auto& s : trace.steps())
      ex.steps.push_back({s.info.id, s.info.title, s.tensor.shape(), s.tensor.strides(), s.tensor.is_contiguous(),
                          s.info.inputs()});
  }
  switch (ex.kind) {
    case ExerciseKind::PredictShape: read_predict(r, doc["predict_shape"], ex); break;
    case ExerciseKind::FindBug: read_bug(r, doc["find_bug"], ex); break;
    case ExerciseKind::FixMask: read_mask(r, doc["fix_mask"], ex); break;
    case ExerciseKind::FindHead: read_head(r, doc["find_head"], ex, trace); break;
  }
  return ex;
}

}  // namespace attnlab
