// The trained sample models shipped in sample_inputs/models/ (embedded in core,
// io/shipped_models.h, and named ":/models/<file>" here, as sessions and settings store them) and
// a trained model's words for the window: its title and its note, in the window's language.
#pragma once

#include <QList>
#include <QString>

#include <optional>
#include <string_view>

#include "window/controller.h"

namespace attnlab::ui {

struct SampleModel {
  QString path;  // ":/models/sort-digits.safetensors"
  std::shared_ptr<const TrainedVocab> vocab;
  QString title() const;  // the model's own, in the window's language (modelTitle)
};

inline constexpr char kSampleModelPrefix[] = ":/models/";

// Every embedded model, in file-name order (read once; a damaged one is left out).
const QList<SampleModel>& sampleModels();
// Which sample model a weights file is (its resource path, or the same bytes), or -1.
int sampleModelIndex(const QString& path, const std::string& bytes);
// The bytes of the sample model named ":/models/<file>"; nothing for any other path.
std::optional<std::string_view> sampleModelBytes(const QString& path);
// Loads a sample model (importWeightsBytes); DataError when the resource is missing or damaged.
ImportedWeightsPtr loadSampleModel(const QString& path, const ModelConfig& current);

// The model's title / note in the window's language (the file's `title_zh` / `note_zh` in Chinese
// when it has them), or its file name when it has no title.
QString modelTitle(const TrainedVocab& v, const QString& fallback);
QString modelNote(const TrainedVocab& v);

}  // namespace attnlab::ui
