// The row shaders' two reductions side by side (core/backend/vulkan/shaders/row_reduce.glsl): the
// softmax over (rows, n) on the Vulkan device with its max and sum reduced in subgroups (the
// default where the device has subgroup arithmetic) and in a shared-memory tree only
// (ATTNLAB_VULKAN_SUBGROUPS=0), in turn, the device time from timestamp queries. Issue 23's
// "subgroup operations": on lavapipe the subgroup form was 1.5–3× faster (README, "The Vulkan
// backend"); on a real GPU it has not been measured (bench/vulkan_device_check.sh does, whole passes).
//
//   cmake --preset bench && cmake --build build/bench --target vulkan_rows
//   build/bench/bench/vulkan_rows            (ATTNLAB_VULKAN_DEVICE=N picks the device)
//
// Output: a markdown table, the median of 9 runs per shape and form, plus what the device reads
// and writes per second (each row read three times and written twice: 20 bytes per element).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#ifdef ATTNLAB_HAVE_VULKAN
#include "backend/vulkan/vulkan_backend.h"
#include "tensor/tensor.h"
#include "text/errors.h"

namespace {

using attnlab::Tensor;
using attnlab::VulkanBackend;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The median device ms of softmax over a (rows, n) tensor for each form, the forms in turn.
std::pair<double, double> time_forms(VulkanBackend& vk, int64_t rows, int64_t n, bool has_subgroups) {
  Tensor x({rows, n}, 0.0f);
  for (int64_t i = 0; i < x.numel(); ++i) x.data()[i] = static_cast<float>((i * 2654435761u) % 1000) / 250.0f;
  std::vector<double> ms[2];
  for (int rep = 0; rep < 10; ++rep)
    for (const bool sg : {true, false}) {
      if (sg && !has_subgroups) continue;
      vk.use_subgroup_reductions(sg);
      Tensor y = x.clone();
      vk.reset_timing();
      vk.softmax_lastdim_inplace(y);
      if (rep > 0) ms[sg].push_back(vk.device_ms());  // the first run of each form warms up
    }
  return {has_subgroups ? median(ms[1]) : 0.0, median(ms[0])};
}

}  // namespace

int main() {
  try {
    const char* env = std::getenv("ATTNLAB_VULKAN_DEVICE");
    VulkanBackend vk(env ? std::atoi(env) : -1, true);
    vk.use_subgroup_reductions(true);
    const bool has = vk.tiles().subgroup_ops;
    std::printf("device: %s; subgroup size %u, workgroup %u, subgroup arithmetic %s\n\n", vk.device().c_str(),
                vk.tiles().subgroup, vk.tiles().softmax_wg, has ? "yes" : "no");
    std::printf("| rows × n | subgroups ms | shared memory ms | shared ÷ subgroups | GB/s subgroups |\n|---|---|---|---|---|\n");
    for (const auto& [rows, n] : std::vector<std::pair<int64_t, int64_t>>{{4096, 64}, {4096, 512}, {4096, 2048}, {16384, 2048}}) {
      const auto [sg, shared] = time_forms(vk, rows, n, has);
      const double gbs = sg > 0 ? 20.0 * static_cast<double>(rows * n) / (sg * 1e6) : 0.0;
      std::printf("| %lld × %lld | %.2f | %.2f | %.2f | %.2f |\n", static_cast<long long>(rows), static_cast<long long>(n), sg,
                  shared, sg > 0 ? shared / sg : 0.0, gbs);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "vulkan_rows: %s\n", e.what());
    return 1;
  }
}
#else
int main() {
  std::fprintf(stderr, "vulkan_rows: built without the Vulkan compute path\n");
  return 1;
}
#endif
