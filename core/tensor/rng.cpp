#include "tensor/rng.h"

#include <cmath>
#include <numbers>

namespace attnlab {

uint64_t fnv1a64(std::string_view bytes) {
  uint64_t h = 0xCBF29CE484222325ULL;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001B3ULL;
  }
  return h;
}

Stream::Stream(std::string_view name, uint64_t seed) : base_(fnv1a64(name) ^ splitmix_mix(seed)) {}

double Stream::normal(uint64_t j) const {
  const double u1 = uniform(2 * j), u2 = uniform(2 * j + 1);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

}  // namespace attnlab
