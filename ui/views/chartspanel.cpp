#include "views/chartspanel.h"

#include <QAreaSeries>
#include <QBarSeries>
#include <QBarSet>
#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QCoreApplication>
#include <QEvent>
#include <QGridLayout>
#include <QGraphicsRectItem>
#include <QGraphicsSimpleTextItem>
#include <QLabel>
#include <QLegend>
#include <QLineSeries>
#include <QScatterSeries>
#include <QSet>
#include <QSlider>
#include <QStackedBarSeries>
#include <QToolButton>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

#include "forward/model.h"
#include "views/chartkit.h"
#include "views/colormap.h"

namespace attnlab::ui {

using namespace chartkit;

namespace {

constexpr int kSliderSteps = 1000;
constexpr const char* kContext = "attnlab::ui::ChartsPanel";

// The slider is logarithmic: T = 0.1 · 50^(v / 1000).
const double kSpan = std::log(ChartsPanel::kMaxTemperature / ChartsPanel::kMinTemperature);
double sliderToTemperature(int v) { return ChartsPanel::kMinTemperature * std::exp(kSpan * v / kSliderSteps); }
int temperatureToSlider(double t) {
  return static_cast<int>(std::lround(kSliderSteps * std::log(t / ChartsPanel::kMinTemperature) / kSpan));
}

// Name and colour of each HeadPattern, in enum order.
struct PatternLook {
  const char* name;
  QRgb rgb;
};
constexpr PatternLook kPatterns[] = {{QT_TRANSLATE_NOOP("attnlab::ui::ChartsPanel", "uniform (dead)"), 0x9e9e9e},
                                     {QT_TRANSLATE_NOOP("attnlab::ui::ChartsPanel", "diagonal"), 0x1f77b4},
                                     {QT_TRANSLATE_NOOP("attnlab::ui::ChartsPanel", "previous token"), 0x2ca02c},
                                     {QT_TRANSLATE_NOOP("attnlab::ui::ChartsPanel", "focused"), 0x9467bd},
                                     {QT_TRANSLATE_NOOP("attnlab::ui::ChartsPanel", "mixed"), 0xff7f0e}};
QString patternText(int p) { return QCoreApplication::translate(kContext, kPatterns[p].name); }
QColor patternColor(int p) { return QColor(kPatterns[p].rgb); }

}  // namespace

ChartsPanel::ChartsPanel(QWidget* parent) : QWidget(parent) {
  softmaxChart_ = makeChart(&softmaxView_);
  histChart_ = makeChart(&histView_);
  entropyChart_ = makeChart(&entropyView_);
  entropyChart_->legend()->hide();  // each bar's chip names its pattern
  connect(entropyChart_, &QChart::plotAreaChanged, this, &ChartsPanel::placePatternChips);
  explanation_ = new QLabel(this);
  explanation_->setWordWrap(true);
  explanation_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  // Controls on top; left: (a) over (c); right: (b) over its explanation.
  auto* grid = new QGridLayout(this);
  grid->setContentsMargins(4, 4, 4, 4);
  buildControls();
  grid->addWidget(softmaxView_, 1, 0);
  grid->addWidget(entropyView_, 2, 0);
  grid->addWidget(histView_, 1, 1);
  grid->addWidget(explanation_, 2, 1, Qt::AlignTop);
  grid->setRowStretch(1, 3);
  grid->setRowStretch(2, 2);
  grid->setColumnStretch(0, 1);
  grid->setColumnStretch(1, 1);
  applyTheme();
  recompute();
}

void ChartsPanel::buildControls() {
  auto* row = new QHBoxLayout;
  row->addWidget(new QLabel(tr("Query row:"), this));
  query_ = new QComboBox(this);
  query_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  query_->setToolTip(tr("The query token whose softmax row is drawn"));
  connect(query_, &QComboBox::activated, this, &ChartsPanel::chooseQuery);
  row->addWidget(query_);
  row->addSpacing(16);
  row->addWidget(new QLabel(tr("Softmax temperature:"), this));
  tempSlider_ = new QSlider(Qt::Horizontal, this);
  tempSlider_->setRange(0, kSliderSteps);
  tempSlider_->setValue(temperatureToSlider(temperature_));
  tempSlider_->setToolTip(tr("softmax(scores / T), T from %1 to %2 on a log scale").arg(kMinTemperature).arg(kMaxTemperature));
  connect(tempSlider_, &QSlider::valueChanged, this, [this](int v) { temperatureChanged(sliderToTemperature(v)); });
  row->addWidget(tempSlider_, 1);
  tempLabel_ = new QLabel(this);
  row->addWidget(tempLabel_);
  auto* reset = new QToolButton(this);
  reset->setText(tr("T = 1"));
  reset->setToolTip(tr("Back to the model's own softmax (temperature 1)"));
  connect(reset, &QToolButton::clicked, this, [this] { setTemperature(1.0); });
  row->addWidget(reset);
  static_cast<QGridLayout*>(layout())->addLayout(row, 0, 0, 1, 2);
}

void ChartsPanel::setTemperature(double t) {
  const QSignalBlocker block(tempSlider_);
  tempSlider_->setValue(temperatureToSlider(std::clamp(t, kMinTemperature, kMaxTemperature)));
  temperatureChanged(std::clamp(t, kMinTemperature, kMaxTemperature));
}

void ChartsPanel::temperatureChanged(double t) {
  // The slider's steps miss 1 by a hair (1.0008): what reads "T = 1.00" is the model's own softmax,
  // not a tempered one drawn beside dots labelled "T = 1".
  temperature_ = std::abs(t - 1.0) < 0.005 ? 1.0 : t;
  tempLabel_->setText(tr("T = %1").arg(temperature_, 0, 'f', 2));
  recomputeSoftmax();
  recomputeLogits();
  drawSoftmax();
}

void ChartsPanel::chooseHead(int h) {
  if (h < 0 || h >= entropy_.size()) return;
  sel_.head = h;
  recompute();
  emit headChosen(h);
}

void ChartsPanel::chooseQuery(int q) {
  if (q < 0 || q >= queries_) return;
  sel_.query = q;
  if (query_->currentIndex() != q) query_->setCurrentIndex(q);
  recomputeSoftmax();
  drawSoftmax();
  emit queryChosen(q);
}

int ChartsPanel::realQueryRows() const {
  return static_cast<int>(std::count_if(queryLabels_.begin(), queryLabels_.end(),
                                        [](const QString& t) { return t != QLatin1String(kPadToken); }));
}

const Tensor& ChartsPanel::blockTensor(const char* name) const {
  return sel_.result->trace.find(sel_.blockStep(name))->tensor;
}

void ChartsPanel::recompute() {
  entropy_.clear(), patternIds_.clear(), patterns_.clear(), queryLabels_.clear(), keyLabels_.clear();
  queries_ = 0;
  const Trace* trace = sel_.valid() ? &sel_.result->trace : nullptr;
  const bool complete = trace && trace->find(sel_.blockStep("weights")) && trace->find(sel_.blockStep("qk")) &&
                        trace->find(sel_.blockStep("masked_scores"));
  if (complete) {
    const Tensor& w = blockTensor("weights");  // (B, H, Tq, Tk)
    sel_.batch = std::clamp<int>(sel_.batch, 0, static_cast<int>(w.size(0)) - 1);
    sel_.head = std::clamp<int>(sel_.head, 0, static_cast<int>(w.size(1)) - 1);
    queries_ = static_cast<int>(w.size(2));
    sel_.query = std::clamp(sel_.query, 0, queries_ - 1);
    const AxisTokens tokens = attention_tokens(sel_.result->batch, sel_.blockStep("weights"), sel_.batch);
    for (const auto& t : tokens.query) queryLabels_ << QString::fromStdString(t);
    for (const auto& t : tokens.key) keyLabels_ << QString::fromStdString(t);
    dHead_ = static_cast<double>(sel_.result->cfg.d_head());
    for (const HeadStats& s : head_diagnostics(w, &blockTensor("masked_scores"), sel_.batch, realQueryRows())) {
      entropy_ << s.entropy;
      patternIds_ << static_cast<int>(s.pattern);
      patterns_ << patternText(patternIds_.back());
    }
  }
  const QSignalBlocker block(query_);
  query_->clear();
  for (int i = 0; i < queryLabels_.size(); ++i) query_->addItem(tr("%1 · %2").arg(i).arg(queryLabels_[i]));
  query_->setCurrentIndex(queries_ ? sel_.query : -1);
  query_->setEnabled(queries_ > 0);
  const QFontMetrics fm(font());  // (c): room for the longest chip standing on a bar
  int chip = 0;
  for (const QString& p : patterns_) chip = std::max(chip, fm.horizontalAdvance(p));
  entropyView_->setMinimumHeight(chip + 7 * fm.height());
  temperatureChanged(temperature_);
  drawHistogram();
  drawEntropy();
}

void ChartsPanel::recomputeSoftmax() {
  softmax_.clear(), softmaxAtOne_.clear(), masked_.clear();
  if (queries_ == 0) return;
  const AttentionRow row = attention_row(blockTensor("weights"), blockTensor("masked_scores"), sel_.batch, sel_.head,
                                         sel_.query, temperature_);
  softmaxAtOne_ = QVector<double>(row.weights.begin(), row.weights.end());
  softmax_ = QVector<double>(row.tempered.begin(), row.tempered.end());
  for (char m : row.masked) masked_ << (m != 0);
}

void ChartsPanel::recomputeLogits() {
  logits_ = queries_ ? logit_stats(blockTensor("qk"), blockTensor("masked_scores"), sel_.batch, sel_.head, temperature_,
                                   realQueryRows())
                     : LogitStats{};
  explanation_->setText(explanation());
}

// One sentence under the histogram, in words its own numbers bear out: it says softmax saturates
// more often without the ÷√Dh only when it does, and counts rows rather than rounding them to
// percentages (1 row of 300 is not "0 %").
QString ChartsPanel::explanation() const {
  if (logits_.rows == 0) return tr("No attention logits to compare for this selection.");
  const int rows = logits_.rows;
  const int raw = static_cast<int>(std::lround(logits_.saturated_unscaled * rows));
  const int scaled = static_cast<int>(std::lround(logits_.saturated_scaled * rows));
  const QString t = QString::number(temperature_, 'f', 2);
  const QString share = QString::number(kSaturated);
  if (dHead_ <= 1.0)  // ÷√1: both series are the same numbers
    return tr("With Dh = 1 the scaling divides by √Dh = 1 and changes nothing: at T = %1, %2 of %3 query rows put "
              "more than %4 of their weight on one key.")
        .arg(t).arg(scaled).arg(rows).arg(share);
  const QString spread = QString::number(std::sqrt(dHead_), 'g', 3);
  if (raw == 0)
    return tr("Unscaled logits spread √Dh = %1 times wider, yet at T = %2 no query row (of %3) puts more than %4 of "
              "its weight on one key, with or without the ÷√Dh.")
        .arg(spread, t).arg(rows).arg(share);
  if (raw == scaled)
    return tr("Unscaled logits spread √Dh = %1 times wider, yet here the ÷√Dh spares no row: at T = %2, %3 of %4 "
              "query rows put more than %5 of their weight on one key, with or without it.")
        .arg(spread, t).arg(raw).arg(rows).arg(share);
  return tr("Unscaled logits spread √Dh = %1 times wider, so softmax saturates more often without the ÷√Dh: at "
            "T = %2, %3 of %4 query rows put more than %5 of their weight on one key without it, %6 with it.")
      .arg(spread, t).arg(raw).arg(rows).arg(share).arg(scaled);
}

int ChartsPanel::keyLabelStep() const {
  if (keyLabels_.size() <= 8) return 1;
  const int room = std::max(1, (softmaxView_->width() - 90) / (QFontMetrics(font()).height() * 3 / 2));
  return std::max<int>(1, static_cast<int>((keyLabels_.size() + room - 1) / room));
}

// (a) the query row (Tk) as bars, stacked on grey hatched stubs that mark the masked keys.
void ChartsPanel::drawSoftmax() {
  resetChart(softmaxChart_);
  keyStep_ = keyLabelStep();
  if (softmax_.isEmpty()) {
    softmaxChart_->setTitle(tr("Softmax of a query row: no attention block in focus"));
    return applyFonts();
  }
  const bool nanRow = std::isnan(softmax_.value(0));
  double top = 0;
  for (const auto* v : {&softmax_, &softmaxAtOne_})
    for (double x : *v) top = std::isfinite(x) ? std::max(top, x) : top;
  top = std::clamp(std::ceil(top * 11.0) / 10.0, 0.1, 1.0);
  auto* series = new QStackedBarSeries;
  series->setBarWidth(0.8);
  auto* weights = new QBarSet(tr("weight at T = %1").arg(temperature_, 0, 'f', 2));
  auto* masked = new QBarSet(tr("masked key (weight 0)"));
  weights->setColor(kWeightColor);
  masked->setBrush(QBrush(ColorMap::maskedColor(), Qt::BDiagPattern));
  masked->setBorderColor(ColorMap::maskedColor().darker(140));
  for (int j = 0; j < softmax_.size(); ++j) {
    *weights << (masked_[j] || nanRow ? 0.0 : softmax_[j]);
    *masked << (masked_[j] ? 0.03 * top : 0.0);
  }
  series->append(weights);
  if (masked_.contains(true)) series->append(masked);
  else delete masked;
  softmaxChart_->addSeries(series);
  QAbstractAxis* x = addTokenAxis(softmaxChart_, keyLabels_, keyStep_);
  QAbstractAxis* y = addValueAxis(softmaxChart_, Qt::AlignLeft, 0, top, tr("weight"));
  attach(series, x, y);
  if (temperature_ != 1.0 && !nanRow) {  // the model's own weights, for comparison
    auto* dots = new QScatterSeries;
    dots->setName(tr("T = 1"));
    dots->setMarkerSize(9);
    dots->setColor(palette().color(QPalette::WindowText));
    for (int j = 0; j < softmaxAtOne_.size(); ++j)
      if (!masked_[j]) dots->append(j, softmaxAtOne_[j]);
    softmaxChart_->addSeries(dots);
    attach(dots, x, y);
  }
  const QString title = tr("Softmax of query %1 “%2”, head %3").arg(sel_.query).arg(queryLabels_.value(sel_.query)).arg(sel_.head);
  softmaxChart_->setTitle(nanRow ? title + tr(": every key masked, the row is NaN") : title);
  applyFonts();
}

// (b) two step-shaped areas over shared bins: QKᵀ / √Dh and QKᵀ.
void ChartsPanel::drawHistogram() {
  resetChart(histChart_);
  if (logits_.scaled.empty()) {
    histChart_->setTitle(tr("Logits: nothing to show"));
    return applyFonts();
  }
  const auto [lo0, hi0] = std::minmax_element(logits_.unscaled.begin(), logits_.unscaled.end());
  const auto [lo1, hi1] = std::minmax_element(logits_.scaled.begin(), logits_.scaled.end());
  double lo = std::min(*lo0, *lo1), hi = std::max(*hi0, *hi1);
  if (!(hi > lo)) lo -= 0.5, hi += 0.5;
  const int bins = std::clamp(static_cast<int>(2 * std::sqrt(static_cast<double>(logits_.scaled.size()))), 8, 40);
  const double width = (hi - lo) / bins;
  auto* x = addValueAxis(histChart_, Qt::AlignBottom, lo, hi, tr("logit"));
  auto* y = addValueAxis(histChart_, Qt::AlignLeft, 0, 1, tr("entries (query, key pairs)"));
  int64_t most = 1;
  const auto addSeries = [&](const std::vector<float>& v, const QString& name, QColor color) {
    const auto counts = histogram(v.data(), static_cast<int64_t>(v.size()), bins, lo, hi);
    auto* area = new QAreaSeries;
    auto* upper = new QLineSeries(area);  // a step outline: each bin a flat top
    for (int k = 0; k < bins; ++k) {
      upper->append(lo + k * width, static_cast<double>(counts[k]));
      upper->append(lo + (k + 1) * width, static_cast<double>(counts[k]));
      most = std::max(most, counts[k]);
    }
    area->setUpperSeries(upper);
    area->setName(name);
    area->setBorderColor(color);
    color.setAlpha(110);
    area->setColor(color);
    histChart_->addSeries(area);
    attach(area, x, y);
  };
  addSeries(logits_.unscaled, tr("QKᵀ, unscaled"), kUnscaledColor);
  addSeries(logits_.scaled, tr("QKᵀ / √Dh (what the model's softmax sees)"), kWeightColor);
  y->setRange(0, static_cast<double>(most) * 1.1);
  y->setTickInterval(std::max(1.0, niceStep(static_cast<double>(most) * 1.1)));
  histChart_->setTitle(tr("Logits of head %1, with and without ÷√%2").arg(sel_.head).arg(dHead_));
  applyFonts();
}

// (c) one bar per head (H), in one set per HeadPattern so each pattern has its colour; the
// pattern's name stands on the bar as a chip (see placePatternChips).
void ChartsPanel::drawEntropy() {
  qDeleteAll(chips_);
  chips_.clear();
  resetChart(entropyChart_);
  if (entropy_.isEmpty()) {
    entropyChart_->setTitle(tr("Head entropy: no attention block in focus"));
    return applyFonts();
  }
  auto* series = new QStackedBarSeries;
  series->setBarWidth(0.8);
  for (int p = 0; p <= static_cast<int>(HeadPattern::Mixed); ++p) {
    if (!patternIds_.contains(p)) continue;
    auto* set = new QBarSet(patternText(p));
    set->setColor(patternColor(p).lighter(140));
    set->setSelectedColor(patternColor(p));
    for (int h = 0; h < entropy_.size(); ++h) *set << (patternIds_[h] == p ? entropy_[h] : 0.0);
    if (patternIds_.value(sel_.head) == p) set->selectBar(sel_.head);
    series->append(set);
  }
  QStringList heads;
  for (int h = 0; h < entropy_.size(); ++h) heads << QString::number(h);
  const int room = std::max(1, (entropyView_->width() - 90) / (QFontMetrics(font()).horizontalAdvance(QStringLiteral("000"))));
  entropyChart_->addSeries(series);
  QAbstractAxis* x = addTokenAxis(entropyChart_, heads, static_cast<int>((heads.size() + room - 1) / room), false);
  x->setTitleText(tr("head (darker: in focus) · dashed: dead above %1").arg(kDeadEntropy));
  QAbstractAxis* y = addValueAxis(entropyChart_, Qt::AlignLeft, 0, 1.0, tr("entropy / log n"));
  attach(series, x, y);
  auto* dead = new QLineSeries;  // the "dead head" threshold across every bar
  dead->setPen(QPen(palette().color(QPalette::WindowText), 1.5, Qt::DashLine));
  dead->append(-0.5, kDeadEntropy);
  dead->append(static_cast<double>(entropy_.size()) - 0.5, kDeadEntropy);
  entropyChart_->addSeries(dead);
  attach(dead, x, y);
  connect(series, &QAbstractBarSeries::clicked, this, [this](int index, QBarSet*) { chooseHead(index); });
  // The model's own weights, whatever the slider says: a tempered row beside it is an experiment.
  entropyChart_->setTitle(tr("Entropy per head at T = 1 (click a bar to focus it)"));
  applyFonts();
  placePatternChips();
}

// Qt Charts elides axis labels wider than a bar, so the pattern names are scene items: chips
// rotated to stand on each bar's foot, re-placed whenever the plot area moves.
void ChartsPanel::placePatternChips() {
  const auto series = entropyChart_->series();
  if (series.isEmpty()) return;
  for (int h = 0; h < patterns_.size(); ++h) {
    if (chips_.size() <= h) {
      auto* chip = new QGraphicsRectItem(entropyChart_);
      auto* text = new QGraphicsSimpleTextItem(patterns_[h], chip);
      text->setFont(font());
      text->setBrush(palette().text());
      chip->setRect(text->boundingRect().adjusted(-3, -1, 3, 1));
      chip->setBrush(palette().base());
      chip->setPen(QPen(patternColor(patternIds_[h]), h == sel_.head ? 2.5 : 1.0));
      chip->setRotation(-90);  // local x points up the bar
      chip->setAcceptedMouseButtons(Qt::NoButton);  // clicks reach the bar below
      chip->setZValue(10);
      chips_ << chip;
    }
    const QPointF foot = entropyChart_->mapToPosition(QPointF(h, 0), series.first());
    chips_[h]->setPos(foot + QPointF(-chips_[h]->rect().height() / 2, -4));
  }
}

QStringList ChartsPanel::chartTitles() const {
  return {softmaxChart_->title(), histChart_->title(), entropyChart_->title()};
}

QPoint ChartsPanel::entropyBarCenter(int h) const {
  const auto series = entropyChart_->series();
  if (series.isEmpty() || h < 0 || h >= entropy_.size()) return {-1, -1};
  const QPointF at = entropyChart_->mapToPosition(QPointF(h, std::max(entropy_[h], 0.04) / 2), series.first());
  const QPoint inView = entropyView_->mapFromScene(entropyChart_->mapToScene(at));
  return entropyView_->viewport()->mapTo(this, inView);
}

void ChartsPanel::resizeEvent(QResizeEvent* e) {
  QWidget::resizeEvent(e);
  if (keyLabelStep() != keyStep_) drawSoftmax();  // room for more (or fewer) token labels
}

void ChartsPanel::changeEvent(QEvent* e) {
  QWidget::changeEvent(e);
  if (e->type() == QEvent::FontChange) recompute();  // fonts, label thinning, (c)'s height
  if (e->type() == QEvent::PaletteChange) applyTheme(), recompute();
}

void ChartsPanel::applyTheme() {
  const bool dark = palette().color(QPalette::Window).lightness() < 128;
  for (QChart* c : {softmaxChart_, histChart_, entropyChart_}) {
    c->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
    c->setBackgroundBrush(palette().window());
  }
}

void ChartsPanel::applyFonts() {
  QFont title = font();
  title.setBold(true);
  for (QChart* c : {softmaxChart_, histChart_, entropyChart_}) {
    c->setTitleFont(title);
    c->legend()->setFont(font());
    for (QAbstractAxis* a : c->axes()) {
      a->setLabelsFont(font());
      a->setTitleFont(font());
    }
  }
}

}  // namespace attnlab::ui
