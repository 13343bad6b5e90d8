#include "rng.h"

#include <cmath>
#include <numbers>

namespace attnlab {

static constexpr uint64_t kGamma = 0x9E3779B97F4A7C15ULL;

uint64_t splitmix_mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

uint64_t fnv1a64(std::string_view bytes) {
  uint64_t h = 0xCBF29CE484222325ULL;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001B3ULL;
  }
  return h;
}

Stream::Stream(std::string_view name, uint64_t seed) : base_(fnv1a64(name) ^ splitmix_mix(seed)) {}

uint64_t Stream::u64(uint64_t i) const { return splitmix_mix(base_ + (i + 1) * kGamma); }

double Stream::uniform(uint64_t i) const {
  return static_cast<double>((u64(i) >> 11) + 1) * 0x1.0p-53;
}

double Stream::normal(uint64_t j) const {
  const double u1 = uniform(2 * j), u2 = uniform(2 * j + 1);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

}  // namespace attnlab
