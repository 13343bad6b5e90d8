// Fused attention, FlashAttention-style: for each query row, softmax(q·Kᵀ / √Dh, masked)·V
// without ever storing the (Tq, Tk) score matrix. Keys and values stream through shared memory
// BC at a time; each invocation keeps its row's running maximum m, running sum l and the
// unnormalised output in registers, rescaling them by e^(m_old − m_new) when the maximum grows
// (the online softmax). A row with every key masked ends as NaN, as the unfused path gives.
#version 450

layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WG = 64;  // query rows per workgroup
layout(constant_id = 1) const uint DH = 64;  // register arrays: at least the head width
layout(constant_id = 2) const uint BC = 16;  // keys per shared-memory tile

layout(std430, binding = 0) readonly buffer BufQ { float q[]; };
layout(std430, binding = 1) readonly buffer BufK { float k[]; };
layout(std430, binding = 2) readonly buffer BufV { float v[]; };
layout(std430, binding = 3) readonly buffer BufMask { float mask[]; };  // (B, Tq, Tk), 0 = masked
layout(std430, binding = 4) writeonly buffer BufO { float o[]; };       // (B, H, Tq, Dh) through o_s*

// Mirrored by FlashPush in vulkan_backend.cpp; strides in elements.
layout(push_constant) uniform Push {
  uint H, Tq, Tk, dh;
  uint q_sb, q_sh, q_st, q_sd;
  uint k_sb, k_sh, k_st, k_sd;
  uint v_sb, v_sh, v_st, v_sd;
  float root;  // scores are q·k / root
  uint q_off, k_off, v_off;  // first element of each view (Q, K and V may share one buffer)
  uint o_sb, o_sh, o_st;     // the output's strides (its last is 1): (B, H, Tq, Dh), or (B, Tq, H·Dh) merged
} p;

shared float Ks[BC * DH];
shared float Vs[BC * DH];

void main() {
  const float NEG_INF = uintBitsToFloat(0xff800000u);
  const uint b = gl_WorkGroupID.y / p.H, h = gl_WorkGroupID.y % p.H;
  const uint t = gl_LocalInvocationID.x;
  const uint i = gl_WorkGroupID.x * WG + t;
  const bool live = i < p.Tq;

  float qr[DH], acc[DH];
  for (uint d = 0; d < DH; ++d) {
    qr[d] = (live && d < p.dh) ? q[p.q_off + b * p.q_sb + h * p.q_sh + i * p.q_st + d * p.q_sd] : 0.0;
    acc[d] = 0.0;
  }
  float m = NEG_INF, l = 0.0;
  const uint mrow = (b * p.Tq + min(i, p.Tq - 1)) * p.Tk;

  for (uint j0 = 0; j0 < p.Tk; j0 += BC) {
    const uint count = min(BC, p.Tk - j0);
    for (uint x = t; x < BC * p.dh; x += WG) {
      const uint jj = x / p.dh, d = x % p.dh;
      if (jj < count) {
        Ks[jj * DH + d] = k[p.k_off + b * p.k_sb + h * p.k_sh + (j0 + jj) * p.k_st + d * p.k_sd];
        Vs[jj * DH + d] = v[p.v_off + b * p.v_sb + h * p.v_sh + (j0 + jj) * p.v_st + d * p.v_sd];
      }
    }
    barrier();
    if (live) {
      float s[BC];
      float tile_max = NEG_INF;
      for (uint jj = 0; jj < count; ++jj) {
        float dot = 0.0;
        for (uint d = 0; d < p.dh; ++d) dot = fma(qr[d], Ks[jj * DH + d], dot);
        s[jj] = mask[mrow + j0 + jj] == 0.0 ? NEG_INF : dot / p.root;
        tile_max = max(tile_max, s[jj]);
      }
      if (tile_max != NEG_INF) {
        const float m_new = max(m, tile_max);
        const float rescale = m == NEG_INF ? 0.0 : exp(m - m_new);
        l *= rescale;
        for (uint d = 0; d < p.dh; ++d) acc[d] *= rescale;
        for (uint jj = 0; jj < count; ++jj) {
          const float e = s[jj] == NEG_INF ? 0.0 : exp(s[jj] - m_new);
          l += e;
          for (uint d = 0; d < p.dh; ++d) acc[d] = fma(e, Vs[jj * DH + d], acc[d]);
        }
        m = m_new;
      }
    }
    barrier();
  }
  if (!live) return;
  const uint base = b * p.o_sb + h * p.o_sh + i * p.o_st;
  for (uint d = 0; d < p.dh; ++d) o[base + d] = l > 0.0 ? acc[d] / l : uintBitsToFloat(0x7fc00000u);
}
