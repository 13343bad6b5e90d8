#include "cli_common.h"

#include <Eigen/Core>

#include <iostream>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "backend.h"
#include "errors.h"

namespace attnlab::cli {

void add_model_options(CLI::App& app, ModelOptions& o) {
  app.add_option("--d-model", o.d_model, "model width D (default 64)");
  app.add_option("--heads", o.heads, "attention heads H; must divide D (default 8)");
  app.add_option("--d-ff", o.d_ff, "feed-forward width F (default 4·D)");
  app.add_option("--layers", o.layers, "layers per stack (default 1)");
  app.add_option("--mask", o.mask, "none|padding|causal|padding+causal");
  app.add_option("--norm", o.norm, "pre|post (default pre)");
  app.add_option("--activation", o.activation, "relu|gelu (default relu; gelu is the exact erf form)");
  app.add_option("--positional", o.positional, "sinusoidal|none (default sinusoidal)");
  app.add_option("--eps", o.eps, "LayerNorm epsilon (default 1e-5)");
  app.add_option("--seed", o.seed, "seed for embeddings and weights (default 0)")->check(CLI::NonNegativeNumber);
  app.add_option("--backend", o.backend, "cpu|vulkan|auto (default auto)");
  app.add_option("--memory-budget", o.memory_budget_mib, "refuse a run larger than this many MiB (default 4096)");
}

void add_variant_options(CLI::App& app, VariantOptions& o) {
  app.add_option("--variant", o.kind,
                 "an attention variant run beside one encoder self-attention block: window, bigbird, topk, linformer, "
                 "linear, relative, alibi, axial, kv_cache, tiled (default none)");
  app.add_option("--variant-layer", o.cfg.layer, "the encoder layer it runs in, from 0 (default 0)");
  const VariantConfig d;
  for (VariantKind k : all_variants())
    for (const auto& p : variant_params(k))
      if (!app.get_option_no_throw(p.option))
        app.add_option(p.option, o.cfg.*p.field,
                       std::string("a knob of --variant (default ") + std::to_string(d.*p.field) + "; docs/cli.md)");
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
  c.eps = o.eps;
  c.seed = o.seed;
  if (o.memory_budget_mib <= 0) throw ConfigError("--memory-budget: must be a positive number of MiB");
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
  if (note.failure && !note.text.empty()) std::cerr << "attnlab: note: " << note.text << std::endl;
}

void set_threads(int threads) {
  if (threads <= 0) return;
#ifdef _OPENMP
  omp_set_num_threads(threads);
#endif
  Eigen::setNbThreads(threads);
}

}  // namespace attnlab::cli
