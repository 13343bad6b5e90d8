// Softmax over each row of a contiguous (rows, n) tensor, in place; one workgroup per row. A row
// whose entries are all −∞ becomes NaN, as in PyTorch. WG (a power of two) is a specialization
// constant no larger than the device's workgroup limit; the reductions are row_reduce.glsl's.
#version 450
#ifdef SUBGROUP_OPS
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif

layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WG = 256;

layout(std430, binding = 0) buffer BufX { float x[]; };

// Mirrored by RowsPush in vulkan_backend.cpp.
layout(push_constant) uniform Push {
  uint rows, n;
} p;

#include "row_reduce.glsl"

void main() {
  const uint row = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  if (row >= p.rows) return;  // uniform across the workgroup
  const uint base = row * p.n, t = gl_LocalInvocationID.x;
  float m = uintBitsToFloat(0xff800000u);  // −∞
  for (uint i = t; i < p.n; i += WG) m = max(m, x[base + i]);
  m = combine_max(m);
  if (isinf(m) && m < 0.0) {
    for (uint i = t; i < p.n; i += WG) x[base + i] = uintBitsToFloat(0x7fc00000u);  // NaN
    return;
  }
  float s = 0.0;
  for (uint i = t; i < p.n; i += WG) {
    const float e = exp(x[base + i] - m);
    x[base + i] = e;
    s += e;
  }
  s = combine_sum(s);
  for (uint i = t; i < p.n; i += WG) x[base + i] = x[base + i] / s;
}
