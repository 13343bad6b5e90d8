// The portable generator behind every seeded number (embeddings and weight initialisation).
//
// Documented in docs/cli.md so that any language can reproduce it bit for bit:
//   mix(z)        = SplitMix64's finaliser
//   base(name, s) = fnv1a64(utf8 bytes of name) XOR mix(s)
//   u64(i)        = mix(base + (i + 1) * 0x9E3779B97F4A7C15)          (i = 0, 1, 2, …)
//   uniform(i)    = ((u64(i) >> 11) + 1) * 2^-53                    in (0, 1]
//   normal(j)     = sqrt(-2 ln uniform(2j)) * cos(2π uniform(2j+1))  (double, then rounded to f32)
// The standard library's distributions are avoided on purpose: their output differs between
// implementations (PITFALLS.md).
#pragma once

#include <cstdint>
#include <string_view>

namespace attnlab {

// Inline: weight initialisation draws millions of these (a few ns each) and must stay within
// the GUI's frame budget when a size changes.
inline uint64_t splitmix_mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}
uint64_t fnv1a64(std::string_view bytes);

class Stream {
 public:
  Stream(std::string_view name, uint64_t seed);
  uint64_t u64(uint64_t i) const { return splitmix_mix(base_ + (i + 1) * 0x9E3779B97F4A7C15ULL); }
  double uniform(uint64_t i) const { return static_cast<double>((u64(i) >> 11) + 1) * 0x1.0p-53; }  // (0, 1]
  double normal(uint64_t j) const;  // standard normal, Box–Muller cosine branch

 private:
  uint64_t base_;
};

}  // namespace attnlab
