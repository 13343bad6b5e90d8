#include "input/samplemodels.h"

#include <QFileInfo>

#include <cstring>

#include "input/weightsimport.h"
#include "io/shipped_models.h"
#include "text/errors.h"
#include "words/language.h"

namespace attnlab::ui {

namespace {

QString inLanguage(const TrainedVocab& v, const std::string& key) {
  const std::string zh = v.field(key + "_zh");
  const bool chinese = Language::effective() == UiLanguage::Chinese && !zh.empty();
  return QString::fromStdString(chinese ? zh : v.field(key));
}

}  // namespace

QString modelTitle(const TrainedVocab& v, const QString& fallback) {
  const QString t = inLanguage(v, "title");
  return t.isEmpty() ? fallback : t;
}

QString modelNote(const TrainedVocab& v) { return inLanguage(v, "note"); }

std::optional<std::string_view> sampleModelBytes(const QString& path) {
  if (!path.startsWith(QLatin1String(kSampleModelPrefix))) return std::nullopt;
  const ShippedModel* m = find_shipped_model(path.mid(static_cast<qsizetype>(std::strlen(kSampleModelPrefix))).toStdString());
  if (!m) return std::nullopt;
  return m->bytes;
}

ImportedWeightsPtr loadSampleModel(const QString& path, const ModelConfig& current) {
  const auto bytes = sampleModelBytes(path);
  if (!bytes) throw DataError(Text(Msg::win_sample_model_missing, path.toStdString()));
  return importWeightsBytes(std::string(*bytes), QFileInfo(path).fileName(), path, current);
}

int sampleModelIndex(const QString& path, const std::string& bytes) {
  const QList<SampleModel>& models = sampleModels();
  for (int i = 0; i < models.size(); ++i) {
    if (models[i].path == path || sampleModelBytes(models[i].path) == std::string_view(bytes)) return i;
  }
  return -1;
}

QString SampleModel::title() const { return modelTitle(*vocab, path.section(QLatin1Char('/'), -1)); }

const QList<SampleModel>& sampleModels() {
  static QList<SampleModel> out;
  if (!out.isEmpty()) return out;
  for (const ShippedModel& m : shipped_models()) {
    const QString path = QLatin1String(kSampleModelPrefix) + QString::fromUtf8(m.file.data(), static_cast<qsizetype>(m.file.size()));
    try {
      const auto w = loadSampleModel(path, ModelConfig{});
      if (const auto& v = w->loaded.weights.vocab()) out.push_back({path, v});
    } catch (const std::exception&) {
      // a damaged resource is left out of the list; test_models_ui checks that none is
    }
  }
  return out;
}

}  // namespace attnlab::ui
