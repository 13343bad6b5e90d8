// Sentences, the cross-attention source, the samples, and the knobs. Emits a Request a moment
// after the user stops typing — but only once the configuration is valid (heads must divide
// d_model: until then a friendly explanation is shown and nothing is recomputed).
#pragma once

#include <QWidget>

#include "input/sentenceedit.h"
#include "window/controller.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTimer;

namespace attnlab::ui {

class TokenChips;
class VariantChooser;

class InputPanel : public QWidget {
  Q_OBJECT
 public:
  explicit InputPanel(QWidget* parent = nullptr);

  Request currentRequest() const;
  // Non-empty when the knobs are inconsistent (e.g. heads not dividing d_model).
  QString problem() const;
  BackendKind backendKind() const;  // not part of restore(): a lesson does not choose the hardware
  void setBackendKind(BackendKind k);
  void setError(const QString& message);  // shown under the inputs ("" clears)
  void loadSample(int index);             // index into sampleNames()
  QStringList sampleNames() const;
  // Shows r in the widgets; emits one request a moment later, or none when quiet (the caller
  // computes r itself).
  void restore(const Request& r, bool quiet = false);
  // Imported weights fix the sizes, norm, activation, position code and seed: those knobs show
  // the file's values and are locked until "Use seeded weights". null: seeded weights again.
  // withExamples: a trained model's example sentences replace the box's (when the learner chooses
  // or imports a model, not when a window restores one).
  void setImportedWeights(ImportedWeightsPtr w, bool withExamples = false);
  ImportedWeightsPtr importedWeights() const { return weights_; }
  QPushButton* seededWeightsButton() const { return seeded_; }
  // Random seeded weights | each sample model (samplemodels.h) | a weights file… | the file now
  // in use. Choosing a sample model loads it and puts its example sentences in the box.
  QComboBox* modelBox() const { return model_; }

  QPlainTextEdit* sentencesEdit() const { return sentences_; }
  QSpinBox* headsBox() const { return heads_; }
  QSpinBox* dModelBox() const { return dModel_; }
  QSpinBox* seedBox() const { return seed_; }
  QSpinBox* layersBox() const { return layers_; }
  QComboBox* backendBox() const { return backend_; }
  QComboBox* maskBox() const { return mask_; }
  QCheckBox* crossBox() const { return cross_; }  // encoder–decoder with a source sentence
  QPlainTextEdit* sourceEdit() const { return source_; }
  QComboBox* attentionBox() const { return attention_; }  // 0: every score; 1: tiled, overview heatmaps
  QSpinBox* budgetBox() const { return budget_; }         // memory budget, MiB
  QLabel* explanationLabel() const { return explain_; }
  VariantChooser* variantChooser() const { return variant_; }  // the attention variant and its knobs
  QComboBox* variantBox() const;                               // its kind
  TokenChips* chips() const { return chips_; }

 signals:
  void requestChanged(const attnlab::ui::Request& r);
  // "Weights file…" in the model chooser: the window opens its file dialog (File ▸ Import weights…).
  void importFileRequested();
  // The inputs cannot run as they are (why), or can again (""): nothing is recomputed meanwhile.
  void problemChanged(const QString& why);

 private:
  QWidget* buildKnobs();
  void changed();      // any edit: refresh chips and explanation, (re)start the debounce timer
  void emitRequest();
  void updateChips();
  void showWeightsSource();
  void showModelKnobs(const ModelConfig& c);
  void chooseModel(int index);
  void syncModelBox();  // the chooser shows weights_

  SentenceEdit* sentences_;
  SentenceEdit* source_;
  QCheckBox* cross_;
  QComboBox* samples_;
  QComboBox* model_;
  TokenChips* chips_;
  QSpinBox *dModel_, *heads_, *dff_, *layers_, *seed_, *budget_;
  QComboBox *mask_, *norm_, *activation_, *positional_, *backend_, *attention_;
  VariantChooser* variant_;
  QLabel* explain_;
  QLabel* weightsLabel_;
  QPushButton* seeded_;
  ImportedWeightsPtr weights_;
  QLabel* error_;
  QString lastProblem_;  // what problemChanged said last
  QTimer* debounce_;
  bool restoring_ = false;
};

}  // namespace attnlab::ui
