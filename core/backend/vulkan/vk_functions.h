// The Vulkan entry points Attention Lab uses, loaded at run time from libvulkan.so.1 (dlopen), so
// that a machine without the Vulkan loader still runs everything on the CPU.
#pragma once

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

// X(name) for every function; the three lists are loaded at the global, instance and device level.
#define ATTNLAB_VK_GLOBAL(X) \
  X(vkCreateInstance)        \
  X(vkEnumerateInstanceLayerProperties)

#define ATTNLAB_VK_INSTANCE(X)                  \
  X(vkDestroyInstance)                          \
  X(vkEnumeratePhysicalDevices)                 \
  X(vkGetPhysicalDeviceProperties)              \
  X(vkGetPhysicalDeviceProperties2)             \
  X(vkGetPhysicalDeviceQueueFamilyProperties)   \
  X(vkGetPhysicalDeviceMemoryProperties)        \
  X(vkCreateDevice)                             \
  X(vkGetDeviceProcAddr)

#define ATTNLAB_VK_DEVICE(X)         \
  X(vkDestroyDevice)                 \
  X(vkGetDeviceQueue)                \
  X(vkCreateBuffer)                  \
  X(vkDestroyBuffer)                 \
  X(vkGetBufferMemoryRequirements)   \
  X(vkAllocateMemory)                \
  X(vkFreeMemory)                    \
  X(vkBindBufferMemory)              \
  X(vkMapMemory)                     \
  X(vkUnmapMemory)                   \
  X(vkCreateShaderModule)            \
  X(vkDestroyShaderModule)           \
  X(vkCreateDescriptorSetLayout)     \
  X(vkDestroyDescriptorSetLayout)    \
  X(vkCreatePipelineLayout)          \
  X(vkDestroyPipelineLayout)         \
  X(vkCreateComputePipelines)        \
  X(vkDestroyPipeline)               \
  X(vkCreateDescriptorPool)          \
  X(vkDestroyDescriptorPool)         \
  X(vkResetDescriptorPool)           \
  X(vkAllocateDescriptorSets)        \
  X(vkUpdateDescriptorSets)          \
  X(vkCreateCommandPool)             \
  X(vkDestroyCommandPool)            \
  X(vkAllocateCommandBuffers)        \
  X(vkBeginCommandBuffer)            \
  X(vkEndCommandBuffer)              \
  X(vkResetCommandBuffer)            \
  X(vkCmdBindPipeline)               \
  X(vkCmdBindDescriptorSets)         \
  X(vkCmdPushConstants)              \
  X(vkCmdDispatch)                   \
  X(vkCmdPipelineBarrier)            \
  X(vkCmdCopyBuffer)                 \
  X(vkCmdWriteTimestamp)             \
  X(vkCmdResetQueryPool)             \
  X(vkCreateQueryPool)               \
  X(vkDestroyQueryPool)              \
  X(vkGetQueryPoolResults)           \
  X(vkQueueSubmit)                   \
  X(vkCreateFence)                   \
  X(vkDestroyFence)                  \
  X(vkWaitForFences)                 \
  X(vkResetFences)                   \
  X(vkDeviceWaitIdle)

namespace attnlab::vk {

struct Functions {
  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
  PFN_vkCreateDebugUtilsMessengerEXT vkCreateDebugUtilsMessengerEXT = nullptr;
  PFN_vkDestroyDebugUtilsMessengerEXT vkDestroyDebugUtilsMessengerEXT = nullptr;
#define ATTNLAB_VK_MEMBER(name) PFN_##name name = nullptr;
  ATTNLAB_VK_GLOBAL(ATTNLAB_VK_MEMBER)
  ATTNLAB_VK_INSTANCE(ATTNLAB_VK_MEMBER)
  ATTNLAB_VK_DEVICE(ATTNLAB_VK_MEMBER)
#undef ATTNLAB_VK_MEMBER
};

}  // namespace attnlab::vk
