// The resident encoder stack on a Vulkan device (resident.h's contract):
//  - every weight in device-local memory, uploaded once through a staging buffer;
//  - per forward pass one command buffer: the input and mask copied in, each layer's dispatches
//    with a memory barrier between them, the last layer's output copied out — one submission,
//    one wait, nothing read back in between;
//  - per layer: LayerNorm and the residual (add_norm.comp, the residual fused with the next
//    norm), the fused in_proj (gemm.comp, one (B·S, 3D) product), the heads read as strided
//    views of it by the fused attention (flash_attention.comp: scaling, mask, online softmax,
//    the weighted sum) which writes the merged (B, S, D) layout directly, out_proj, and the FFN
//    with its activation fused into linear1's epilogue.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "backend/resident.h"
#include "backend/vulkan/vk_context.h"

namespace attnlab {

class VulkanBackend;

class VulkanResidentStack final : public ResidentStack {
 public:
  // Throws VulkanError (out of device memory, …); the caller checked that the stack fits.
  VulkanResidentStack(VulkanBackend& be, const StackSpec& spec);
  ~VulkanResidentStack() override;
  std::optional<Tensor> run(const Tensor& x, const Tensor& mask) override;
  double upload_ms() const override { return upload_ms_; }

  // Whether a stack of this shape can be made on `be` (head width, one weight per buffer).
  static bool fits(const VulkanBackend& be, const StackSpec& spec);

 private:
  using BufferPtr = std::unique_ptr<vk::Buffer>;
  struct Layer {
    BufferPtr in_w, in_b, out_w, out_b, n1_w, n1_b, n2_w, n2_b, l1_w, l1_b, l2_w, l2_b;
  };
  struct Activations;  // the per-pass buffers, sized for the largest input so far

  BufferPtr upload(const Tensor& t);  // recorded into the pending staging copies
  void flush_uploads();
  bool fits_input(int64_t batch, int64_t seq) const;
  void ensure_activations(int64_t batch, int64_t seq);
  void record(VkCommandBuffer cmd, int64_t batch, int64_t seq);

  VulkanBackend& be_;
  vk::Context& ctx_;
  int64_t d_, heads_, d_ff_;
  bool pre_norm_, ffn_;
  Activation act_;
  float eps_;
  std::vector<Layer> layers_;
  std::unique_ptr<Activations> acts_;
  VkDescriptorPool pool_ = VK_NULL_HANDLE;
  double upload_ms_ = 0;
  // Weight uploads waiting for flush_uploads(): staged bytes and their destinations.
  BufferPtr staging_;
  uint64_t staged_ = 0;
  struct PendingCopy {
    uint64_t src_offset;
    const vk::Buffer* dst;
    uint64_t dst_offset, bytes;
  };
  std::vector<PendingCopy> pending_;
};

}  // namespace attnlab
