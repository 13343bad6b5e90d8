#include "traininglab/trainingpanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSaveFile>
#include <QTemporaryDir>
#include <QSlider>
#include <QSpinBox>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

#include "input/weightsimport.h"
#include "export/widgetexport.h"
#include "io/files.h"
#include "io/weights_file.h"
#include "text/errors.h"
#include "text/tokenizer.h"
#include "traininglab/headcompare.h"
#include "traininglab/trainingcurves.h"
#include "views/runcompare.h"
#include "words/coretext.h"

namespace attnlab::ui {

namespace {

constexpr qint64 kLogEvery = 50;          // steps per chunk: one point on the curves, one snapshot

QString taskWords(TrainTask t) {
  switch (t) {
    case TrainTask::Induction: return TrainingPanel::tr("Induction: repeat what followed before");
    case TrainTask::Copy: return TrainingPanel::tr("Copy digits");
    case TrainTask::Reverse: return TrainingPanel::tr("Reverse digits");
    case TrainTask::Sort: return TrainingPanel::tr("Sort digits");
    case TrainTask::Brackets: return TrainingPanel::tr("Brackets: balanced so far?");
    case TrainTask::PreviousToken: return TrainingPanel::tr("Previous token");
    case TrainTask::Text: return TrainingPanel::tr("Next word of a text file");
  }
  return {};
}

QSpinBox* spin(KnobRange r, int step = 1) {
  auto* s = new QSpinBox;
  s->setRange(int(r.lo), int(r.hi));
  s->setSingleStep(step);
  return s;
}

}  // namespace

TrainingPanel::TrainingPanel(QWidget* parent)
    : QWidget(parent), session_(new TrainingSession(this)), playTimer_(new QTimer(this)), offerTimer_(new QTimer(this)) {
  auto* box = new QVBoxLayout(this);
  // The knobs fold away while a run trains (and on a click), so that the curves get the room.
  knobsToggle_ = new QToolButton;
  knobsToggle_->setObjectName(QStringLiteral("trainKnobsToggle"));
  knobsToggle_->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  knobsToggle_->setCheckable(true);
  knobsToggle_->setChecked(true);
  knobsToggle_->setAutoRaise(true);
  knobs_ = new QWidget;
  auto* grid = new QGridLayout(knobs_);
  grid->setContentsMargins(0, 0, 0, 0);
  buildKnobs(grid);
  box->addWidget(knobsToggle_);
  box->addWidget(knobs_);
  connect(knobsToggle_, &QToolButton::toggled, this, [this](bool open) {
    knobs_->setVisible(open);
    knobsToggle_->setArrowType(open ? Qt::DownArrow : Qt::RightArrow);
    knobsToggle_->setText(open ? tr("Task, model and optimiser") : tr("Task, model and optimiser (click to change)"));
  });
  emit knobsToggle_->toggled(true);

  auto* buttons = new QHBoxLayout;
  startPause_ = new QPushButton(tr("Start"));
  startPause_->setObjectName(QStringLiteral("trainStart"));
  step_ = new QPushButton(tr("Step"));
  step_->setObjectName(QStringLiteral("trainStep"));
  step_->setToolTip(tr("One training step: a batch forward, its backward pass, one update"));
  reset_ = new QPushButton(tr("Reset"));
  reset_->setObjectName(QStringLiteral("trainReset"));
  reset_->setToolTip(tr("A new run from fresh weights with the knobs as they are"));
  for (QPushButton* b : {startPause_, step_, reset_}) buttons->addWidget(b);
  box->addLayout(buttons);

  auto* runs = new QHBoxLayout;
  shippedRun_ = new QPushButton(tr("Recorded induction run"));
  shippedRun_->setObjectName(QStringLiteral("trainShippedRun"));
  shippedRun_->setToolTip(tr("The default induction run, recorded: scrub through it without training (a slow PC)"));
  shippedRun_->setVisible(QFile::exists(kShippedRunDir + QStringLiteral("/run.json")));
  openRun_ = new QPushButton(tr("Open recorded run…"));
  openRun_->setObjectName(QStringLiteral("trainOpenRun"));
  openRun_->setToolTip(tr("A folder written by attnlab train --snapshots"));
  runs->addWidget(shippedRun_);
  runs->addWidget(openRun_);
  box->addLayout(runs);

  auto* timeline = new QHBoxLayout;
  play_ = new QPushButton(tr("Play"));
  play_->setObjectName(QStringLiteral("trainPlay"));
  play_->setToolTip(tr("Walk through the snapshots from the start: the heads forming"));
  timeline_ = new QSlider(Qt::Horizontal);
  timeline_->setObjectName(QStringLiteral("trainTimeline"));
  timeline_->setToolTip(tr("The model as it was at this step, in the whole window"));
  timelineLabel_ = new QLabel;
  timeline->addWidget(play_);
  timeline->addWidget(timeline_, 1);
  timeline->addWidget(timelineLabel_);
  box->addLayout(timeline);

  curves_ = new TrainingCurves;
  curves_->setMinimumHeight(440);
  box->addWidget(curves_, 1);

  auto* compare = new QHBoxLayout;
  keep_ = new QPushButton(tr("Keep for comparison"));
  keep_->setObjectName(QStringLiteral("trainKeep"));
  keep_->setToolTip(tr("Draw this run's curves dashed beside the next run's: change a knob, Reset, Start"));
  compare_ = new QPushButton(tr("Compare heads…"));
  compare_->setObjectName(QStringLiteral("trainCompareHeads"));
  compare_->setToolTip(tr("The kept run's attention heatmaps beside this run's, at the timeline's step"));
  compare->addWidget(keep_);
  compare->addWidget(compare_);
  box->addLayout(compare);
  auto* more = new QHBoxLayout;
  save_ = new QPushButton(tr("Save model…"));
  save_->setObjectName(QStringLiteral("trainSave"));
  export_ = new QPushButton(tr("Export curves…"));
  export_->setObjectName(QStringLiteral("trainExport"));
  export_->setToolTip(tr("The curves as PNG or SVG, or every logged number as CSV"));
  more->addWidget(export_);
  more->addWidget(save_);
  box->addLayout(more);
  status_ = new QLabel;
  status_->setWordWrap(true);
  status_->setObjectName(QStringLiteral("trainStatus"));
  box->addWidget(status_);

  connect(startPause_, &QPushButton::clicked, this, [this] {
    if (session_->wantsToRun()) return session_->pause();
    if (session_->canContinue() && !continueRecorded()) return;
    if (!session_->hasRun() || session_->recorded() || session_->stepsDone() >= session_->totalSteps()) resetRun();
    if (session_->hasRun()) {
      knobsToggle_->setChecked(false);
      session_->start();
    }
  });
  connect(step_, &QPushButton::clicked, this, [this] {
    if (session_->canContinue() && !continueRecorded()) return;
    if (!session_->hasRun() || session_->recorded()) resetRun();
    session_->stepOnce();
  });
  connect(reset_, &QPushButton::clicked, this, &TrainingPanel::resetRun);
  connect(keep_, &QPushButton::clicked, this, &TrainingPanel::keepForComparison);
  connect(compare_, &QPushButton::clicked, this, [this] {
    if (const QString problem = compareHeads(); !problem.isEmpty()) status_->setText(problem);
  });
  connect(save_, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Save the trained model"), QString(),
                                                      tr("Weights files (*.safetensors)"));
    if (path.isEmpty()) return;
    const QString problem = saveModel(path);
    status_->setText(problem.isEmpty() ? tr("Saved %1.").arg(QFileInfo(path).fileName()) : problem);
  });
  // A run opened says so in the status line itself; a refusal is shown here.
  auto open = [this](const QString& dir) {
    if (const QString problem = openRecorded(dir); !problem.isEmpty()) status_->setText(problem);
  };
  connect(shippedRun_, &QPushButton::clicked, this, [open] { open(kShippedRunDir); });
  connect(openRun_, &QPushButton::clicked, this, [this, open] {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("A recorded run (a folder with run.json)"));
    if (!dir.isEmpty()) open(dir);
  });
  connect(export_, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export the training curves"), QStringLiteral("training.png"),
                                                      tr("PNG image (*.png);;SVG drawing (*.svg);;CSV numbers (*.csv)"));
    if (path.isEmpty()) return;
    const QString problem = exportCurves(path);
    status_->setText(problem.isEmpty() ? tr("Saved %1.").arg(QFileInfo(path).fileName()) : problem);
  });
  connect(session_, &TrainingSession::progressed, this, [this] {
    const bool following = timeline_->value() >= timeline_->maximum();
    refresh();
    if (following) setTimelineIndex(timeline_->maximum());
  });
  connect(session_, &TrainingSession::stateChanged, this, &TrainingPanel::refresh);
  connect(session_, &TrainingSession::failed, this, [this](const QString& m) { status_->setText(m); });
  connect(timeline_, &QSlider::valueChanged, this, [this] {
    refresh();
    if (!offerTimer_->isActive()) offerTimer_->start();
  });
  offerTimer_->setSingleShot(true);
  offerTimer_->setInterval(session_->wantsToRun() ? 1500 : 250);
  connect(offerTimer_, &QTimer::timeout, this, [this] {
    offerModel(false);
    if (comparison_ && comparison_->isVisible()) compareHeads();  // it follows the timeline
  });
  playTimer_->setInterval(700);
  connect(playTimer_, &QTimer::timeout, this, [this] {
    if (timeline_->value() >= timeline_->maximum()) {
      playTimer_->stop();
      play_->setText(tr("Play"));
      return;
    }
    timeline_->setValue(timeline_->value() + 1);
  });
  connect(play_, &QPushButton::clicked, this, [this] {
    if (playTimer_->isActive()) {
      playTimer_->stop();
      play_->setText(tr("Play"));
      return;
    }
    if (timeline_->value() >= timeline_->maximum()) timeline_->setValue(0);
    play_->setText(tr("Stop"));
    playTimer_->start();
  });
  setTask(TrainTask::Induction);
  freshKnobs_ = knobs();
  refresh();
}

TrainingPanel::~TrainingPanel() = default;

void TrainingPanel::buildKnobs(QGridLayout* grid) {
  task_ = new QComboBox;
  task_->setObjectName(QStringLiteral("trainTask"));
  for (TrainTask t : all_train_tasks()) task_->addItem(taskWords(t), int(t));
  textFile_ = new QPushButton(tr("Text file…"));
  textFile_->setObjectName(QStringLiteral("trainTextFile"));
  layers_ = spin(kKnobLayers);
  dModel_ = spin(kKnobDModel, 8);
  heads_ = spin(kKnobHeads);
  batch_ = spin(kKnobBatch);
  steps_ = spin(kKnobSteps, 100);
  seed_ = spin(kKnobSeed);
  lr_ = new QDoubleSpinBox;
  lr_->setDecimals(4);
  lr_->setRange(kKnobLrMin, kKnobLrMax);
  lr_->setSingleStep(0.0005);
  norm_ = new QComboBox;
  norm_->addItems({QStringLiteral("pre"), QStringLiteral("post")});
  attentionOnly_ = new QCheckBox(tr("attention only (no feed-forward)"));
  scaling_ = new QCheckBox(tr("scale scores by 1/√d_head"));
  scaling_->setChecked(true);
  const struct {
    QString label;
    QWidget* w;
    const char* name;
  } rows[] = {{tr("Layers"), layers_, "trainLayers"},  {tr("d_model"), dModel_, "trainDModel"},
              {tr("Heads"), heads_, "trainHeads"},     {tr("Norm"), norm_, "trainNorm"},
              {tr("Learning rate"), lr_, "trainLr"},   {tr("Batch"), batch_, "trainBatch"},
              {tr("Steps"), steps_, "trainSteps"},     {tr("Seed"), seed_, "trainSeed"}};
  // The task across the grid (its names are long; the list shows them whole), then two pairs a row.
  task_->setObjectName(QStringLiteral("trainTask"));
  task_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  task_->setMinimumContentsLength(16);
  grid->addWidget(new QLabel(tr("Task")), 0, 0);
  grid->addWidget(task_, 0, 1, 1, 3);
  grid->addWidget(textFile_, 1, 1, 1, 3);
  int r = 2, c = 0;
  for (const auto& row : rows) {
    row.w->setObjectName(QString::fromLatin1(row.name));
    if (!row.label.isEmpty()) grid->addWidget(new QLabel(row.label), r, c);
    grid->addWidget(row.w, r, c + 1);
    c = c == 0 ? 2 : 0;
    r += c == 0;
  }
  attentionOnly_->setObjectName(QStringLiteral("trainAttentionOnly"));
  scaling_->setObjectName(QStringLiteral("trainScaling"));
  // One row each: side by side they made the panel (and with it the window) wider than 1024 px.
  grid->addWidget(attentionOnly_, r, 0, 1, 4);
  grid->addWidget(scaling_, r + 1, 0, 1, 4);
  connect(task_, &QComboBox::activated, this, [this] { setTask(TrainTask(task_->currentData().toInt())); });
  connect(textFile_, &QPushButton::clicked, this, &TrainingPanel::pickTextFile);
}

void TrainingPanel::setTask(TrainTask t) {
  task_->setCurrentIndex(task_->findData(int(t)));
  const TrainSetup s = default_setup(t);
  layers_->setValue(int(s.model.layers));
  dModel_->setValue(int(s.model.d_model));
  heads_->setValue(int(s.model.heads));
  norm_->setCurrentIndex(s.model.norm == Norm::Pre ? 0 : 1);
  attentionOnly_->setChecked(!s.model.ffn);
  lr_->setValue(s.opt.lr);
  batch_->setValue(int(s.batch));
  steps_->setValue(int(s.steps));
  textFile_->setEnabled(t == TrainTask::Text);
  refresh();
}

TrainSetup TrainingPanel::setupFromKnobs() const {
  const auto task = TrainTask(task_->currentData().toInt());
  TrainSetup s = default_setup(task);
  s.model.layers = layers_->value();
  s.model.d_model = dModel_->value();
  s.model.d_ff = 4 * s.model.d_model;
  s.model.heads = heads_->value();
  s.model.norm = norm_->currentIndex() == 0 ? Norm::Pre : Norm::Post;
  s.model.ffn = !attentionOnly_->isChecked();
  if (!scaling_->isChecked()) s.model.faults.insert(Fault::NoScaling);
  s.opt.lr = lr_->value();
  s.batch = batch_->value();
  s.steps = steps_->value();
  s.seed = uint64_t(seed_->value());
  if (task == TrainTask::Text) {
    if (textPath_.isEmpty()) throw ConfigError(Text(Msg::tr_text_needs_file));
    s.corpus = readTextCorpus(textPath_, kTextVocabSize, kTextMaxLen);
  }
  return s;
}

void TrainingPanel::pickTextFile() {
  const QString path = QFileDialog::getOpenFileName(this, tr("A text to learn from"), QString(), tr("Text (*.txt);;All files (*)"));
  if (path.isEmpty()) return;
  textPath_ = path;
  textFile_->setText(QFileInfo(path).fileName());
}

bool TrainingPanel::continueRecorded() {
  try {
    session_->continueRun(textPath_);
  } catch (const UserError& e) {
    status_->setText(tr("This run cannot go on: %1").arg(CoreText::translate(e.text())));
    return false;
  }
  shippedCopy_.reset();
  recordedSource_.clear();
  // The window follows the live run, as it does a new one: on its own sentences when the model
  // reads every word of them, else on the run's examples.
  lastOffered_ = -1;
  offerModel(!(sentenceSource_ && readsEveryWord(sentenceSource_(), modelAtTimeline())));
  return true;
}

void TrainingPanel::resetRun() {
  playTimer_->stop();
  try {
    session_->reset(setupFromKnobs(), kLogEvery);
    newRun_ = true;
    lastOffered_ = -1;
    status_->clear();
    setTimelineIndex(0);
    offerModel(true);
  } catch (const UserError& e) {
    status_->setText(CoreText::translate(e.text()));
  }
  refresh();
}

bool TrainingPanel::readsEveryWord(const QStringList& texts, const ImportedWeightsPtr& model) {
  const auto& vocab = model ? model->loaded.weights.vocab() : nullptr;
  if (texts.isEmpty() || !vocab) return false;
  try {
    for (const QString& t : texts)
      for (const std::string& token : tokenize(t.toStdString()))
        if (vocab->reads_as_unknown(token)) return false;
  } catch (const UserError&) {
    return false;  // a sentence that does not tokenise: the examples instead
  }
  return true;
}

bool TrainingPanel::knowsEveryWord(const QStringList& texts, const ImportedWeightsPtr& model) const {
  // Both runs train on the same task, so one vocabulary answers for both (headcompare.h).
  return kept_ && readsEveryWord(texts, model) && kept_->setup.task == session_->setup()->task;
}

QString TrainingPanel::keptName(const TrainSetup& s) const {
  const QString norm = QString::fromUtf8(norm_name(s.model.norm).data());
  const QString scaling = s.model.has(Fault::NoScaling) ? tr(", no √d") : QString();
  if (s.model.layers == 1) return tr("1 layer, %1-norm%2").arg(norm, scaling);
  return tr("%1 layers, %2-norm%3").arg(s.model.layers).arg(norm, scaling);
}

void TrainingPanel::keepForComparison() {
  kept_ = session_->keep();
  if (!kept_) return;
  if (session_->recorded() && recordedSource_ == kShippedRunDir) kept_->keepAlive = shippedCopy_;  // its files are that copy
  keptSource_ = session_->recorded() ? recordedSource_ : QString();
  pinnedName_ = keptName(kept_->setup);
  refresh();
}

QString TrainingPanel::compareHeads() {
  const TrainSetup* s = session_->setup();
  if (!kept_) return tr("Keep a run for comparison first (Keep for comparison), then train another.");
  if (!s || session_->snapshotSteps().empty()) return tr("Train a model first.");
  try {
    const ImportedWeightsPtr now = modelAtTimeline();
    const bool windows = sentenceSource_ && knowsEveryWord(sentenceSource_(), now);
    QStringList texts = windows ? sentenceSource_() : QStringList();
    if (!windows && now->loaded.weights.vocab())
      for (const std::string& e : now->loaded.weights.vocab()->examples()) texts << QString::fromStdString(e);
    if (texts.isEmpty()) return tr("This run's model has no example sentences to compare on.");
    const HeadComparison c = attnlab::ui::compareHeads(*kept_, *s, now, timelineStep(), texts);
    const QString which = windows ? tr("the window's sentences")
                                  : tr("this model's example sentences (the window's have words it does not know)");
    const QString what = tr("<b>Left:</b> the kept run (%1) at step %2. <b>Right:</b> this run (%3) at step %4. The same "
                            "sentences (%5), one colour scale for both sides.")
                             .arg(pinnedName_.toHtmlEscaped()).arg(c.keptStep).arg(keptName(*s).toHtmlEscaped())
                             .arg(c.currentStep).arg(which.toHtmlEscaped());
    if (comparison_) {
      comparison_->setRuns(c.kept, c.current, c.steps, what);
      return {};
    }
    ComparisonWords words{tr("Compare heads: the kept run beside this one"), what, tr("Kept run (%1)").arg(pinnedName_),
                          tr("This run (%1)").arg(keptName(*s)), tr("The kept run has no step %1: it has fewer layers."),
                          tr("This run has no step %1: it has fewer layers.")};
    comparison_ = new RunComparison(c.kept, c.current, c.steps, std::move(words), window());
    comparison_->setAttribute(Qt::WA_DeleteOnClose);
    comparison_->show();
  } catch (const UserError& e) {
    return CoreText::translate(e.text());
  }
  return {};
}

QString TrainingPanel::openRecorded(const QString& dir, bool offer) {
  playTimer_->stop();
  QString problem;
  std::shared_ptr<QTemporaryDir> copy;  // the shipped run's files: the open one's stay until this works
  const QString from = localFolder(dir, copy, problem);
  if (from.isEmpty()) return problem;
  try {
    session_->openRecorded(from);
  } catch (const UserError& e) {
    return CoreText::translate(e.text());
  }
  shippedCopy_ = std::move(copy);
  recordedSource_ = dir;
  knobsToggle_->setChecked(false);  // a replay has nothing to set: the curves get the room
  newRun_ = true;
  lastOffered_ = -1;
  kept_.reset();
  if (comparison_) comparison_->close();
  setTask(session_->setup()->task);
  refresh();
  setTimelineIndex(timeline_->maximum());
  if (offer) offerModel(true);
  status_->setText(tr("A recorded run: %1 steps of %2. Drag the timeline, or Play.").arg(session_->stepsDone()).arg(taskWords(session_->setup()->task)));
  return {};
}

qint64 TrainingPanel::timelineStep() const {
  const auto steps = session_->snapshotSteps();
  if (steps.empty()) return -1;
  return steps[size_t(std::clamp(timeline_->value(), 0, int(steps.size()) - 1))];
}

void TrainingPanel::setTimelineIndex(int index) { timeline_->setValue(std::clamp(index, 0, timeline_->maximum())); }

ImportedWeightsPtr TrainingPanel::modelAtTimeline() const {
  const TrainSetup* s = session_->setup();
  if (!s || session_->snapshotSteps().empty()) return nullptr;
  const qint64 step = timelineStep();
  const QString name = tr("%1, step %2").arg(taskWords(s->task)).arg(step);
  return importWeightsBytes(session_->weightsFileAt(step), name, QString(), s->model);  // a recorded file as written
}

void TrainingPanel::offerModel(bool withExamples) {
  const TrainSetup* s = session_->setup();
  if (!s || timelineStep() == lastOffered_) return;
  if (s->model.has(Fault::NoScaling)) {
    status_->setText(tr("This run trains without the √d scaling (a planted fault): the window computes with it, so "
                        "this model is not shown there. Compare its curves instead."));
    return;
  }
  try {
    if (auto m = modelAtTimeline()) {
      lastOffered_ = timelineStep();
      emit modelChosen(std::move(m), withExamples);
    }
  } catch (const UserError& e) {
    status_->setText(CoreText::translate(e.text()));
  }
}

QString TrainingPanel::saveModel(const QString& path) const {
  const TrainSetup* s = session_->setup();
  if (!s) return tr("Train a model first.");
  try {
    Weights w = session_->weightsAt(timelineStep());
    QSaveFile f(path);
    const std::string bytes = serialize_weights(s->model, w);
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes.data(), qint64(bytes.size())) != qint64(bytes.size()) || !f.commit())
      return tr("Could not write %1: %2").arg(path, f.errorString());
  } catch (const UserError& e) {
    return CoreText::translate(e.text());
  }
  return {};
}

QString TrainingPanel::exportCurves(const QString& path) const {
  return saveWidgetOrCsv(curves_, path, [this] { return curves_->csv(); });
}

void TrainingPanel::refresh() {
  const auto steps = session_->snapshotSteps();
  timeline_->blockSignals(true);
  timeline_->setRange(0, std::max(0, int(steps.size()) - 1));
  timeline_->blockSignals(false);
  timeline_->setEnabled(steps.size() > 1);
  play_->setEnabled(steps.size() > 1);
  const bool running = session_->wantsToRun();
  const bool goesOn = session_->recorded() ? session_->canContinue()
                                          : session_->hasRun() && session_->stepsDone() > 0 && session_->stepsDone() < session_->totalSteps();
  startPause_->setText(running ? tr("Pause") : goesOn ? tr("Resume") : tr("Start"));
  startPause_->setToolTip(goesOn && session_->recorded() ? tr("Go on training this run from step %1, as if it had never stopped")
                                                                .arg(session_->stepsDone())
                                                         : QString());
  step_->setEnabled(!session_->running() && (!session_->recorded() || session_->canContinue()));
  startPause_->setEnabled(!session_->recorded() || !session_->running());
  save_->setEnabled(session_->hasRun() && !steps.empty());
  keep_->setEnabled(session_->hasRun());
  compare_->setEnabled(kept_ && session_->hasRun() && !steps.empty());
  export_->setEnabled(session_->hasRun());
  offerTimer_->setInterval(running ? 1500 : 250);
  const qint64 shown = timelineStep();
  timelineLabel_->setText(shown >= 0 ? tr("step %1 of %2").arg(shown).arg(session_->totalSteps()) : QString());
  curves_->setRuns(session_->curves(), kept_ ? kept_->curves : QVector<CurvePoint>{}, session_->phaseChangeStep(), shown,
                   tr("this run"), pinnedName_);
  if (running && session_->secondsPerStep() > 0)
    status_->setText(tr("Training: step %1 of %2, %3 ms per step.").arg(session_->stepsDone()).arg(session_->totalSteps())
                         .arg(1000 * session_->secondsPerStep(), 0, 'f', 1));
}

}  // namespace attnlab::ui
