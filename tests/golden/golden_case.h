// One forward golden case of data/cases.json, built as the C++ model sees it: its configuration,
// its sentences as a batch, its weights (seeded, or read from the case's .safetensors, whose
// stored configuration must be the case's own). Shared by test_golden and test_grad_golden.
#pragma once

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "forward/model.h"
#include "io/weights_file.h"
#include "model/config.h"
#include "model/weights.h"

namespace attnlab::golden {

using json = nlohmann::json;

inline ModelConfig config_of(const json& c) {
  ModelConfig cfg;
  cfg.d_model = c.at("d_model").get<int64_t>();
  cfg.heads = c.at("heads").get<int64_t>();
  cfg.d_ff = c.at("d_ff").get<int64_t>();
  cfg.layers = c.at("layers").get<int64_t>();
  cfg.mask = parse_mask(c.at("mask").get<std::string>());
  cfg.norm = parse_norm(c.at("norm").get<std::string>());
  cfg.activation = parse_activation(c.at("activation").get<std::string>());
  cfg.positional = parse_positional(c.at("positional").get<std::string>());
  if (c.contains("max_positions")) cfg.max_positions = c.at("max_positions").get<int64_t>();
  if (c.contains("final_norm")) cfg.final_norm = c.at("final_norm").get<bool>();
  cfg.eps = c.at("eps").get<double>();
  cfg.seed = c.at("seed").get<uint64_t>();
  cfg.cross = c.at("cross_attention").get<bool>();
  return cfg;
}

inline std::vector<std::string> strings(const json& j) {
  std::vector<std::string> out;
  for (const auto& s : j) out.push_back(s.get<std::string>());
  return out;
}

inline bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// A JSON file of the golden folders; std::runtime_error naming it and the generator to run.
inline json load_json(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("cannot open " + path + " (run gen_golden.py / gen_grad_golden.py)");
  return json::parse(f);
}

inline std::string fmt(double v) {
  std::ostringstream o;
  o.precision(9);
  o << v;
  return o.str();
}

// The mismatches of one case: the first 25 in full, then a count.
struct Report {
  std::vector<std::string> errors;
  int64_t more = 0;  // errors beyond the ones kept
  void fail(std::string msg) {
    if (errors.size() < 25) errors.push_back(std::move(msg));
    else ++more;
  }
  std::string text() const {
    std::string out;
    for (const auto& e : errors) out += "\n  " + e;
    if (more) out += "\n  … and " + std::to_string(more) + " more";
    return out;
  }
};

// The largest differences of a case over finite elements, and where they are.
struct Worst {
  double abs = 0;      // largest |c − ref|
  std::string abs_at;  // id [element]
  double ratio = 0;    // largest |c − ref| / (atol + rtol·|ref|)
  std::string ratio_at;
};

struct Setup {
  ModelConfig cfg;
  Batch batch;
  Weights weights;
};

// `c` is a case of data/cases.json; data_dir holds its weights file. Throws std::runtime_error
// when a weights file's stored configuration differs from the case's.
inline Setup setup_of(const json& c, const std::string& data_dir) {
  Setup s;
  s.cfg = config_of(c.at("config"));
  s.cfg.validate();
  s.batch = make_batch(strings(c.at("texts")), strings(c.value("memory_texts", json::array())));
  const std::string source = c.at("weights").get<std::string>();
  if (source == "seeded") {
    s.weights = init_weights(s.cfg);
    return s;
  }
  // The file's metadata decides; the case's own config (mask and cross included, which the file
  // does not store) plays the command line, with no option given explicitly.
  LoadedWeights lw = load_weights_file(data_dir + source, s.cfg, {});
  const ModelConfig& f = lw.cfg;
  if (f.d_model != s.cfg.d_model || f.heads != s.cfg.heads || f.d_ff != s.cfg.d_ff || f.layers != s.cfg.layers ||
      f.norm != s.cfg.norm || f.activation != s.cfg.activation || f.positional != s.cfg.positional ||
      f.eps != s.cfg.eps || f.seed != s.cfg.seed || f.cross != s.cfg.cross || f.mask != s.cfg.mask ||
      f.final_norm != s.cfg.final_norm)
    throw std::runtime_error(source + ": its stored configuration differs from the case's");
  s.cfg = lw.cfg;
  s.weights = std::move(lw.weights);
  return s;
}

}  // namespace attnlab::golden
