// Seeded test inputs: a tensor of standard normals from the documented generator (rng.h), scaled.
#pragma once

#include <string>

#include "rng.h"
#include "tensor.h"

namespace attnlab::test {

inline Tensor random_tensor(const Shape& shape, const std::string& name, float scale = 1.0f, uint64_t seed = 7) {
  Tensor t(shape);
  const Stream s(name, seed);
  for (int64_t i = 0; i < t.numel(); ++i) t.data()[i] = scale * static_cast<float>(s.normal(static_cast<uint64_t>(i)));
  return t;
}

}  // namespace attnlab::test
