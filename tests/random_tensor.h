// Seeded test inputs: a tensor of standard normals from the documented generator (rng.h), scaled.
#pragma once

#include <string>

#include "model/config.h"
#include "tensor/rng.h"
#include "tensor/tensor.h"

namespace attnlab::test {

inline Tensor random_tensor(const Shape& shape, const std::string& name, float scale = 1.0f, uint64_t seed = 7) {
  Tensor t(shape);
  const Stream s(name, seed);
  for (int64_t i = 0; i < t.numel(); ++i) t.data()[i] = scale * static_cast<float>(s.normal(static_cast<uint64_t>(i)));
  return t;
}

// A small stack for the fast-path tests: d_model d, 4 heads, d_ff f, two layers.
inline ModelConfig small_stack(int64_t d, int64_t f) {
  ModelConfig cfg;
  cfg.d_model = d;
  cfg.heads = 4;
  cfg.d_ff = f;
  cfg.layers = 2;
  return cfg;
}

}  // namespace attnlab::test
