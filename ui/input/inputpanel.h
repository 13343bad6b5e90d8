// Sentences, the cross-attention source, the samples, and the knobs. Emits a Request a moment
// after the user stops typing — but only once the configuration is valid (heads must divide
// d_model: until then a friendly explanation is shown and nothing is recomputed).
#pragma once

#include <QWidget>

#include <utility>
#include <vector>

#include "input/sentenceedit.h"
#include "window/controller.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTimer;

namespace attnlab {
struct Session;
}

namespace attnlab::ui {

class TokenChips;
class FullLayerBox;
class VariantChooser;

// How long the panel waits before it asks for a result: after a keystroke in the sentences, and
// after a knob turned.
inline constexpr int kTypingPauseMs = 150;
inline constexpr int kKnobPauseMs = 15;

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
  // What the Sample box says the sentences are. A built-in sample's name selects that sample;
  // any other label ("Examples of …", "Lesson: …", "Exercise: …") is shown as an item of its own;
  // empty: "Your sentences". The panel keeps it true by itself where it can: a sample it loads, a
  // trained model's examples it puts in the box, the learner's own typing ("Your sentences"), and
  // after restore() whichever of those the sentences are — or the label they last had here (a
  // lesson's, an exercise's), so that leaving an exercise gives the teacher's lesson its name back.
  // The window names a lesson or an exercise after it restores one.
  void setSourceLabel(const QString& label);
  QString sourceLabel() const;  // what the Sample box shows now
  QComboBox* sampleBox() const { return samples_; }
  static QString yourSentencesLabel();                   // "Your sentences"
  static QString lessonLabel(const QString& title);      // "Lesson: <title>"
  // A session as a lesson: its title in the window's language, or its file name when it has none.
  static QString lessonLabel(const Session& lesson, const QString& fileName);
  static QString exerciseLabel(const QString& title);    // "Exercise: <title>"
  static QString examplesLabel(const QString& model);    // "Examples of <model>"
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
  QPlainTextEdit* answersEdit() const { return answers_; }  // the per-position loss's answers
  QString errorText() const;  // the message under the inputs ("" when none is shown)
  QSpinBox* headsBox() const { return heads_; }
  QSpinBox* dModelBox() const { return dModel_; }
  QSpinBox* seedBox() const { return seed_; }
  QSpinBox* layersBox() const { return layers_; }
  QComboBox* backendBox() const { return backend_; }
  QComboBox* maskBox() const { return mask_; }
  QComboBox* positionalBox() const { return positional_; }
  QCheckBox* finalNormBox() const { return finalNorm_; }
  QSpinBox* maxPositionsBox() const { return maxPositions_; }  // shown with "learned" only
  QCheckBox* crossBox() const { return cross_; }  // encoder–decoder with a source sentence
  QCheckBox* bosBox() const { return bos_; }      // shown for a GPT-2 checkpoint only
  QPlainTextEdit* sourceEdit() const { return source_; }
  QComboBox* attentionBox() const { return attention_; }  // 0: every score; 1: tiled, overview heatmaps
  FullLayerBox* fullLayerBox() const { return fullLayer_; }  // with tiled: the layer kept in full
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
  bool bosApplies() const;  // a GPT-2 checkpoint: the <|endoftext|> box has a meaning
  QWidget* buildKnobs();
  void changed();      // any edit: refresh chips and explanation, (re)start the debounce timer
  void emitRequest();
  void updateChips();
  void showWeightsSource();
  void showModelKnobs(const ModelConfig& c);
  void chooseModel(int index);
  void syncModelBox();  // the chooser shows weights_
  void guessSource();   // the Sample box after restore(): a built-in sample, the model's examples, or the learner's
  void showSource(const QString& label, bool remember);  // setSourceLabel; remember: for guessSource
  QString modelName() const;  // the trained model in use, by its title

  SentenceEdit* sentences_;
  SentenceEdit* source_;
  QCheckBox* cross_;
  QComboBox* samples_;
  QComboBox* model_;
  TokenChips* chips_;
  QSpinBox *dModel_, *heads_, *dff_, *layers_, *seed_, *budget_;
  QComboBox *mask_, *norm_, *activation_, *positional_, *backend_, *attention_;
  FullLayerBox* fullLayer_ = nullptr;
  QSpinBox* maxPositions_ = nullptr;  // the learned table's rows, shown with "learned" only
  QCheckBox* finalNorm_ = nullptr;
  QCheckBox* bos_ = nullptr;  // a GPT-2 checkpoint: <|endoftext|> before each sentence
  QComboBox* gradients_;  // off, sum, next-token, per-position: the backward pass's loss (Request::loss)
  QPlainTextEdit* answers_;  // per-position: one answer per sentence (Request::answers), shown with it
  VariantChooser* variant_;
  QLabel* explain_;
  QLabel* weightsLabel_;
  QPushButton* seeded_;
  ImportedWeightsPtr weights_;
  QLabel* error_;
  QString lastProblem_;  // what problemChanged said last
  QTimer* debounce_;
  bool restoring_ = false;
  // The labels the window gave to sentences (sentences and sources as one key), the latest first:
  // guessSource's first guess.
  std::vector<std::pair<QString, QString>> named_;
};

}  // namespace attnlab::ui
