#include "cli_common.h"

#include <Eigen/Core>

#include <charconv>
#include <cstdlib>
#include <iostream>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "backend/backend.h"
#include "forward/memory.h"
#include "io/files.h"
#include "text/errors.h"
#include "text/tokenizer.h"

namespace attnlab::cli {

namespace {

// The digits of a decimal whole number, leading zeros dropped (so CLI11's strtoll reads it as
// decimal), or "" when `text` is not one: [-]digits, nothing else.
std::string decimal_digits(const std::string& text, bool allow_minus) {
  size_t i = 0;
  const bool minus = allow_minus && !text.empty() && text[0] == '-';
  if (minus) i = 1;
  if (i == text.size()) return "";
  for (size_t j = i; j < text.size(); ++j)
    if (text[j] < '0' || text[j] > '9') return "";
  while (i + 1 < text.size() && text[i] == '0') ++i;
  return (minus && text.substr(i) != "0" ? "-" : "") + text.substr(i);
}

std::string not_decimal(const std::string& text) {
  return "'" + printable_name(text) + "' is not a decimal whole number (write it in digits, e.g. 64)";
}

}  // namespace

CLI::Validator decimal_in(int64_t lo, int64_t hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        const std::string digits = decimal_digits(text, lo < 0);
        if (digits.empty()) return text.size() > 1 && text[0] == '-' && lo >= 0
                                       ? printable_name(text) + " is outside " + std::to_string(lo) + " … " +
                                             std::to_string(hi)
                                       : not_decimal(text);
        int64_t v = 0;
        const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), v);
        if (r.ec != std::errc() || v < lo || v > hi)
          return digits + " is outside " + std::to_string(lo) + " … " + std::to_string(hi);
        text = digits;
        return "";
      },
      std::to_string(lo) + "…" + std::to_string(hi));
}

CLI::Validator decimal_u64() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const std::string digits = decimal_digits(text, false);
        if (digits.empty()) return text.size() > 1 && text[0] == '-' ? printable_name(text) + " is outside 0 … 18446744073709551615"
                                                                  : not_decimal(text);
        uint64_t v = 0;
        const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), v);
        if (r.ec != std::errc()) return digits + " is outside 0 … 18446744073709551615";
        text = digits;
        return "";
      },
      "0…2^64-1");
}

void add_model_options(CLI::App& app, ModelOptions& o) {
  app.add_option("--d-model", o.d_model, "model width D (default 64)")->transform(decimal_in(1, Limits::kMaxDModel));
  app.add_option("--heads", o.heads, "attention heads H; must divide D (default 8)")
      ->transform(decimal_in(1, Limits::kMaxDModel));
  app.add_option("--d-ff", o.d_ff, "feed-forward width F (default 4·D)")->transform(decimal_in(1, Limits::kMaxDff));
  app.add_option("--layers", o.layers, "layers per stack (default 1)")->transform(decimal_in(1, Limits::kMaxLayers));
  app.add_option("--mask", o.mask, "none|padding|causal|padding+causal");
  app.add_option("--norm", o.norm, "pre|post (default pre)");
  app.add_option("--activation", o.activation, "relu|gelu|gelu_tanh (default relu; gelu is the exact erf form, gelu_tanh GPT-2's tanh approximation)");
  app.add_option("--positional", o.positional,
                 "sinusoidal|none|learned (default sinusoidal; learned: a table of --max-positions rows, GPT-2's and BERT's)");
  app.add_option("--max-positions", o.max_positions, "rows of the learned position table: the longest text (default 1024)")
      ->transform(decimal_in(1, Limits::kMaxPositions));
  app.add_option("--eps", o.eps, "LayerNorm epsilon (default 1e-5)");
  app.add_flag("--final-norm", o.final_norm, "a LayerNorm after each stack's last layer (GPT-2's ln_f)");
  app.add_option("--seed", o.seed, "seed for embeddings and weights (default 0)")->transform(decimal_u64());
  app.add_option("--backend", o.backend, "cpu|vulkan|auto (default auto)");
  app.add_option("--memory-budget", o.memory_budget_mib, "refuse a run larger than this many MiB (default 4096)")
      ->transform(decimal_in(1, kMaxMemoryBudgetMiB));
}

void add_variant_options(CLI::App& app, VariantOptions& o) {
  app.add_option("--variant", o.kind,
                 "an attention variant run beside one encoder self-attention block: window, bigbird, topk, linformer, "
                 "linear, relative, alibi, axial, kv_cache, tiled (default none)");
  app.add_option("--variant-layer", o.cfg.layer, "the encoder layer it runs in, from 0 (default 0)")
      ->transform(decimal_in(0, Limits::kMaxLayers - 1));
  const VariantConfig d;
  for (VariantKind k : all_variants())
    for (const auto& p : variant_params(k))
      if (!app.get_option_no_throw(p.option))
        app.add_option(p.option, o.cfg.*p.field,
                       std::string("a knob of --variant (default ") + std::to_string(d.*p.field) + "; docs/cli.md)")
            ->transform(decimal_in(p.min, VariantLimits::kMaxParam));
}

VariantConfig to_variant(const VariantOptions& o) {
  VariantConfig v = o.cfg;
  v.kind = parse_variant(o.kind);
  return v;
}

ModelConfig to_config(const ModelOptions& o, bool cross, bool d_ff_given) {
  ModelConfig c;
  c.d_model = o.d_model;
  c.heads = o.heads;
  c.d_ff = d_ff_given ? o.d_ff : 4 * o.d_model;
  c.layers = o.layers;
  c.cross = cross;
  c.mask = o.mask.empty() ? (cross ? MaskKind::PaddingCausal : MaskKind::Padding) : parse_mask(o.mask);
  c.norm = parse_norm(o.norm);
  c.activation = parse_activation(o.activation);
  c.positional = parse_positional(o.positional);
  c.max_positions = o.max_positions;
  c.final_norm = o.final_norm;
  c.eps = o.eps;
  c.seed = o.seed;
  if (o.memory_budget_mib <= 0) throw ConfigError(Text(Msg::cli_memory_budget_positive));
  parse_backend(o.backend);
  return c;
}

std::set<std::string> given_options(const CLI::App& app) {
  std::set<std::string> out;
  for (const CLI::Option* opt : app.get_options())
    if (opt->count() > 0 && !opt->get_lnames().empty()) out.insert("--" + opt->get_lnames().front());
  return out;
}

void print_note(const BackendNote& note) {
  if (note.failure && !note.text.empty()) std::cerr << "attnlab: note: " << note.text.english() << std::endl;
}

void sanitize_thread_environment() {
  const char* env = std::getenv("OMP_NUM_THREADS");
  if (!env) return;
  // A list "a,b,…" (nested levels); each entry must be a whole number, capped at kMaxThreads.
  std::string fixed, item;
  const std::string text = env;
  bool ok = !text.empty();
  for (size_t start = 0; ok && start <= text.size();) {
    const size_t comma = std::min(text.find(',', start), text.size());
    item = decimal_digits(text.substr(start, comma - start), false);
    uint64_t v = 0;
    const auto r = std::from_chars(item.data(), item.data() + item.size(), v);
    ok = !item.empty() && v >= 1;
    if (r.ec == std::errc::result_out_of_range || v > kMaxThreads) v = kMaxThreads;
    fixed += (fixed.empty() ? "" : ",") + std::to_string(v);
    start = comma + 1;
  }
  if (!ok) ::unsetenv("OMP_NUM_THREADS");
  else if (fixed != text) ::setenv("OMP_NUM_THREADS", fixed.c_str(), 1);  // for what this process starts
#ifdef _OPENMP
  // libgomp read the variable when it was loaded, before main: cap what it took from it.
  if (omp_get_max_threads() > kMaxThreads) omp_set_num_threads(kMaxThreads);
#endif
}

void set_threads(int threads) {
  if (threads <= 0) return;
#ifdef _OPENMP
  omp_set_num_threads(threads);
#endif
  Eigen::setNbThreads(threads);
}

// One sentence per line (cli_common.h); a UTF-8 BOM is skipped, blank lines ignored. Only a regular file of
// at most 16 MiB is read (a FIFO or /dev/zero is refused by name, never read until it ends).
std::vector<std::string> read_text_file(const std::string& path) {
  const std::string text = read_regular_file(path, kMaxTextFileBytes, Msg::io_text_file_option);
  std::vector<std::string> lines;
  size_t start = text.rfind("\xEF\xBB\xBF", 0) == 0 ? 3 : 0;
  for (int number = 1; start < text.size(); ++number) {
    const size_t nl = std::min(text.find('\n', start), text.size());
    std::string line = text.substr(start, nl - start);
    start = nl + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const Text where(Msg::cli_text_file_line, printable_name(path), number);
    if (!is_valid_utf8(line)) throw DataError(where + Text(Msg::cli_line_not_utf8));
    if (line.find('\0') != std::string::npos) throw DataError(where + Text(Msg::cli_line_has_nul));
    if (line.find_first_not_of(" \t\v\f") == std::string::npos) continue;  // blank lines are skipped
    if (Text why = text_problem(line); !why.empty()) throw DataError(where + verbatim(": ") + std::move(why));
    lines.push_back(line);
  }
  if (lines.empty()) throw ConfigError(Text(Msg::cli_text_file_no_sentence, printable_name(path)));
  return lines;
}

}  // namespace attnlab::cli
