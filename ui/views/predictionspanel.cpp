#include "views/predictionspanel.h"

#include "views/continuebox.h"

#include <QComboBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "input/samplemodels.h"
#include "subword/subword_token.h"
#include "window/smallwidgets.h"

namespace attnlab::ui {

namespace {


QString text(const std::string& s) { return QString::fromStdString(s); }
// A vocabulary entry as a chip spells it (a byte-level piece's leading space as ␣).
QString piece(const std::string& s, const TrainedVocab& v) { return text(subword::display_piece(s, v.byte_level)); }

// A language model's most telling guess: after the last word. After a closing full stop there is
// nothing to guess (the models have no end-of-text token), so the position before it.
int lastWordPosition(const std::vector<std::string>& tokens, int count) {
  const QString last = count > 0 ? QString::fromStdString(tokens[static_cast<size_t>(count - 1)]) : QString();
  const bool punctuation = last.size() == 1 && last[0].isPunct();
  return count > 1 && punctuation ? count - 2 : count - 1;
}

// A masked-word model's telling guess: at the first [MASK] the text has (else the first piece after [CLS]).
int firstMaskPosition(const std::vector<std::string>& tokens, int count) {
  for (int i = 0; i < count && i < static_cast<int>(tokens.size()); ++i)
    if (tokens[static_cast<size_t>(i)] == "[MASK]") return i;
  return count > 1 ? 1 : 0;
}

}  // namespace

PredictionsPanel::PredictionsPanel(QWidget* parent) : QWidget(parent) {
  auto* v = new QVBoxLayout(this);
  empty_ = wrappedLabel(QStringLiteral("predictionsEmpty"));
  empty_->setText(tr("Predictions need a trained model. Choose one under <b>Model</b> in the input panel: its "
                     "output head then turns the last layer's vectors into guesses, and this panel shows them."));
  v->addWidget(empty_);
  body_ = new QWidget;
  auto* b = new QVBoxLayout(body_);
  b->setContentsMargins(0, 0, 0, 0);
  title_ = wrappedLabel(QStringLiteral("predictionsTitle"));
  note_ = shadedLabel(QStringLiteral("modelNote"));
  b->addWidget(title_);
  auto* form = new QFormLayout;
  sentence_ = new QComboBox;
  sentence_->setObjectName(QStringLiteral("predictionSentence"));
  position_ = new QComboBox;
  position_->setObjectName(QStringLiteral("predictionPosition"));
  form->addRow(tr("Sentence:"), sentence_);
  form->addRow(tr("Position:"), position_);
  b->addLayout(form);
  question_ = wrappedLabel(QStringLiteral("predictionQuestion"));
  b->addWidget(question_);
  auto* grid = new QGridLayout;
  for (int r = 0; r < kTopK; ++r) {
    Row row{new QLabel, new QProgressBar, new QLabel};
    row.token->setTextInteractionFlags(Qt::TextSelectableByMouse);
    row.bar->setRange(0, 1000);
    row.bar->setMinimumWidth(80);
    row.bar->setTextVisible(false);  // the format stays the bar's accessible text
    row.percent->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    grid->addWidget(new QLabel(tr("%1.").arg(r + 1)), r, 0);
    grid->addWidget(row.token, r, 1);
    grid->addWidget(row.bar, r, 2);
    grid->addWidget(row.percent, r, 3);
    rows_.push_back(row);
  }
  grid->setColumnStretch(2, 1);
  b->addLayout(grid);
  answer_ = wrappedLabel(QStringLiteral("predictionAnswer"));
  b->addWidget(answer_);
  continue_ = new ContinueBox;
  b->addWidget(continue_);
  connect(continue_, &ContinueBox::appendRequested, this, [this] { continue_->drawFor(sentence_->currentIndex()); });
  connect(continue_, &ContinueBox::pieceDrawn, this, &PredictionsPanel::pieceDrawn);
  b->addWidget(note_);  // which heads to look at: after the guesses, which come first
  v->addWidget(body_);
  v->addStretch(1);
  body_->hide();
  connect(sentence_, &QComboBox::currentIndexChanged, this, &PredictionsPanel::showSentence);
  connect(position_, &QComboBox::currentIndexChanged, this, &PredictionsPanel::showPosition);
  connect(position_, &QComboBox::activated, this, [this] { picked_ = true; });
}

void PredictionsPanel::setResult(TraceResultPtr result) {
  result_ = std::move(result);
  top_.clear();
  const Step* probs = nullptr;
  if (result_ && result_->vocab()) {
    probs = result_->trace.find(std::string(result_->cfg.cross ? "decoder" : "encoder") + ".output_head.probs");
    if (probs) top_ = top_predictions(probs->tensor, *result_->vocab(), result_->batch.text.lengths, kTopK);
  }
  continue_->setResult(result_);
  continue_->setVisible(result_ && result_->vocab() && result_->vocab()->task == Task::NextToken);
  empty_->setVisible(top_.empty());
  body_->setVisible(!top_.empty());
  if (top_.empty()) return;
  const TrainedVocab& v = *result_->vocab();
  title_->setText(tr("<b>%1</b> — %2")
                      .arg(modelTitle(v, tr("Trained model")).toHtmlEscaped(),
                           v.task == Task::NextToken    ? tr("each position guesses the next token")
                           : v.task == Task::MaskedWord ? tr("each position guesses its own piece: type [MASK] to hide a word")
                                                        : tr("each position gives the answer's token at that place")));
  const QString note = modelNote(v);
  note_->setText(noteHidden_ ? tr("(The model's note names its heads: it is hidden until the exercise is answered.)") : note);
  note_->setVisible(!note.isEmpty());
  const int keep = sentence_->currentIndex();
  const QSignalBlocker block(sentence_);
  sentence_->clear();
  for (size_t s = 0; s < top_.size(); ++s) sentence_->addItem(tr("Sentence %1").arg(s));  // from 0, as everywhere
  sentence_->setCurrentIndex(std::clamp(keep, 0, sentence_->count() - 1));
  showSentence();
}

void PredictionsPanel::setNoteHidden(bool hidden) {
  if (noteHidden_ == hidden) return;
  noteHidden_ = hidden;
  if (result_) setResult(result_);
}

void PredictionsPanel::showSentence() {
  const int b = sentence_->currentIndex();
  if (b < 0 || static_cast<size_t>(b) >= top_.size()) return;
  const auto& tokens = result_->batch.text.shown_row(b);
  const int keep = position_->currentIndex();
  // A position the learner picked stays while the model and the sentence's length do; otherwise a
  // language model's most interesting guess is after the last word, a task's at its first place.
  const bool same = picked_ && shownVocab_ == result_->vocab().get() && shownBatch_ == b &&
                    shownLength_ == static_cast<int>(top_[static_cast<size_t>(b)].size());
  const QSignalBlocker block(position_);
  position_->clear();
  for (size_t i = 0; i < top_[static_cast<size_t>(b)].size(); ++i)
    position_->addItem(tr("%1: %2").arg(i).arg(text(tokens[i])));  // positions from 0
  const Task task = result_->vocab()->task;
  const bool next = task == Task::NextToken;
  position_->setCurrentIndex(same && keep >= 0 && keep < position_->count() ? keep
                             : next                     ? lastWordPosition(tokens, position_->count())
                             : task == Task::MaskedWord ? firstMaskPosition(result_->batch.text.tokens[static_cast<size_t>(b)],
                                                                            position_->count())
                                                        : 0);
  picked_ = same;
  shownVocab_ = result_->vocab().get();
  shownBatch_ = b;
  shownLength_ = position_->count();
  QStringList guesses;
  for (const auto& cell : top_[static_cast<size_t>(b)]) guesses << piece(cell.front().token, *result_->vocab());
  answer_->setText((next                       ? tr("Its top guess after each position: %1")
                    : task == Task::MaskedWord ? tr("Its guess at each position: %1")
                                               : tr("Its answer, position by position: %1"))
                       .arg(guesses.join(QLatin1Char(' '))));
  showPosition();
}

void PredictionsPanel::showPosition() {
  const int b = sentence_->currentIndex(), i = position_->currentIndex();
  if (b < 0 || i < 0 || static_cast<size_t>(b) >= top_.size()) return;
  const auto& tokens = result_->batch.text.shown_row(b);
  if (result_->vocab()->task == Task::NextToken) {
    QStringList before;
    for (int k = 0; k <= i; ++k) before << text(tokens[static_cast<size_t>(k)]);
    question_->setText(tr("After “%1” the model expects:").arg(before.join(QLatin1Char(' '))));
  } else if (result_->vocab()->task == Task::MaskedWord) {
    question_->setText(tr("At position %1 (“%2”) the model expects:").arg(i).arg(text(tokens[static_cast<size_t>(i)])));
  } else {
    question_->setText(tr("At position %1 of the answer the model expects:").arg(i));
  }
  const auto& cell = top_[static_cast<size_t>(b)][static_cast<size_t>(i)];
  for (size_t r = 0; r < rows_.size(); ++r) {
    const bool has = r < cell.size();
    const bool finite = has && std::isfinite(cell[r].prob);  // NaN: a planted bug broke the run
    rows_[r].token->setText(has ? piece(cell[r].token, *result_->vocab()) + (finite ? QString() : tr(" (NaN)")) : QString());
    rows_[r].bar->setValue(finite ? qRound(cell[r].prob * 1000.0f) : 0);
    rows_[r].bar->setFormat(finite ? percentText(cell[r].prob) : QString());
    rows_[r].percent->setText(rows_[r].bar->format());
  }
}

QString PredictionsPanel::rowToken(int r) const {
  return r >= 0 && r < static_cast<int>(rows_.size()) ? rows_[static_cast<size_t>(r)].token->text() : QString();
}

QString percentText(double p) {
  const double pc = p * 100.0;
  if (pc >= 10.0 || pc <= 0.0) return QLocale().toString(pc, 'f', 0) + QLatin1Char('%');
  const int decimals = std::clamp(1 - static_cast<int>(std::floor(std::log10(pc))), 1, 8);  // two significant digits
  return QLocale().toString(pc, 'f', decimals) + QLatin1Char('%');
}

QString PredictionsPanel::rowPercent(int r) const {
  return r >= 0 && r < static_cast<int>(rows_.size()) ? rows_[static_cast<size_t>(r)].percent->text() : QString();
}

int PredictionsPanel::rowPerMille(int r) const {
  return r >= 0 && r < static_cast<int>(rows_.size()) ? rows_[static_cast<size_t>(r)].bar->value() : 0;
}

}  // namespace attnlab::ui
