#include "words/numbers.h"

#include <QChar>

#include <cmath>

namespace attnlab::ui {

QString formatNumber(double v, NumberStyle style) {
  if (std::isnan(v)) return QStringLiteral("NaN");
  if (std::isinf(v)) return v < 0 ? QStringLiteral("−∞") : style.plusOnInfinity ? QStringLiteral("+∞") : QStringLiteral("∞");
  QString t = QString::number(v, style.fixed ? 'f' : 'g', style.digits);
  if (style.fixed && t.startsWith(QLatin1Char('-')) &&
      QString(t).remove(QLatin1Char('0')).remove(QLatin1Char('.')) == QStringLiteral("-"))
    t.remove(0, 1);  // no "−0.00"
  if (style.minusSign) t.replace(QLatin1Char('-'), QChar(0x2212));
  return t;
}

}  // namespace attnlab::ui
