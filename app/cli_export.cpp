// attnlab export: compute every step for the given sentences and write the bundle. PNG and SVG
// heatmaps are drawn by the GUI's renderer (ui/heatmaprender) on Qt's offscreen platform: no
// display is needed, and a QGuiApplication is made only when they are asked for.
#ifdef ATTNLAB_HAVE_UI
#include <QGuiApplication>
#endif

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>

#include "cli_common.h"
#include "io/bundle.h"
#include "text/errors.h"
#ifdef ATTNLAB_HAVE_UI
#include "export/exporter.h"
#endif
#include "explain/explain.h"
#include "explain/head_ablation.h"
#include "forward/memory.h"
#include "forward/model.h"
#include "forward/overflow.h"
#include "io/files.h"
#include "io/npz.h"
#include "io/weights_file.h"
#include "pretrained/generate.h"
#include "pretrained/pretrained_model.h"

#include <nlohmann/json.hpp>
#include "text/tokenizer.h"

namespace attnlab::cli {

namespace {

struct ExportArgs {
  ModelOptions model;
  VariantOptions variant;
  std::string out, text_file, weights, checkpoint, format = "npz", loss, target, attention = "full";
  std::vector<int64_t> full_layers;  // --attention tiled: the layers traced in full
  std::string full_heads;            // --attention tiled: heads of tiled layers kept whole ("0.3,1.0")
  std::vector<std::string> texts, memory_texts, faults;
  bool force = false;
  pretrained::Sampling sampling;  // --generate N … (with --model)
  bool no_kv_cache = false;       // --no-kv-cache: the whole text again per piece
  bool prepend_bos = false;       // --prepend-bos: GPT-2's <|endoftext|> before each text
  std::string explain;            // --explain rollout,flow,grad-attention,saliency,ablation,heads,logit-lens
  int64_t lens_top = explain::kLensTopDefault;  // --lens-top K: the logit lens's tokens per layer and position
  std::string ablate;             // --ablate 1.3,cross.0.1: heads knocked out ([block.]layer.head)
  std::string ablate_mode = "zero";
};

// --fault ID, repeatable: the injected bugs of faults.h (docs/cli.md, "Fault switches").
FaultSet parse_faults(const std::vector<std::string>& ids) {
  FaultSet out;
  for (const auto& id : ids) {
    try {
      out.insert(parse_fault(id));
    } catch (const ConfigError& e) {
      throw ConfigError(Text(Msg::cli_fault_prefix) + e.text());
    }
  }
  return out;
}

struct Formats {
  ExportOptions opt;
  bool png = false, svg = false;
};

Formats parse_formats(const std::string& list, ExportOptions o) {
  Formats out;
  o.npz = o.csv = false;
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = list.find(',', start);
    const std::string f = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (f == "npz") o.npz = true;
    else if (f == "csv") o.csv = true;
    else if (f == "png" || f == "svg") {
#ifdef ATTNLAB_HAVE_UI
      (f == "png" ? out.png : out.svg) = true;
#else
      throw ConfigError(Text(Msg::cli_format_needs_window, f));
#endif
    }
    else
      throw ConfigError(Text(Msg::cli_format_not_one_of, f));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  out.opt = std::move(o);
  return out;
}

#ifdef ATTNLAB_HAVE_UI
// Text needs a QGuiApplication (PITFALLS.md); the offscreen platform needs no display. Forced by
// -platform (which wins over QT_QPA_PLATFORM): a headless command must never try xcb. Qt's
// warnings are kept off stderr, where only the one error line may appear.
std::unique_ptr<QGuiApplication> offscreen_app() {
  if (QCoreApplication::instance()) return nullptr;
  static int argc = 3;
  static char arg0[] = "attnlab", arg1[] = "-platform", arg2[] = "offscreen";
  static char* argv[] = {arg0, arg1, arg2, nullptr};
  qInstallMessageHandler([](QtMsgType type, const QMessageLogContext&, const QString& msg) {
    if (type == QtFatalMsg) std::fprintf(stderr, "attnlab: error: %s\n", qPrintable(msg));
  });
  return std::make_unique<QGuiApplication>(argc, argv);
}

// PNG (at twice the natural size, as the GUI's default) and SVG heatmaps into <tmp>/heatmaps/.
void add_image_hook(ExportOptions& opt, const Batch& batch, const Trace& trace, bool png, bool svg) {
  opt.extra = [&batch, &trace, png, svg](const std::string& tmp) {
    const QString err = ui::writeHeatmapImages(batch, trace, QString::fromStdString(tmp), png, svg, 2.0);
    if (!err.isEmpty()) throw DataError(verbatim(err.toStdString()));  // the renderer's own words
  };
}
#endif

// Everything an export needs before it computes, each option and file checked: `attnlab
// export` runs it and then execute(); the command-line fuzzer runs only this.
struct ExportPlan {
  ModelConfig cfg;
  Formats formats;
  Weights weights;  // loaded from --weights, else seeded in execute()
  bool seeded = true;
  Batch batch;
  BackendKind backend = BackendKind::Auto;
  std::optional<LossSpec> loss;  // --loss: the backward pass too
  std::shared_ptr<const pretrained::PretrainedModel> checkpoint;  // --model
  pretrained::Sampling sampling;  // --generate: each text continued before the export
  std::vector<ExplainMethod> explain;  // --explain: the methods' steps after the backward's
  int64_t lens_top = explain::kLensTopDefault;  // --lens-top
  std::vector<explain::HeadRef> ablate;  // --ablate: knocked out on the weights before the run
  explain::AblateMode ablate_mode = explain::AblateMode::Zero;
};

// --ablate L.H,… [--ablate-mode zero|mean]: the heads exist (checked once the model is known).
void plan_ablation(const CLI::App& sub, const ExportArgs& a, ExportPlan& p) {
  p.ablate_mode = explain::ablate_mode_of(a.ablate_mode);
  if (!sub.count("--ablate")) {  // the mode also says how --explain heads knocks each head out
    const bool heads = std::find(p.explain.begin(), p.explain.end(), ExplainMethod::Heads) != p.explain.end();
    if (sub.count("--ablate-mode") && !heads) throw ConfigError(Text(Msg::ex_ablate_mode_needs_ablate));
    return;
  }
  p.ablate = explain::parse_heads(a.ablate);
  explain::check_heads(p.cfg, p.ablate);
}

// --loss KIND [--target FILE.npy]: mse reads its target, per-position its answers' token ids (a
// regular file, size-checked); the shape is checked against the run once the forward pass is done.
std::optional<LossSpec> plan_loss(const CLI::App& sub, const ExportArgs& a) {
  if (!sub.count("--loss")) {
    if (sub.count("--target")) throw ConfigError(Text(Msg::cli_target_needs_mse));
    return std::nullopt;
  }
  LossSpec spec{.kind = parse_loss(a.loss)};
  const bool reads = spec.kind == LossKind::Mse || spec.kind == LossKind::PerPosition;
  if (!reads && sub.count("--target")) throw ConfigError(Text(Msg::cli_target_needs_mse));
  if (reads) {
    if (!sub.count("--target"))
      throw ConfigError(Text(spec.kind == LossKind::Mse ? Msg::cli_mse_needs_target : Msg::bw_per_position_needs_answers));
    spec.target = read_npy(a.target, Msg::io_target_file_option);
  }
  return spec;
}

// --model DIR: the checkpoint's config.json sets the model, so no option that sets it may be given.
std::optional<pretrained::PretrainedModel> plan_checkpoint(const CLI::App& sub, const ExportArgs& a) {
  if (!sub.count("--model")) return std::nullopt;
  if (a.checkpoint.empty()) throw ConfigError(Text(Msg::cli_model_name_empty));
  for (const char* opt : {"--weights", "--d-model", "--heads", "--d-ff", "--layers", "--mask", "--norm", "--activation",
                          "--positional", "--max-positions", "--eps", "--final-norm", "--memory-text"})
    if (sub.count(opt)) throw ConfigError(Text(Msg::cli_model_sets_option, opt));
  return pretrained::load_pretrained(a.checkpoint);
}

// --generate N [--temperature T] [--top-k K] [--top-p P] [--no-kv-cache], seeded by --seed: with --model only.
pretrained::Sampling plan_sampling(const CLI::App& sub, const ExportArgs& a) {
  const bool asked = sub.count("--generate") || sub.count("--temperature") || sub.count("--top-k") || sub.count("--top-p") ||
                     sub.count("--no-kv-cache");
  if (asked && !sub.count("--model")) throw ConfigError(Text(Msg::cli_generate_needs_model));
  pretrained::Sampling s = a.sampling;
  s.seed = a.model.seed;
  s.kv_cache = !a.no_kv_cache;
  pretrained::check_sampling(s);
  return s;
}

ExportPlan plan_export(const CLI::App& sub, const ExportArgs& a) {
  ExportPlan p;
  p.sampling = plan_sampling(sub, a);
  const bool cross = !a.memory_texts.empty();
  ModelConfig& cfg = p.cfg;
  cfg = to_config(a.model, cross, sub.count("--d-ff") > 0);
  cfg.faults = parse_faults(a.faults);
  cfg.variant = to_variant(a.variant);
  if (cfg.variant.on() && !cfg.faults.empty())
    throw ConfigError(Text(Msg::cli_variant_beside_fault));
  p.formats = parse_formats(a.format, {a.out, a.force});
  p.loss = plan_loss(sub, a);
  check_output_dir(a.out, a.force);

  if (sub.count("--weights") && a.weights.empty())
    throw ConfigError(Text(Msg::cli_weights_name_empty));
  if (sub.count("--text-file") && a.text_file.empty())
    throw ConfigError(Text(Msg::cli_text_file_name_empty));
  const auto checkpoint = plan_checkpoint(sub, a);
  if (checkpoint) {
    const ModelConfig options = cfg;
    cfg = checkpoint->cfg;
    cfg.faults = options.faults;
    cfg.variant = options.variant;
    validate_variant(cfg.variant, cfg.layers, cfg.encoder_mask());
    p.weights = checkpoint->weights;
    p.seeded = false;
    p.checkpoint = std::make_shared<const pretrained::PretrainedModel>(*checkpoint);
  } else if (!a.weights.empty()) {
    const VariantConfig variant = cfg.variant;  // checked below as an option, not as the file's configuration
    cfg.variant = {};
    auto loaded = load_weights_file(a.weights, cfg, given_options(sub));
    cfg = loaded.cfg;
    cfg.variant = variant;
    validate_variant(cfg.variant, cfg.layers, cfg.encoder_mask());
    p.weights = std::move(loaded.weights);
    p.seeded = false;
  } else {
    cfg.validate();
  }
  if (a.attention == "tiled") {  // the traced tiled path: the weights' overview, no (S, S) step
    if (!cfg.faults.empty() || cfg.variant.on()) throw ConfigError(Text(Msg::cli_tiled_beside_fault_or_variant));
    cfg.overview_cap = kOverviewCap;
    cfg.full_layers = a.full_layers;
    cfg.full_heads = parse_full_heads(a.full_heads);
    cfg.validate();  // the layers and heads exist, each named once
  } else if (!a.full_layers.empty()) {
    throw ConfigError(Text(Msg::cli_full_layers_need_tiled));
  } else if (!a.full_heads.empty()) {
    throw ConfigError(Text(Msg::cli_full_heads_need_tiled));
  }
  const TrainedVocab* trained = p.weights.vocab().get();
  if (p.loss) check_backward(trained != nullptr, p.loss->kind);  // before any work, as backward() would
  std::vector<std::string> texts = a.texts;
  if (!a.text_file.empty())
    for (auto& line : read_text_file(a.text_file)) texts.push_back(std::move(line));
  if (texts.empty()) {
    if (sub.count("--text")) throw ConfigError(Text(Msg::cli_text_empty));
    // A trained model's own examples (docs/cli.md "Trained models"), else the built-in sample.
    texts = trained && !trained->examples().empty() && !cross ? trained->examples() : builtin_sample();
  }
  if (a.prepend_bos && !checkpoint) throw ConfigError(Text(Msg::cli_prepend_bos_needs_model));
  p.formats.opt.prepend_bos = a.prepend_bos;
  p.batch = checkpoint ? pretrained::pretrained_batch(*checkpoint, texts, a.prepend_bos)
                       : make_batch(texts, a.memory_texts, trained);
  const Batch& batch = p.batch;
  if (cfg.traces_variant()) check_walk_length(cfg.variant, batch.encoder_tokens().seq());
  p.backend = parse_backend(a.model.backend);
  if (p.sampling.steps > 0 && checkpoint && trained->task != Task::NextToken)  // BERT: no next piece to draw
    throw ConfigError(Text(Msg::gen_needs_next_token, pretrained::architecture_name(checkpoint->architecture)));
  if (p.sampling.steps > 0)  // the longest text and its added pieces within the model's positions
    for (int len : batch.text.lengths)
      if (len + p.sampling.steps > cfg.max_positions)
        throw ConfigError(Text(Msg::en_text_longer_than_position_table, len + p.sampling.steps, cfg.max_positions));
  if (sub.count("--explain")) {
    p.explain = parse_explain(a.explain);
    check_explain(cfg, batch.encoder_tokens().seq() + p.sampling.steps, p.explain, p.loss.has_value(), trained != nullptr);
  }
  if (sub.count("--lens-top") && std::find(p.explain.begin(), p.explain.end(), ExplainMethod::LogitLens) == p.explain.end())
    throw ConfigError(Text(Msg::ex_lens_top_needs_lens));
  p.lens_top = a.lens_top;
  plan_ablation(sub, a, p);
  auto est = estimate_memory(cfg, batch.text.batch(), batch.encoder_tokens().seq() + p.sampling.steps, cross ? batch.text.seq() : 0,
                             static_cast<int64_t>(batch.vocab.words.size()), trained != nullptr);
  if (p.loss) est = with_gradients(est);  // the backward's steps too
  if (!p.seeded)  // loaded: the weights as held, the bundle's F32 copy, and the gradients' if any
    est = with_loaded_weights(est, p.weights, {.serialised = true, .gradients = p.loss.has_value(),
                                               .beside = explain::ablation_copy_bytes(cfg, p.ablate)});
  check_memory_budget(est, a.model.memory_budget_mib);
  return p;
}

// Each text continued by --generate's pieces (pretrained/generate.h), the batch made again from
// the longer texts, and the manifest's "generation" written.
void generate(ExportPlan& p, Backend& be) {
  const auto& m = *p.checkpoint;
  nlohmann::json rows = nlohmann::json::array();
  std::vector<std::vector<std::string>> pieces, shown;
  bool cached = true;  // every row decoded with the KV cache
  for (int64_t b = 0; b < p.batch.text.batch(); ++b) {
    const auto& row = p.batch.text.tokens[static_cast<size_t>(b)];
    std::vector<std::string> text(row.begin(), row.begin() + p.batch.text.lengths[static_cast<size_t>(b)]);
    const auto added = pretrained::continue_text(m, text, b, p.sampling, be);
    cached = cached && added.cached;
    std::vector<int> ids;
    for (const auto& piece : text) ids.push_back(m.weights.vocab()->id(piece));
    const size_t prompt = text.size();
    nlohmann::json added_pieces = nlohmann::json::array();
    for (int id : added.ids) {
      text.push_back(m.weights.vocab()->words()[static_cast<size_t>(id)]);
      added_pieces.push_back(text.back());
      ids.push_back(id);
    }
    rows.push_back({{"prompt_pieces", prompt}, {"ids", added.ids}, {"pieces", added_pieces},
                    {"probabilities", added.probabilities}, {"text", m.tokenizer->decode(ids)}});
    auto& seen = shown.emplace_back();
    for (const auto& piece : text) seen.push_back(m.tokenizer->display(piece));
    pieces.push_back(std::move(text));
  }
  p.batch = make_piece_batch(std::move(pieces), *m.weights.vocab(), std::move(shown));
  const auto& s = p.sampling;
  p.formats.opt.generation_json = nlohmann::json{{"steps", s.steps}, {"temperature", s.temperature}, {"top_k", s.top_k},
                                                 {"top_p", s.top_p}, {"seed", s.seed},
                                                 {"kv_cache", cached}, {"rows", rows}}
                                      .dump();
}

void execute_export(ExportPlan p) {
  const ModelConfig& cfg = p.cfg;
  if (p.seeded) p.weights = init_weights(cfg);
  if (!p.ablate.empty()) {  // the heads knocked out on the weights, generation included (mean: of a clean traced run)
    Trace clean;
    if (p.ablate_mode == explain::AblateMode::Mean) forward(cfg, p.weights, p.batch, clean);
    p.weights = explain::ablate_heads(cfg, p.weights, p.ablate, p.ablate_mode, clean, p.batch.encoder_tokens().lengths,
                                     p.batch.text.lengths);
    if (p.checkpoint) {  // --generate draws from the knocked-out model too
      auto knocked = std::make_shared<pretrained::PretrainedModel>(*p.checkpoint);
      knocked->weights = p.weights;
      p.checkpoint = std::move(knocked);
    }
    p.formats.opt.ablation_json = ablation_json(p.ablate, p.ablate_mode);
  }
  if (p.sampling.steps > 0) {
    const auto g0 = std::chrono::steady_clock::now();
    generate(p, cpu_backend());
    p.formats.opt.generate_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - g0).count();
  }
  Trace trace;
  BackendNote note;
  const auto t0 = std::chrono::steady_clock::now();
  const auto be = run_on_backend(
      p.backend,
      [&](Backend& b) {
        trace = Trace();
        forward(cfg, p.weights, p.batch, trace, b);
      },
      &note);
  print_note(note);
  // Exit 1 naming the step and the weights, not a bundle of NaN (a planted bug's NaN is its lesson).
  if (cfg.faults.empty()) check_no_overflow(trace, p.weights);
  LossSpec spec = p.loss ? *p.loss : LossSpec{};
  if (p.loss) {  // the backward pass, on the CPU over the forward's trace
    const auto b0 = std::chrono::steady_clock::now();
    if (p.weights.vocab() && p.weights.vocab()->pretrained) spec.lengths = p.batch.text.lengths;  // [PAD] reads a real row
    p.formats.opt.backward = std::make_shared<BackwardResult>(backward(cfg, p.weights, trace, spec));
    p.formats.opt.backward_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - b0).count();
  }
  if (!p.explain.empty()) {  // the explanations, on the CPU over both traces (core/explain)
    const auto e0 = std::chrono::steady_clock::now();
    p.formats.opt.explanations = std::make_shared<const Explanations>(
        compute_explanations(cfg, p.weights, p.batch, trace,
                             {.bw = p.formats.opt.backward.get(),
                              .loss = p.loss ? &spec : nullptr,
                              .mode = p.ablate_mode,
                              .lens_top = p.lens_top},
                             p.explain));
    p.formats.opt.explain_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - e0).count();
  }
  const RunInfo run{be->name(), be->device(),
                    std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(), note.text.english()};
#ifdef ATTNLAB_HAVE_UI
  std::unique_ptr<QGuiApplication> app;
  if (p.formats.png || p.formats.svg) {
    app = offscreen_app();
    add_image_hook(p.formats.opt, p.batch, trace, p.formats.png, p.formats.svg);
  }
#endif
  write_bundle(p.formats.opt, cfg, p.batch, p.weights, trace, run);
}

std::string fault_ids() {
  std::string out;
  for (const auto& f : all_faults()) out += (out.empty() ? "" : ", ") + std::string(f.id);
  return out;
}

}  // namespace

void add_export_command(CLI::App& app, Chosen& chosen) {
  auto args = std::make_shared<ExportArgs>();
  CLI::App* sub = app.add_subcommand("export", "compute every step and write a bundle (manifest, weights, trace.npz)");
  sub->add_option("--out", args->out, "output folder")->required();
  sub->add_option("--text", args->texts, "a sentence of the batch; repeat for more (default: the built-in sample)");
  sub->add_option("--text-file", args->text_file, "one sentence per line (UTF-8)");
  sub->add_option("--memory-text", args->memory_texts,
                  "source sentence for encoder-decoder mode; once for all or once per --text");
  add_variant_options(*sub, args->variant);
  sub->add_option("--weights", args->weights, "load weights and their configuration from a .safetensors file");
  sub->add_option("--generate", args->sampling.steps,
                  "with --model: continue each text by N pieces, drawn from the model's predictions (0 … 1024)");
  sub->add_option("--temperature", args->sampling.temperature, "with --generate: divide the logits by T; 0 takes the most probable piece (default 1)");
  sub->add_option("--top-k", args->sampling.top_k, "with --generate: draw among the K most probable pieces only (default 0: all)");
  sub->add_option("--top-p", args->sampling.top_p, "with --generate: draw among the fewest pieces whose probability reaches P (default 1: all)");
  sub->add_flag("--prepend-bos", args->prepend_bos,
                "with a GPT-2 --model: put <|endoftext|> before each text, as GPT-2 saw documents begin (default: nothing added)");
  sub->add_flag("--no-kv-cache", args->no_kv_cache,
                "with --generate: run the whole text again for each piece instead of decoding with the KV cache");
  sub->add_option("--model", args->checkpoint,
                  "open a pretrained checkpoint folder in Hugging Face's layout (GPT-2: config.json, "
                  "model.safetensors, vocab.json, merges.txt)");
  sub->add_option("--format", args->format, "comma-separated from npz,png,svg,csv (default npz)");
  sub->add_option("--fault", args->faults, "inject a classic attention bug; repeat for more: " + fault_ids());
  sub->add_option("--loss", args->loss,
                  "also run the backward pass from this loss: sum, next-token or per-position (trained models; per-position "
                  "with --target) or mse (with --target)");
  sub->add_option("--target", args->target,
                  "--loss mse: the target, a .npy array of the last layer's output shape; --loss per-position: the "
                  "answers' token ids, a .npy array (B, S) of integers, -1 or 0 where there is none (a checkpoint's: -1 only)");
  sub->add_option("--explain", args->explain,
                  "comma-separated from rollout, flow, grad-attention, saliency, ablation, heads, logit-lens: which "
                  "tokens mattered, as steps explain.* (grad-attention, saliency and heads read --loss; ablation scores "
                  "the others; heads: every head's effect on the loss; logit-lens: what each layer would predict, "
                  "trained models and checkpoints)");
  sub->add_option("--lens-top", args->lens_top,
                  "with --explain logit-lens: how many of the most likely tokens it keeps per layer and position "
                  "(default 5)")
      ->check(CLI::Range(int64_t{1}, explain::kLensTopMax));
  sub->add_option("--ablate", args->ablate,
                  "knock heads out, comma-separated LAYER.HEAD from 0 (e.g. 1.3,2.0) of the encoder's self-attention; "
                  "with --memory-text decoder.L.H and cross.L.H name the decoder's self-attention and cross-attention "
                  "heads: their columns of W_O are zeroed before the run (mean: their mean output moved into the bias first)");
  sub->add_option("--ablate-mode", args->ablate_mode,
                  "zero (the default) or mean: replace the head's output by its mean over the batch's real positions "
                  "(also how --explain heads knocks each head out)")
      ->check(CLI::IsMember({"zero", "mean"}));
  sub->add_option("--attention", args->attention,
                  "full (every score step, the default) or tiled (FlashAttention's loop: no (S, S) step, an overview "
                  "of the weights at most 256 x 256 per head, for long texts)")
      ->check(CLI::IsMember({"full", "tiled"}));
  sub->add_option("--full-layers", args->full_layers,
                  "with --attention tiled: the layers (from 0, comma-separated, ascending) still traced in full, "
                  "every score step of every head, while the others run tiled")
      ->delimiter(',');
  sub->add_option("--full-heads", args->full_heads,
                  "with --attention tiled: heads of tiled layers (layer.head, from 0, comma-separated, ascending) whose "
                  "weights are kept whole, one (B, 1, Tq, Tk) step each, beside their layer's overview");
  sub->add_flag("--force", args->force, "replace the output folder if it exists");
  add_model_options(*sub, args->model);
  sub->callback([sub, args, &chosen] {
    chosen.check = [sub, args] { plan_export(*sub, *args); };
    chosen.run = [sub, args] { execute_export(plan_export(*sub, *args)); };
  });
}

}  // namespace attnlab::cli
