// How the window writes a number, in one place: significant digits or fixed decimals, a real
// minus sign (U+2212) or the ASCII one, ∞ and −∞ (or +∞), NaN. Every view's numbers go through
// formatNumber with the style its place needs (a sentence, a table cell, a hover readout).
#pragma once

#include <QString>

namespace attnlab::ui {

struct NumberStyle {
  int digits = 3;               // significant digits, or decimals when `fixed`
  bool fixed = false;           // fixed decimals; a value that rounds to zero has no sign ("0.00")
  bool minusSign = true;        // U+2212 rather than '-'
  bool plusOnInfinity = false;  // "+∞" rather than "∞"
};

QString formatNumber(double v, NumberStyle style = {});

}  // namespace attnlab::ui
