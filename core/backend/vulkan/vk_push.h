// Push-constant blocks of the compute shaders (core/backend/vulkan/shaders/*.comp), field for
// field, and the launch constants the per-op path and the resident stack share.
#pragma once

#include <cstdint>

namespace attnlab::vk {

struct GemmPush {  // gemm.comp
  uint32_t M, N, K;
  uint32_t a_rs, a_cs, b_rs, b_cs;
  uint32_t a_bs0, a_bs1, b_bs0, b_bs1;
  uint32_t batch1;
  uint32_t has_bias;
  uint32_t act;  // 0 none, 1 ReLU, 2 GELU
  float alpha;
};
struct RowsPush {  // softmax.comp
  uint32_t rows, n;
};
struct ActPush {  // activation.comp
  uint32_t n, kind;  // 0 ReLU, 1 GELU, 2 GELU (tanh)
};
struct FlashPush {  // flash_attention.comp
  uint32_t H, Tq, Tk, dh;
  uint32_t q_sb, q_sh, q_st, q_sd;
  uint32_t k_sb, k_sh, k_st, k_sd;
  uint32_t v_sb, v_sh, v_st, v_sd;
  float root;
  uint32_t q_off, k_off, v_off;
  uint32_t o_sb, o_sh, o_st;
};
struct NormPush {  // add_norm.comp
  uint32_t rows, n;
  uint32_t has_b, write_sum, write_norm;
  float eps;
};
static_assert(sizeof(GemmPush) <= 128 && sizeof(RowsPush) <= 128 && sizeof(ActPush) <= 128 &&
              sizeof(FlashPush) <= 128 && sizeof(NormPush) <= 128);

constexpr uint32_t kFlashRows = 64, kFlashKeys = 16;  // query rows per workgroup, keys per tile
constexpr uint32_t kMaxGroups = 65535;                // the guaranteed minimum of maxComputeWorkGroupCount

inline uint32_t u32(int64_t v) { return static_cast<uint32_t>(v); }
inline uint32_t ceil_div(uint64_t a, uint64_t b) { return static_cast<uint32_t>((a + b - 1) / b); }

// The fused attention's register width for a head of dh (a power of two from 16), and whether
// that kernel takes such a head: at most 128 registers, two shared key/value tiles in the limit.
inline uint32_t flash_registers(int64_t dh) {
  uint32_t r = 16;
  while (r < dh) r *= 2;
  return r;
}
inline bool flash_takes(int64_t dh, uint32_t max_shared_bytes) {
  const uint32_t r = flash_registers(dh);
  return r <= 128 && 2ull * kFlashKeys * r * 4 <= max_shared_bytes;
}

}  // namespace attnlab::vk
