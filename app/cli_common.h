// Options shared by the subcommands, and the mapping of errors to exit statuses.
#pragma once

#include <CLI/CLI.hpp>

#include <set>
#include <string>
#include <vector>

#include "backend.h"
#include "config.h"

namespace attnlab::cli {

// Raw option values as typed; turned into a ModelConfig by to_config().
struct ModelOptions {
  int64_t d_model = 64, heads = 8, d_ff = 0, layers = 1;
  std::string mask, norm = "pre", activation = "relu", positional = "sinusoidal";
  double eps = 1e-5;
  uint64_t seed = 0;
  std::string backend = "auto";
  int64_t memory_budget_mib = 4096;
};

void add_model_options(CLI::App& app, ModelOptions& o);
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

}  // namespace attnlab::cli
