#include "input/samplemodels.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include "input/weightsimport.h"
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

ImportedWeightsPtr loadSampleModel(const QString& path, const ModelConfig& current) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly))
    throw DataError(Text(Msg::win_sample_model_missing, path.toStdString()));
  return importWeightsBytes(f.readAll().toStdString(), QFileInfo(path).fileName(), path, current);
}

int sampleModelIndex(const QString& path, const std::string& bytes) {
  const QList<SampleModel>& models = sampleModels();
  for (int i = 0; i < models.size(); ++i) {
    if (models[i].path == path) return i;
    QFile f(models[i].path);
    if (f.size() == static_cast<qint64>(bytes.size()) && f.open(QIODevice::ReadOnly) &&
        f.readAll() == QByteArray::fromRawData(bytes.data(), static_cast<qsizetype>(bytes.size())))
      return i;
  }
  return -1;
}

QString SampleModel::title() const { return modelTitle(*vocab, path.section(QLatin1Char('/'), -1)); }

const QList<SampleModel>& sampleModels() {
  static QList<SampleModel> out;
  if (!out.isEmpty()) return out;
  const QStringList names = QDir(QStringLiteral(":/models")).entryList({QStringLiteral("*.safetensors")}, QDir::Files,
                                                                       QDir::Name);
  for (const QString& name : names) {
    const QString path = QStringLiteral(":/models/") + name;
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
