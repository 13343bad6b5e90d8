#include "backend/backend.h"

#include <cstdlib>
#include <fstream>

#include "backend/attention_tiled.h"
#include "tensor/eigen_types.h"
#ifdef ATTNLAB_HAVE_VULKAN
#include "backend/vulkan/vulkan_backend.h"
#endif

namespace attnlab {

// "CPU: <model name> (Eigen x.y.z, N threads)": the model name as /proc/cpuinfo gives it.
Text cpu_device_text() {
  std::ifstream f("/proc/cpuinfo");
  std::string line, model = "unknown processor";
  while (std::getline(f, line))
    if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos) {
      model = line.substr(line.find(':') + 2);
      break;
    }
  return Text(Msg::en_cpu_device, model, eigen_version(), Eigen::nbThreads());
}

std::string cpu_device_name() { return cpu_device_text().english(); }

std::string CpuBackend::device() const { return cpu_device_name(); }
Text CpuBackend::device_text() const { return cpu_device_text(); }

namespace {
bool unit_last_stride(const Tensor& q, const Tensor& k, const Tensor& v) {
  return q.dim() == 4 && k.dim() == 4 && v.dim() == 4 && q.strides()[3] == 1 && k.strides()[3] == 1 &&
         v.strides()[3] == 1;
}
}  // namespace

Tensor CpuBackend::attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, float root) {
  return tiled_ && unit_last_stride(q, k, v) ? attention_tiled(q, k, v, mask, root)
                                             : Backend::attention(q, k, v, mask, root);
}

Tensor CpuBackend::attention(const Tensor& q, const Tensor& k, const Tensor& v, const KeyRanges& mask, float root) {
  return tiled_ && unit_last_stride(q, k, v) ? attention_tiled(q, k, v, mask, root)
                                             : Backend::attention(q, k, v, mask, root);
}

Backend& cpu_backend() {
  static CpuBackend cpu;
  return cpu;
}

std::shared_ptr<Backend> BackendCache::get(BackendKind kind, BackendNote* note) {
  const std::lock_guard<std::mutex> lock(mutex_);
  auto it = made_.find(kind);
  if (it == made_.end()) {
    BackendNote why;
    auto be = make_backend(kind, &why);  // a forced Vulkan that cannot run throws: nothing kept
    it = made_.emplace(kind, std::make_pair(std::move(be), why)).first;
  }
  if (note) *note = it->second.second;
  return it->second.first;
}

void BackendCache::drop(BackendKind kind) {
  const std::lock_guard<std::mutex> lock(mutex_);
  made_.erase(kind);
}

Tensor Backend::attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, float root) {
  Tensor scores = matmul(q, k.transpose(-2, -1));  // (B, H, Tq, Tk)
  float* s = scores.data();
  for (int64_t i = 0, n = scores.numel(); i < n; ++i) s[i] /= root;
  masked_fill_neg_inf_inplace(scores, mask);
  softmax_lastdim_inplace(scores);
  return matmul(scores, v);
}

BackendKind parse_backend(std::string_view s) {
  if (s == "cpu") return BackendKind::Cpu;
  if (s == "vulkan") return BackendKind::Vulkan;
  if (s == "auto") return BackendKind::Auto;
  throw ConfigError(verbatim("--backend: ") + Text(Msg::not_one_of, s, "cpu, vulkan, auto"));
}

std::string_view backend_kind_name(BackendKind k) {
  return k == BackendKind::Vulkan ? "vulkan" : k == BackendKind::Auto ? "auto" : "cpu";
}

bool vulkan_compiled_in() {
#ifdef ATTNLAB_HAVE_VULKAN
  return true;
#else
  return false;
#endif
}

namespace {

// ATTNLAB_VULKAN_DEVICE=N, or -1 when unset. A value that is not a number is an error.
int device_from_env() {
  const char* v = std::getenv("ATTNLAB_VULKAN_DEVICE");
  if (!v || !*v) return -1;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  if (*end != '\0' || n < 0 || n > 1000)
    throw ConfigError(verbatim("ATTNLAB_VULKAN_DEVICE: ") + Text(Msg::en_not_device_index_see_vulkaninfo, v));
  return static_cast<int>(n);
}

// A CPU backend of the caller's own: its tiling switch is the caller's to set.
std::shared_ptr<Backend> cpu_shared() { return std::make_shared<CpuBackend>(); }

}  // namespace

std::shared_ptr<Backend> make_backend(BackendKind kind, BackendNote* note) {
  if (kind == BackendKind::Cpu) return cpu_shared();
#ifdef ATTNLAB_HAVE_VULKAN
  const int index = device_from_env();
  try {
    return std::make_shared<VulkanBackend>(index, kind == BackendKind::Vulkan);
  } catch (const VulkanError& e) {
    if (kind == BackendKind::Vulkan) throw;
    if (note) *note = {e.text() + Text(Msg::computed_cpu), !dynamic_cast<const VulkanUnavailable*>(&e)};
    return cpu_shared();
  }
#else
  if (kind == BackendKind::Vulkan)
    throw VulkanUnavailable(verbatim("--backend vulkan: ") + Text(Msg::build_has_no_vulkan_compute_path_built));
  if (note) *note = {Text(Msg::built_without_vulkan) + Text(Msg::computed_cpu), false};
  return cpu_shared();
#endif
}

}  // namespace attnlab
