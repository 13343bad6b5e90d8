#include "backend/vulkan/vk_context.h"

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace attnlab::vk {

namespace {

constexpr uint64_t kWaitNs = 120ull * 1000 * 1000 * 1000;  // a dispatch that takes longer is a hang

int rank(VkPhysicalDeviceType t) {  // higher is better
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 4;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 3;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 1;
    default: return 0;
  }
}

bool env_on(const char* name) {
  const char* v = std::getenv(name);
  return v && *v && std::strcmp(v, "0") != 0;
}

}  // namespace

const char* result_name(VkResult r) {
  switch (r) {
    case VK_NOT_READY: return "VK_NOT_READY";
    case VK_TIMEOUT: return "VK_TIMEOUT";
    case VK_ERROR_OUT_OF_HOST_MEMORY: return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_INITIALIZATION_FAILED: return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_DEVICE_LOST: return "VK_ERROR_DEVICE_LOST";
    case VK_ERROR_MEMORY_MAP_FAILED: return "VK_ERROR_MEMORY_MAP_FAILED";
    case VK_ERROR_LAYER_NOT_PRESENT: return "VK_ERROR_LAYER_NOT_PRESENT";
    case VK_ERROR_EXTENSION_NOT_PRESENT: return "VK_ERROR_EXTENSION_NOT_PRESENT";
    case VK_ERROR_FEATURE_NOT_PRESENT: return "VK_ERROR_FEATURE_NOT_PRESENT";
    case VK_ERROR_INCOMPATIBLE_DRIVER: return "VK_ERROR_INCOMPATIBLE_DRIVER (no Vulkan driver)";
    case VK_ERROR_TOO_MANY_OBJECTS: return "VK_ERROR_TOO_MANY_OBJECTS";
    case VK_ERROR_OUT_OF_POOL_MEMORY: return "VK_ERROR_OUT_OF_POOL_MEMORY";
    default: return "an unknown VkResult";
  }
}

namespace {

// result_name(r) as a Text: the two names with words of ours are catalogue messages.
Text result_text(VkResult r) {
  if (r == VK_ERROR_INCOMPATIBLE_DRIVER) return Text(Msg::en_vk_incompatible_driver_no_driver);
  const char* name = result_name(r);
  if (std::strncmp(name, "VK_", 3) != 0) return Text(Msg::en_vk_unknown_result);  // "an unknown VkResult"
  return verbatim(name);
}

}  // namespace

void check(VkResult r, const char* expr, const char* file, int line) {
  if (r == VK_SUCCESS) return;
  const char* base = std::strrchr(file, '/');
  throw VulkanError(Text(Msg::en_vulkan_call_failed, expr, result_text(r), base ? base + 1 : file, line));
}

// ----------------------------------------------------------------------------- buffers

Buffer::Buffer(Context& ctx, VkDeviceSize bytes, Memory where) : ctx_(ctx), bytes_(std::max<VkDeviceSize>(bytes, 16)) {
  const Functions& f = ctx.fn();
  if (bytes_ > ctx.limits().maxStorageBufferRange)
    throw VulkanError(Text(Msg::en_vulkan_buffer_beyond_storage_range, bytes_ >> 20, ctx.limits().maxStorageBufferRange >> 20));
  VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bi.size = bytes_;
  bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VK_CHECK(f.vkCreateBuffer(ctx.device(), &bi, nullptr, &buffer_));
  try {
    VkMemoryRequirements req;
    f.vkGetBufferMemoryRequirements(ctx.device(), buffer_, &req);
    VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = ctx.memory_type(req.memoryTypeBits, where);
    VK_CHECK(f.vkAllocateMemory(ctx.device(), &ai, nullptr, &memory_));
    VK_CHECK(f.vkBindBufferMemory(ctx.device(), buffer_, memory_, 0));
    if (where == Memory::Mapped) VK_CHECK(f.vkMapMemory(ctx.device(), memory_, 0, VK_WHOLE_SIZE, 0, &mapped_));
  } catch (...) {
    if (memory_) f.vkFreeMemory(ctx.device(), memory_, nullptr);
    f.vkDestroyBuffer(ctx.device(), buffer_, nullptr);
    throw;
  }
}

Buffer::~Buffer() {
  const Functions& f = ctx_.fn();
  if (mapped_) f.vkUnmapMemory(ctx_.device(), memory_);
  f.vkFreeMemory(ctx_.device(), memory_, nullptr);
  f.vkDestroyBuffer(ctx_.device(), buffer_, nullptr);
}

// ----------------------------------------------------------------------------- the context

Context::Context(int index, bool allow_cpu) {
  try {
    load_loader();
    create_instance();
    pick_device(index, allow_cpu);
    create_device();
  } catch (...) {
    release();
    throw;
  }
}

Context::~Context() { release(); }

void Context::release() {
  if (device_) {
    fn_.vkDeviceWaitIdle(device_);
    if (queries_) fn_.vkDestroyQueryPool(device_, queries_, nullptr);
    if (fence_) fn_.vkDestroyFence(device_, fence_, nullptr);
    if (pool_) fn_.vkDestroyCommandPool(device_, pool_, nullptr);
    fn_.vkDestroyDevice(device_, nullptr);
    device_ = VK_NULL_HANDLE;
  }
  if (messenger_ && fn_.vkDestroyDebugUtilsMessengerEXT) fn_.vkDestroyDebugUtilsMessengerEXT(instance_, messenger_, nullptr);
  messenger_ = VK_NULL_HANDLE;
  if (instance_) fn_.vkDestroyInstance(instance_, nullptr);
  instance_ = VK_NULL_HANDLE;
  // The loader stays loaded: drivers may keep threads or atexit handlers that outlive an instance,
  // and unloading under them is unsafe (dlopen of an already loaded library is cheap next time).
  lib_ = nullptr;
}

#if defined(__SANITIZE_ADDRESS__)
namespace {
int pin_vulkan_library(struct dl_phdr_info* info, size_t, void*) {
  const char* name = info->dlpi_name;
  if (name && (std::strstr(name, "libvulkan_") || std::strstr(name, "libVkLayer_")))
    dlopen(name, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
  return 0;
}
}  // namespace
#endif

// Sanitizer builds only: LeakSanitizer names a leak by the library whose code made it, and the
// loader unloads a driver with its instance, after which a driver's leak (lavapipe's are known)
// shows as "<unknown module>", which .ci/lsan.supp cannot name. Every loaded driver and layer is
// pinned (RTLD_NODELETE) so that it stays, and the suppression by library works.
void Context::pin_drivers_for_leak_checks() {
#if defined(__SANITIZE_ADDRESS__)
  dl_iterate_phdr(pin_vulkan_library, nullptr);
#endif
}

void Context::load_loader() {
  lib_ = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib_)
    throw VulkanUnavailable(Text(Msg::vulkan_loader_libvulkan_so_not_installed_debian));
  fn_.vkGetInstanceProcAddr = reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(lib_, "vkGetInstanceProcAddr"));
  if (!fn_.vkGetInstanceProcAddr) throw VulkanError(Text(Msg::en_vulkan_loader_no_get_instance_proc_addr));
#define ATTNLAB_VK_LOAD(name)                                                                            \
  fn_.name = reinterpret_cast<PFN_##name>(fn_.vkGetInstanceProcAddr(VK_NULL_HANDLE, #name));            \
  if (!fn_.name) throw VulkanError(Text(Msg::en_vulkan_loader_lacks, #name));
  ATTNLAB_VK_GLOBAL(ATTNLAB_VK_LOAD)
#undef ATTNLAB_VK_LOAD
}

VKAPI_ATTR VkBool32 VKAPI_CALL Context::on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                    VkDebugUtilsMessageTypeFlagsEXT,
                                                    const VkDebugUtilsMessengerCallbackDataEXT* data, void* self) {
  if (severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT && data && data->pMessage)
    static_cast<Context*>(self)->messages_.emplace_back(data->pMessage);
  return VK_FALSE;
}

void Context::create_instance() {
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "attnlab";
  app.apiVersion = VK_API_VERSION_1_2;
  std::vector<const char*> layers, extensions;
  if (env_on("ATTNLAB_VULKAN_VALIDATION")) {
    uint32_t n = 0;
    fn_.vkEnumerateInstanceLayerProperties(&n, nullptr);
    std::vector<VkLayerProperties> props(n);
    fn_.vkEnumerateInstanceLayerProperties(&n, props.data());
    for (const auto& p : props)
      if (std::strcmp(p.layerName, "VK_LAYER_KHRONOS_validation") == 0) {
        layers.push_back("VK_LAYER_KHRONOS_validation");
        extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
      }
  }
  VkDebugUtilsMessengerCreateInfoEXT dbg{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
  dbg.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  dbg.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                    VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  dbg.pfnUserCallback = &Context::on_message;
  dbg.pUserData = this;
  VkInstanceCreateInfo ci{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ci.pApplicationInfo = &app;
  ci.enabledLayerCount = static_cast<uint32_t>(layers.size());
  ci.ppEnabledLayerNames = layers.data();
  ci.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  ci.ppEnabledExtensionNames = extensions.data();
  if (!layers.empty()) ci.pNext = &dbg;
  const VkResult made = fn_.vkCreateInstance(&ci, nullptr, &instance_);
  if (made == VK_ERROR_INCOMPATIBLE_DRIVER)
    throw VulkanUnavailable(Text(Msg::vulkan_no_driver_debian_apt_get_install));
  VK_CHECK(made);
  pin_drivers_for_leak_checks();
#define ATTNLAB_VK_LOAD(name)                                                                  \
  fn_.name = reinterpret_cast<PFN_##name>(fn_.vkGetInstanceProcAddr(instance_, #name));       \
  if (!fn_.name) throw VulkanError(Text(Msg::en_vulkan_instance_lacks, #name));
  ATTNLAB_VK_INSTANCE(ATTNLAB_VK_LOAD)
#undef ATTNLAB_VK_LOAD
  if (!layers.empty()) {
    fn_.vkCreateDebugUtilsMessengerEXT = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        fn_.vkGetInstanceProcAddr(instance_, "vkCreateDebugUtilsMessengerEXT"));
    fn_.vkDestroyDebugUtilsMessengerEXT = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        fn_.vkGetInstanceProcAddr(instance_, "vkDestroyDebugUtilsMessengerEXT"));
    if (fn_.vkCreateDebugUtilsMessengerEXT) VK_CHECK(fn_.vkCreateDebugUtilsMessengerEXT(instance_, &dbg, nullptr, &messenger_));
  }
}

void Context::pick_device(int index, bool allow_cpu) {
  uint32_t n = 0;
  VK_CHECK(fn_.vkEnumeratePhysicalDevices(instance_, &n, nullptr));
  std::vector<VkPhysicalDevice> devs(n);
  VK_CHECK(fn_.vkEnumeratePhysicalDevices(instance_, &n, devs.data()));
  if (n == 0) throw VulkanUnavailable(Text(Msg::vulkan_no_device_install_driver_debians_mesa));
  if (index >= static_cast<int>(n))
    throw VulkanError(Text(Msg::en_vulkan_device_index_beyond_devices, index, n, n - 1));
  int best = -1, best_rank = 0;
  for (uint32_t i = 0; i < n; ++i) {
    VkPhysicalDeviceProperties p;
    fn_.vkGetPhysicalDeviceProperties(devs[i], &p);
    const int r = rank(p.deviceType);
    if (index >= 0) {
      if (static_cast<int>(i) != index) continue;
      if (p.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU && !allow_cpu)
        throw VulkanError(Text(Msg::en_vulkan_device_index_cpu_type, index, std::string(p.deviceName)));
      best = index;
      break;
    }
    if (p.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU && !allow_cpu) continue;
    if (r > best_rank) {
      best = static_cast<int>(i);
      best_rank = r;
    }
  }
  if (best < 0)
    throw VulkanUnavailable(Text(Msg::vulkan_no_gpu_only_cpu_type_device));
  phys_ = devs[static_cast<size_t>(best)];
  VkPhysicalDeviceSubgroupProperties sub{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceProperties2 p2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  p2.pNext = &sub;
  fn_.vkGetPhysicalDeviceProperties2(phys_, &p2);
  if (p2.properties.apiVersion < VK_API_VERSION_1_2)
    throw VulkanError(Text(Msg::en_vulkan_device_version_too_old, std::string(p2.properties.deviceName),
                           VK_API_VERSION_MINOR(p2.properties.apiVersion)));
  limits_ = p2.properties.limits;
  subgroup_ = std::max(1u, sub.subgroupSize);
  constexpr VkSubgroupFeatureFlags kArithmetic = VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_ARITHMETIC_BIT;
  subgroup_arith_ = (sub.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0 &&
                    (sub.supportedOperations & kArithmetic) == kArithmetic;
  info_.index = static_cast<uint32_t>(best);
  info_.name = p2.properties.deviceName;
  info_.type = p2.properties.deviceType;
  fn_.vkGetPhysicalDeviceMemoryProperties(phys_, &memory_);
  uint32_t qn = 0;
  fn_.vkGetPhysicalDeviceQueueFamilyProperties(phys_, &qn, nullptr);
  std::vector<VkQueueFamilyProperties> qf(qn);
  fn_.vkGetPhysicalDeviceQueueFamilyProperties(phys_, &qn, qf.data());
  for (uint32_t i = 0; i < qn; ++i)
    if (qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
      family_ = i;
      info_.compute = true;
      timestamps_ = qf[i].timestampValidBits > 0;
      break;
    }
  if (!info_.compute) throw VulkanError(Text(Msg::en_vulkan_device_no_compute_queue, info_.name));
  timestamp_ns_ = limits_.timestampPeriod > 0 ? limits_.timestampPeriod : 1;
}

void Context::create_device() {
  const float priority = 1.0f;
  VkDeviceQueueCreateInfo qi{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qi.queueFamilyIndex = family_;
  qi.queueCount = 1;
  qi.pQueuePriorities = &priority;
  VkDeviceCreateInfo di{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  di.queueCreateInfoCount = 1;
  di.pQueueCreateInfos = &qi;
  VK_CHECK(fn_.vkCreateDevice(phys_, &di, nullptr, &device_));
#define ATTNLAB_VK_LOAD(name)                                                             \
  fn_.name = reinterpret_cast<PFN_##name>(fn_.vkGetDeviceProcAddr(device_, #name));       \
  if (!fn_.name) throw VulkanError(Text(Msg::en_vulkan_device_lacks, #name));
  ATTNLAB_VK_DEVICE(ATTNLAB_VK_LOAD)
#undef ATTNLAB_VK_LOAD
  fn_.vkGetDeviceQueue(device_, family_, 0, &queue_);
  VkCommandPoolCreateInfo pi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pi.queueFamilyIndex = family_;
  VK_CHECK(fn_.vkCreateCommandPool(device_, &pi, nullptr, &pool_));
  VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  ai.commandPool = pool_;
  ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  ai.commandBufferCount = 1;
  VK_CHECK(fn_.vkAllocateCommandBuffers(device_, &ai, &cmd_));
  VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VK_CHECK(fn_.vkCreateFence(device_, &fi, nullptr, &fence_));
  if (timestamps_) {
    VkQueryPoolCreateInfo qpi{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    qpi.queryType = VK_QUERY_TYPE_TIMESTAMP;
    qpi.queryCount = 2;
    VK_CHECK(fn_.vkCreateQueryPool(device_, &qpi, nullptr, &queries_));
  }
}

uint32_t Context::memory_type(uint32_t allowed, Memory where) const {
  if (where == Memory::Device) {
    int any = -1;
    for (uint32_t i = 0; i < memory_.memoryTypeCount; ++i) {
      if (!(allowed & (1u << i))) continue;
      if (memory_.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) return i;
      if (any < 0) any = static_cast<int>(i);
    }
    if (any >= 0) return static_cast<uint32_t>(any);
  }
  const VkMemoryPropertyFlags need = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  int best = -1;
  for (uint32_t i = 0; i < memory_.memoryTypeCount; ++i) {
    const VkMemoryPropertyFlags f = memory_.memoryTypes[i].propertyFlags;
    if (!(allowed & (1u << i)) || (f & need) != need) continue;
    if (best < 0 || (f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)) best = static_cast<int>(i);
    if (f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) break;
  }
  if (best < 0) throw VulkanError(Text(Msg::en_vulkan_no_host_visible_memory, info_.name));
  return static_cast<uint32_t>(best);
}

void Context::begin() {
  VK_CHECK(fn_.vkResetCommandBuffer(cmd_, 0));
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  VK_CHECK(fn_.vkBeginCommandBuffer(cmd_, &bi));
  if (timestamps_) {
    fn_.vkCmdResetQueryPool(cmd_, queries_, 0, 2);
    fn_.vkCmdWriteTimestamp(cmd_, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries_, 0);
  }
}

double Context::submit_and_wait() {
  if (timestamps_) fn_.vkCmdWriteTimestamp(cmd_, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_, 1);
  VK_CHECK(fn_.vkEndCommandBuffer(cmd_));
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cmd_;
  VK_CHECK(fn_.vkResetFences(device_, 1, &fence_));
  VK_CHECK(fn_.vkQueueSubmit(queue_, 1, &si, fence_));
  ++submissions_;
  const VkResult r = fn_.vkWaitForFences(device_, 1, &fence_, VK_TRUE, kWaitNs);
  if (r == VK_TIMEOUT) throw VulkanError(Text(Msg::en_vulkan_device_did_not_finish, info_.name));
  VK_CHECK(r);
  if (!timestamps_) return 0;
  uint64_t ticks[2] = {0, 0};
  VK_CHECK(fn_.vkGetQueryPoolResults(device_, queries_, 0, 2, sizeof ticks, ticks, sizeof(uint64_t),
                                     VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
  return ticks[1] > ticks[0] ? static_cast<double>(ticks[1] - ticks[0]) * timestamp_ns_ / 1e6 : 0;
}

}  // namespace attnlab::vk
