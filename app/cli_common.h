// Options shared by the subcommands, and the mapping of errors to exit statuses.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "model/config.h"

namespace attnlab::cli {

// Raw option values as typed; turned into a ModelConfig by to_config().
struct ModelOptions {
  int64_t d_model = 64, heads = 8, d_ff = 0, layers = 1, max_positions = 1024;
  std::string mask, norm = "pre", activation = "relu", positional = "sinusoidal";
  double eps = 1e-5;
  bool final_norm = false;
  uint64_t seed = 0;
  std::string backend = "auto";
  int64_t memory_budget_mib = 4096;
};

// What the parsed command line will do, set while parsing (nothing runs then): `check` looks at
// every option and file it can without computing (what the fuzzer runs), `run` does the work.
struct Chosen {
  std::function<void()> check, run;
};
void add_export_command(CLI::App& app, Chosen& chosen);
void add_bench_command(CLI::App& app, Chosen& chosen);
void add_exercise_command(CLI::App& app, Chosen& chosen);
void add_train_command(CLI::App& app, Chosen& chosen);
void add_tokenize_command(CLI::App& app, Chosen& chosen);

// What the window is asked to open with, when no subcommand is given (docs/cli.md, "The window"):
//   attnlab [FILE.attnlab] [--step STEP_ID] [--presenter] [--language en|zh]
struct WindowRequest {
  std::string session;   // a session to open; "" = the window as it was left
  std::string step;      // a step id (as in a manifest) shown instead of the session's own
  bool presenter = false;  // open in presenter mode, full screen
  std::string language;  // "en" or "zh" for this run only; "" = the saved choice
};
using WindowEntry = std::function<int(int, char**, const WindowRequest&)>;

// The whole command line (app/cli_app.cpp): parses argv, runs the subcommand, or with none
// returns gui(argc, argv, request); every error is one "attnlab: error: …" line on stderr and exit
// status 2 (options) or 1 (data, files, memory). With check_only, the subcommand's check runs
// instead of its work (the fuzzer's entry point).
int run_command_line(int argc, char** argv, const WindowEntry& gui, bool check_only = false);

void add_model_options(CLI::App& app, ModelOptions& o);

// A whole number written in decimal digits (an optional '-', leading zeros read as decimal: 010
// is 10) within lo … hi, checked on the text before CLI11 converts it — which would read 010 as
// octal, 0x10 as hex, and wrap or clamp what does not fit. Fails with
// "--opt: 'x' is not a decimal whole number" or "--opt: x is outside lo … hi" (exit 2).
CLI::Validator decimal_in(int64_t lo, int64_t hi);
CLI::Validator decimal_u64();  // 0 … 2^64 − 1, for seeds
// --variant KIND and its knobs (--variant-layer, --variant-window, …; docs/cli.md).
struct VariantOptions {
  std::string kind = "none";
  VariantConfig cfg;
};
void add_variant_options(CLI::App& app, VariantOptions& o);
VariantConfig to_variant(const VariantOptions& o);
// d_ff_given: --d-ff was typed (otherwise F = 4·D).
ModelConfig to_config(const ModelOptions& o, bool cross, bool d_ff_given);
// The long names ("--heads", …) of the options the user actually typed.
std::set<std::string> given_options(const CLI::App& app);

// "attnlab: note: …" on stderr when a Vulkan device failed and the CPU ran instead; quiet when
// there was simply none to use (the manifest or the bench JSON says so in "backend_note").
void print_note(const BackendNote& note);
void set_threads(int threads);  // OpenMP and Eigen
inline constexpr int kMaxThreads = 1024;  // --threads 1 … 1024; OMP_NUM_THREADS is capped to it
// An absurd OMP_NUM_THREADS is capped at kMaxThreads: libgomp read it when it was loaded, so
// its thread count is capped now, before the first parallel region (100000 threads crashed
// it), and the variable itself is rewritten (or removed when it is not a number) for anything
// this process starts. Call first in main.
void sanitize_thread_environment();

// --text-file: one sentence per line; a UTF-8 BOM is skipped, blank lines ignored. Only a regular
// file of at most 16 MiB is read (a FIFO or /dev/zero is refused by name). DataError naming the
// line that is not text; ConfigError when no sentence is left.
std::vector<std::string> read_text_file(const std::string& path);

}  // namespace attnlab::cli
