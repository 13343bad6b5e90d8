// Reading a .safetensors weights file into the window (File ▸ Import weights…, and the weights a
// session references or embeds). The file decides the model's sizes and options (its metadata,
// docs/cli.md); without metadata the window's number of heads is used.
#pragma once

#include <QString>

#include "window/controller.h"

namespace attnlab::ui {

// Throws DataError / ConfigError with a message that names the file and what is wrong.
ImportedWeightsPtr importWeightsBytes(std::string bytes, const QString& name, const QString& path, const ModelConfig& current);
// What a weights file decides (sizes, norm, activation, position code, eps, seed, and for a
// trained model the mask it was trained with), copied from its configuration into `cfg`; the rest
// (cross-attention, tiling) stays the window's.
void applyWeightsConfig(ModelConfig& cfg, const LoadedWeights& fromFile);
// Reads `path` first: a missing, unreadable or over-large file is a DataError naming it.
ImportedWeightsPtr importWeightsFile(const QString& path, const ModelConfig& current);
// A checkpoint folder in Hugging Face's layout (core/pretrained): DataError naming the folder, the
// file, the key or the tensor.
ImportedWeightsPtr importModelFolder(const QString& folder);
// The token chips of `texts` for a checkpoint: its tokenizer's pieces as chips spell them (a text
// that cannot be cut gives an empty row; the run's message says why).
std::vector<std::vector<std::string>> checkpointChips(const ImportedWeights& w, const QStringList& texts,
                                                     bool prependBos = false);

}  // namespace attnlab::ui
