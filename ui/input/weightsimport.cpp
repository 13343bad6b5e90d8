#include "input/weightsimport.h"

#include "input/samplemodels.h"

#include <QFile>
#include <QFileInfo>

#include "io/files.h"
#include "io/safetensors.h"
#include "text/errors.h"

namespace attnlab::ui {

ImportedWeightsPtr importWeightsBytes(std::string bytes, const QString& name, const QString& path, const ModelConfig& current) {
  const std::string origin = name.toStdString();
  SafetensorsFile f;
  try {
    f = parse_safetensors(bytes);
  } catch (const DataError& e) {
    throw DataError(verbatim(origin + ": ") + e.text());
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
  cfg.norm = f.norm, cfg.activation = f.activation, cfg.positional = f.positional, cfg.max_positions = f.max_positions;
  cfg.eps = f.eps, cfg.seed = f.seed, cfg.ffn = f.ffn, cfg.final_norm = f.final_norm;
  cfg.token_types = f.token_types, cfg.embedding_norm = f.embedding_norm, cfg.head_transform = f.head_transform;
  if (loaded.weights.vocab() && loaded.weights.vocab()->mask) cfg.mask = f.mask;
}

ImportedWeightsPtr importModelFolder(const QString& folder) {
  const QString abs = QFileInfo(folder).absoluteFilePath();
  auto m = std::make_shared<pretrained::PretrainedModel>(pretrained::load_pretrained(QFile::encodeName(abs).toStdString()));
  auto out = std::make_shared<ImportedWeights>();
  out->name = QFileInfo(abs).fileName();
  out->path = abs;
  out->loaded = {m->cfg, m->weights};
  out->checkpoint = std::move(m);
  return out;
}

std::vector<std::vector<std::string>> checkpointChips(const ImportedWeights& w, const QStringList& texts,
                                                     bool prependBos) {
  std::vector<std::vector<std::string>> rows;
  for (const QString& t : texts) {
    auto& row = rows.emplace_back();
    try {
      if (prependBos) row.push_back(w.checkpoint->tokenizer->display(pretrained::bos_piece(*w.checkpoint)));
      for (const auto& piece : w.checkpoint->tokenizer->encode(t.toStdString()))
        row.push_back(w.checkpoint->tokenizer->display(piece.piece));
    } catch (const std::exception&) {
      row.clear();
    }
  }
  return rows;
}

ImportedWeightsPtr importWeightsFile(const QString& path, const ModelConfig& current) {
  // A shipped model is embedded (":/models/…", samplemodels.h); anything else goes through core's
  // reader: a regular file within the size limit, or a message naming it (a FIFO or a device in
  // the settings or a session never blocks the window).
  std::string bytes;
  if (path.startsWith(QLatin1String(":/"))) {
    const auto shipped = sampleModelBytes(path);
    if (!shipped) throw DataError(Text(Msg::weights_file, path.toStdString()) + Text(Msg::no_such_file));
    bytes = std::string(*shipped);
  } else {
    bytes = read_regular_file(QFile::encodeName(path).toStdString(), kMaxWeightsFileBytes, Msg::weights_file);
  }
  return importWeightsBytes(std::move(bytes), QFileInfo(path).fileName(), QFileInfo(path).absoluteFilePath(), current);
}

}  // namespace attnlab::ui
