// C[z] (M, N) = act(alpha · A[z] (M, K) · B[z] (K, N) + bias (N)), batched over z = z0·batch1 + z1;
// act is none, ReLU, exact GELU or its tanh form (the resident stack's FFN fuses its activation here).
// A and B are read through element strides, so a transposed key, a head slice or a weight used
// as Wᵀ needs no copy. Tiled: a workgroup of TX × TY invocations computes a (TY·4) × (TX·4) tile
// of C, each invocation a 4 × 4 block held in registers; K advances BK at a time through shared
// memory. TX, TY and BK are specialization constants chosen from the device's limits.
#version 450
#extension GL_GOOGLE_include_directive : require

layout(local_size_x_id = 0, local_size_y_id = 1) in;
layout(constant_id = 0) const uint TX = 16;
layout(constant_id = 1) const uint TY = 16;
layout(constant_id = 2) const uint BK = 16;
const uint TM = 4;
const uint TN = 4;
const uint BM = TY * TM;
const uint BN = TX * TN;

layout(std430, binding = 0) readonly buffer BufA { float a[]; };
layout(std430, binding = 1) readonly buffer BufB { float b[]; };
layout(std430, binding = 2) readonly buffer BufBias { float bias[]; };
layout(std430, binding = 3) writeonly buffer BufC { float c[]; };

// Mirrored by GemmPush in vulkan_backend.cpp.
layout(push_constant) uniform Push {
  uint M, N, K;
  uint a_rs, a_cs, b_rs, b_cs;      // element strides of rows and columns
  uint a_bs0, a_bs1, b_bs0, b_bs1;  // element strides of the two batch axes
  uint batch1;                      // size of the second batch axis
  uint has_bias;
  uint act;  // 0 none, 1 ReLU, 2 GELU, 3 GELU (tanh)
  float alpha;
} p;

#include "gelu.glsl"

float activate(float v) {
  if (p.act == 1) return isnan(v) ? v : max(v, 0.0);
  if (p.act == 2) return gelu_erf(v);
  if (p.act == 3) return gelu_tanh(v);
  return v;
}

shared float As[BK * BM];  // As[k * BM + m]
shared float Bs[BK * BN];  // Bs[k * BN + n]

void main() {
  const uint z = gl_WorkGroupID.z;
  const uint z0 = z / p.batch1, z1 = z % p.batch1;
  const uint a0 = z0 * p.a_bs0 + z1 * p.a_bs1;
  const uint b0 = z0 * p.b_bs0 + z1 * p.b_bs1;
  const uint row0 = gl_WorkGroupID.y * BM, col0 = gl_WorkGroupID.x * BN;
  const uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
  const uint tid = ty * TX + tx, threads = TX * TY;

  float acc[TM][TN];
  for (uint i = 0; i < TM; ++i)
    for (uint j = 0; j < TN; ++j) acc[i][j] = 0.0;

  for (uint k0 = 0; k0 < p.K; k0 += BK) {
    // Load order follows the unit stride so that neighbouring invocations read neighbouring floats.
    for (uint i = tid; i < BM * BK; i += threads) {
      const uint m = p.a_cs == 1 ? i / BK : i % BM;
      const uint k = p.a_cs == 1 ? i % BK : i / BM;
      const uint gm = row0 + m, gk = k0 + k;
      As[k * BM + m] = (gm < p.M && gk < p.K) ? a[a0 + gm * p.a_rs + gk * p.a_cs] : 0.0;
    }
    for (uint i = tid; i < BK * BN; i += threads) {
      const uint n = p.b_rs == 1 ? i / BK : i % BN;
      const uint k = p.b_rs == 1 ? i % BK : i / BN;
      const uint gn = col0 + n, gk = k0 + k;
      Bs[k * BN + n] = (gn < p.N && gk < p.K) ? b[b0 + gk * p.b_rs + gn * p.b_cs] : 0.0;
    }
    barrier();
    for (uint k = 0; k < BK; ++k) {
      float ar[TM], br[TN];
      for (uint i = 0; i < TM; ++i) ar[i] = As[k * BM + ty + i * TY];
      for (uint j = 0; j < TN; ++j) br[j] = Bs[k * BN + tx + j * TX];
      for (uint i = 0; i < TM; ++i)
        for (uint j = 0; j < TN; ++j) acc[i][j] = fma(ar[i], br[j], acc[i][j]);
    }
    barrier();
  }

  const uint c0 = z * p.M * p.N;
  for (uint i = 0; i < TM; ++i) {
    const uint gm = row0 + ty + i * TY;
    if (gm >= p.M) continue;
    for (uint j = 0; j < TN; ++j) {
      const uint gn = col0 + tx + j * TX;
      if (gn >= p.N) continue;
      c[c0 + gm * p.N + gn] = activate(p.alpha * acc[i][j] + (p.has_bias != 0 ? bias[gn] : 0.0));
    }
  }
}
