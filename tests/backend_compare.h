// The Vulkan-vs-CPU comparison of the backend parity tests (test_backend, test_resident): the
// spec's tolerance |v − c| ≤ 1e-4 + 1e-3·|c|, NaN and infinities agreeing first.
#pragma once

#include <QtTest>

#include <cmath>
#include <string>

#include "tensor/tensor.h"
#ifdef ATTNLAB_HAVE_VULKAN
#include "backend/vulkan/vulkan_backend.h"
#endif

namespace attnlab::test {

constexpr double kAtol = 1e-4, kRtol = 1e-3;

// "" when a and b agree (NaN where NaN, the same infinities, then the tolerance); else why not.
// The largest |v − c| as a fraction of its tolerance is printed (the README's parity table).
inline std::string compare(const Tensor& v, const Tensor& c, double* worst_out = nullptr) {
  if (v.shape() != c.shape()) return "shape " + shape_str(v.shape()) + " vs " + shape_str(c.shape());
  const auto x = v.to_vector(), y = c.to_vector();
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i]) != std::isnan(y[i]) || std::isinf(x[i]) != std::isinf(y[i]))
      return "element " + std::to_string(i) + ": " + std::to_string(x[i]) + " vs " + std::to_string(y[i]);
    if (std::isnan(y[i]) || std::isinf(y[i])) {
      if (std::isinf(y[i]) && x[i] != y[i]) return "element " + std::to_string(i) + ": opposite infinities";
      continue;
    }
    const double d = std::abs(static_cast<double>(x[i]) - y[i]);
    worst = std::max(worst, d / (kAtol + kRtol * std::abs(y[i])));
    if (d > kAtol + kRtol * std::abs(y[i]))
      return "element " + std::to_string(i) + ": " + std::to_string(x[i]) + " vs " + std::to_string(y[i]);
  }
  if (worst_out)
    *worst_out = std::max(*worst_out, worst);
  else
    qInfo("%s: worst |vulkan − cpu| = %.2g of the tolerance", QTest::currentDataTag() ? QTest::currentDataTag() : "",
          worst);
  return "";
}

#ifdef ATTNLAB_HAVE_VULKAN
// True when the validation layer reported nothing; otherwise each message is printed.
inline bool validation_clean(const VulkanBackend& vk) {
  for (const auto& m : vk.validation_messages()) qWarning("validation: %s", m.c_str());
  return vk.validation_messages().empty();
}
#endif

}  // namespace attnlab::test
