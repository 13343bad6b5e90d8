// A compute pipeline: one shader (SPIR-V embedded at build time), its specialization constants,
// a descriptor set layout of N storage buffers and a push-constant block. It either runs one
// dispatch in a submission of its own (run: the per-op path) or records a dispatch into a
// command buffer the caller submits (record: the resident stack, many dispatches per submission).
#pragma once

#include <cstdint>
#include <vector>

#include "backend/vulkan/vk_context.h"

namespace attnlab::vk {

class Pipeline {
 public:
  Pipeline(Context& ctx, const uint32_t* code, size_t bytes, uint32_t bindings, uint32_t push_bytes,
           const std::vector<uint32_t>& spec);
  ~Pipeline();
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  uint32_t bindings() const { return bindings_; }

  // One dispatch in its own submission: binds `bufs` to bindings 0…, pushes `push`, runs the
  // groups, makes the writes visible to the host and returns the device time in ms.
  double run(const std::vector<const Buffer*>& bufs, const void* push, uint32_t gx, uint32_t gy, uint32_t gz);
  // Records the same into `cmd` with a descriptor set from `pool` (the caller's, sized for every
  // dispatch of the submission and reset before the next). No barrier: the caller places them.
  void record(VkCommandBuffer cmd, VkDescriptorPool pool, const std::vector<const Buffer*>& bufs, const void* push,
              uint32_t gx, uint32_t gy, uint32_t gz);

 private:
  void build(const uint32_t* code, size_t bytes, const std::vector<uint32_t>& spec);
  void destroy();
  VkDescriptorSet make_set(VkDescriptorPool pool, const std::vector<const Buffer*>& bufs);

  Context& ctx_;
  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
  VkDescriptorPool pool_ = VK_NULL_HANDLE;  // run()'s one set
  uint32_t bindings_ = 0, push_bytes_ = 0;
};

// A global memory barrier between two stages (compute → compute, transfer → compute, …).
void barrier(const Functions& f, VkCommandBuffer cmd, VkPipelineStageFlags src_stage, VkAccessFlags src,
             VkPipelineStageFlags dst_stage, VkAccessFlags dst);

}  // namespace attnlab::vk
