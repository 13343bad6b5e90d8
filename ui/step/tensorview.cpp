#include "step/tensorview.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStackedWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "views/colormap.h"
#include "views/heatmapview.h"
#include "words/numbers.h"
#include "words/stepnames.h"

namespace attnlab::ui {

namespace {

constexpr int kMaxTable = 256;  // the table shows at most kMaxTable × kMaxTable cells

// Which axes of the tensor the slice shows. batch/head are fixed by the selectors; any other
// axis that is neither row nor column is fixed at 0.
struct SliceAxes {
  int batch = -1, head = -1, row = -1, col = -1;
};

SliceAxes chooseAxes(const QStringList& names) {
  const int dims = static_cast<int>(names.size());
  SliceAxes a;
  if (dims >= 2 && names[0] == QLatin1String("B")) a.batch = 0;
  if (dims == 4) a.head = std::max<int>(1, static_cast<int>(names.indexOf(QStringLiteral("H"))));
  std::vector<int> free;
  for (int i = 0; i < dims; ++i)
    if (i != a.batch && i != a.head) free.push_back(i);
  if (free.size() >= 2) a.row = free[free.size() - 2];
  if (!free.empty()) a.col = free.back();
  return a;
}

bool isTokenAxis(const QString& name) { return name == QLatin1String("S") || name == QLatin1String("T"); }

std::string lastPart(const std::string& id) { return id.substr(id.rfind('.') + 1); }

// Words for an axis in the caption: "query tokens", "key tokens", "head dimensions (Dh = 4)".
QString axisWord(const std::string& id, const QString& name, qint64 size, int role) {
  if (isTokenAxis(name)) {
    if (role != 0) return role < 0 ? TensorView::tr("query tokens") : TensorView::tr("key tokens");
    if (id.find("_attn.") == std::string::npos) return TensorView::tr("tokens");
    const char c = lastPart(id)[0];
    return c == 'k' || c == 'v' ? TensorView::tr("key tokens") : TensorView::tr("query tokens");
  }
  if (name == QLatin1String("D")) return TensorView::tr("model dimensions (D = %1)").arg(size);
  if (name == QLatin1String("Dh")) return TensorView::tr("head dimensions (Dh = %1)").arg(size);
  if (name == QLatin1String("F")) return TensorView::tr("hidden units (F = %1)").arg(size);
  if (name == QLatin1String("V")) return TensorView::tr("vocabulary entries (V = %1)").arg(size);
  if (name == QLatin1String("H")) return TensorView::tr("heads (H = %1)").arg(size);
  return TensorView::tr("%1 (%2)").arg(name).arg(size);
}

// Tokens along an axis named S or T (T: the decoder's own tokens / queries, S: keys or source),
// the vocabulary along V, otherwise the indices 0 … n−1.
std::vector<std::string> axisLabels(const TraceResult& res, const std::string& id, const QString& name, qint64 n,
                                    int batch) {
  if (batch >= 0 && isTokenAxis(name)) {
    const AxisTokens tok = attention_tokens(res.batch, id, batch);
    const auto& list = name == QLatin1String("T") ? tok.query : tok.key;
    if (static_cast<qint64>(list.size()) == n) return list;
  }
  if (name == QLatin1String("V") && static_cast<qint64>(res.batch.vocab.words.size()) == n) return res.batch.vocab.words;
  std::vector<std::string> idx;
  for (qint64 i = 0; i < n; ++i) idx.push_back(std::to_string(i));
  return idx;
}

// A table cell: 4 significant digits, the ASCII minus.
QString cellText(float v) { return formatNumber(v, {.digits = 4, .minusSign = false}); }

QStringList toQt(const std::vector<std::string>& v, int n) {
  QStringList out;
  for (int i = 0; i < n; ++i) out << QString::fromStdString(v[static_cast<size_t>(i)]);
  return out;
}

}  // namespace

TensorView::TensorView(QWidget* parent) : QWidget(parent) {
  headLabel_ = new QLabel(tr("&Head:"), this);
  head_ = new QSpinBox(this);
  head_->setObjectName(QStringLiteral("tensorHead"));
  head_->setRange(0, 0);  // heads count from 0, as in the file names (head{h}) and the heatmaps
  head_->setToolTip(tr("Which attention head to show"));
  headLabel_->setBuddy(head_);
  auto* modeLabel = new QLabel(tr("&Show as:"), this);
  mode_ = new QComboBox(this);
  mode_->addItems({tr("Colour map"), tr("Table")});
  modeLabel->setBuddy(mode_);
  auto* top = new QHBoxLayout;
  top->addWidget(headLabel_);
  top->addWidget(head_);
  top->addStretch(1);
  top->addWidget(modeLabel);
  top->addWidget(mode_);

  caption_ = new QLabel(this);
  caption_->setWordWrap(true);
  map_ = new HeatmapView(this);
  map_->setCellShape(3, 3);  // cells within 1:3 … 3:1 and at most 3 lines high: no strips, no giant blocks
  table_ = new QTableWidget(this);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  stack_ = new QStackedWidget(this);
  stack_->addWidget(map_);
  stack_->addWidget(table_);
  stack_->setMinimumSize(1, 1);  // both views scroll or shrink: never force the panel taller

  auto* box = new QVBoxLayout(this);
  box->setContentsMargins(0, 0, 0, 0);
  box->addLayout(top);
  box->addWidget(caption_);
  box->addWidget(stack_, 1);

  connect(head_, &QSpinBox::valueChanged, this, [this] { rebuild(); });
  connect(mode_, &QComboBox::currentIndexChanged, this, [this](int i) {
    stack_->setCurrentIndex(i);
    showCurrent();
  });
  rebuild();
}

void TensorView::setStep(TraceResultPtr result, int stepIndex, int batchIndex) {
  result_ = std::move(result);
  step_ = stepIndex;
  batch_ = batchIndex;
  rebuild();
}

void TensorView::setMode(bool table) { mode_->setCurrentIndex(table ? 1 : 0); }
bool TensorView::tableMode() const { return mode_->currentIndex() == 1; }
int TensorView::sliceRows() const { return rows_; }
int TensorView::sliceCols() const { return cols_; }
float TensorView::sliceValue(int r, int c) const { return slice_.at(static_cast<size_t>(r) * cols_ + c); }

void TensorView::rebuild() {
  const auto* steps = result_ ? &result_->trace.steps() : nullptr;
  const bool valid = steps && step_ >= 0 && step_ < static_cast<int>(steps->size());
  bool hasHead = false;
  if (valid) {
    const Step& s = (*steps)[static_cast<size_t>(step_)];
    const SliceAxes ax = chooseAxes(StepNames::axisNames(s.info.id, static_cast<int>(s.tensor.dim())));
    hasHead = ax.head >= 0;
    if (hasHead) {
      const QSignalBlocker block(head_);
      head_->setRange(0, static_cast<int>(s.tensor.size(ax.head)) - 1);
    }
    computeSlice(s, hasHead ? head_->value() : 0);
  } else {
    slice_.clear();
    rows_ = cols_ = 0;
    rowLabels_.clear(), colLabels_.clear();
    captionText_ = tr("No step selected.");
  }
  head_->setVisible(hasHead);
  headLabel_->setVisible(hasHead);
  tableStale_ = mapStale_ = true;
  showCurrent();
}

void TensorView::computeSlice(const Step& step, int head) {
  const Tensor& t = step.tensor;
  const QStringList names = StepNames::axisNames(step.info.id, static_cast<int>(t.dim()));
  const SliceAxes ax = chooseAxes(names);
  const int b = ax.batch >= 0 ? std::clamp<int>(batch_, 0, static_cast<int>(t.size(ax.batch)) - 1) : -1;
  int64_t base = 0;
  if (ax.batch >= 0) base += b * t.strides()[static_cast<size_t>(ax.batch)];
  if (ax.head >= 0) base += head * t.strides()[static_cast<size_t>(ax.head)];
  rows_ = ax.row >= 0 ? static_cast<int>(t.size(ax.row)) : 1;
  cols_ = ax.col >= 0 ? static_cast<int>(t.size(ax.col)) : 1;
  const int64_t rs = ax.row >= 0 ? t.strides()[static_cast<size_t>(ax.row)] : 0;
  const int64_t cs = ax.col >= 0 ? t.strides()[static_cast<size_t>(ax.col)] : 0;
  slice_.resize(static_cast<size_t>(rows_) * cols_);
  for (int r = 0; r < rows_; ++r)
    for (int c = 0; c < cols_; ++c) slice_[static_cast<size_t>(r) * cols_ + c] = t.data()[base + r * rs + c * cs];

  const QString rowName = ax.row >= 0 ? names[ax.row] : QString(), colName = ax.col >= 0 ? names[ax.col] : QString();
  const std::string& id = step.info.id;
  rowLabels_ = ax.row >= 0 ? axisLabels(*result_, id, rowName, rows_, b) : std::vector<std::string>{std::string()};
  colLabels_ = axisLabels(*result_, id, colName, cols_, b);

  const bool pair = isTokenAxis(rowName) && isTokenAxis(colName);  // attention maps and masks
  QStringList where;
  if (b >= 0) where << tr("Sentence %1").arg(b);  // sentences and heads from 0, as everywhere
  if (ax.head >= 0) where << tr("head %1").arg(head);
  const QString prefix = where.isEmpty() ? tr("The whole tensor") : where.join(tr(", "));
  const QString colWord = axisWord(id, colName, cols_, pair ? 1 : 0);
  const QString axes = ax.row >= 0 ? tr("rows = %1, columns = %2").arg(axisWord(id, rowName, rows_, pair ? -1 : 0), colWord)
                                   : tr("one row of %1").arg(colWord);
  captionText_ = tr("%1, %2 × %3 values: %4.").arg(prefix).arg(rows_).arg(cols_).arg(axes);
}

void TensorView::showCurrent() {
  QString text = captionText_;
  if (tableMode() && (rows_ > kMaxTable || cols_ > kMaxTable))
    text += QLatin1Char(' ') + tr("The table shows only the first %1 × %2 cells; the colour map shows them all.")
                                   .arg(std::min(rows_, kMaxTable))
                                   .arg(std::min(cols_, kMaxTable));
  caption_->setText(text);
  if (tableMode() && tableStale_) fillTable();
  if (!tableMode() && mapStale_) fillMap();
}

void TensorView::fillTable() {
  const int r = std::min(rows_, kMaxTable), c = std::min(cols_, kMaxTable);
  table_->setUpdatesEnabled(false);
  table_->clear();
  table_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + fontMetrics().height() / 2);
  table_->setRowCount(r);
  table_->setColumnCount(c);
  table_->setVerticalHeaderLabels(toQt(rowLabels_, r));
  table_->setHorizontalHeaderLabels(toQt(colLabels_, c));
  for (int i = 0; i < r; ++i) {
    const QString rowLabel = QString::fromStdString(rowLabels_[static_cast<size_t>(i)]);
    for (int j = 0; j < c; ++j) {
      const float v = sliceValue(i, j);
      auto* item = new QTableWidgetItem(cellText(v));
      item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      item->setToolTip(tr("[%1, %2] %3 × %4 = %5")
                           .arg(i)
                           .arg(j)
                           .arg(rowLabel, QString::fromStdString(colLabels_[static_cast<size_t>(j)]),
                                std::isfinite(v) ? QString::number(v, 'g', 9) : cellText(v)));
      table_->setItem(i, j, item);
    }
  }
  table_->setUpdatesEnabled(true);
  tableStale_ = false;
}

void TensorView::fillMap() {
  mapStale_ = false;
  if (slice_.empty()) return;
  const bool probabilities = lastPart(result_->trace.steps()[static_cast<size_t>(step_)].info.id) == "weights";
  const ColorMap map = ColorMap::fitted(slice_.data(), static_cast<long long>(slice_.size()), probabilities);
  map_->setMatrix(slice_.data(), rows_, cols_, rows_ > 1 ? rowLabels_ : std::vector<std::string>{}, colLabels_, map);
}

}  // namespace attnlab::ui
