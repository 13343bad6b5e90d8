// erf by Abramowitz & Stegun 7.1.26, within 1.5e-7 (GLSL has none): GELU(x) = ½x(1 + erf(x/√2)).
float erf_as(float v) {
  const float t = 1.0 / (1.0 + 0.3275911 * abs(v));
  const float poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const float r = 1.0 - poly * exp(-v * v);
  return v < 0.0 ? -r : r;
}
