// ReLU or exact GELU, element by element, in place. GLSL has no erf: Abramowitz & Stegun 7.1.26
// gives erf to within 1.5e-7, so GELU(x) = ½x(1 + erf(x/√2)) is within about 1e-7·|x| of the
// CPU's std::erf.
#version 450
#extension GL_GOOGLE_include_directive : require

layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WG = 256;

layout(std430, binding = 0) buffer BufX { float x[]; };

// Mirrored by ActPush in vulkan_backend.cpp.
layout(push_constant) uniform Push {
  uint n;
  uint gelu;  // 0 ReLU, 1 GELU
} p;

#include "erf.glsl"

void main() {
  const uint i = gl_WorkGroupID.y * gl_NumWorkGroups.x * WG + gl_GlobalInvocationID.x;
  if (i >= p.n) return;
  const float v = x[i];
  x[i] = p.gelu != 0 ? 0.5 * v * (1.0 + erf_as(v * 0.70710678118654752)) : (isnan(v) ? v : max(v, 0.0));
}
