#include "training/run_record.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>

#include "io/files.h"
#include "training/json_reader.h"
#include "text/errors.h"

namespace attnlab {

namespace {

using ojson = nlohmann::ordered_json;
using json = nlohmann::json;

constexpr uint64_t kMaxRunJsonBytes = 64ull << 20;
constexpr const char* kRunFormat = "attnlab-training-run/1";

ojson heads_json(const Evaluation& e) {
  ojson layers = ojson::array();
  for (const auto& layer : e.heads) {
    ojson hs = ojson::array();
    for (const HeadScore& h : layer) {
      ojson j{{"previous", h.previous}, {"self", h.self}, {"entropy", h.entropy}};
      if (h.induction) j["induction"] = *h.induction;
      hs.push_back(j);
    }
    layers.push_back(hs);
  }
  return layers;
}

ojson point_json(const CurvePoint& p, double seconds) {
  const Evaluation& e = p.eval;
  ojson j{{"step", p.step},         {"loss", p.loss},
          {"lr", p.lr},             {"grad_norm", p.grad_norm},
          {"held_out_loss", e.loss}, {"accuracy", e.accuracy},
          {"sequence_accuracy", e.sequence_accuracy}, {"heads", heads_json(e)}};
  if (!e.heads.empty()) j["best_previous"] = e.best_previous();
  if (e.has_induction()) j["best_induction"] = e.best_induction();
  if (seconds >= 0) j["seconds"] = seconds;
  return j;
}

CurvePoint parse_point(const JsonReader& r, const json& p, const std::string& field) {
  r.want(p, field, p.is_object(), Msg::ls_json_object);
  CurvePoint c;
  c.step = r.whole(p, "step", field);
  c.loss = r.number(p, "loss", field);
  c.lr = r.number(p, "lr", field);
  if (p.contains("grad_norm")) c.grad_norm = r.number(p, "grad_norm", field);
  c.eval.step = c.step;
  c.eval.loss = r.number(p, "held_out_loss", field);
  c.eval.accuracy = r.number(p, "accuracy", field);
  c.eval.sequence_accuracy = r.number(p, "sequence_accuracy", field);
  const json& layers = r.array(p, "heads", field);
  for (size_t l = 0; l < layers.size(); ++l) {
    const std::string lf = field + ".heads[" + std::to_string(l) + "]";
    r.want(layers[l], lf, layers[l].is_array() && !layers[l].empty(), Msg::ls_json_array);
    std::vector<HeadScore> hs;
    for (size_t h = 0; h < layers[l].size(); ++h) {
      const std::string hf = lf + "[" + std::to_string(h) + "]";
      const json& o = r.want(layers[l][h], hf, layers[l][h].is_object(), Msg::ls_json_object);
      HeadScore s;
      s.previous = r.number(o, "previous", hf);
      s.self = r.number(o, "self", hf);
      s.entropy = r.number(o, "entropy", hf);
      if (o.contains("induction")) s.induction = r.number(o, "induction", hf);
      hs.push_back(s);
    }
    // Every layer has the first one's heads, each with an induction score or none.
    if (!c.eval.heads.empty() && (hs.size() != c.eval.heads[0].size() || hs[0].induction.has_value() != c.eval.heads[0][0].induction.has_value()))
      r.fail(lf, Text(Msg::ls_expected_found, Text(Msg::ls_json_array), Text(Msg::ls_json_array)));
    c.eval.heads.push_back(std::move(hs));
  }
  return c;
}

bool plain_snapshot_name(const std::string& name) {
  if (name.size() != 25 || !name.starts_with("step-") || !name.ends_with(".safetensors")) return false;
  for (size_t i = 5; i < 13; ++i)
    if (name[i] < '0' || name[i] > '9') return false;
  return true;
}

}  // namespace

std::string resume_file_name(int64_t step) {
  char name[48];
  std::snprintf(name, sizeof name, "resume-%08lld.safetensors", static_cast<long long>(step));
  return name;
}

std::string curve_point_json(const CurvePoint& p, double seconds) { return point_json(p, seconds).dump(); }

RunRecord run_record_of(const TrainSetup& s) {
  RunRecord r;
  r.task = s.task, r.seed = s.seed, r.steps = s.steps, r.batch = s.batch;
  return r;
}

std::string run_record_json(const RunRecord& r, const TrainSetup& s) {
  ojson curves = ojson::array(), snaps = ojson::array();
  for (const CurvePoint& p : r.curves) curves.push_back(point_json(p, -1));
  for (const auto& [step, file] : r.snapshots) snaps.push_back({{"step", step}, {"file", file}});
  ojson run{{"format", kRunFormat},
                  {"task", std::string(train_task_name(r.task))},
                  {"seed", r.seed},
                  {"steps", r.steps},
                  {"steps_done", r.steps_done},
                  {"batch", r.batch},
                  {"optimizer", {{"kind", std::string(optimizer_name(s.opt.kind))}, {"lr", s.opt.lr},
                                 {"warmup", s.opt.warmup}, {"weight_decay", s.opt.weight_decay},
                                 {"clip", s.opt.clip}, {"momentum", s.opt.momentum}}},
                  {"phase_change_step", r.phase_change >= 0 ? ojson(r.phase_change) : ojson(nullptr)},
                  {"curves", curves},
                  {"snapshots", snaps}};
  if (!r.resume.empty()) run["resume"] = r.resume;
  return run.dump(1) + "\n";
}

RunRecord parse_run_record(const std::string& text, const std::string& origin) {
  const JsonReader r{origin};
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    throw DataError(Text(Msg::io_name_colon, origin) + Text(Msg::ls_invalid_json, std::string(e.what())));
  }
  r.want(j, "", j.is_object(), Msg::ls_json_object);
  const json& format = r.at(j, "format", "format");
  if (!format.is_string() || format.get<std::string>() != kRunFormat)
    r.fail("format", Text(Msg::ls_expected_found, std::string(kRunFormat), format.is_string() ? verbatim(format.get<std::string>()) : JsonReader::kind(format)));
  RunRecord rec;
  const json& task = r.at(j, "task", "task");
  r.want(task, "task", task.is_string(), Msg::ls_json_string);
  try {
    rec.task = parse_train_task(task.get<std::string>());
  } catch (const ConfigError& e) {
    r.fail("task", e.text());
  }
  rec.seed = r.unsigned_whole(j, "seed", "");
  rec.steps = r.whole(j, "steps", "");
  rec.steps_done = r.whole(j, "steps_done", "");
  rec.batch = r.whole(j, "batch", "");
  const json& phase = r.at(j, "phase_change_step", "phase_change_step");
  rec.phase_change = phase.is_null() ? -1 : r.whole(j, "phase_change_step", "");
  const json& curves = r.array(j, "curves", "");
  for (size_t i = 0; i < curves.size(); ++i) {
    rec.curves.push_back(parse_point(r, curves[i], "curves[" + std::to_string(i) + "]"));
    if (i > 0 && rec.curves[i].step <= rec.curves[i - 1].step) r.fail("curves[" + std::to_string(i) + "].step", Text(Msg::should_whole_number));
  }
  const json& snaps = r.array(j, "snapshots", "");
  for (size_t i = 0; i < snaps.size(); ++i) {
    const std::string f = "snapshots[" + std::to_string(i) + "]";
    r.want(snaps[i], f, snaps[i].is_object(), Msg::ls_json_object);
    const int64_t step = r.whole(snaps[i], "step", f);
    const json& file = r.at(snaps[i], "file", f + ".file");
    r.want(file, f + ".file", file.is_string(), Msg::ls_json_string);
    if (!plain_snapshot_name(file.get<std::string>()))
      r.fail(f + ".file", Text(Msg::ls_expected_found, std::string("step-NNNNNNNN.safetensors"), verbatim(file.get<std::string>())));
    if (!rec.snapshots.empty() && step <= rec.snapshots.back().first) r.fail(f + ".step", Text(Msg::should_whole_number));
    rec.snapshots.emplace_back(step, file.get<std::string>());
  }
  if (rec.snapshots.empty()) r.fail("snapshots", Text(Msg::ls_expected_found, Text(Msg::ls_json_array), Text(Msg::ls_json_null)));
  if (j.contains("resume")) {
    const std::string& file = r.string(j, "resume", "");
    if (file != resume_file_name(rec.steps_done))
      r.fail("resume", Text(Msg::ls_expected_found, resume_file_name(rec.steps_done), verbatim(file)));
    rec.resume = file;
  }
  return rec;
}

RunRecord read_run_record(const std::string& dir) {
  const std::string path = (std::filesystem::path(dir) / "run.json").string();
  return parse_run_record(read_regular_file(path, kMaxRunJsonBytes, Msg::io_name_colon), printable_name(path));
}

}  // namespace attnlab
