#include "step/steppanel.h"

#include <QApplication>
#include <QComboBox>
#include <QPointer>
#include <QThreadPool>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QStackedWidget>
#include <QTabBar>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

#include "step/linelabel.h"
#include "step/shapediagram.h"
#include "step/tensorview.h"
#include "text/tokenizer.h"
#include "variants/variant_table.h"
#include "views/chartspanel.h"
#include "views/gradnormchart.h"
#include "views/scalingtable.h"
#include "views/headdrawing.h"
#include "views/heatmapgrid.h"
#include "views/lineview.h"
#include "views/maskcompare.h"
#include "views/modelview.h"
#include "views/neuronview.h"
#include "words/coretext.h"
#include "words/language.h"
#include "words/numbers.h"
#include "words/stepnames.h"
#include "words/steptext.h"

namespace attnlab::ui {

namespace {

QLabel* label(const QString& object, bool wrap = true) {
  auto* l = new QLabel;
  l->setObjectName(object);
  l->setWordWrap(wrap);
  l->setTextInteractionFlags(Qt::TextSelectableByMouse);
  return l;
}

LineLabel* line(const QString& object) {
  auto* l = new LineLabel;
  l->setObjectName(object);
  return l;
}

// A view in its own scroll area, so that one wide view does not widen every tab (a tab widget is
// as wide as its widest page).
QScrollArea* scrolled(QWidget* view) {
  auto* area = new QScrollArea;
  area->setWidget(view);
  area->setWidgetResizable(true);
  area->setFrameShape(QFrame::NoFrame);
  return area;
}

}  // namespace

StepPanel::StepPanel(QWidget* parent) : QWidget(parent) {
  auto* v = new QVBoxLayout(this);
  stale_ = new QLabel;
  stale_->setObjectName(QStringLiteral("staleNote"));
  stale_->setWordWrap(true);
  stale_->setStyleSheet(QStringLiteral("QLabel { color: #8a4b00; background: #fff4e0; border: 1px solid #e0a040; "
                                       "padding: 6px; border-radius: 4px; font-weight: bold; }"));
  stale_->hide();
  v->addWidget(stale_);
  v->addWidget(buildHeader());
  grid_ = new HeatmapGrid;
  values_ = new TensorView;
  stack_ = new QStackedWidget;
  stack_->addWidget(grid_);
  stack_->addWidget(values_);
  auto* valuesPage = new QWidget;  // the step's picture: the shape diagram over the values
  auto* pv = new QVBoxLayout(valuesPage);
  pv->setContentsMargins(0, 0, 0, 0);
  pv->addWidget(diagram_);
  pv->addWidget(stack_, 1);
  lines_ = new LineView;
  model_ = new ModelView;
  neuron_ = new NeuronView;
  masks_ = new MaskComparison;
  charts_ = new ChartsPanel;
  tabs_ = new QTabWidget;
  tabs_->setObjectName(QStringLiteral("views"));
  tabs_->setAccessibleName(tr("Views of the step"));
  tabs_->tabBar()->setAccessibleName(tr("View"));
  tabs_->addTab(valuesPage, tr("Values"));
  tabs_->addTab(scrolled(lines_), tr("Lines"));
  tabs_->addTab(scrolled(model_), tr("Model view"));
  tabs_->addTab(scrolled(neuron_), tr("Neuron view"));
  tabs_->addTab(scrolled(masks_), tr("Mask comparison"));
  tabs_->addTab(scrolled(charts_), tr("Charts"));
  auto* gradPage = new QWidget;  // the gradient norms of every parameter, over one sentence about them
  auto* gv = new QVBoxLayout(gradPage);
  gradSummary_ = label(QStringLiteral("gradSummary"));
  gradNorms_ = new GradNormChart;
  gv->addWidget(gradSummary_);
  gv->addWidget(gradNorms_, 1);
  scaling_ = new ScalingTable;
  gv->addWidget(scaling_);
  tabs_->addTab(scrolled(gradPage), tr("Gradients"));
  tabs_->setTabVisible(GradientsTab, false);
  v->addWidget(tabs_, 1);
  concealNote_ = label(QStringLiteral("concealNote"));
  styleHeader();
  concealNote_->setText(tr("This step's shape is the exercise: its values, code line and shape are hidden until you "
                           "answer in the exercise panel."));
  concealNote_->hide();
  v->addWidget(concealNote_);

  connect(sentence_, &QComboBox::currentIndexChanged, this, [this](int b) {
    sel_.batch = std::max(0, b);
    refreshValues();
    refreshTab();
  });
  connect(tabs_, &QTabWidget::currentChanged, this, [this] { refreshTab(); });
  connect(grid_, &HeatmapGrid::headEnlarged, this, [this](int h) {
    if (h >= 0) sel_.head = h;
  });
  connect(charts_, &ChartsPanel::headChosen, this, &StepPanel::setHead);
  connect(charts_, &ChartsPanel::queryChosen, this, &StepPanel::setQuery);
  connect(neuron_, &NeuronView::queryChosen, this, &StepPanel::setQuery);
  connect(lines_, &LineView::queryChosen, this, &StepPanel::setQuery);
  connect(model_, &ModelView::blockChosen, this, [this](const QString& block, int head) {
    sel_.head = head;
    emit stepRequested(block + QStringLiteral(".weights"));
  });
}

void StepPanel::styleHeader() {
  QFont big = font();
  big.setPointSizeF(font().pointSizeF() * 1.25);
  big.setBold(true);
  location_->setFont(big);
  location_->setMinimumWidth(QFontMetrics(big).averageCharWidth() * 10);  // where we are, before the chooser
  QFont f = font();
  f.setPointSizeF(font().pointSizeF() * 1.2);
  formula_->setFont(f);
  QFont fixed = QFontDatabase::systemFont(QFontDatabase::FixedFont);
  fixed.setPointSizeF(font().pointSizeF());
  code_->setFont(fixed);
  change_->setFont(font());  // a label with a style sheet does not follow its parent's font
  const bool dark = palette().color(QPalette::Window).lightness() < 128;  // Qt 6.4: judge by the palette
  QFont prose = font();
  prose.setPointSizeF(font().pointSizeF() * 1.1);
  explain_->setFont(prose);
  explain_->setStyleSheet(dark ? QStringLiteral("QLabel { color: #e8e8e8; background: #2a3340; padding: 2px 8px; border-left: 4px solid #6fa8dc; }")
                               : QStringLiteral("QLabel { color: #1a1a1a; background: #eef4fb; padding: 2px 8px; border-left: 4px solid #3d7cc9; }"));
  change_->setStyleSheet(dark ? QStringLiteral("QLabel { color: #8cc4ff; }") : QStringLiteral("QLabel { color: #1d4f91; }"));
  if (concealNote_) {
    concealNote_->setStyleSheet(QStringLiteral("QLabel { font-weight: bold; color: %1; padding: 12px; }")
                                    .arg(dark ? QStringLiteral("#ffb454") : QStringLiteral("#8a4b00")));
    concealNote_->setFont(font());
  }
}

void StepPanel::changeEvent(QEvent* event) {
  if (location_ && (event->type() == QEvent::FontChange || event->type() == QEvent::PaletteChange)) styleHeader();
  if (location_ && event->type() == QEvent::FontChange) fitHeader();
  QWidget::changeEvent(event);
}

// [location ........................ Sentence: [chooser] 1.2 ms [Details]]
// [what happens and why]   each one line, elided, the whole text in its tooltip;
// [formula]                "Details" wraps them in full and adds the step id
// [code]
// [what changed]
// [step id]                (details only)
QWidget* StepPanel::buildHeader() {
  auto* header = new QWidget;
  auto* v = new QVBoxLayout(header);
  v->setContentsMargins(0, 0, 0, 0);
  v->setSpacing(2);
  location_ = line(QStringLiteral("location"));
  location_->setElideMode(Qt::ElideMiddle);  // the layer and the step's name both stay in view
  title_ = label(QStringLiteral("title"));
  title_->hide();
  formula_ = line(QStringLiteral("formula"));
  code_ = line(QStringLiteral("code"));
  code_->setStyleSheet(QStringLiteral("QLabel { background: #f3f3f3; color: #202020; padding: 2px 6px; border-radius: 4px; }"));
  change_ = line(QStringLiteral("change"));
  explain_ = line(QStringLiteral("explanation"));
  styleHeader();
  diagram_ = new ShapeDiagram;
  sentence_ = new QComboBox;
  sentence_->setObjectName(QStringLiteral("sentence"));
  sentence_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  sentence_->setMinimumContentsLength(4);
  details_ = new QToolButton;
  details_->setObjectName(QStringLiteral("details"));
  details_->setCheckable(true);
  details_->setText(tr("Details"));
  details_->setToolTip(tr("Show the explanation, formula, code and change in full, the step id and the shape diagram"));
  connect(details_, &QToolButton::toggled, this, &StepPanel::setDetailsShown);
  auto* row = new QHBoxLayout;
  row->addWidget(location_, 1);
  sentenceLabel_ = new QLabel(tr("Sentence:"));
  sentenceLabel_->setObjectName(QStringLiteral("sentenceLabel"));
  sentenceLabel_->setBuddy(sentence_);
  row->addWidget(sentenceLabel_);
  row->addWidget(sentence_);
  row->addWidget(details_);
  v->addLayout(row);
  for (QWidget* w : std::initializer_list<QWidget*>{explain_, formula_, code_, change_, title_}) v->addWidget(w);
  return header;
}

void StepPanel::setDetailsShown(bool on) {
  detailsOpen_ = on;
  if (details_->isChecked() != on) details_->setChecked(on);
  for (LineLabel* l : {location_, explain_, formula_, code_, change_}) l->setExpanded(on);
  title_->setVisible(on);
  fitHeader();
  showDiagram();
}

void StepPanel::setPresenting(bool on) {
  presenting_ = on;
  details_->setVisible(!on);
  if (on) setDetailsShown(false);
  fitHeader();
}

// The explanation and what-changed lines step back into the details in presenter mode and when
// the panel is short for its type (a small screen at a large zoom): the picture needs the room.
void StepPanel::fitHeader() {
  const bool shortPanel = height() > 0 && height() < 30 * fontMetrics().height();
  for (QWidget* w : std::initializer_list<QWidget*>{explain_, change_})
    w->setVisible(detailsOpen_ || (!presenting_ && !shortPanel));
}

void StepPanel::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  fitHeader();
}

void StepPanel::showDiagram() { diagram_->setVisible(!showingHeatmaps() || detailsOpen_); }

void StepPanel::reveal(QWidget* w) {
  for (QWidget* hidden : std::initializer_list<QWidget*>{title_, diagram_})
    if (w && (w == hidden || hidden->isAncestorOf(w)) && !hidden->isVisible()) setDetailsShown(true);
  for (LineLabel* l : {location_, explain_, formula_, code_, change_})
    if (w == l && l->elided()) setDetailsShown(true);
}

void StepPanel::setStep(TraceResultPtr result, int index) {
  const bool newResult = result != sel_.result;
  sel_.result = std::move(result);
  if (newResult) {
    changes_.clear(), measuring_.clear();
    showGradients();
  }
  sel_.stepIndex = index;
  if (!sel_.result || index < 0 || index >= static_cast<int>(sel_.result->trace.steps().size())) return;
  const Step& s = sel_.result->trace.steps()[static_cast<size_t>(index)];
  const std::string block = focusBlock(sel_.result->trace, s.info.id);
  if (block != sel_.block) sel_.query = 0;
  sel_.block = block;
  sel_.head = std::clamp(sel_.head, 0, static_cast<int>(sel_.result->cfg.heads) - 1);
  location_->setFullText(StepNames::location(sel_.result->trace, index));
  title_->setText(tr("Step id: %1").arg(QString::fromStdString(s.info.id)));
  formula_->setFullText(StepText::formula(s.info));
  explain_->setFullText(StepText::explanation(s.info.id));
  code_->setFullText(QString::fromStdString(s.info.code));
  change_->setFullText(whatChanged(index));
  const bool hidden = changeHidden(index) && QString::fromStdString(s.info.id) == concealed_;
  if (hidden) {
    formula_->setFullText(tr("(formula hidden: it names the axes)"));
    code_->setFullText(tr("# hidden until you answer"));
    change_->setFullText(tr("What this step computes is the question."));
    explain_->setFullText({});
  }
  const bool readsHidden = !hidden && changeHidden(index);
  if (readsHidden) change_->setFullText(tr("(The sentence about the sizes is hidden: it would give the exercise away.)"));
  tabs_->setVisible(!hidden);
  concealNote_->setVisible(hidden);
  diagram_->setConcealed(concealed_.toStdString());
  diagram_->setStep(sel_.result, index);
  // In cross mode an encoder step runs on the source sentences: the chooser says so and lists them.
  const bool source = sel_.result->batch.cross() && sel_.result->trace.steps()[static_cast<size_t>(index)].info.id.starts_with("encoder.");
  if (newResult || source != sentencesAreSource_) fillSentences(source);
  if (newResult) {
    // How long the trace took is in the status bar; the chooser's tooltip says it too.
    sentence_->setToolTip(tr("Computed in %1 ms on %2").arg(sel_.result->forward_ms, 0, 'f', 1).arg(CoreText::translate(sel_.result->deviceText)));
  }
  refreshValues();
  refreshTab();
}

// The sentence on what changed measures the step's tensors (ranges, counts, row sums): for a long
// text that is 10⁸ numbers, so above kInlineNumbers it is measured on a worker thread ("measuring…"
// meanwhile) and kept for the result, so that a step never stalls the window.
QString StepPanel::whatChanged(int index) {
  if (const auto it = changes_.find(index); it != changes_.end()) return it->second;
  const Trace& trace = sel_.result->trace;
  const Step& out = trace.steps()[static_cast<size_t>(index)];
  int64_t numbers = out.tensor.numel();
  for (const auto& id : out.info.inputs())
    if (const Step* in = trace.find(id)) numbers += in->tensor.numel();
  if (numbers <= kInlineNumbers) return changes_[index] = StepNames::whatChanged(trace, index);
  const QString measuring = tr("Measuring what changed in %1 numbers…").arg(formatNumber(static_cast<double>(numbers), {.digits = 0, .fixed = true}));
  if (!measuring_.insert(index).second) return measuring;  // already under way
  QPointer<StepPanel> self(this);
  backgroundPool()->start([self, result = sel_.result, index] {
    const QString text = StepNames::whatChanged(result->trace, index);
    QMetaObject::invokeMethod(qApp, [self, result, index, text] {
      if (!self || self->sel_.result != result) return;  // another result since: not this one's
      self->changes_[index] = text;
      self->measuring_.erase(index);
      if (self->sel_.stepIndex == index && !self->changeHidden(index)) self->change_->setFullText(text);
    }, Qt::QueuedConnection);
  });
  return measuring;
}

// Whether the what-changed sentence of a step would give a predict-the-shape exercise away: the
// step is the hidden one, or reads it.
bool StepPanel::changeHidden(int index) const {
  if (concealed_.isEmpty()) return false;
  const Step& s = sel_.result->trace.steps()[static_cast<size_t>(index)];
  if (QString::fromStdString(s.info.id) == concealed_) return true;
  return std::any_of(s.info.bindings.begin(), s.info.bindings.end(),
                     [this](const auto& bind) { return QString::fromStdString(bind.source) == concealed_; });
}

void StepPanel::refreshValues() {
  if (!sel_.result || sel_.stepIndex < 0) return;
  const Step& s = sel_.result->trace.steps()[static_cast<size_t>(sel_.stepIndex)];
  if (is_attention_matrix(s.info.id, s.tensor, MatrixSteps::Traced)) {  // per-head heatmaps
    grid_->setStep(sel_.result, sel_.stepIndex, sel_.batch);
    stack_->setCurrentWidget(grid_);
  } else {
    values_->setStep(sel_.result, sel_.stepIndex, sel_.batch);
    stack_->setCurrentWidget(values_);
  }
  showDiagram();
}

// The Gradients tab with a backward pass only (a result without one leaves it for Values).
void StepPanel::showGradients() {
  const bool has = sel_.result && sel_.result->gradients;
  gradNorms_->setResult(has ? sel_.result : nullptr);
  gradSummary_->setText(gradNorms_->summary());
  if (!has && tabs_->currentIndex() == GradientsTab) tabs_->setCurrentIndex(ValuesTab);
  tabs_->setTabVisible(GradientsTab, has);
}

void StepPanel::refreshTab() {
  if (!sel_.valid()) return;
  switch (tabs_->currentIndex()) {
    case LinesTab: lines_->setSelection(sel_); break;
    case ModelTab: model_->setSelection(sel_); break;
    case NeuronTab: neuron_->setSelection(sel_); break;
    case MasksTab: masks_->setSelection(sel_); break;
    case ChartsTab: charts_->setSelection(sel_); break;
    case GradientsTab: scaling_->setSelection(sel_.result, sel_.block); break;
    default: break;
  }
}

void StepPanel::setHead(int head) {
  if (head == sel_.head) return;  // views echo the selection back while updating
  sel_.head = head;
  refreshTab();
}

void StepPanel::setQuery(int query) {
  if (query == sel_.query) return;
  sel_.query = query;
  refreshTab();
}

void StepPanel::fillSentences(bool source) {
  sentencesAreSource_ = source;
  sentenceLabel_->setText(source ? tr("Source sentence:") : tr("Sentence:"));
  const int keep = sentence_->currentIndex();
  sentence_->blockSignals(true);
  sentence_->clear();
  const auto& rows = (source ? sel_.result->batch.memory : sel_.result->batch.text).shown_rows();
  for (size_t b = 0; b < rows.size(); ++b) {
    QString preview;
    for (const auto& t : rows[b])
      if (t != kPadToken) preview += QString::fromStdString(t) + QLatin1Char(' ');
    sentence_->addItem(tr("%1: %2").arg(b).arg(preview.left(60).trimmed()));
  }
  sentence_->setCurrentIndex(std::clamp(keep, 0, sentence_->count() - 1));
  sentence_->blockSignals(false);
  sel_.batch = std::max(0, sentence_->currentIndex());
}

void StepPanel::setStale(const QString& note) {
  stale_->setText(note);
  stale_->setVisible(!note.isEmpty());
}

QString StepPanel::staleNote() const { return stale_->isVisible() ? stale_->text() : QString(); }

void StepPanel::setConcealed(const QString& id) {
  concealed_ = id;
  if (sel_.result) setStep(sel_.result, sel_.stepIndex);
}

QString StepPanel::locationText() const { return location_->fullText(); }
QString StepPanel::formulaText() const { return formula_->fullText(); }
QString StepPanel::codeText() const { return code_->fullText(); }
QString StepPanel::changeText() const { return change_->fullText(); }
bool StepPanel::showingHeatmaps() const { return stack_->currentWidget() == grid_; }
namespace {
const QStringList kTabIds = {QStringLiteral("values"), QStringLiteral("lines"),  QStringLiteral("model"),
                             QStringLiteral("neuron"), QStringLiteral("masks"), QStringLiteral("charts"),
                             QStringLiteral("gradients")};
}  // namespace

QString StepPanel::currentTabId() const { return kTabIds.value(tabs_->currentIndex(), kTabIds[0]); }
void StepPanel::setCurrentTabId(const QString& id) { tabs_->setCurrentIndex(std::max<int>(0, kTabIds.indexOf(id))); }

int StepPanel::sentence() const { return sentence_->currentIndex(); }
void StepPanel::setSentence(int b) { sentence_->setCurrentIndex(b); }

}  // namespace attnlab::ui
