#include "io/bundle.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "forward/attention.h"
#include "io/files.h"
#include "io/npz.h"
#include "io/weights_file.h"
#include "reproduce_py.h"  // generated: core/io/reproduce/reproduce.py as a string
#include "tensor/eigen_types.h"
#include "text/errors.h"
#include "variants/variants.h"

namespace attnlab {

namespace fs = std::filesystem;
using json = nlohmann::json;

fs::path output_path(const std::string& dir) {
  fs::path p = fs::absolute(dir).lexically_normal();
  if (!p.has_filename() && p.has_parent_path()) p = p.parent_path();  // "run1/" → "run1"
  return p;
}

namespace {

// "--out: '<dir>' <why>": one line, the name escaped. `id` is a whole "--out: '%1' …" message,
// %1 the folder and its other arguments `more`.
template <typename... A>
[[noreturn]] void refuse_out(Msg id, const std::string& dir, A&&... more) {
  throw ConfigError(Text(id, printable_name(dir), std::forward<A>(more)...));
}

bool is_same_or_ancestor(const fs::path& p, const fs::path& of) {
  auto a = p.begin(), b = of.begin();
  for (; a != p.end(); ++a, ++b)
    if (b == of.end() || *a != *b) return false;
  return true;
}

}  // namespace

void check_output_dir(const std::string& dir, bool force) {
  if (dir.empty()) throw ConfigError(Text(Msg::io_out_folder_name_required));
  const fs::path target = output_path(dir);
  if (target == target.root_path()) refuse_out(Msg::io_out_root_folder, dir);
  std::error_code ec;
  if (is_same_or_ancestor(target, fs::current_path(ec)))
    refuse_out(Msg::io_out_current_folder, dir);
  if (target.filename().string().size() > max_output_name_bytes())
    refuse_out(Msg::io_out_name_too_long, dir, target.filename().string().size(), max_output_name_bytes());
  const auto link = fs::symlink_status(target, ec);
  if (fs::is_symlink(link))
    refuse_out(Msg::io_out_symbolic_link, dir);
  if (!fs::exists(link)) return;
  if (!fs::is_directory(link)) refuse_out(Msg::io_out_not_folder, dir);
  if (fs::is_empty(target, ec) && !ec) return;
  if (!force) refuse_out(Msg::io_out_not_empty, dir);
  if (!is_bundle_folder(target.string()))
    refuse_out(Msg::out_not_attention_lab_bundle_no_manifest, dir);
}

namespace {

// The logit lens's tokens spelled out: tokens[b][l][s] the K most likely at layer l (0: the
// embeddings) and position s, most likely first (ids (B, L+1, S, K) from explain.logit_lens_ids).
json lens_json(const Tensor& ids, const std::vector<std::string>& words) {
  json tokens = json::array();
  for (int64_t b = 0; b < ids.size(0); ++b) {
    json layers = json::array();
    for (int64_t l = 0; l < ids.size(1); ++l) {
      json positions = json::array();
      for (int64_t s = 0; s < ids.size(2); ++s) {
        json top = json::array();
        for (int64_t k = 0; k < ids.size(3); ++k) top.push_back(words.at(static_cast<size_t>(ids.at({b, l, s, k}))));
        positions.push_back(std::move(top));
      }
      layers.push_back(std::move(positions));
    }
    tokens.push_back(std::move(layers));
  }
  return {{"k", ids.size(3)}, {"residuals", explain::lens_residual_ids(ids.size(1) - 1)}, {"tokens", std::move(tokens)}};
}

json step_json(const Step& s) {
  json vars = json::object(), weights = json::object();
  for (const auto& b : s.info.bindings) (b.weight ? weights : vars)[b.var] = b.source;
  json j = {{"id", s.info.id},           {"title", s.info.title.english()},
            {"formula", s.info.formula.english()}, {"code", s.info.code},
            {"inputs", s.info.inputs()}, {"shape", s.tensor.shape()},
            {"strides", s.tensor.strides()}, {"contiguous", s.tensor.is_contiguous()},
            {"result", s.info.result},   {"vars", vars},
            {"weights", weights},        {"kind", s.info.is_data ? "data" : "op"}};
  if (!s.info.fault.empty()) j["fault"] = s.info.fault;  // only on the steps an injected fault changed
  return j;
}

void write_file(const fs::path& p, const std::string& bytes) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  if (!f) {
    const int err = errno;
    throw DataError(Text(Msg::io_cannot_create, p.string()) + verbatim(std::strerror(err)));
  }
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  f.close();
  if (!f) throw DataError(Text(Msg::io_cannot_write_disk_full, p.string()));
}

std::string csv_field(const std::string& s) {
  std::string out = "\"";
  for (char c : s) out += (c == '"') ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// Every attention-weights step: {block id, query tokens, key tokens}.
void write_heatmaps(const fs::path& dir, const Batch& batch, const Trace& trace) {
  fs::create_directory(dir / "heatmaps");
  for (const auto& s : trace.steps()) {
    const std::string& id = s.info.id;
    const int64_t kept = kept_head(id);  // a head of a tiled layer kept whole: (B, 1, Tq, Tk)
    if (!id.ends_with(".weights") && kept < 0) continue;
    const std::string block = id.substr(0, id.rfind('.'));
    for (int64_t b = 0; b < s.tensor.size(0); ++b) {
      const AxisTokens tok = attention_tokens(batch, id, b);
      for (int64_t h = 0; h < s.tensor.size(1); ++h)
        write_file(dir / "heatmaps" / (block + ".b" + std::to_string(b) + ".head" + std::to_string(kept >= 0 ? kept : h) + ".csv"),
                   heatmap_csv(s.tensor, b, h, tok.query, tok.key));
    }
  }
}

}  // namespace

std::string heatmap_csv(const Tensor& w, int64_t b, int64_t h, const std::vector<std::string>& q_tokens,
                        const std::vector<std::string>& k_tokens) {
  std::string out = csv_field("");
  for (const auto& k : k_tokens) {
    out += ',';
    out += csv_field(k);
  }
  out += "\r\n";
  char buf[32];
  for (int64_t i = 0; i < w.size(2); ++i) {
    out += csv_field(q_tokens[static_cast<size_t>(i)]);
    for (int64_t j = 0; j < w.size(3); ++j) {
      // to_chars, not printf: a '.' whatever LC_NUMERIC says (a QGuiApplication sets it from the
      // environment), and the shortest text that reads back as the same float
      const auto r = std::to_chars(buf, buf + sizeof buf, w.at({b, h, i, j}));
      out += ',';
      out.append(buf, r.ptr);
    }
    out += "\r\n";
  }
  return out;
}

std::string ablation_json(const std::vector<explain::HeadRef>& heads, explain::AblateMode mode) {
  json list = json::array();
  for (const auto& h : heads) {  // [layer, head], a decoder head's block third: [1, 3, "cross"]
    json e = {h.layer, h.head};
    if (h.block != explain::HeadBlock::Encoder) e.push_back(explain::block_name(h.block));
    list.push_back(std::move(e));
  }
  return json{{"heads", std::move(list)}, {"mode", explain::ablate_mode_name(mode)}}.dump();
}

json manifest_json(const ModelConfig& cfg, const Batch& batch, const Trace& trace, const RunInfo& run,
                   double export_ms) {
  json m;
  m["format"] = "attnlab-trace";
  m["version"] = 1;
  m["config"] = {{"d_model", cfg.d_model},   {"heads", cfg.heads},
                 {"d_ff", cfg.d_ff},         {"layers", cfg.layers},
                 {"mask", mask_name(cfg.mask)}, {"norm", norm_name(cfg.norm)},
                 {"activation", activation_name(cfg.activation)}, {"positional", positional_name(cfg.positional)},
                 {"eps", cfg.eps},           {"seed", cfg.seed},
                 {"cross_attention", cfg.cross}};
  if (cfg.positional == Positional::Learned) m["config"]["max_positions"] = cfg.max_positions;
  if (cfg.final_norm) m["config"]["final_norm"] = true;
  if (cfg.token_types > 0) m["config"]["token_types"] = cfg.token_types;  // BERT's parts (docs/cli.md)
  if (cfg.embedding_norm) m["config"]["embedding_norm"] = true;
  if (cfg.head_transform) m["config"]["head_transform"] = true;
  if (!cfg.faults.empty()) {  // absent on the correct model, so its manifest is unchanged
    json ids = json::array();
    for (Fault f : cfg.faults) ids.push_back(fault_info(f).id);
    m["config"]["faults"] = std::move(ids);
  }
  if (cfg.variant.on()) m["config"]["variant"] = variant_config_json(cfg.variant);
  if (!cfg.ffn) m["config"]["ffn"] = "none";  // attention-only layers; absent: the feed-forward sub-layer is there
  if (cfg.traces_overview()) m["config"]["overview_cap"] = cfg.overview_cap;  // absent on the full path
  if (cfg.traces_overview() && !cfg.full_layers.empty()) m["config"]["full_layers"] = cfg.full_layers;  // traced in full
  if (cfg.traces_overview() && !cfg.full_heads.empty()) m["config"]["full_heads"] = full_heads_json(cfg.full_heads);
  m["tokens"] = batch.text.tokens;
  if (batch.cross()) m["memory_tokens"] = batch.memory.tokens;
  m["vocabulary"] = batch.vocab.words;
  m["backend"] = run.backend;
  if (!run.note.empty()) m["backend_note"] = run.note;
  m["device"] = run.device;
  json steps = json::array();
  for (const auto& s : trace.steps()) steps.push_back(step_json(s));
  m["steps"] = std::move(steps);
  m["timings_ms"] = {{"forward", run.forward_ms}, {"export", export_ms}};
  return m;
}

json full_heads_json(const std::vector<ModelConfig::LayerHead>& heads) {
  json out = json::array();
  for (const auto& h : heads) out.push_back({h.layer, h.head});
  return out;
}

json variant_config_json(const VariantConfig& v) {
  json j = {{"kind", variant_name(v.kind)}, {"layer", v.layer}};
  for (const auto& p : variant_params(v.kind)) j[p.name] = v.*p.field;
  return j;
}

json variant_json(const ModelConfig& cfg, const Trace& trace) {
  const auto s = summarize_variant(cfg.variant, trace, cfg.d_model);
  if (!s) return nullptr;
  const auto pair = [](double v, double r) { return json{{"variant", v}, {"reference", r}, {"ratio", r > 0 ? v / r : 0.0}}; };
  json j = {{"kind", variant_name(s->kind)},
            {"block", "encoder.layers." + std::to_string(cfg.variant.layer) + ".self_attn"},
            {"steps", s->prefix},
            {"reference", s->kind == VariantKind::KvCache ? "decoding without a cache" : "full attention"},
            {"flops", pair(s->cost.flops, s->reference_cost.flops)},
            {"bytes", pair(s->cost.bytes, s->reference_cost.bytes)},
            {"max_abs_error", s->max_abs},
            {"rel_error", s->rel_error},
            {"counted_queries", s->counted_queries}};
  if (s->agreement >= 0) j["agreement"] = s->agreement;
  return j;
}

json model_json(const TrainedVocab& vocab, const Batch& batch, const Trace& trace) {
  json m = {{"title", vocab.field("title")}, {"task", task_name(vocab.task)}, {"vocab_size", vocab.size()}};
  const TokenBatch& tb = batch.text;  // the stack the output head reads: the decoder's in cross mode
  // per sentence, the positions of the tokens the model reads as [UNK]
  const auto unknown = [&vocab](const TokenBatch& sentences) {
    json out = json::array();
    for (const auto& row : sentences.tokens) {
      json positions = json::array();
      for (size_t i = 0; i < row.size(); ++i)
        if (vocab.reads_as_unknown(row[i])) positions.push_back(i);
      out.push_back(std::move(positions));
    }
    return out;
  };
  m["unknown_positions"] = unknown(tb);
  if (batch.cross()) m["unknown_memory_positions"] = unknown(batch.memory);  // the source, same vocabulary
  const std::string probs_id = std::string(batch.cross() ? "decoder" : "encoder") + ".output_head.probs";
  const Step* probs = trace.find(probs_id);
  if (!probs) return m;
  json preds = json::array();
  for (const auto& sentence : top_predictions(probs->tensor, vocab, tb.lengths, 5)) {
    json rows = json::array();
    for (const auto& cell : sentence) {
      json top = json::array();
      for (const auto& p : cell) top.push_back({{"token", p.token}, {"id", p.id}, {"prob", p.prob}});
      rows.push_back(std::move(top));
    }
    preds.push_back(std::move(rows));
  }
  m["predictions"] = std::move(preds);
  return m;
}

void write_bundle(const ExportOptions& opt, const ModelConfig& cfg, const Batch& batch, const Weights& w,
                  const Trace& trace, const RunInfo& run) {
  const auto t0 = std::chrono::steady_clock::now();
  check_output_dir(opt.out_dir, opt.force);
  const fs::path target = output_path(opt.out_dir);
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  sweep_dead_temporaries(target.parent_path());
  TempDir tmp_dir(target, ".tmp-");  // removed on any throw below, and on SIGINT/SIGTERM
  const fs::path& tmp = tmp_dir.path();
  write_file(tmp / "weights.safetensors", serialize_weights(cfg, w));
  if (opt.npz) {
    std::vector<std::pair<std::string, Tensor>> arrays;
    for (const auto& s : trace.steps()) arrays.push_back({s.info.id, s.tensor});
    if (opt.backward) {
      for (const auto& s : opt.backward->steps.steps()) arrays.push_back({s.info.id, s.tensor});
      if (opt.backward->target.defined()) arrays.push_back({"loss/target", opt.backward->target});
    }
    if (opt.explanations)
      for (const auto& s : opt.explanations->steps.steps()) arrays.push_back({s.info.id, s.tensor});
    write_npz((tmp / "trace.npz").string(), arrays);
    // The bundle checks itself with PyTorch: python3 reproduce.py (docs/cli.md).
    write_file(tmp / "reproduce.py", kReproducePy);
    fs::permissions(tmp / "reproduce.py", fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                    fs::perm_options::add, ec);
  }
  if (opt.csv) write_heatmaps(tmp, batch, trace);
  if (opt.extra) opt.extra(tmp.string());
  const double export_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  json manifest = manifest_json(cfg, batch, trace, run, export_ms);
  if (opt.prepend_bos) manifest["config"]["prepend_bos"] = true;  // absent: the texts as typed
  if (w.vocab()) manifest["model"] = model_json(*w.vocab(), batch, trace);
  if (json v = variant_json(cfg, trace); !v.is_null()) manifest["variant"] = std::move(v);
  if (opt.backward) {
    const BackwardResult& b = *opt.backward;
    manifest["loss"] = {{"kind", loss_name(b.kind)}, {"value", b.loss}, {"input", b.output}};
    if (b.kind == LossKind::NextToken && w.vocab() && w.vocab()->pretrained)  // padding by length (a real [PAD] row)
      manifest["loss"]["lengths"] = batch.text.lengths;
    json steps = json::array();
    for (const auto& s : b.steps.steps()) steps.push_back(step_json(s));
    manifest["gradient_steps"] = std::move(steps);
    manifest["timings_ms"]["backward"] = opt.backward_ms;
  }
  if (opt.explanations) {
    json steps = json::array();
    for (const auto& s : opt.explanations->steps.steps()) steps.push_back(step_json(s));
    manifest["explanation_steps"] = std::move(steps);
    if (const Explanations& e = *opt.explanations; !e.spearman.empty()) {
      json rho = json::object();
      for (const auto& [name, values] : e.spearman) {
        json per = json::array();
        for (double v : values) per.push_back(std::isfinite(v) ? json(v) : json(nullptr));  // too few keys: null
        rho[name] = std::move(per);
      }
      manifest["explanation_scores"] = {{"query", e.query}, {"effect", e.logprob ? "logprob" : "output"}, {"spearman", std::move(rho)}};
    }
    if (const Step* ids = opt.explanations->steps.find("explain.logit_lens_ids"))
      manifest["logit_lens"] = lens_json(ids->tensor, batch.vocab.words);
    if (const Explanations& e = *opt.explanations; !e.heads.empty()) {
      json rows = json::array();
      for (const auto& h : e.heads) {
        json row = {{"layer", h.head.layer}, {"head", h.head.head}, {"loss", h.loss}, {"delta", h.delta}};
        if (cfg.cross) row["block"] = explain::block_name(h.head.block);  // encoder, decoder or cross
        rows.push_back(std::move(row));
      }
      manifest["head_ablation"] = {{"mode", explain::ablate_mode_name(e.heads_mode)},
                                   {"loss", e.loss}, {"heads", std::move(rows)}};
    }
    manifest["timings_ms"]["explain"] = opt.explain_ms;
  }
  if (!opt.ablation_json.empty()) manifest["ablation"] = json::parse(opt.ablation_json);
  if (!opt.generation_json.empty()) {
    manifest["generation"] = json::parse(opt.generation_json);
    manifest["timings_ms"]["generate"] = opt.generate_ms;
  }
  write_file(tmp / "manifest.json", manifest.dump(1) + "\n");  // last: a folder with a manifest is whole
  // An earlier bundle is swapped out only with --force (checked again after the swap).
  move_folder_into_place(tmp_dir, target, opt.force ? std::function<bool(const std::string&)>(is_bundle_folder) : nullptr,
                         Msg::out_changed_while_export_ran_no_longer);
}

}  // namespace attnlab
