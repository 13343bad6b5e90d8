// The two GELUs of the FFN. GLSL has no erf: Abramowitz & Stegun 7.1.26 gives it within 1.5e-7,
// so GELU(x) = ½x(1 + erf(x/√2)) is within about 1e-7·|x| of the CPU's std::erf. The tanh form
// (GPT-2's, F.gelu(x, approximate="tanh")) writes tanh(u) = 1 − 2/(e^{2u} + 1), exact at both
// ends where a driver's tanh may overflow to NaN.
float erf_as(float v) {
  const float t = 1.0 / (1.0 + 0.3275911 * abs(v));
  const float poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const float r = 1.0 - poly * exp(-v * v);
  return v < 0.0 ? -r : r;
}

float gelu_erf(float v) { return 0.5 * v * (1.0 + erf_as(v * 0.70710678118654752)); }

float gelu_tanh(float v) {
  const float u = 0.79788456080286536 * (v + 0.044715 * v * v * v);  // √(2/π)·(x + κx³)
  const float t = 1.0 - 2.0 / (exp(min(2.0 * u, 80.0)) + 1.0);
  return 0.5 * v * (1.0 + t);
}
