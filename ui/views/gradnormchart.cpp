#include "views/gradnormchart.h"

#include <QEvent>
#include <QPainter>

#include <algorithm>
#include <cmath>

#include "backward/grad_ops.h"
#include "words/numbers.h"
#include "words/stepnames.h"

namespace attnlab::ui {

namespace {

constexpr double kFloorExp = -8;  // the log axis starts at 10⁻⁸: smaller norms sit at its left end

// "encoder.layers.1.self_attn.in_proj_weight" → {"Encoder layer 1", "self_attn.in_proj_weight"}: the
// layer in the location line's words (StepNames), the name within it.
std::pair<QString, QString> split(const std::string& name) {
  const size_t at = name.find(".layers.");
  if (at == std::string::npos) return {GradNormChart::tr("Model"), QString::fromStdString(name)};
  StepPlace layer = StepNames::place(name);
  layer.block.clear();
  return {StepNames::placeWords(layer, true).join(QStringLiteral(" · ")),
          QString::fromStdString(name.substr(name.find('.', at + 8) + 1))};
}

QString num(double v) { return formatNumber(v, {.digits = 3}); }

}  // namespace

GradNormChart::GradNormChart(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("gradNorms"));
  setAttribute(Qt::WA_OpaquePaintEvent);
}

void GradNormChart::setResult(const TraceResultPtr& result) {
  bars_.clear();
  fullNames_.clear();
  summary_.clear();
  if (result && result->gradients) {
    const auto& steps = result->trace.steps();
    for (size_t i = static_cast<size_t>(result->gradients->firstStep); i < steps.size(); ++i) {
      const std::string& id = steps[i].info.id;
      if (!id.starts_with("grad/")) continue;
      const auto [group, name] = split(id.substr(5));
      bars_.push_back({name, group, grad::l2_norm(steps[i].tensor)});
      fullNames_ << QString::fromStdString(id.substr(5));
    }
  }
  if (!bars_.isEmpty()) {
    int hi = 0, lo = 0, none = 0;
    for (int i = 0; i < bars_.size(); ++i) {
      if (bars_[i].norm > bars_[hi].norm) hi = i;
      if (bars_[i].norm < bars_[lo].norm) lo = i;
      none += bars_[i].norm == 0.0;
    }
    summary_ = tr("Largest gradient: %1 (%2). Smallest: %3 (%4). Parameters with no gradient at all: %5.")
                   .arg(num(bars_[hi].norm), fullNames_[hi], num(bars_[lo].norm), fullNames_[lo])
                   .arg(none);
  }
  updateGeometry();
  update();
}

QString GradNormChart::csv() const {
  QString out = QStringLiteral("parameter,gradient_norm\n");
  for (int i = 0; i < bars_.size(); ++i) out += fullNames_[i] + QLatin1Char(',') + QString::number(bars_[i].norm, 'g', 9) + QLatin1Char('\n');
  return out;
}

int GradNormChart::rowHeight() const { return fontMetrics().height() + 6; }

int GradNormChart::labelWidth() const {
  int w = 0;
  for (const Bar& b : bars_) w = std::max(w, fontMetrics().horizontalAdvance(b.name));
  return w + 12;
}

QSize GradNormChart::sizeHint() const {
  int groups = 0;
  for (int i = 0; i < bars_.size(); ++i) groups += i == 0 || bars_[i].group != bars_[i - 1].group;
  return {labelWidth() + 420, rowHeight() * (static_cast<int>(bars_.size()) + groups + 4)};
}

QSize GradNormChart::minimumSizeHint() const { return {labelWidth() + 200, rowHeight() * 4}; }

void GradNormChart::changeEvent(QEvent* e) {
  if (e->type() == QEvent::FontChange) updateGeometry();
  QWidget::changeEvent(e);
}

void GradNormChart::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  p.setPen(palette().text().color());
  const int rh = rowHeight(), pad = 8;
  QRect line(pad, pad, width() - 2 * pad, rh);
  if (bars_.isEmpty()) {
    p.drawText(line.adjusted(0, 0, 0, 4 * rh), Qt::TextWordWrap,
               tr("No gradients: choose a loss under “gradients” in the model panel to run the backward pass."));
    return;
  }
  p.drawText(line, Qt::AlignLeft | Qt::AlignVCenter, tr("‖∂L/∂p‖ per parameter (log scale)"));
  double top = 0;
  for (const Bar& b : bars_) top = std::max(top, b.norm);
  const double hiExp = std::ceil(std::log10(std::max(top, 1e-7)));
  const int x0 = pad + labelWidth(), x1 = width() - pad - fontMetrics().horizontalAdvance(QStringLiteral("0.000e-00")) - 8;
  const auto xOf = [&](double v) {
    const double e = std::clamp(std::log10(std::max(v, 1e-30)), kFloorExp, hiExp);
    return x0 + (x1 - x0) * (e - kFloorExp) / (hiExp - kFloorExp);
  };
  int y = pad + rh;
  QString group;
  for (const Bar& b : bars_) {
    if (b.group != group) {  // a layer's heading
      group = b.group;
      QFont bold = font();
      bold.setBold(true);
      p.setFont(bold);
      p.drawText(QRect(pad, y, width() - 2 * pad, rh), Qt::AlignLeft | Qt::AlignVCenter, group);
      p.setFont(font());
      y += rh;
    }
    p.setPen(palette().text().color());
    p.drawText(QRect(pad, y, labelWidth() - 8, rh), Qt::AlignRight | Qt::AlignVCenter, b.name);
    if (b.norm == 0.0) {
      p.setPen(QColor(0xc0, 0x20, 0x20));
      p.drawText(QRect(x0, y, x1 - x0, rh), Qt::AlignLeft | Qt::AlignVCenter, tr("0 — no gradient"));
    } else {
      const double x = xOf(b.norm);
      p.fillRect(QRectF(x0, y + 3, std::max(2.0, x - x0), rh - 6), QColor(0x2b, 0x6c, 0xb0));
      p.drawText(QRectF(x + 4, y, width() - x - 4, rh), Qt::AlignLeft | Qt::AlignVCenter, num(b.norm));
    }
    y += rh;
  }
  p.setPen(palette().mid().color());  // the axis: decades from 10⁻⁸
  for (double e = kFloorExp; e <= hiExp; e += 2) {
    const double x = xOf(std::pow(10.0, e));
    p.drawLine(QPointF(x, pad + rh), QPointF(x, y));
    p.drawText(QRectF(x - 40, y, 80, rh), Qt::AlignHCenter | Qt::AlignTop, QStringLiteral("1e%1").arg(static_cast<int>(e)));
  }
}

}  // namespace attnlab::ui
