// Colour-vision deficiency, simulated for the colour-map tests: Machado, Oliveira & Fernandes
// (2009) at severity 1.0 (protanopia, deuteranopia, tritanopia), applied in linear sRGB, and the
// CIE 1976 colour difference ΔE*ab in L*a*b* (D65) between two colours as such a viewer sees them.
#pragma once

#include <QColor>

#include <algorithm>
#include <array>
#include <cmath>

namespace attnlab::ui::test {

enum class Vision { Normal, Protanopia, Deuteranopia, Tritanopia };

using Vec3 = std::array<double, 3>;

inline double toLinear(int c8) {
  const double c = c8 / 255.0;
  return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
}

inline Vec3 seen(const QColor& c, Vision v) {
  static constexpr double kM[3][3][3] = {
      {{0.152286, 1.052583, -0.204868}, {0.114503, 0.786281, 0.099216}, {-0.003882, -0.048116, 1.051998}},
      {{0.367322, 0.860646, -0.227968}, {0.280085, 0.672501, 0.047413}, {-0.011820, 0.042940, 0.968881}},
      {{1.255528, -0.076749, -0.178779}, {-0.078411, 0.930809, 0.147602}, {0.004733, 0.691367, 0.303900}}};
  const Vec3 rgb{toLinear(c.red()), toLinear(c.green()), toLinear(c.blue())};
  if (v == Vision::Normal) return rgb;
  const auto& m = kM[static_cast<int>(v) - 1];
  Vec3 out{};
  for (int i = 0; i < 3; ++i) out[i] = std::clamp(m[i][0] * rgb[0] + m[i][1] * rgb[1] + m[i][2] * rgb[2], 0.0, 1.0);
  return out;
}

inline Vec3 lab(const Vec3& rgb) {  // linear sRGB → L*a*b* (D65)
  const Vec3 xyz{0.4124 * rgb[0] + 0.3576 * rgb[1] + 0.1805 * rgb[2], 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2],
                 0.0193 * rgb[0] + 0.1192 * rgb[1] + 0.9505 * rgb[2]};
  const Vec3 white{0.95047, 1.0, 1.08883};
  Vec3 f{};
  for (int i = 0; i < 3; ++i) {
    const double t = xyz[i] / white[i];
    f[i] = t > 216.0 / 24389 ? std::cbrt(t) : (24389.0 / 27 * t + 16) / 116;
  }
  return {116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])};
}

// ΔE*ab between a and b as seen with `v`.
inline double deltaE(const QColor& a, const QColor& b, Vision v) {
  const Vec3 x = lab(seen(a, v)), y = lab(seen(b, v));
  return std::sqrt((x[0] - y[0]) * (x[0] - y[0]) + (x[1] - y[1]) * (x[1] - y[1]) + (x[2] - y[2]) * (x[2] - y[2]));
}

inline double lightness(const QColor& c) { return lab(seen(c, Vision::Normal))[0]; }

}  // namespace attnlab::ui::test
