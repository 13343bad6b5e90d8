// attnlab export: compute every step for the given sentences and write the bundle. PNG and SVG
// heatmaps are drawn by the GUI's renderer (ui/heatmaprender) on Qt's offscreen platform: no
// display is needed, and a QGuiApplication is made only when they are asked for.
#include <QGuiApplication>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>

#include "bundle.h"
#include "cli_common.h"
#include "errors.h"
#include "exporter.h"
#include "memory.h"
#include "model.h"
#include "tokenizer.h"
#include "weights_file.h"

namespace attnlab::cli {

namespace {

struct ExportArgs {
  ModelOptions model;
  VariantOptions variant;
  std::string out, text_file, weights, format = "npz";
  std::vector<std::string> texts, memory_texts, faults;
  bool force = false;
};

// One sentence per line; a UTF-8 BOM is skipped, blank lines ignored.
std::vector<std::string> read_text_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw DataError("--text-file: cannot open '" + path + "'");
  std::vector<std::string> lines;
  std::string line;
  bool first = true;
  int number = 0;
  while (std::getline(f, line)) {
    ++number;
    if (first && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);
    first = false;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!is_valid_utf8(line))
      throw DataError("--text-file: '" + path + "' line " + std::to_string(number) + " is not valid UTF-8");
    if (line.find_first_not_of(" \t\v\f") != std::string::npos) lines.push_back(line);
  }
  if (f.bad()) throw DataError("--text-file: cannot read '" + path + "'");
  if (lines.empty()) throw ConfigError("--text-file: '" + path + "' holds no sentence");
  return lines;
}

// --fault ID, repeatable: the injected bugs of faults.h (docs/cli.md, "Fault switches").
FaultSet parse_faults(const std::vector<std::string>& ids) {
  FaultSet out;
  for (const auto& id : ids) {
    try {
      out.insert(parse_fault(id));
    } catch (const ConfigError& e) {
      throw ConfigError(std::string("--fault: ") + e.what());
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
    else if (f == "png") out.png = true;
    else if (f == "svg") out.svg = true;
    else
      throw ConfigError("--format: '" + f + "' is not one of npz, png, svg, csv");
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  out.opt = std::move(o);
  return out;
}

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
    if (!err.isEmpty()) throw DataError(err.toStdString());
  };
}

void run_export(const CLI::App& sub, const ExportArgs& a) {
  const bool cross = !a.memory_texts.empty();
  ModelConfig cfg = to_config(a.model, cross, sub.count("--d-ff") > 0);
  cfg.faults = parse_faults(a.faults);
  cfg.variant = to_variant(a.variant);
  if (cfg.variant.on() && !cfg.faults.empty())
    throw ConfigError("--variant: cannot run beside --fault (a planted bug changes the block it is compared with); "
                      "drop one of them");
  Formats formats = parse_formats(a.format, {a.out, a.force});
  check_output_dir(a.out, a.force);

  Weights weights;
  if (!a.weights.empty()) {
    const VariantConfig variant = cfg.variant;  // checked below as an option, not as the file's configuration
    cfg.variant = {};
    auto loaded = load_weights_file(a.weights, cfg, given_options(sub));
    cfg = loaded.cfg;
    cfg.variant = variant;
    validate_variant(cfg.variant, cfg.layers, cfg.encoder_mask());
    weights = std::move(loaded.weights);
  } else {
    cfg.validate();
  }
  const TrainedVocab* trained = weights.vocab().get();
  std::vector<std::string> texts = a.texts;
  if (!a.text_file.empty())
    for (auto& line : read_text_file(a.text_file)) texts.push_back(std::move(line));
  if (texts.empty()) {
    if (sub.count("--text")) throw ConfigError("--text: the sentence is empty; type at least one word");
    // A trained model's own examples (docs/cli.md "Trained models"), else the built-in sample.
    texts = trained && !trained->examples().empty() && !cross ? trained->examples() : builtin_sample();
  }
  const Batch batch = make_batch(texts, a.memory_texts, trained);
  if (cfg.traces_variant()) check_walk_length(cfg.variant, batch.encoder_tokens().seq());
  const BackendKind kind = parse_backend(a.model.backend);
  const auto est = estimate_memory(cfg, batch.text.batch(), batch.encoder_tokens().seq(), cross ? batch.text.seq() : 0,
                                   static_cast<int64_t>(batch.vocab.words.size()), trained != nullptr);
  check_memory_budget(est, a.model.memory_budget_mib);
  if (a.weights.empty()) weights = init_weights(cfg);

  Trace trace;
  BackendNote note;
  const auto t0 = std::chrono::steady_clock::now();
  const auto be = run_on_backend(
      kind,
      [&](Backend& b) {
        trace = Trace();
        forward(cfg, weights, batch, trace, b);
      },
      &note);
  print_note(note);
  const RunInfo run{be->name(), be->device(),
                    std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(), note.text};
  std::unique_ptr<QGuiApplication> app;
  if (formats.png || formats.svg) {
    app = offscreen_app();
    add_image_hook(formats.opt, batch, trace, formats.png, formats.svg);
  }
  write_bundle(formats.opt, cfg, batch, weights, trace, run);
}

std::string fault_ids() {
  std::string out;
  for (const auto& f : all_faults()) out += (out.empty() ? "" : ", ") + std::string(f.id);
  return out;
}

}  // namespace

void add_export_command(CLI::App& app) {
  auto args = std::make_shared<ExportArgs>();
  CLI::App* sub = app.add_subcommand("export", "compute every step and write a bundle (manifest, weights, trace.npz)");
  sub->add_option("--out", args->out, "output folder")->required();
  sub->add_option("--text", args->texts, "a sentence of the batch; repeat for more (default: the built-in sample)");
  sub->add_option("--text-file", args->text_file, "one sentence per line (UTF-8)");
  sub->add_option("--memory-text", args->memory_texts,
                  "source sentence for encoder-decoder mode; once for all or once per --text");
  add_variant_options(*sub, args->variant);
  sub->add_option("--weights", args->weights, "load weights and their configuration from a .safetensors file");
  sub->add_option("--format", args->format, "comma-separated from npz,png,svg,csv (default npz)");
  sub->add_option("--fault", args->faults, "inject a classic attention bug; repeat for more: " + fault_ids());
  sub->add_flag("--force", args->force, "replace the output folder if it exists");
  add_model_options(*sub, args->model);
  sub->callback([sub, args] { run_export(*sub, *args); });
}

}  // namespace attnlab::cli
