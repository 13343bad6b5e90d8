#include "training/resume.h"

#include <nlohmann/json.hpp>

#include <filesystem>

#include "io/files.h"
#include "io/safetensors.h"
#include "io/weights_file.h"
#include "model/faults.h"
#include "text/errors.h"
#include "training/json_reader.h"
#include "training/run_record.h"

namespace attnlab {

namespace {

using json = nlohmann::json;
using ojson = nlohmann::ordered_json;

constexpr const char* kResumeFormat = "attnlab-training-resume/1";
constexpr const char* kField = "training_resume";  // the metadata key
constexpr uint64_t kMaxResumeBytes = 3 * kMaxWeightsFileBytes;

bool is_optimizer_state(const std::string& name) {
  return name.starts_with("exp_avg/") || name.starts_with("exp_avg_sq/") || name.starts_with("momentum_buffer/");
}

ojson setup_json(const ResumePoint& r) {
  const TrainSetup& s = r.setup;
  const OptimizerConfig& o = s.opt;
  ojson faults = ojson::array();
  for (Fault f : s.model.faults) faults.push_back(std::string(fault_info(f).id));
  ojson j{{"format", kResumeFormat},
          {"task", std::string(train_task_name(s.task))},
          {"seed", s.seed},
          {"steps", s.steps},
          {"steps_done", r.steps_done},
          {"batch", s.batch},
          {"eval_count", s.eval_count},
          {"optimizer", {{"kind", std::string(optimizer_name(o.kind))}, {"lr", o.lr}, {"beta1", o.beta1},
                         {"beta2", o.beta2}, {"eps", o.eps}, {"momentum", o.momentum},
                         {"weight_decay", o.weight_decay}, {"clip", o.clip}, {"warmup", o.warmup},
                         {"floor", o.floor}}},
          {"faults", faults},
          {"overview_cap", s.model.overview_cap}};
  if (s.task == TrainTask::Text)
    j["text"] = {{"vocab_size", r.text_vocab_size}, {"max_len", r.text_max_len}, {"fingerprint", r.text_fingerprint}};
  return j;
}

// The "training_resume" JSON into r (the model's sizes come from the weights, read first).
void read_resume_setup(const std::string& text, const std::string& origin, ResumePoint& r) {
  const JsonReader rd{origin};
  const std::string field = kField;
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    throw DataError(Text(Msg::io_name_colon, origin) + Text(Msg::field_prefix, field) + Text(Msg::ls_invalid_json, std::string(e.what())));
  }
  rd.want(j, field, j.is_object(), Msg::ls_json_object);
  const std::string& format = rd.string(j, "format", field);
  if (format != kResumeFormat) rd.fail(field + ".format", Text(Msg::ls_expected_found, std::string(kResumeFormat), verbatim(format)));
  TrainSetup& s = r.setup;
  try {
    s.task = parse_train_task(rd.string(j, "task", field));
  } catch (const ConfigError& e) {
    rd.fail(field + ".task", e.text());
  }
  s.seed = rd.unsigned_whole(j, "seed", field);
  s.steps = rd.whole(j, "steps", field);
  r.steps_done = rd.whole(j, "steps_done", field);
  s.batch = rd.whole(j, "batch", field);
  s.eval_count = rd.whole(j, "eval_count", field);
  if (s.batch < 1) rd.fail(field + ".batch", Text(Msg::tr_bad_counts));
  if (s.eval_count < 1) rd.fail(field + ".eval_count", Text(Msg::tr_bad_counts));
  if (r.steps_done > s.steps) rd.fail(field + ".steps_done", Text(Msg::tr_bad_counts));
  const std::string of = field + ".optimizer";
  const json& o = rd.object(j, "optimizer", field);
  try {
    s.opt.kind = parse_optimizer(rd.string(o, "kind", of));
  } catch (const ConfigError& e) {
    rd.fail(of + ".kind", e.text());
  }
  s.opt.lr = rd.number(o, "lr", of), s.opt.beta1 = rd.number(o, "beta1", of), s.opt.beta2 = rd.number(o, "beta2", of);
  s.opt.eps = rd.number(o, "eps", of), s.opt.momentum = rd.number(o, "momentum", of);
  s.opt.weight_decay = rd.number(o, "weight_decay", of), s.opt.clip = rd.number(o, "clip", of);
  s.opt.warmup = rd.whole(o, "warmup", of), s.opt.floor = rd.number(o, "floor", of);
  const json& faults = rd.array(j, "faults", field);
  for (size_t i = 0; i < faults.size(); ++i) {
    const std::string ff = field + ".faults[" + std::to_string(i) + "]";
    rd.want(faults[i], ff, faults[i].is_string(), Msg::ls_json_string);
    try {
      s.model.faults.insert(parse_fault(faults[i].get<std::string>()));
    } catch (const ConfigError& e) {
      rd.fail(ff, e.text());
    }
  }
  s.model.overview_cap = rd.whole(j, "overview_cap", field);
  if (s.task == TrainTask::Text) {
    const json& t = rd.object(j, "text", field);
    r.text_vocab_size = rd.whole(t, "vocab_size", field + ".text");
    r.text_max_len = rd.whole(t, "max_len", field + ".text");
    r.text_fingerprint = rd.string(t, "fingerprint", field + ".text");
  }
}

}  // namespace

std::string serialize_resume(const ResumePoint& r) {
  std::vector<std::pair<std::string, Tensor>> tensors;
  for (const auto& name : r.weights.names()) tensors.emplace_back(name, r.weights.get(name));
  for (const auto& entry : r.optimizer) tensors.push_back(entry);
  auto meta = weights_file_metadata(r.setup.model, r.weights);
  meta[kField] = setup_json(r).dump();
  return serialize_safetensors(tensors, meta);
}

ResumePoint parse_resume(const std::string& bytes, const std::string& origin) {
  SafetensorsFile all = parse_safetensors(bytes);
  const auto field = all.metadata.find(kField);
  if (field == all.metadata.end()) throw DataError(Text(Msg::io_name_colon, origin) + Text(Msg::metadata_field_missing, kField));
  ResumePoint r;
  read_resume_setup(field->second, origin, r);
  // The parameters are a weights file's (checked as one); the rest is the optimiser's.
  SafetensorsFile params;
  params.metadata = all.metadata;
  params.metadata.erase(kField);
  for (auto& entry : all.tensors)
    (is_optimizer_state(entry.first) ? r.optimizer : params.tensors).push_back(std::move(entry));
  LoadedWeights lw = load_weights(params, origin, ModelConfig{}, {});
  if (!lw.weights.vocab()) throw DataError(Text(Msg::io_name_colon, origin) + Text(Msg::metadata_field_missing, "vocab"));
  lw.cfg.faults = r.setup.model.faults;
  lw.cfg.overview_cap = r.setup.model.overview_cap;
  r.setup.model = lw.cfg;
  r.weights = std::move(lw.weights);
  return r;
}

ResumePoint read_resume_file(const std::string& path) {
  return parse_resume(read_regular_file(path, kMaxResumeBytes, Msg::io_name_colon), printable_name(path));
}

ResumePoint read_run_resume(const std::string& dir) {
  const RunRecord rec = read_run_record(dir);
  if (rec.resume.empty()) throw DataError(Text(Msg::tr_resume_none, printable_name(dir)));
  const std::string path = (std::filesystem::path(dir) / rec.resume).string();
  ResumePoint r = read_resume_file(path);
  if (r.steps_done != rec.steps_done)
    throw DataError(Text(Msg::tr_resume_step_differs, printable_name(path), r.steps_done, rec.steps_done));
  return r;
}

}  // namespace attnlab
