#include "backend/vulkan/vk_pipeline.h"

namespace attnlab::vk {

Pipeline::Pipeline(Context& ctx, const uint32_t* code, size_t bytes, uint32_t bindings, uint32_t push_bytes,
                   const std::vector<uint32_t>& spec)
    : ctx_(ctx), bindings_(bindings), push_bytes_(push_bytes) {
  try {
    build(code, bytes, spec);
  } catch (...) {
    destroy();
    throw;
  }
}

Pipeline::~Pipeline() { destroy(); }

void Pipeline::build(const uint32_t* code, size_t bytes, const std::vector<uint32_t>& spec) {
  const Functions& f = ctx_.fn();
  std::vector<VkDescriptorSetLayoutBinding> binds(bindings_);
  for (uint32_t i = 0; i < bindings_; ++i)
    binds[i] = {i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
  VkDescriptorSetLayoutCreateInfo dl{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  dl.bindingCount = bindings_;
  dl.pBindings = binds.data();
  VK_CHECK(f.vkCreateDescriptorSetLayout(ctx_.device(), &dl, nullptr, &set_layout_));
  const VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes_};
  VkPipelineLayoutCreateInfo pl{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  pl.setLayoutCount = 1;
  pl.pSetLayouts = &set_layout_;
  pl.pushConstantRangeCount = 1;
  pl.pPushConstantRanges = &range;
  VK_CHECK(f.vkCreatePipelineLayout(ctx_.device(), &pl, nullptr, &layout_));
  VkShaderModuleCreateInfo sm{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  sm.codeSize = bytes;
  sm.pCode = code;
  VkShaderModule module = VK_NULL_HANDLE;
  VK_CHECK(f.vkCreateShaderModule(ctx_.device(), &sm, nullptr, &module));
  std::vector<VkSpecializationMapEntry> entries;
  for (uint32_t i = 0; i < spec.size(); ++i) entries.push_back({i, i * 4, 4});
  VkSpecializationInfo si{static_cast<uint32_t>(entries.size()), entries.data(), spec.size() * 4, spec.data()};
  VkComputePipelineCreateInfo ci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  ci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  ci.stage.module = module;
  ci.stage.pName = "main";
  ci.stage.pSpecializationInfo = &si;
  ci.layout = layout_;
  const VkResult r = f.vkCreateComputePipelines(ctx_.device(), VK_NULL_HANDLE, 1, &ci, nullptr, &pipeline_);
  f.vkDestroyShaderModule(ctx_.device(), module, nullptr);
  VK_CHECK(r);
  const VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, bindings_};
  VkDescriptorPoolCreateInfo dp{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  dp.maxSets = 1;
  dp.poolSizeCount = 1;
  dp.pPoolSizes = &size;
  VK_CHECK(f.vkCreateDescriptorPool(ctx_.device(), &dp, nullptr, &pool_));
}

void Pipeline::destroy() {
  const Functions& f = ctx_.fn();
  if (pool_) f.vkDestroyDescriptorPool(ctx_.device(), pool_, nullptr);
  if (pipeline_) f.vkDestroyPipeline(ctx_.device(), pipeline_, nullptr);
  if (layout_) f.vkDestroyPipelineLayout(ctx_.device(), layout_, nullptr);
  if (set_layout_) f.vkDestroyDescriptorSetLayout(ctx_.device(), set_layout_, nullptr);
  pool_ = VK_NULL_HANDLE;
  pipeline_ = VK_NULL_HANDLE;
  layout_ = VK_NULL_HANDLE;
  set_layout_ = VK_NULL_HANDLE;
}

VkDescriptorSet Pipeline::make_set(VkDescriptorPool pool, const std::vector<const Buffer*>& bufs) {
  const Functions& f = ctx_.fn();
  VkDescriptorSetAllocateInfo ai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  ai.descriptorPool = pool;
  ai.descriptorSetCount = 1;
  ai.pSetLayouts = &set_layout_;
  VkDescriptorSet set = VK_NULL_HANDLE;
  VK_CHECK(f.vkAllocateDescriptorSets(ctx_.device(), &ai, &set));
  std::vector<VkDescriptorBufferInfo> infos(bufs.size());
  std::vector<VkWriteDescriptorSet> writes(bufs.size());
  for (size_t i = 0; i < bufs.size(); ++i) {
    infos[i] = {bufs[i]->handle(), 0, VK_WHOLE_SIZE};
    writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    writes[i].dstSet = set;
    writes[i].dstBinding = static_cast<uint32_t>(i);
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[i].pBufferInfo = &infos[i];
  }
  f.vkUpdateDescriptorSets(ctx_.device(), static_cast<uint32_t>(writes.size()), writes.data(), 0, nullptr);
  return set;
}

void Pipeline::record(VkCommandBuffer cmd, VkDescriptorPool pool, const std::vector<const Buffer*>& bufs,
                      const void* push, uint32_t gx, uint32_t gy, uint32_t gz) {
  const Functions& f = ctx_.fn();
  const VkDescriptorSet set = make_set(pool, bufs);
  f.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_);
  f.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout_, 0, 1, &set, 0, nullptr);
  f.vkCmdPushConstants(cmd, layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes_, push);
  f.vkCmdDispatch(cmd, gx, gy, gz);
}

double Pipeline::run(const std::vector<const Buffer*>& bufs, const void* push, uint32_t gx, uint32_t gy, uint32_t gz) {
  VK_CHECK(ctx_.fn().vkResetDescriptorPool(ctx_.device(), pool_, 0));
  return ctx_.run([&](VkCommandBuffer cmd) {
    record(cmd, pool_, bufs, push, gx, gy, gz);
    // Make the shader's writes visible to the host read after the fence.
    barrier(ctx_.fn(), cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
            VK_ACCESS_HOST_READ_BIT);
  });
}

void barrier(const Functions& f, VkCommandBuffer cmd, VkPipelineStageFlags src_stage, VkAccessFlags src,
             VkPipelineStageFlags dst_stage, VkAccessFlags dst) {
  VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  mb.srcAccessMask = src;
  mb.dstAccessMask = dst;
  f.vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 1, &mb, 0, nullptr, 0, nullptr);
}

}  // namespace attnlab::vk
