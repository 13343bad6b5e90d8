// Weights files: the configuration in __metadata__ (format "attnlab-weights/1") and the
// parameters under their PyTorch state-dict names.
#pragma once

#include <map>
#include <set>
#include <string>

#include "io/safetensors.h"
#include "model/config.h"
#include "model/weights.h"

namespace attnlab {

std::map<std::string, std::string> weights_metadata(const ModelConfig& cfg);
// A whole weights file's metadata: the model's (above) and, for a trained model, its vocabulary's.
std::map<std::string, std::string> weights_file_metadata(const ModelConfig& cfg, const Weights& w);
std::string serialize_weights(const ModelConfig& cfg, const Weights& w);

struct LoadedWeights {
  ModelConfig cfg;
  Weights weights;
};

// Loads `path` and resolves the configuration: the file's metadata (or, without metadata, its
// shapes plus the command line's --heads) wins; an option in `given` (by its option name, e.g.
// "--heads") whose value differs is a ConfigError. `cli` holds the command line's values and
// cli.cross whether --memory-text was given. Bad tensors are a DataError naming the tensor.
LoadedWeights load_weights_file(const std::string& path, const ModelConfig& cli, const std::set<std::string>& given);
// The same for a file already parsed; `origin` names it in messages.
LoadedWeights load_weights(const SafetensorsFile& f, const std::string& origin, const ModelConfig& cli,
                           const std::set<std::string>& given);
// Whether a weights file holds decoder layers (an encoder–decoder model, for cross-attention).
bool weights_have_decoder(const SafetensorsFile& f);

}  // namespace attnlab
