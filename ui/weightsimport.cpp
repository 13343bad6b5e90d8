#include "weightsimport.h"

#include <QFile>
#include <QFileInfo>

#include "errors.h"
#include "safetensors.h"

namespace attnlab::ui {

namespace {

constexpr qint64 kMaxWeightsBytes = qint64{2} << 30;  // 2 GiB: far beyond a teaching model

}  // namespace

ImportedWeightsPtr importWeightsBytes(std::string bytes, const QString& name, const QString& path, const ModelConfig& current) {
  const std::string origin = name.toStdString();
  SafetensorsFile f;
  try {
    f = parse_safetensors(bytes);
  } catch (const DataError& e) {
    throw DataError(origin + ": " + e.what());
  }
  ModelConfig cli = current;
  cli.cross = weights_have_decoder(f);
  // Without metadata the shapes give the sizes but not the heads: the window's value stands.
  const std::set<std::string> given = f.metadata.empty() ? std::set<std::string>{"--heads"} : std::set<std::string>{};
  auto out = std::make_shared<ImportedWeights>();
  out->loaded = load_weights(f, origin, cli, given);
  out->name = name;
  out->path = path;
  out->bytes = std::move(bytes);
  return out;
}

void applyWeightsConfig(ModelConfig& cfg, const LoadedWeights& loaded) {
  const ModelConfig& f = loaded.cfg;
  cfg.d_model = f.d_model, cfg.heads = f.heads, cfg.d_ff = f.d_ff, cfg.layers = f.layers;
  cfg.norm = f.norm, cfg.activation = f.activation, cfg.positional = f.positional;
  cfg.eps = f.eps, cfg.seed = f.seed;
  if (loaded.weights.vocab() && loaded.weights.vocab()->mask) cfg.mask = f.mask;
}

ImportedWeightsPtr importWeightsFile(const QString& path, const ModelConfig& current) {
  QFile file(path);
  const std::string p = path.toStdString();
  if (!file.open(QIODevice::ReadOnly)) throw DataError(p + ": cannot be read (" + file.errorString().toStdString() + ")");
  if (file.size() > kMaxWeightsBytes) throw DataError(p + ": larger than 2 GiB, not a weights file this window can show");
  const QByteArray bytes = file.readAll();
  return importWeightsBytes(bytes.toStdString(), QFileInfo(path).fileName(), QFileInfo(path).absoluteFilePath(), current);
}

}  // namespace attnlab::ui
