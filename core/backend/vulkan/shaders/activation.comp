// ReLU, exact GELU or GELU's tanh form, element by element, in place (gelu.glsl: how each GELU
// is computed and how close it comes to the CPU's).
#version 450
#extension GL_GOOGLE_include_directive : require

layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WG = 256;

layout(std430, binding = 0) buffer BufX { float x[]; };

// Mirrored by ActPush in vk_push.h.
layout(push_constant) uniform Push {
  uint n;
  uint kind;  // 0 ReLU, 1 GELU, 2 GELU (tanh)
} p;

#include "gelu.glsl"

void main() {
  const uint i = gl_WorkGroupID.y * gl_NumWorkGroups.x * WG + gl_GlobalInvocationID.x;
  if (i >= p.n) return;
  const float v = x[i];
  x[i] = p.kind == 1 ? gelu_erf(v) : p.kind == 2 ? gelu_tanh(v) : (isnan(v) ? v : max(v, 0.0));
}
