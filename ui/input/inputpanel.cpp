#include "input/inputpanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QHBoxLayout>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>

#include "input/fulllayerbox.h"
#include "input/samplemodels.h"
#include "input/samplesentences.h"
#include "input/tokenchips.h"
#include "input/variantchooser.h"
#include "input/weightsimport.h"
#include "io/session.h"
#include "pretrained/pretrained_model.h"
#include "text/errors.h"
#include "text/tokenizer.h"
#include "window/smallwidgets.h"
#include "words/coretext.h"
#include "words/language.h"

namespace attnlab::ui {

namespace {

// The chooser's data: "" seeded, a ":/models/…" path, the file dialog, the file now in use.
const QString kFileItem = QStringLiteral("file…");
const QString kImportedItem = QStringLiteral("imported");

QStringList lines(const QPlainTextEdit* e) {
  QStringList out;
  for (const QString& l : e->toPlainText().split(QLatin1Char('\n')))
    if (!l.trimmed().isEmpty()) out << l;
  return out;
}

// The Sample box's item for sentences that are no built-in sample (after the samples).
const int kSourceItem = static_cast<int>(sampleSentences().size());

// The key under which a label is remembered for these sentences and sources.
QString sentencesKey(const QStringList& texts, const QStringList& sources) {
  return texts.join(QChar(0x1f)) + QChar(0x1e) + sources.join(QChar(0x1f));
}

constexpr size_t kRememberedLabels = 16;

QComboBox* combo(const QStringList& items) {
  auto* c = new QComboBox;
  c->addItems(items);
  return c;
}

}  // namespace

InputPanel::InputPanel(QWidget* parent) : QWidget(parent) {
  auto* v = new QVBoxLayout(this);
  samples_ = new QComboBox;
  for (const auto& s : sampleSentences()) samples_->addItem(tr(s.name));
  samples_->setToolTip(tr("Load a sample batch"));
  model_ = new QComboBox;
  model_->setObjectName(QStringLiteral("modelChooser"));
  model_->setToolTip(tr("Which weights compute the attention: seeded random numbers, a small trained model whose "
                        "heads learned real patterns, or a weights file of your own"));
  model_->addItem(tr("Random weights (seeded)"), QString());
  for (const SampleModel& m : sampleModels()) model_->addItem(tr("Trained: %1").arg(m.title()), m.path);
  model_->addItem(tr("Weights file…"), kFileItem);
  connect(model_, &QComboBox::activated, this, &InputPanel::chooseModel);
  auto* sampleRow = new QFormLayout;
  sampleRow->setRowWrapPolicy(QFormLayout::WrapLongRows);
  sampleRow->addRow(tr("Model:"), model_);
  sampleRow->addRow(tr("Sample:"), samples_);
  v->addLayout(sampleRow);

  auto* sentencesLabel = new QLabel(tr("Sentences (one per line; together they form the batch):"));
  sentencesLabel->setWordWrap(true);
  v->addWidget(sentencesLabel);
  sentences_ = new SentenceEdit;
  sentences_->setObjectName(QStringLiteral("sentences"));
  sentences_->setTabChangesFocus(true);
  v->addWidget(sentences_, 2);
  cross_ = new QCheckBox(tr("Cross-attention"));  // short: a check box does not wrap
  cross_->setToolTip(tr("Encoder–decoder: the sentences above become the decoder's input and attend to the source "
                        "sentence below."));
  v->addWidget(cross_);
  source_ = new SentenceEdit;
  source_->setObjectName(QStringLiteral("source"));
  source_->setPlaceholderText(tr("Source sentence (one for all, or one per line)"));
  source_->setTabChangesFocus(true);
  source_->setEnabled(false);
  v->addWidget(source_, 1);
  auto* tokensLabel = new QLabel(tr("Tokens (dashed chips are [PAD] padding; with a trained model, red chips are "
                                    "words it does not know, which it reads as [UNK]):"));
  tokensLabel->setWordWrap(true);
  v->addWidget(tokensLabel);
  chips_ = new TokenChips;
  v->addWidget(chips_);
  v->addWidget(buildKnobs());
  auto* weightsRow = new QHBoxLayout;
  weightsLabel_ = new QLabel;
  weightsLabel_->setObjectName(QStringLiteral("weightsSource"));
  weightsLabel_->setWordWrap(true);
  seeded_ = new QPushButton(tr("Use seeded weights"));
  seeded_->setObjectName(QStringLiteral("seededWeights"));
  seeded_->setToolTip(tr("Forget the imported weights: every knob is free again and the weights follow from the seed."));
  weightsRow->addWidget(weightsLabel_, 1);
  weightsRow->addWidget(seeded_);
  v->addLayout(weightsRow);
  bos_ = new QCheckBox(tr("Begin each sentence with <|endoftext|>"));
  bos_->setObjectName(QStringLiteral("prependBos"));
  bos_->setToolTip(tr("GPT-2 saw every document begin after <|endoftext|>: put it first (position 0), and many heads "
                      "rest their weight on it. Off: the sentence alone, as typed."));
  v->addWidget(bos_);
  connect(bos_, &QCheckBox::toggled, this, [this] { updateChips(); changed(); });
  connect(seeded_, &QPushButton::clicked, this, [this] { setImportedWeights(nullptr); });
  showWeightsSource();
  explain_ = new QLabel;
  explain_->setWordWrap(true);
  explain_->setObjectName(QStringLiteral("explanation"));
  explain_->setStyleSheet(QStringLiteral("QLabel { color: #8a4b00; background: #fff4e0; padding: 6px; border-radius: 4px; }"));
  explain_->hide();
  v->addWidget(explain_);
  error_ = new QLabel;
  error_->setWordWrap(true);
  error_->setStyleSheet(QStringLiteral("QLabel { color: #a00000; }"));
  error_->hide();
  v->addWidget(error_);
  v->addStretch(0);

  debounce_ = new QTimer(this);
  debounce_->setSingleShot(true);
  debounce_->setInterval(kTypingPauseMs);
  connect(debounce_, &QTimer::timeout, this, &InputPanel::emitRequest);
  connect(sentences_, &QPlainTextEdit::textChanged, this, &InputPanel::changed);
  connect(source_, &QPlainTextEdit::textChanged, this, &InputPanel::changed);
  for (SentenceEdit* e : {sentences_, source_})  // the learner's own words from the first key on
    connect(e, &QPlainTextEdit::textChanged, this, [this] {
      if (!restoring_ && sourceLabel() != yourSentencesLabel()) showSource({}, false);
    });
  connect(cross_, &QCheckBox::toggled, this, [this](bool on) {
    source_->setEnabled(on);
    mask_->setCurrentText(on ? QStringLiteral("padding+causal") : QStringLiteral("padding"));
    changed();
  });
  connect(samples_, &QComboBox::activated, this, &InputPanel::loadSample);
  loadSample(0);
  // A choice's full name is in its list; the closed box asks for a few characters, so that the
  // panel (and the window) stays narrow enough for a projector at a large zoom.
  for (QComboBox* c : findChildren<QComboBox*>()) {
    c->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    c->setMinimumContentsLength(std::max(c->minimumContentsLength(), 8));
  }
}

QWidget* InputPanel::buildKnobs() {
  auto* box = new QGroupBox(tr("Model"));
  auto* f = new QFormLayout(box);
  f->setRowWrapPolicy(QFormLayout::WrapLongRows);  // a knob under its name when the panel is narrow (a large zoom)
  dModel_ = spinBox(1, 4096, 64);
  heads_ = spinBox(1, 4096, 8);
  dff_ = spinBox(0, 16384, 0);
  dff_->setSpecialValueText(tr("4 × d_model"));
  layers_ = spinBox(1, static_cast<int>(Limits::kMaxLayers), 1);  // a checkpoint's (GPT-2 medium: 24)
  seed_ = spinBox(0, 1000000, 0);
  mask_ = combo({QStringLiteral("none"), QStringLiteral("padding"), QStringLiteral("causal"), QStringLiteral("padding+causal")});
  mask_->setCurrentIndex(1);
  norm_ = combo({QStringLiteral("pre"), QStringLiteral("post")});
  activation_ = combo({QStringLiteral("relu"), QStringLiteral("gelu"), QStringLiteral("gelu_tanh")});
  positional_ = combo({QStringLiteral("sinusoidal"), QStringLiteral("none"), QStringLiteral("learned")});
  positional_->setToolTip(tr("sinusoidal: the fixed code of the original paper; learned: one trained vector per "
                             "position, as GPT-2 and BERT have (seeded here: random until trained)."));
  maxPositions_ = spinBox(1, static_cast<int>(Limits::kMaxPositions), 1024);
  maxPositions_->setObjectName(QStringLiteral("maxPositions"));
  maxPositions_->setToolTip(tr("Rows of the learned position table: the longest text the model reads."));
  backend_ = combo({tr("CPU (Eigen)"), tr("auto (GPU if any)"), tr("Vulkan (any device)")});
  backend_->setObjectName(QStringLiteral("backend"));
  backend_->setToolTip(tr("Where the products, softmax and activations run. \"Vulkan (any device)\" also uses a "
                          "software device such as lavapipe. ATTNLAB_VULKAN_DEVICE=N picks device N."));
  if (!vulkan_compiled_in()) {
    backend_->setEnabled(false);
    backend_->setToolTip(tr("This build has no Vulkan compute path (built without the Vulkan headers or glslc)."));
  }
  attention_ = combo({tr("full (every score)"), tr("tiled (overview)")});
  attention_->setObjectName(QStringLiteral("attention"));
  attention_->setToolTip(tr("Tiled computes attention block by block (FlashAttention's online softmax) without "
                            "keeping the (heads × queries × keys) score tensors, so long texts fit in memory; the "
                            "heatmaps then show the weights averaged into at most %1 × %1 cells.")
                             .arg(kOverviewCap));
  gradients_ = combo({tr("off"), tr("sum of the output"), tr("next token (trained model)"),
                      tr("per position (your answers)")});
  gradients_->setObjectName(QStringLiteral("gradients"));
  gradients_->setToolTip(tr("Also step through the backward pass: the gradient of every step and parameter, from "
                            "this loss. \"sum of the output\" is output.sum() (every element, [PAD] too); \"next "
                            "token\" is the cross-entropy of a trained model's guess at the next token; \"per "
                            "position\" that of its output at each position against the answer you type."));
  answers_ = new QPlainTextEdit;
  answers_->setObjectName(QStringLiteral("answers"));
  answers_->setTabChangesFocus(true);
  answers_->setFixedHeight(3 * answers_->fontMetrics().height() + 12);
  answers_->setPlaceholderText(tr("One answer per sentence, e.g. 1 1 3 4 5"));
  answers_->setToolTip(tr("The per-position loss compares the model's output at position i with token i of "
                          "the answer on the sentence's line; positions past the answer's end count for nothing."));
  connect(answers_, &QPlainTextEdit::textChanged, this, [this] {
    if (gradients_->currentIndex() == 3) changed();
  });
  budget_ = spinBox(64, 1 << 18, 4096);
  budget_->setObjectName(QStringLiteral("memoryBudget"));
  budget_->setSuffix(tr(" MiB"));
  budget_->setToolTip(tr("The most memory a computation may take; above it you are offered the tiled path."));
  heads_->setObjectName(QStringLiteral("heads"));
  dModel_->setObjectName(QStringLiteral("d_model"));
  f->addRow(tr("d_model (width D):"), dModel_);
  f->addRow(tr("heads (H):"), heads_);
  f->addRow(tr("d_ff (FFN width F):"), dff_);
  f->addRow(tr("layers:"), layers_);
  f->addRow(tr("mask:"), mask_);
  variant_ = new VariantChooser;
  f->addRow(tr("attention variant:"), variant_->kindBox());
  f->addRow(variant_);
  connect(variant_, &VariantChooser::changed, this, &InputPanel::changed);
  variant_->setLayerCount(layers_->value());
  connect(layers_, &QSpinBox::valueChanged, variant_, &VariantChooser::setLayerCount);
  f->addRow(tr("LayerNorm:"), norm_);
  f->addRow(tr("activation:"), activation_);
  f->addRow(tr("position code:"), positional_);
  f->addRow(tr("position rows:"), maxPositions_);
  const auto showRows = [f, this] { f->setRowVisible(maxPositions_, positional_->currentIndex() == 2); };
  showRows();
  connect(positional_, &QComboBox::currentIndexChanged, this, showRows);
  finalNorm_ = new QCheckBox(tr("LayerNorm after the last layer"));
  finalNorm_->setObjectName(QStringLiteral("finalNorm"));
  finalNorm_->setToolTip(tr("A final LayerNorm on what leaves each stack, as nn.TransformerEncoder(norm=…) and "
                            "GPT-2's ln_f: pre-norm stacks need it, since their last residual is never normalised."));
  f->addRow(finalNorm_);
  connect(finalNorm_, &QCheckBox::toggled, this, &InputPanel::changed);
  f->addRow(tr("seed:"), seed_);
  f->addRow(tr("backend:"), backend_);
  f->addRow(tr("attention:"), attention_);
  fullLayer_ = new FullLayerBox;
  f->addRow(tr("full scores in:"), fullLayer_);
  const auto showFull = [f, this] { f->setRowVisible(fullLayer_, attention_->currentIndex() == 1); };
  showFull();
  connect(attention_, &QComboBox::currentIndexChanged, this, showFull);
  fullLayer_->setLayerCount(layers_->value());
  connect(layers_, &QSpinBox::valueChanged, fullLayer_, &FullLayerBox::setLayerCount);
  f->addRow(tr("gradients:"), gradients_);
  f->addRow(tr("answers:"), answers_);
  f->setRowVisible(answers_, false);
  connect(gradients_, &QComboBox::currentIndexChanged, this, [f, this](int i) { f->setRowVisible(answers_, i == 3); });
  f->addRow(tr("memory budget:"), budget_);
  for (QSpinBox* s : {dModel_, heads_, dff_, layers_, seed_, budget_, maxPositions_})
    connect(s, &QSpinBox::valueChanged, this, &InputPanel::changed);
  for (QComboBox* c : {mask_, norm_, activation_, positional_, backend_, attention_, static_cast<QComboBox*>(fullLayer_), gradients_})
    connect(c, &QComboBox::currentIndexChanged, this, &InputPanel::changed);
  return box;
}

QStringList InputPanel::sampleNames() const {
  QStringList out;
  for (const auto& s : sampleSentences()) out << tr(s.name);
  return out;
}

void InputPanel::loadSample(int index) {
  if (index < 0 || index >= kSourceItem) return;
  const SampleSentences& s = sampleSentences()[static_cast<size_t>(index)];
  restoring_ = true;
  showSource(tr(s.name), false);
  sentences_->setSentences(sampleLines(s, false).join(QLatin1Char('\n')));
  cross_->setChecked(s.source != nullptr);
  source_->setSentences(sampleLines(s, true).join(QLatin1Char('\n')));
  restoring_ = false;
  changed();
}

QString InputPanel::yourSentencesLabel() { return tr("Your sentences"); }
QString InputPanel::lessonLabel(const QString& title) { return tr("Lesson: %1").arg(title); }
QString InputPanel::lessonLabel(const Session& lesson, const QString& fileName) {
  const bool zh = Language::effective() == UiLanguage::Chinese && !lesson.title.zh.empty();
  const QString title = QString::fromStdString(zh ? lesson.title.zh : lesson.title.en);
  return lessonLabel(title.isEmpty() ? fileName : title);
}
QString InputPanel::exerciseLabel(const QString& title) { return tr("Exercise: %1").arg(title); }
QString InputPanel::examplesLabel(const QString& model) { return tr("Examples of %1").arg(model); }

void InputPanel::setSourceLabel(const QString& label) { showSource(label, /*remember=*/true); }

void InputPanel::showSource(const QString& label, bool remember) {
  const QString text = label.isEmpty() ? yourSentencesLabel() : label;
  int index = -1;
  for (int i = 0; i < kSourceItem; ++i)
    if (samples_->itemText(i) == text) index = i;
  const QSignalBlocker quiet(samples_);
  if (index >= 0) {
    while (samples_->count() > kSourceItem) samples_->removeItem(kSourceItem);
  } else {
    if (samples_->count() == kSourceItem) samples_->addItem(text);
    samples_->setItemText(kSourceItem, text);
    samples_->setItemData(kSourceItem, text, Qt::ToolTipRole);
    index = kSourceItem;
  }
  samples_->setCurrentIndex(index);
  // The closed box shows a few characters only: the whole label is in its tooltip.
  samples_->setToolTip(text + QLatin1Char('\n') + tr("Load a sample batch"));
  if (remember && index == kSourceItem && text != yourSentencesLabel()) {  // a name the sentences alone do not give back
    const QString key = sentencesKey(lines(sentences_), cross_->isChecked() ? lines(source_) : QStringList());
    std::erase_if(named_, [&](const auto& n) { return n.first == key; });
    named_.insert(named_.begin(), {key, text});
    if (named_.size() > kRememberedLabels) named_.pop_back();
  }
}

QString InputPanel::sourceLabel() const { return samples_->currentText(); }

void InputPanel::guessSource() {
  const QStringList texts = lines(sentences_);
  const QStringList sources = cross_->isChecked() ? lines(source_) : QStringList();
  const QString key = sentencesKey(texts, sources);
  for (const auto& [named, label] : named_)
    if (named == key) return showSource(label, false);
  for (const SampleSentences& s : sampleSentences())
    if (sampleLines(s, false) == texts && sampleLines(s, true) == sources) return showSource(tr(s.name), false);
  if (weights_ && sources.isEmpty())
    if (const auto& v = weights_->loaded.weights.vocab()) {
      QStringList examples;
      for (const auto& e : v->examples()) examples << QString::fromStdString(e);
      if (!examples.isEmpty() && examples == texts) return showSource(examplesLabel(modelName()), false);
    }
  showSource({}, false);
}

QString InputPanel::modelName() const {
  if (!weights_) return {};
  const auto& v = weights_->loaded.weights.vocab();
  return v ? modelTitle(*v, weights_->name) : weights_->name;
}

QString InputPanel::problem() const {
  const int d = dModel_->value(), h = heads_->value();
  if (h > d)
    return tr("%1 heads need d_model ≥ %1: each head gets d_model / heads numbers, and %2 / %1 is less than "
              "one. Lower the heads or raise d_model.").arg(h).arg(d);
  if (d % h == 0) {  // a variant runs in the encoder, whose mask is padding in cross mode
    const MaskKind encoder = cross_->isChecked() ? MaskKind::Padding : parse_mask(mask_->currentText().toStdString());
    return VariantChooser::problem(variant_->config(), layers_->value(), encoder);
  }
  QStringList divisors;
  for (int k = 1; k <= d && divisors.size() < 12; ++k)
    if (d % k == 0) divisors << QString::number(k);
  return tr("%1 heads cannot share d_model = %2 evenly: each head would get %2 / %1 = %3 numbers, and a head "
            "needs a whole number. Try heads = %4, or a d_model that %1 divides (e.g. %5). Nothing is "
            "recomputed until then.")
      .arg(h).arg(d).arg(double(d) / h, 0, 'g', 3).arg(divisors.join(QStringLiteral(", ")))
      .arg(((d + h - 1) / h) * h);
}

Request InputPanel::currentRequest() const {
  Request r;
  r.texts = lines(sentences_);
  if (cross_->isChecked()) r.memoryTexts = lines(source_);
  r.cfg.d_model = dModel_->value();
  r.cfg.heads = heads_->value();
  r.cfg.d_ff = dff_->value() == 0 ? 4 * r.cfg.d_model : dff_->value();
  r.cfg.layers = layers_->value();
  r.cfg.mask = parse_mask(mask_->currentText().toStdString());
  r.cfg.norm = parse_norm(norm_->currentText().toStdString());
  r.cfg.activation = parse_activation(activation_->currentText().toStdString());
  r.cfg.positional = parse_positional(positional_->currentText().toStdString());
  r.cfg.max_positions = maxPositions_->value();
  r.cfg.final_norm = finalNorm_->isChecked();
  r.cfg.seed = static_cast<uint64_t>(seed_->value());
  r.cfg.cross = !r.memoryTexts.isEmpty();
  r.cfg.overview_cap = attention_->currentIndex() == 1 ? kOverviewCap : 0;
  if (r.cfg.overview_cap > 0) r.cfg.full_layers = fullLayer_->layers();
  r.cfg.variant = variant_->config();
  r.memoryBudgetMiB = budget_->value();
  r.backend = backendKind();
  static constexpr LossKind kLosses[] = {LossKind::Sum, LossKind::NextToken, LossKind::PerPosition};
  if (gradients_->currentIndex() > 0) r.loss = kLosses[gradients_->currentIndex() - 1];
  if (r.loss == LossKind::PerPosition) r.answers = lines(answers_);
  if (weights_) {  // what the file fixes, including what has no knob (eps)
    applyWeightsConfig(r.cfg, weights_->loaded);
    r.weights = weights_;
    r.prependBos = bosApplies() && bos_->isChecked();
  }
  return r;
}

// The knobs of what a weights file decides (applyWeightsConfig), shown as `c` has them.
void InputPanel::showModelKnobs(const ModelConfig& c) {
  dModel_->setValue(static_cast<int>(c.d_model));
  heads_->setValue(static_cast<int>(c.heads));
  dff_->setValue(c.d_ff == 4 * c.d_model ? 0 : static_cast<int>(c.d_ff));
  layers_->setValue(static_cast<int>(c.layers));
  norm_->setCurrentText(QString::fromUtf8(norm_name(c.norm).data()));
  activation_->setCurrentText(QString::fromUtf8(activation_name(c.activation).data()));
  positional_->setCurrentText(QString::fromUtf8(positional_name(c.positional).data()));
  maxPositions_->setValue(static_cast<int>(c.max_positions));
  finalNorm_->setChecked(c.final_norm);
  seed_->setValue(static_cast<int>(std::min<uint64_t>(c.seed, 1000000)));
}

void InputPanel::setImportedWeights(ImportedWeightsPtr w, bool withExamples) {
  weights_ = std::move(w);
  if (weights_) {
    restoring_ = true;
    showModelKnobs(weights_->loaded.cfg);
    cross_->setChecked(weights_->loaded.cfg.cross);
    if (const auto& v = weights_->loaded.weights.vocab()) {
      if (v->mask) mask_->setCurrentText(QString::fromUtf8(mask_name(weights_->loaded.cfg.mask).data()));
      // Its own examples: every other word would be [UNK] to it.
      QStringList examples;
      for (const auto& e : v->examples()) examples << QString::fromStdString(e);
      if (withExamples && !examples.isEmpty()) {
        sentences_->setSentences(examples.join(QLatin1Char('\n')));
        showSource(examplesLabel(modelName()), false);
      }
    }
    restoring_ = false;
    if (!withExamples) guessSource();  // a restored model: its examples may be what the box holds
  }
  showWeightsSource();
  updateChips();  // a checkpoint cuts the text its own way
  changed();
}

void InputPanel::chooseModel(int index) {
  const QString data = model_->itemData(index).toString();
  if (data == kImportedItem) return;
  if (data == kFileItem) {
    syncModelBox();  // stays on what is in use until a file is read
    emit importFileRequested();
    return;
  }
  if (data.isEmpty()) {
    setImportedWeights(nullptr);
    return;
  }
  try {
    setImportedWeights(loadSampleModel(data, currentRequest().cfg), /*withExamples=*/true);
    setError(QString());
  } catch (const std::exception& e) {
    setError(CoreText::of(e));
    syncModelBox();
  }
}

void InputPanel::syncModelBox() {
  const int stale = model_->findData(kImportedItem);
  if (stale >= 0) model_->removeItem(stale);
  if (!weights_) {
    model_->setCurrentIndex(0);
    return;
  }
  // a sample model, also when it came back from a session (embedded there, so read from a copy)
  const int sample = sampleModelIndex(weights_->path, weights_->bytes);
  if (sample >= 0) {
    model_->setCurrentIndex(model_->findData(sampleModels()[sample].path));
    return;
  }
  model_->addItem(tr("File: %1").arg(weights_->name), kImportedItem);
  model_->setCurrentIndex(model_->count() - 1);
}

bool InputPanel::bosApplies() const {
  return weights_ && weights_->checkpoint && pretrained::takes_prepended_bos(*weights_->checkpoint);
}

void InputPanel::showWeightsSource() {
  const bool locked = weights_ != nullptr;
  const bool trained = locked && weights_->loaded.weights.vocab();
  for (QWidget* k : std::initializer_list<QWidget*>{dModel_, heads_, dff_, layers_, norm_, activation_, positional_, maxPositions_, finalNorm_, seed_, cross_})
    k->setEnabled(!locked);
  // a trained model reads with the mask it learned with (when its file says which)
  mask_->setEnabled(!(trained && weights_->loaded.weights.vocab()->mask));
  chips_->setVocabulary(trained && !weights_->checkpoint ? weights_->loaded.weights.vocab() : nullptr);
  syncModelBox();
  seeded_->setVisible(locked);
  bos_->setVisible(bosApplies());
  if (!locked) {
    weightsLabel_->setText(tr("Weights: seeded random numbers (File ▸ Import weights… loads a trained model)."));
    return;
  }
  const ModelConfig& f = weights_->loaded.cfg;
  weightsLabel_->setText(tr("Weights: <b>%1</b> — d_model %2, %3 heads, %4 layer(s)%5; the knobs it fixes are locked.")
                             .arg(weights_->name.toHtmlEscaped())
                             .arg(f.d_model)
                             .arg(f.heads)
                             .arg(f.layers)
                             .arg(f.cross ? tr(", encoder–decoder") : QString()));
  weightsLabel_->setToolTip(weights_->path);
}

BackendKind InputPanel::backendKind() const {
  static const BackendKind kinds[] = {BackendKind::Cpu, BackendKind::Auto, BackendKind::Vulkan};
  return kinds[std::clamp(backend_->currentIndex(), 0, 2)];
}

void InputPanel::setBackendKind(BackendKind k) {
  backend_->setCurrentIndex(k == BackendKind::Cpu ? 0 : k == BackendKind::Auto ? 1 : 2);
}

QString InputPanel::errorText() const { return error_->isHidden() ? QString() : error_->text(); }

void InputPanel::restore(const Request& r, bool quiet) {
  restoring_ = true;
  sentences_->setSentences(r.texts.join(QLatin1Char('\n')));
  cross_->setChecked(!r.memoryTexts.isEmpty());
  source_->setSentences(r.memoryTexts.join(QLatin1Char('\n')));
  showModelKnobs(r.cfg);
  mask_->setCurrentText(QString::fromUtf8(mask_name(r.cfg.mask).data()));
  attention_->setCurrentIndex(r.cfg.overview_cap > 0 ? 1 : 0);
  fullLayer_->setLayerCount(static_cast<int>(r.cfg.layers));
  fullLayer_->setLayers(r.cfg.full_layers);
  gradients_->setCurrentIndex(!r.loss ? 0 : *r.loss == LossKind::PerPosition ? 3 : *r.loss == LossKind::NextToken ? 2 : 1);
  answers_->setPlainText(r.answers.join(QLatin1Char('\n')));
  variant_->setLayerCount(static_cast<int>(r.cfg.layers));
  variant_->setConfig(r.cfg.variant);
  budget_->setValue(static_cast<int>(std::clamp<qint64>(r.memoryBudgetMiB, budget_->minimum(), budget_->maximum())));
  weights_ = r.weights;
  bos_->setChecked(r.prependBos);
  showWeightsSource();
  guessSource();
  restoring_ = false;
  changed();
  if (quiet) debounce_->stop();
}

QComboBox* InputPanel::variantBox() const { return variant_->kindBox(); }

void InputPanel::setError(const QString& message) {
  error_->setText(message);
  error_->setVisible(!message.isEmpty());
}

void InputPanel::updateChips() {
  std::vector<std::vector<std::string>> rows;
  try {
    const Request r = currentRequest();
    std::vector<std::string> texts;
    for (const auto& t : r.texts) texts.push_back(t.toStdString());
    if (weights_ && weights_->checkpoint) rows = checkpointChips(*weights_, r.texts, r.prependBos);
    else if (!texts.empty()) rows = make_token_batch(texts, "--text").tokens;
  } catch (const std::exception&) {
    // An empty line in progress, or one that cannot be used (a NUL, invalid UTF-8): show what
    // tokenises, row by row; the unusable row stays empty (the message says why).
    for (const auto& t : lines(sentences_)) {
      try {
        rows.push_back(tokenize(t.toStdString()));
      } catch (const std::exception&) {
        rows.emplace_back();
      }
    }
  }
  chips_->setRows(rows);
}

void InputPanel::changed() {
  if (restoring_) return;
  // Typing waits for a pause (150 ms); a knob (spin box, chooser) answers at once — the repaint
  // within 100 ms a teacher expects (bench_gui) — with just enough delay to merge a held arrow.
  const bool typing = !sender() || qobject_cast<QPlainTextEdit*>(sender());
  if (typing) updateChips();  // a knob does not change the tokens
  const QString why = problem();
  explain_->setText(why);
  explain_->setVisible(!why.isEmpty());
  debounce_->setInterval(typing ? kTypingPauseMs : kKnobPauseMs);
  if (why.isEmpty()) debounce_->start();
  else debounce_->stop();
  if (!why.isEmpty())  // in view: the note sits under the knobs, which may be scrolled away
    QTimer::singleShot(0, this, [this] {
      for (QWidget* p = parentWidget(); p; p = p->parentWidget())
        if (auto* scroll = qobject_cast<QScrollArea*>(p)) {
          scroll->ensureWidgetVisible(explain_);
          break;
        }
    });
  if (why != lastProblem_) {
    lastProblem_ = why;
    emit problemChanged(why);
  }
}

void InputPanel::emitRequest() {
  if (!problem().isEmpty()) return;
  emit requestChanged(currentRequest());
}

}  // namespace attnlab::ui
