// The export bundle (spec: "The bundle written to DIR"): manifest.json, weights.safetensors,
// trace.npz and, on request, heatmaps/*.csv (plus what ExportOptions::extra adds) — written into a temporary folder beside DIR and
// renamed into place at the end, so a failed export leaves nothing behind.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "backward/model_backward.h"
#include "explain/explain.h"
#include "forward/model.h"
#include "io/files.h"  // is_bundle_folder
#include "model/config.h"
#include "model/trace.h"
#include "model/weights.h"

namespace attnlab {

struct ExportOptions {
  std::string out_dir;
  bool force = false;
  bool npz = true;
  bool csv = false;
  // Called with the temporary folder after the other files and before the rename, to add more
  // (the command line's PNG/SVG heatmaps under heatmaps/). Throwing aborts the export, leaving
  // nothing behind.
  std::function<void(const std::string& tmp_dir)> extra;
  // The backward pass of `--loss` (docs/cli.md, "Gradients"): its steps go into trace.npz after
  // the forward's, its loss and steps into the manifest ("loss", "gradient_steps"). Null: none.
  std::shared_ptr<const BackwardResult> backward;
  double backward_ms = 0;
  // The manifest's "generation" (docs/cli.md "Generation"), as JSON text; empty: none. Its wall
  // time: "timings_ms"."generate".
  // The explanations of `--explain` (docs/cli.md, "Explanations"): their steps go into trace.npz
  // after the backward's, into the manifest as "explanation_steps" (and with ablation
  // "explanation_scores"). Null: none.
  std::shared_ptr<const Explanations> explanations;
  // The manifest's "ablation" (--ablate: the heads knocked out and how), as JSON text; empty: none.
  std::string ablation_json;
  double explain_ms = 0;
  std::string generation_json;
  double generate_ms = 0;
  // --prepend-bos: each text began with the checkpoint's <|endoftext|> (manifest "config"."prepend_bos").
  bool prepend_bos = false;
};

struct RunInfo {
  std::string backend = "cpu";
  std::string device;
  double forward_ms = 0;
  std::string note;  // why the CPU ran when Vulkan was asked for (manifest "backend_note"), or ""
};

// DIR as an absolute, normalised path without a trailing separator.
std::filesystem::path output_path(const std::string& dir);

// Before any work (and again by write_bundle): DIR must be a new name, an empty folder, or with
// force an earlier bundle (is_bundle_folder) — never the root, the current folder or one that
// holds it, a symbolic link, a file, or a name too long for its temporary sibling. Throws
// ConfigError otherwise (exit 2), naming DIR and what to do.
void check_output_dir(const std::string& dir, bool force);


// The manifest's "ablation" for heads knocked out (explain/head_ablation.h): {"heads": [[layer,
// head], …], "mode": "zero"|"mean"}, as JSON text for ExportOptions::ablation_json.
std::string ablation_json(const std::vector<explain::HeadRef>& heads, explain::AblateMode mode);

nlohmann::json manifest_json(const ModelConfig& cfg, const Batch& batch, const Trace& trace, const RunInfo& run,
                             double export_ms);

// A trained model's part of the manifest ("model"): title, task, vocabulary size, the positions
// of tokens it does not know, and its top-5 predictions for every real position of every sentence.
// The variant's configuration (config.variant) and what it cost and changed (manifest "variant";
// docs/cli.md, "Attention variants"); null when the trace holds no variant.
nlohmann::json variant_config_json(const VariantConfig& v);
// config.full_heads as the manifest and sessions write it: [[layer, head], …].
nlohmann::json full_heads_json(const std::vector<ModelConfig::LayerHead>& heads);
nlohmann::json variant_json(const ModelConfig& cfg, const Trace& trace);
nlohmann::json model_json(const TrainedVocab& vocab, const Batch& batch, const Trace& trace);

// Writes the bundle into a temporary sibling and moves it into place atomically (files.h): a
// target that appeared meanwhile is ConfigError naming it, nothing replaced; with force an
// earlier bundle is swapped out and removed only once the new one is in place. Dead processes'
// temporaries beside it are swept first. Throws DataError (with the path and the reason) on I/O
// failure, leaving nothing behind.
void write_bundle(const ExportOptions& opt, const ModelConfig& cfg, const Batch& batch, const Weights& w,
                  const Trace& trace, const RunInfo& run);

// RFC 4180 CSV of one head's weights: first row the key tokens, first column the query tokens.
std::string heatmap_csv(const Tensor& weights, int64_t b, int64_t h, const std::vector<std::string>& q_tokens,
                        const std::vector<std::string>& k_tokens);


}  // namespace attnlab
