#include "lessons/exercisepanel.h"

#include <QComboBox>
#include <QDesktopServices>
#include <QDir>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSettings>
#include <QStackedWidget>
#include <QUrl>
#include <QVBoxLayout>

#include <algorithm>

#include "input/maskeditor.h"
#include "input/samplemodels.h"
#include "io/shipped_models.h"
#include "lessons/headpicker.h"
#include "text/errors.h"
#include "text/tokenizer.h"
#include "views/runcompare.h"
#include "words/coretext.h"
#include "words/language.h"
#include "words/qtstrings.h"
#include "words/stepnames.h"
#include "words/steptext.h"

namespace attnlab::ui {

namespace {

enum AnswerPage { TextPage, BugPage, MaskPage, HeadPage };

QLabel* wrapped(const QString& object) {
  auto* l = new QLabel;
  l->setObjectName(object);
  l->setWordWrap(true);
  l->setTextInteractionFlags(Qt::TextSelectableByMouse);
  return l;
}

// A mask exercise without a model of its own still has a sentence: the grid's tokens. Each label
// that the tokenizer reads as one token is itself; one it would split ("<s>") stands as its
// longest word piece ("s"), one with nothing to read as its position, so that the sentence has exactly the
// grid's n tokens.
QString maskSentence(const std::vector<std::string>& labels) {
  QStringList words;
  for (size_t i = 0; i < labels.size(); ++i) {
    std::vector<std::string> pieces;
    try {
      pieces = tokenize(labels[i]);
    } catch (const std::exception&) {  // not valid UTF-8: the position stands in for it
    }
    // A word before punctuation, then the longest: "<s>" stands as "s".
    const auto rank = [](const std::string& p) {
      const QString q = QString::fromStdString(p);
      return std::pair(!q.isEmpty() && q.front().isLetterOrNumber(), q.size());
    };
    const auto longest = std::max_element(pieces.begin(), pieces.end(),
                                          [&](const std::string& a, const std::string& b) { return rank(a) < rank(b); });
    words << (longest == pieces.end() ? QString::number(i) : QString::fromStdString(*longest));
  }
  return words.join(QLatin1Char(' '));
}

// The model such an exercise runs on: the exercises' small one (d_model 16, 2 heads), one layer,
// the padding mask as a setup without a mask gets; the grid, not the window, holds the answer.
Request maskSetup(const Exercise& ex) {
  Request r;
  r.texts = {maskSentence(ex.mask.labels)};
  r.cfg.d_model = 16;
  r.cfg.heads = 2;
  r.cfg.d_ff = 4 * r.cfg.d_model;
  return r;
}

QString kindTitle(ExerciseKind k) {
  switch (k) {
    case ExerciseKind::PredictShape: return ExercisePanel::tr("Predict the shape");
    case ExerciseKind::FindBug: return ExercisePanel::tr("Find the bug");
    case ExerciseKind::FixMask: return ExercisePanel::tr("Fix the mask");
    case ExerciseKind::FindHead: return ExercisePanel::tr("Find the head");
  }
  return {};
}

}  // namespace

ExercisePanel::ExercisePanel(const QString& settingsGroup, const QString& folder, QWidget* parent)
    : QWidget(parent), progress_(settingsGroup), folder_(folder) {
  auto* v = new QVBoxLayout(this);
  auto* top = new QHBoxLayout;
  language_ = new QComboBox;
  language_->setObjectName(QStringLiteral("exerciseLanguage"));
  language_->addItem(tr("English"));
  language_->addItem(QStringLiteral("中文"));
  language_->setAccessibleName(tr("Exercise language"));
  score_ = new QLabel;
  score_->setObjectName(QStringLiteral("score"));
  top->addWidget(language_);
  top->addStretch(1);
  top->addWidget(score_);
  v->addLayout(top);

  list_ = new QListWidget;
  list_->setObjectName(QStringLiteral("exerciseList"));
  list_->setAccessibleName(tr("Exercises"));
  list_->setMinimumHeight(180);
  list_->setWordWrap(true);
  list_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  v->addWidget(list_, 1);
  problems_ = wrapped(QStringLiteral("problems"));
  problems_->setStyleSheet(QStringLiteral("QLabel { color: #b00020; }"));
  v->addWidget(problems_);
  auto* buttons = new QHBoxLayout;
  start_ = new QPushButton(tr("&Start"));
  auto* folderButton = new QPushButton(tr("Teachers' folder…"));
  folderButton->setToolTip(tr("Drop exercise files (*.json, see docs/exercises.md) into this folder, then Reload"));
  auto* reloadButton = new QPushButton(tr("Reload"));
  buttons->addWidget(start_);
  buttons->addStretch(1);
  buttons->addWidget(folderButton);
  buttons->addWidget(reloadButton);
  v->addLayout(buttons);
  v->addWidget(buildTask(), 2);

  // The exercises speak the window's language until the learner picks another here.
  const QSettings s;
  const QString lang = s.value(QStringLiteral("exerciseLanguage"),
                               Language::effective() == UiLanguage::Chinese ? QStringLiteral("zh") : QStringLiteral("en"))
                           .toString();
  lang_ = lang == QLatin1String("zh") ? Lang::Zh : Lang::En;
  language_->setCurrentIndex(lang_ == Lang::Zh ? 1 : 0);

  connect(language_, &QComboBox::currentIndexChanged, this, [this](int i) { setLanguage(i == 1 ? Lang::Zh : Lang::En); });
  connect(list_, &QListWidget::currentRowChanged, this, [this](int row) {
    if (!active_ || row != activeIndex_) showDetails(row);
  });
  connect(list_, &QListWidget::itemActivated, this, [this] { start(list_->currentRow()); });
  connect(start_, &QPushButton::clicked, this, [this] { start(list_->currentRow()); });
  connect(reloadButton, &QPushButton::clicked, this, &ExercisePanel::reload);
  connect(folderButton, &QPushButton::clicked, this, [this] {
    if (catalog_.userFolder.isEmpty()) return;
    QDir().mkpath(catalog_.userFolder);
    QDesktopServices::openUrl(QUrl::fromLocalFile(catalog_.userFolder));
  });
  reload();
}

QWidget* ExercisePanel::buildTask() {
  auto* box = new QWidget;
  auto* v = new QVBoxLayout(box);
  v->setContentsMargins(0, 0, 0, 0);
  title_ = wrapped(QStringLiteral("exerciseTitle"));
  QFont big = title_->font();
  big.setPointSizeF(big.pointSizeF() * 1.25);
  big.setBold(true);
  title_->setFont(big);
  goal_ = wrapped(QStringLiteral("goal"));
  task_ = wrapped(QStringLiteral("task"));
  task_->setTextFormat(Qt::RichText);
  for (QWidget* w : {static_cast<QWidget*>(title_), static_cast<QWidget*>(goal_), static_cast<QWidget*>(task_)}) v->addWidget(w);

  answerStack_ = new QStackedWidget;
  answer_ = new QLineEdit;
  answer_->setObjectName(QStringLiteral("answer"));
  answer_->setAccessibleName(tr("Your answer"));
  answerStack_->addWidget(answer_);
  auto* bug = new QWidget;
  auto* bugForm = new QVBoxLayout(bug);
  bugForm->setContentsMargins(0, 0, 0, 0);
  bugStep_ = new QComboBox;
  bugStep_->setObjectName(QStringLiteral("bugStep"));
  bugStep_->setAccessibleName(tr("The faulty step"));
  symptom_ = new QLineEdit;
  symptom_->setObjectName(QStringLiteral("symptom"));
  symptom_->setAccessibleName(tr("What you see"));
  symptom_->setPlaceholderText(tr("What goes wrong there? (e.g. rows do not sum to 1)"));
  bugForm->addWidget(new QLabel(tr("The step where it goes wrong:")));
  bugForm->addWidget(bugStep_);
  bugForm->addWidget(new QLabel(tr("The symptom:")));
  bugForm->addWidget(symptom_);
  answerStack_->addWidget(bug);
  auto* mask = new QWidget;
  auto* maskBox = new QVBoxLayout(mask);
  maskBox->setContentsMargins(0, 0, 0, 0);
  maskEditor_ = new MaskEditor;
  resetMask_ = new QPushButton(tr("Reset the grid"));
  maskBox->addWidget(maskEditor_, 1);
  maskBox->addWidget(resetMask_, 0, Qt::AlignLeft);
  answerStack_->addWidget(mask);
  headPicker_ = new HeadPicker;
  answerStack_->addWidget(headPicker_);
  // A stack is as tall as its tallest page: let only the current page ask for room.
  connect(answerStack_, &QStackedWidget::currentChanged, this, [this](int current) {
    for (int i = 0; i < answerStack_->count(); ++i)
      answerStack_->widget(i)->setSizePolicy(QSizePolicy::Preferred, i == current ? QSizePolicy::Preferred : QSizePolicy::Ignored);
    answerStack_->adjustSize();
  });
  for (int i = 1; i < answerStack_->count(); ++i) answerStack_->widget(i)->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Ignored);
  v->addWidget(answerStack_);

  auto* row = new QHBoxLayout;
  check_ = new QPushButton(tr("&Check"));
  check_->setDefault(true);
  hint_ = new QPushButton(tr("&Hint"));
  reveal_ = new QPushButton(tr("&Reveal"));
  compare_ = new QPushButton(tr("Compare with the correct run"));
  stop_ = new QPushButton(tr("Leave"));
  stop_->setToolTip(tr("Leave the exercise: the planted bug is removed and the inputs stay"));
  for (QPushButton* b : {check_, hint_, reveal_, stop_}) row->addWidget(b);
  v->addLayout(row);
  v->addWidget(compare_);
  feedback_ = wrapped(QStringLiteral("feedback"));
  feedback_->setTextFormat(Qt::RichText);
  v->addWidget(feedback_);
  v->addStretch(1);

  connect(check_, &QPushButton::clicked, this, &ExercisePanel::check);
  connect(answer_, &QLineEdit::returnPressed, this, &ExercisePanel::check);
  connect(symptom_, &QLineEdit::returnPressed, this, &ExercisePanel::check);
  connect(hint_, &QPushButton::clicked, this, &ExercisePanel::showHint);
  connect(reveal_, &QPushButton::clicked, this, &ExercisePanel::reveal);
  connect(stop_, &QPushButton::clicked, this, &ExercisePanel::stop);
  connect(compare_, &QPushButton::clicked, this, &ExercisePanel::openComparison);
  connect(resetMask_, &QPushButton::clicked, this, [this] {
    if (const Exercise* ex = active()) maskEditor_->setMask(QString::fromStdString(ex->mask.start), ex->mask.labels);
  });
  return box;
}

void ExercisePanel::reload() {
  if (active_) stop();
  catalog_ = ExerciseCatalog::load(folder_);
  problems_->setText(catalog_.problems.isEmpty()
                         ? QString()
                         : tr("Some exercise files could not be used:\n%1").arg(catalog_.problems.join(QLatin1Char('\n'))));
  problems_->setVisible(!catalog_.problems.isEmpty());
  fillList();
  list_->setCurrentRow(catalog_.exercises.empty() ? -1 : 0);
  updateScore();
  updateButtons();
}

void ExercisePanel::resetProgress() {
  progress_.resetAll();
  const int row = list_->currentRow();
  fillList();
  list_->setCurrentRow(row);
  updateScore();
}

void ExercisePanel::setLanguage(Lang l) {
  lang_ = l;
  QSettings().setValue(QStringLiteral("exerciseLanguage"), QString::fromUtf8(lang_name(l).data()));
  language_->blockSignals(true);
  language_->setCurrentIndex(l == Lang::Zh ? 1 : 0);
  language_->blockSignals(false);
  const int row = list_->currentRow();
  fillList();
  list_->setCurrentRow(row);
  if (active_ && !finished_) {
    title_->setText(tx(active()->title));
    goal_->setText(tx(active()->goal));
    task_->setText(taskText(*active()));
  } else {
    showDetails(row);
  }
}

void ExercisePanel::fillList() {
  list_->blockSignals(true);
  list_->clear();
  for (size_t i = 0; i < catalog_.exercises.size(); ++i) {
    const Exercise& e = catalog_.exercises[i];
    const ExerciseRecord r = progress_.record(e.id);
    const QString mark = r.solved ? QStringLiteral("✓") : r.revealed ? QStringLiteral("○") : QStringLiteral("·");
    const QString stars = QString(e.level, QChar(0x2605)) + QString(5 - e.level, QChar(0x2606));
    auto* item = new QListWidgetItem(tr("%1 %2. %3 %4").arg(mark).arg(i + 1).arg(stars, tx(e.title)));
    item->setToolTip(tr("%1 · level %2 · %3").arg(kindTitle(e.kind)).arg(e.level).arg(QString::fromStdString(e.file)));
    list_->addItem(item);
  }
  list_->blockSignals(false);
}

void ExercisePanel::showDetails(int index) {
  if (index < 0 || index >= static_cast<int>(catalog_.exercises.size())) {
    title_->setText(catalog_.exercises.empty() ? tr("No exercises") : QString());
    goal_->clear();
    task_->clear();
    return;
  }
  const Exercise& e = catalog_.exercises[static_cast<size_t>(index)];
  title_->setText(tx(e.title));
  goal_->setText(tx(e.goal));
  const ExerciseRecord r = progress_.record(e.id);
  task_->setText(tr("%1 · level %2 · up to %3 points. Press Start to begin.%4")
                     .arg(kindTitle(e.kind))
                     .arg(e.level)
                     .arg(exercise_points(e.level, 0))
                     .arg(r.solved ? tr("<br>Solved before for %1 points.").arg(r.points) : QString()));
  if (!active_) answerStack_->hide();
}

QString ExercisePanel::taskText(const Exercise& ex) const {
  switch (ex.kind) {
    case ExerciseKind::PredictShape: {
      const StepFacts& s = *ex.step(ex.predict.step);
      const QString question = ex.predict.ask == ShapeAsk::Shape     ? tr("What is its <b>shape</b>?")
                               : ex.predict.ask == ShapeAsk::Strides ? tr("What are its <b>strides</b>?")
                                                                     : tr("Is it <b>contiguous</b>?");
      QString text = tr("Step <code>%1</code> (%2) — its shape is hidden in the window. %3")
                         .arg(QString::fromStdString(s.id).toHtmlEscaped(), StepText::title(StepInfo{.id = s.id, .title = s.title}).toHtmlEscaped(), question);
      QStringList inputs;
      for (const auto& in : s.inputs)
        if (const StepFacts* f = ex.step(in))
          inputs << tr("<code>%1</code>: shape %2, strides %3, %4")
                        .arg(QString::fromStdString(f->id).toHtmlEscaped(), QString::fromStdString(shape_str(f->shape)),
                             QString::fromStdString(shape_str(f->strides)),
                             f->contiguous ? tr("contiguous") : tr("not contiguous"));
      if (!inputs.isEmpty()) text += tr("<br>It is computed from:<br>%1").arg(inputs.join(QStringLiteral("<br>")));
      return text;
    }
    case ExerciseKind::FindBug:
      return tr("A bug is planted somewhere in this run. Step through it in the window — heatmaps, charts, shapes — "
                "then choose the step where it first shows and say what you see.");
    case ExerciseKind::FixMask:
      return tr("Click cells to hide (0) or show (1) a key to a query, then Check.");
    case ExerciseKind::FindHead: {
      const QString where = ex.head.layer ? tr("Look at the heads of layer %1.").arg(*ex.head.layer)
                                          : tr("Look at the heads of every layer.");
      return tr("The window shows the attention weights of this trained model. Which head puts a large share of its weight %1? "
                "%2 Choose it below, or click its heatmap.")
          .arg(HeadPicker::traitText(ex.head.pattern), where);
    }
  }
  return {};
}

void ExercisePanel::start(int index) {
  if (index < 0 || index >= static_cast<int>(catalog_.exercises.size())) return;
  if (active_) stop();
  active_ = true;
  finished_ = false;
  activeIndex_ = index;
  attempts_ = 0;
  hintsShown_ = 0;
  list_->setCurrentRow(index);
  const Exercise& ex = catalog_.exercises[static_cast<size_t>(index)];
  title_->setText(tx(ex.title));
  goal_->setText(tx(ex.goal));
  task_->setText(taskText(ex));
  answer_->clear();
  symptom_->clear();
  setFeedback({}, true);
  QString conceal, show;
  switch (ex.kind) {
    case ExerciseKind::PredictShape:
      answerStack_->setCurrentIndex(TextPage);
      answer_->setPlaceholderText(QString::fromStdString(student_view(ex, lang_)["answer_format"].get<std::string>()));
      conceal = QString::fromStdString(ex.predict.step);
      break;
    case ExerciseKind::FindBug:
      answerStack_->setCurrentIndex(BugPage);
      fillBugSteps(ex);
      break;
    case ExerciseKind::FixMask:
      answerStack_->setCurrentIndex(MaskPage);
      maskEditor_->setMask(QString::fromStdString(ex.mask.start), ex.mask.labels);
      break;
    case ExerciseKind::FindHead:
      answerStack_->setCurrentIndex(HeadPage);
      headPicker_->setModel(static_cast<int>(ex.setup.config.layers), static_cast<int>(ex.setup.config.heads), ex.head.layer);
      show = QStringLiteral("encoder.layers.%1.self_attn.weights").arg(ex.head.layer.value_or(0));
      break;
  }
  answerStack_->show();
  Request r;
  if (ex.has_setup) {
    r.cfg = ex.setup.config;
    if (ex.kind == ExerciseKind::FindBug) {
      r.cfg.faults.insert(ex.bug.fault);
      r.hideFaults = true;
    }
    r.texts = toQStrings(ex.setup.texts);
    r.memoryTexts = toQStrings(ex.setup.memory_texts);
    r.loss = ex.setup.loss;  // a gradient's shape: the backward pass on show too
    if (!ex.setup.model.empty()) {  // a shipped trained model: its weights and vocabulary
      const ShippedModel* model = find_shipped_model(ex.setup.model);  // the reader found it: this build has it
      try {
        if (!model) throw DataError(Text(Msg::win_sample_model_missing, ex.setup.model));
        r.weights = loadSampleModel(QLatin1String(kSampleModelPrefix) + QString::fromUtf8(model->file.data(), static_cast<qsizetype>(model->file.size())), r.cfg);
      } catch (const std::exception& e) {  // a damaged build: say so rather than run seeded weights
        setFeedback(CoreText::of(e).toHtmlEscaped(), false);
        active_ = false;
        updateButtons();
        return;
      }
    }
  } else if (ex.kind == ExerciseKind::FixMask) {
    r = maskSetup(ex);  // the window shows the grid's own sentence, not what it had before
  }
  updateButtons();
  emit started(r, conceal, show, ex.has_setup || ex.kind == ExerciseKind::FixMask);
}

QString ExercisePanel::currentAnswer() const {
  const Exercise* ex = active();
  if (!ex) return {};
  switch (ex->kind) {
    case ExerciseKind::PredictShape: return answer_->text();
    case ExerciseKind::FindBug: return bugStep_->currentData().toString() + QLatin1Char(' ') + symptom_->text();
    case ExerciseKind::FixMask: return maskEditor_->rowsText();
    case ExerciseKind::FindHead: return headPicker_->answerText();
  }
  return {};
}

void ExercisePanel::check() {
  const Exercise* ex = active();
  if (!ex || finished_) return;
  ++attempts_;
  const CheckResult res = check_answer(*ex, currentAnswer().toStdString(), attempts_, lang_);
  if (!res.correct) {
    hintsShown_ = std::max(hintsShown_, res.hint + 1);
    ExerciseRecord rec = progress_.record(ex->id);
    if (!rec.solved) ++rec.wrongAttempts;
    progress_.save(ex->id, rec);
    setFeedback(QString::fromStdString(res.feedback).toHtmlEscaped(), false);
    return;
  }
  ExerciseRecord rec = progress_.record(ex->id);
  const int earned = rec.revealed ? 0 : exercise_points(ex->level, attempts_ - 1);
  rec.points = std::max(rec.points, earned);
  rec.solved = true;
  progress_.save(ex->id, rec);
  setFeedback(tr("<b>Correct!</b> +%1 points.<br>%2").arg(earned).arg(QString::fromStdString(res.feedback).toHtmlEscaped()), true);
  finish(true);
}

void ExercisePanel::showHint() {
  const Exercise* ex = active();
  if (!ex || ex->hints.empty()) return;
  const int i = std::min(hintsShown_, static_cast<int>(ex->hints.size()) - 1);
  hintsShown_ = i + 1;
  setFeedback(tr("Hint %1 of %2: %3").arg(i + 1).arg(ex->hints.size()).arg(tx(ex->hints[static_cast<size_t>(i)]).toHtmlEscaped()),
              true);
}

void ExercisePanel::reveal() {
  const Exercise* ex = active();
  if (!ex || finished_) return;
  ExerciseRecord rec = progress_.record(ex->id);
  if (!rec.solved) rec.revealed = true;
  progress_.save(ex->id, rec);
  const QString answer = QString::fromStdString(solution(*ex));
  if (ex->kind == ExerciseKind::FixMask) maskEditor_->setMask(answer, ex->mask.labels);
  if (ex->kind == ExerciseKind::PredictShape) answer_->setText(answer);
  if (ex->kind == ExerciseKind::FindHead) headPicker_->setHead(ex->head.best_layer, ex->head.best_head);
  if (ex->kind == ExerciseKind::FindBug) {
    bugStep_->setCurrentIndex(bugStep_->findData(QString::fromStdString(ex->bug.faulty_step)));
    symptom_->setText(QString::fromStdString(ex->bug.symptoms.front()));
  }
  setFeedback(tr("<b>The answer:</b> %1<br>%2").arg(answer.toHtmlEscaped(), tx(ex->explanation).toHtmlEscaped()), true);
  finish(false);
}

void ExercisePanel::finish(bool solved) {
  Q_UNUSED(solved);
  finished_ = true;
  const int row = activeIndex_;
  fillList();
  list_->setCurrentRow(row);
  updateScore();
  updateButtons();
  emit answeredOrRevealed();
  if (active()->kind == ExerciseKind::FindBug) openComparison();
}

void ExercisePanel::stop() {
  if (!active_) return;
  active_ = false;
  finished_ = false;
  activeIndex_ = -1;
  if (comparison_) comparison_->close();
  answerStack_->hide();
  setFeedback({}, true);
  showDetails(list_->currentRow());
  updateButtons();
  emit stopped();
}

// The faulty run's steps by the names the navigator shows (the id in the item's data and tooltip).
void ExercisePanel::fillBugSteps(const Exercise& ex) {
  std::vector<std::pair<std::string, Text>> steps;
  for (const std::string& id : ex.bug.steps) {
    const StepFacts* f = ex.step(id);
    steps.emplace_back(id, f ? f->title : verbatim(id));
  }
  const QStringList names = StepNames::listNames(steps);
  bugStep_->clear();
  for (size_t i = 0; i < steps.size(); ++i) {
    const QString id = QString::fromStdString(steps[i].first);
    bugStep_->addItem(names[static_cast<qsizetype>(i)], id);
    bugStep_->setItemData(static_cast<int>(i), id, Qt::ToolTipRole);
  }
}

namespace {

// With the backward pass on, what a fault does to the gradients of its attention block: those of
// the scores and the queries, and of in_proj_weight, where both runs have them.
QStringList gradientsToCompare(const std::string& faultyStep, const TraceResult& bad, const TraceResult& good) {
  QStringList out;
  const size_t at = faultyStep.find("_attn.");
  if (!bad.gradients || at == std::string::npos) return out;
  const std::string block = faultyStep.substr(0, at + 6);  // "encoder.layers.0.self_attn."
  for (const std::string& id : {block + "scores.grad", block + "q.grad", "grad/" + block + "in_proj_weight"})
    if (bad.indexOf(id) >= 0 && good.indexOf(id) >= 0) out << QString::fromStdString(id);
  return out;
}

}  // namespace

void ExercisePanel::openComparison() {
  const Exercise* ex = active();
  if (!ex || ex->kind != ExerciseKind::FindBug || !finished_) return;
  Request faulty;
  faulty.cfg = ex->setup.config;
  faulty.cfg.faults.insert(ex->bug.fault);
  faulty.texts = toQStrings(ex->setup.texts);
  faulty.memoryTexts = toQStrings(ex->setup.memory_texts);
  faulty.loss = ex->setup.loss;  // a gradient exercise compares the gradients too
  Request correct = faulty;
  correct.cfg.faults.clear();
  QStringList steps = toQStrings(ex->bug.marked);
  steps.removeAll(QString::fromStdString(ex->bug.faulty_step));
  steps.prepend(QString::fromStdString(ex->bug.faulty_step));
  try {
    const QString title = StepText::faultTitle(ex->bug.fault);
    const TraceResultPtr bad = compute(faulty, 0), good = compute(correct, 0);
    steps += gradientsToCompare(ex->bug.faulty_step, *bad, *good);
    if (comparison_) comparison_->deleteLater();
    comparison_ = new RunComparison(bad, good, steps, title, window());
    comparison_->setAttribute(Qt::WA_DeleteOnClose);
    connect(comparison_, &QObject::destroyed, this, [this](QObject* o) {
      if (o == comparison_) comparison_ = nullptr;
    });
    comparison_->show();
  } catch (const std::exception& e) {
    setFeedback(feedback_->text() + tr("<br>The comparison could not be computed: %1").arg(CoreText::of(e).toHtmlEscaped()),
                false);
  }
}

bool ExercisePanel::chooseHead(const QString& stepId, int head) {
  const Exercise* ex = active();
  if (!ex || finished_ || ex->kind != ExerciseKind::FindHead) return false;
  return headPicker_->chooseFromStep(stepId, head);
}

void ExercisePanel::setFeedback(const QString& html, bool good) {
  feedback_->setStyleSheet(good ? QStringLiteral("QLabel { color: #1b5e20; }") : QStringLiteral("QLabel { color: #b00020; }"));
  feedback_->setText(html);
  if (!html.isEmpty()) emit feedbackShown();
}

QWidget* ExercisePanel::feedbackLabel() const { return feedback_; }

QString ExercisePanel::feedbackText() const { return feedback_->text(); }
QString ExercisePanel::scoreText() const { return score_->text(); }

void ExercisePanel::updateScore() {
  const auto [got, most] = progress_.score(catalog_.exercises);
  score_->setText(tr("Score %1 / %2 · %3 of %4 solved")
                      .arg(got)
                      .arg(most)
                      .arg(progress_.solvedCount(catalog_.exercises))
                      .arg(catalog_.exercises.size()));
}

void ExercisePanel::updateButtons() {
  const bool open = active_ && !finished_;
  check_->setEnabled(open);
  hint_->setEnabled(open);
  reveal_->setEnabled(open);
  stop_->setEnabled(active_);
  start_->setEnabled(!catalog_.exercises.empty());
  compare_->setVisible(active_ && finished_ && active()->kind == ExerciseKind::FindBug);
  answerStack_->setEnabled(open);
}

}  // namespace attnlab::ui
