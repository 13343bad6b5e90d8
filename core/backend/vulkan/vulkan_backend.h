// The Vulkan compute path: the projections and the FFN (gemm with a bias), the per-head QKᵀ and
// weights·V (the same gemm, batched over batch and heads, reading strided views in place), the
// softmax, ReLU and both GELUs, as compute shaders (core/backend/vulkan/shaders/*.comp, compiled by glslc
// and embedded). Tile sizes come from the device's limits; work too large for one storage buffer
// is split along the batch or row axis. Every failure is a VulkanError. A whole encoder stack can
// also run resident (vk_resident.h).
#pragma once

#include <map>
#include <memory>
#include <vector>

#include "backend/backend.h"

namespace attnlab {

namespace vk {
class Buffer;
class Context;
class Pipeline;
}  // namespace vk
class VulkanResidentStack;

class VulkanBackend final : public Backend {
 public:
  // device_index >= 0: that device; otherwise the best (a CPU-type one only when allow_cpu).
  VulkanBackend(int device_index, bool allow_cpu);
  ~VulkanBackend() override;

  std::string name() const override { return "vulkan"; }
  std::string device() const override;
  Text device_text() const override { return verbatim(device()); }  // the driver's own words
  Tensor linear_rows(const Tensor& x, const Tensor& w, const Tensor& b, int64_t row0, int64_t rows) override;
  Tensor matmul(const Tensor& a, const Tensor& b) override;
  void softmax_lastdim_inplace(Tensor& x) override;
  Tensor activate(const Tensor& x, Activation a) override;
  // Fused (shaders/flash_attention.comp) for head widths up to 128; otherwise, or when fusing
  // is off, the five steps one dispatch each.
  using Backend::attention;  // the key-ranges form: made dense, then the fused kernel
  Tensor attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, float root) override;
  void set_fused_attention(bool on) override { fused_ = on; }
  // vk_resident.h: the weights in device-local memory, the activations kept there, one command
  // buffer per forward pass. Null for heads wider than 128 or a weight past one buffer.
  std::unique_ptr<ResidentStack> make_resident_stack(const StackSpec& spec) override;
  bool fused_attention() const override { return fused_; }
  double device_ms() const override { return device_ms_; }
  void reset_timing() override { device_ms_ = 0; }

  bool cpu_type_device() const;
  // Warnings and errors from the validation layer (ATTNLAB_VULKAN_VALIDATION=1).
  const std::vector<std::string>& validation_messages() const;
  bool validating() const;  // the validation layer is on
  uint64_t submissions() const;  // queue submissions so far (vk_context.h)
  struct Tiles {
    uint32_t tx, ty, bk, softmax_wg, subgroup;
    uint64_t max_buffer;  // bytes one storage buffer may span
    bool subgroup_ops;    // softmax and LayerNorm reduce in subgroups (shaders/row_reduce.glsl)
  };
  const Tiles& tiles() const { return tiles_; }
  // Limits a buffer below the device's range (tests use it to force the split paths); a value
  // above the range restores it.
  void set_max_buffer_bytes(uint64_t bytes);
  // The softmax and LayerNorm shaders' reductions: in subgroups where the device has subgroup
  // arithmetic (the default; ATTNLAB_VULKAN_SUBGROUPS=0 starts without), else in shared memory
  // only. Returns whether subgroups are used now. Between runs only (it remakes two pipelines).
  bool use_subgroup_reductions(bool on);

 private:
  friend class VulkanResidentStack;
  struct Gemm;
  void make_pipelines();
  void make_row_pipelines(bool subgroups);  // softmax_ and add_norm_; sets tiles_.subgroup_ops
  std::unique_ptr<vk::Buffer> acquire(uint64_t bytes);
  void release(std::unique_ptr<vk::Buffer> b);
  void gemm(const Gemm& g);
  void rows_op(vk::Pipeline& pipe, float* data, int64_t rows, int64_t n, uint32_t extra);

  std::unique_ptr<vk::Context> ctx_;
  vk::Pipeline& flash(uint32_t dh_max);  // made on first use, one per register width

  std::unique_ptr<vk::Pipeline> gemm_, softmax_, act_, add_norm_;
  std::map<uint32_t, std::unique_ptr<vk::Pipeline>> flash_;
  bool fused_ = true;
  std::vector<std::unique_ptr<vk::Buffer>> free_;
  Tiles tiles_{};
  uint64_t device_max_buffer_ = 0;
  double device_ms_ = 0;
};

}  // namespace attnlab
