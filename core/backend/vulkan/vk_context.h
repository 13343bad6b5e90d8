// One Vulkan device ready for compute: the loader (dlopen), an instance (with the Khronos
// validation layer when ATTNLAB_VULKAN_VALIDATION=1 and it is installed), the chosen physical
// device, a compute queue, a command buffer with a fence, timestamp queries, and RAII buffers.
// Every failure is a VulkanError naming the call and file:line; nothing here exits or aborts.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "backend/vulkan/vk_functions.h"

namespace attnlab::vk {

// Throws VulkanError("Vulkan: <expr> failed: VK_ERROR_… (file:line)") unless r is VK_SUCCESS.
void check(VkResult r, const char* expr, const char* file, int line);
#define VK_CHECK(expr) ::attnlab::vk::check((expr), #expr, __FILE__, __LINE__)
const char* result_name(VkResult r);

struct DeviceInfo {
  uint32_t index = 0;  // vulkaninfo's order
  std::string name;
  VkPhysicalDeviceType type = VK_PHYSICAL_DEVICE_TYPE_OTHER;
  bool compute = false;  // has a compute queue
  bool cpu() const { return type == VK_PHYSICAL_DEVICE_TYPE_CPU; }
};

class Context;

// Where a buffer lives. Mapped: host-visible and coherent, mapped for its whole life (device-local
// too where the device has such memory). Device: device-local, not mapped, filled and read by
// copies through a Mapped staging buffer (the resident stack's weights and activations).
enum class Memory { Mapped, Device };

// A storage buffer (also a copy source and destination).
class Buffer {
 public:
  Buffer(Context& ctx, VkDeviceSize bytes, Memory where = Memory::Mapped);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  VkBuffer handle() const { return buffer_; }
  VkDeviceSize bytes() const { return bytes_; }
  float* data() const { return static_cast<float*>(mapped_); }  // null for Memory::Device

 private:
  Context& ctx_;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  VkDeviceSize bytes_ = 0;
  void* mapped_ = nullptr;
};

class Context {
 public:
  // index >= 0: that device (ATTNLAB_VULKAN_DEVICE); otherwise the best one: discrete, integrated,
  // virtual, then CPU-type — the last only when allow_cpu. Throws VulkanError.
  Context(int index, bool allow_cpu);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  const Functions& fn() const { return fn_; }
  VkDevice device() const { return device_; }
  const DeviceInfo& info() const { return info_; }
  const VkPhysicalDeviceLimits& limits() const { return limits_; }
  uint32_t subgroup_size() const { return subgroup_; }
  // Subgroup arithmetic (subgroupAdd, subgroupMax) in compute shaders: what the row shaders'
  // subgroup reductions need (shaders/row_reduce.glsl).
  bool subgroup_arithmetic() const { return subgroup_arith_; }
  // Mapped: host-visible + coherent, device-local preferred. Device: device-local, else any.
  uint32_t memory_type(uint32_t allowed_bits, Memory where = Memory::Mapped) const;

  // Records into the command buffer (fn), submits, waits (with a time limit) and returns the
  // device time between two timestamps in ms (0 when the queue has no timestamps).
  template <typename Record>
  double run(Record&& record) {
    begin();
    record(cmd_);
    return submit_and_wait();
  }
  // Submissions to the queue since the context was made (tests: one per resident forward pass).
  uint64_t submissions() const { return submissions_; }
  // Validation messages (warnings and errors) seen since the context was made.
  const std::vector<std::string>& validation_messages() const { return messages_; }
  bool validating() const { return messenger_ != VK_NULL_HANDLE; }

 private:
  void release();  // everything made so far, in reverse order (also after a failed constructor)
  void load_loader();
  void pin_drivers_for_leak_checks();  // sanitizer builds: see vk_context.cpp
  void create_instance();
  void pick_device(int index, bool allow_cpu);
  void create_device();
  void begin();
  double submit_and_wait();
  static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                     VkDebugUtilsMessageTypeFlagsEXT,
                                                     const VkDebugUtilsMessengerCallbackDataEXT* data, void* self);

  void* lib_ = nullptr;
  Functions fn_;
  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  VkPhysicalDevice phys_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  uint32_t family_ = 0;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkCommandBuffer cmd_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  VkQueryPool queries_ = VK_NULL_HANDLE;
  bool timestamps_ = false;
  double timestamp_ns_ = 1;  // nanoseconds per tick
  DeviceInfo info_;
  VkPhysicalDeviceLimits limits_{};
  VkPhysicalDeviceMemoryProperties memory_{};
  uint32_t subgroup_ = 1;
  bool subgroup_arith_ = false;
  std::vector<std::string> messages_;
  uint64_t submissions_ = 0;
};

}  // namespace attnlab::vk
