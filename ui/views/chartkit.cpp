// The Qt Charts helpers behind the charts panel and the token bar chart (chartkit.h).
#include "views/chartkit.h"

#include <QFontDatabase>

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

#include <cmath>

namespace attnlab::ui {

namespace chartkit {

namespace {

// Axes want distinct labels: a repeated token gets invisible zero-width spaces.
QString distinct(QString label, QSet<QString>& seen) {
  while (seen.contains(label)) label += QChar(0x200B);
  seen.insert(label);
  return label;
}

}  // namespace

// A tick interval of 1, 2 or 5 × 10^k that cuts `range` into about five steps.
double niceStep(double range) {
  const double raw = range / 5, magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (m * magnitude >= raw) return m * magnitude;
  return 10 * magnitude;
}

void resetChart(QChart* c) {
  c->removeAllSeries();
  for (QAbstractAxis* a : c->axes()) {
    c->removeAxis(a);
    delete a;
  }
}

// Ticks at round numbers (multiples of niceStep from 0), whatever the range.
QValueAxis* addValueAxis(QChart* c, Qt::Alignment side, double lo, double hi, const QString& title) {
  auto* axis = new QValueAxis;
  axis->setRange(lo, hi);
  axis->setTickType(QValueAxis::TicksDynamic);
  axis->setTickAnchor(0);
  axis->setTickInterval(niceStep(hi - lo));
  axis->setLabelFormat(QStringLiteral("%.3g"));
  axis->setTitleText(title);
  axis->setTitleFont(titleFont(axis->titleFont(), title));
  c->addAxis(axis, side);
  return axis;
}

QFont titleFont(QFont base, const QString& text) {
  // Qt Charts reserves a title's room from its font's metrics, but CJK glyphs come from a fallback
  // font that stands taller: a vertical title then shrank to "…". With the CJK font first, the
  // room is what its glyphs take (its Latin letters serve the rest of the title).
  static const QString cjk = QStringLiteral("Noto Sans CJK SC");
  const bool hasCjk = std::any_of(text.begin(), text.end(), [](QChar ch) { return ch.script() == QChar::Script_Han; });
  if (!hasCjk || !QFontDatabase::hasFamily(cjk)) return base;
  base.setFamilies(QStringList{cjk} + base.families());
  return base;
}

// Tokens under bars at x = 0 … n−1, every `step`-th one labelled: a label gets the axis width
// over the number of labels, so thinning keeps long sentences readable instead of "...".
QCategoryAxis* addTokenAxis(QChart* c, const QStringList& tokens, int step, bool rotate) {
  auto* axis = new QCategoryAxis;
  axis->setRange(-0.5, tokens.size() - 0.5);
  axis->setStartValue(-0.5);
  axis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
  axis->setGridLineVisible(false);
  QSet<QString> seen;
  for (int j = 0; j < tokens.size(); j += step) axis->append(distinct(tokens[j], seen), j);
  axis->setLabelsAngle(rotate && tokens.size() > 8 ? -90 : 0);
  c->addAxis(axis, Qt::AlignBottom);
  return axis;
}

void attach(QAbstractSeries* s, QAbstractAxis* x, QAbstractAxis* y) {
  s->attachAxis(x);
  s->attachAxis(y);
}

QChart* makeChart(QChartView** view) {
  auto* chart = new QChart;
  chart->setMargins(QMargins(4, 4, 4, 4));
  chart->legend()->setAlignment(Qt::AlignTop);
  *view = new QChartView(chart);
  (*view)->setRenderHint(QPainter::Antialiasing);
  (*view)->setMinimumSize(280, 180);
  return chart;
}

}  // namespace chartkit

using namespace chartkit;

// ---- TokenBarChart --------------------------------------------------------------------------

TokenBarChart::TokenBarChart(QWidget* parent) : QWidget(parent) {
  chart_ = makeChart(&view_);
  chart_->legend()->hide();
  view_->setMinimumSize(240, 200);
  auto* v = new QVBoxLayout(this);
  v->setContentsMargins(0, 0, 0, 0);
  v->addWidget(view_);
}

void TokenBarChart::setBars(const QStringList& tokens, const QVector<double>& values, const QString& title,
                            const QString& valueTitle) {
  tokens_ = tokens;
  values_ = values;
  title_ = title;
  valueTitle_ = valueTitle;
  draw();
}

int TokenBarChart::barCount() const {
  const auto series = chart_->series();
  if (series.isEmpty()) return 0;
  const auto* bars = qobject_cast<const QAbstractBarSeries*>(series.first());
  return bars && !bars->barSets().isEmpty() ? static_cast<int>(bars->barSets().first()->count()) : 0;
}

QString TokenBarChart::title() const { return chart_->title(); }

void TokenBarChart::draw() {
  resetChart(chart_);
  const bool dark = palette().color(QPalette::Window).lightness() < 128;
  chart_->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
  chart_->setBackgroundBrush(palette().window());
  chart_->setTitle(title_);
  if (!values_.isEmpty()) {
    double top = 0;
    for (double x : values_) top = std::isfinite(x) ? std::max(top, x) : top;
    top = top > 0 ? top * 1.1 : 1e-6;
    auto* series = new QBarSeries;
    series->setBarWidth(0.8);
    auto* set = new QBarSet(valueTitle_);
    set->setColor(kUnscaledColor);
    for (double x : values_) *set << x;
    series->append(set);
    chart_->addSeries(series);
    const int room = std::max(1, (view_->width() - 90) / (QFontMetrics(font()).height() * 3 / 2));
    QAbstractAxis* x = addTokenAxis(chart_, tokens_, std::max<int>(1, static_cast<int>((tokens_.size() + room - 1) / room)));
    QValueAxis* y = addValueAxis(chart_, Qt::AlignLeft, 0, top, valueTitle_);
    y->setLabelFormat(QStringLiteral("%.2g"));
    attach(series, x, y);
  }
  QFont bold = font();
  bold.setBold(true);
  chart_->setTitleFont(bold);
  for (QAbstractAxis* a : chart_->axes()) {
    a->setLabelsFont(font());
    a->setTitleFont(font());
  }
}

void TokenBarChart::changeEvent(QEvent* e) {
  QWidget::changeEvent(e);
  if (e->type() == QEvent::FontChange || e->type() == QEvent::PaletteChange) draw();
}

}  // namespace attnlab::ui
