// The residual and LayerNorm of the resident stack, one workgroup per row of n floats:
//   v = a + b (b optional), sum = v (optional), norm = (v − mean) / √(var + eps) · γ + β (optional)
// with the mean and the biased variance over the row, as F.layer_norm. Two passes over the row
// (the mean, then the squared deviations from it), so a large mean cannot cancel the variance;
// v is recomputed from a and b each pass, never read back from `sum`, which may be any buffer.
#version 450
#ifdef SUBGROUP_OPS
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif

layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WG = 256;

layout(std430, binding = 0) readonly buffer BufA { float a[]; };
layout(std430, binding = 1) readonly buffer BufB { float b[]; };
layout(std430, binding = 2) writeonly buffer BufSum { float sum[]; };
layout(std430, binding = 3) writeonly buffer BufNorm { float norm[]; };
layout(std430, binding = 4) readonly buffer BufGamma { float gamma[]; };
layout(std430, binding = 5) readonly buffer BufBeta { float beta[]; };

// Mirrored by NormPush in vk_push.h.
layout(push_constant) uniform Push {
  uint rows, n;
  uint has_b, write_sum, write_norm;
  float eps;
} p;

#include "row_reduce.glsl"

float value(uint i) { return p.has_b != 0 ? a[i] + b[i] : a[i]; }

void main() {
  const uint row = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  if (row >= p.rows) return;  // uniform across the workgroup
  const uint base = row * p.n, t = gl_LocalInvocationID.x;
  float s = 0.0;
  for (uint i = t; i < p.n; i += WG) {
    const float v = value(base + i);
    if (p.write_sum != 0) sum[base + i] = v;
    s += v;
  }
  if (p.write_norm == 0) return;  // uniform
  const float mean = combine_sum(s) / float(p.n);
  float q = 0.0;
  for (uint i = t; i < p.n; i += WG) {
    const float d = value(base + i) - mean;
    q += d * d;
  }
  const float inv = inversesqrt(combine_sum(q) / float(p.n) + p.eps);
  for (uint i = t; i < p.n; i += WG) norm[base + i] = (value(base + i) - mean) * inv * gamma[i] + beta[i];
}
