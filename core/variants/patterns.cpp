// The variants' patterns and tables: which query–key pairs each computes, Linformer's projection,
// the relative-bias table and ALiBi's slopes — everything about a variant that is drawn, not computed.
#include <cmath>

#include "tensor/rng.h"
#include "variants/variants.h"

namespace attnlab {

std::string variant_prefix(const VariantConfig& v) {
  return "encoder.layers." + std::to_string(v.layer) + ".variant." + std::string(variant_name(v.kind)) + ".";
}

std::vector<uint8_t> window_pattern(int64_t t, int64_t window, int64_t globals) {
  std::vector<uint8_t> p(static_cast<size_t>(t * t), 0);
  for (int64_t i = 0; i < t; ++i)
    for (int64_t j = 0; j < t; ++j)
      p[static_cast<size_t>(i * t + j)] = std::abs(i - j) <= window || i < globals || j < globals;
  return p;
}

// Random blocks: for query block qb of head h, draw i (0 ≤ i < random_blocks) picks the
// (u64(n) mod remaining)-th of the blocks not yet seen by qb (in block order), where
// n = (h · blocks + qb) · random_blocks + i; fewer when fewer remain.
std::vector<uint8_t> bigbird_pattern(int64_t t, const VariantConfig& v, int64_t head, uint64_t seed) {
  const int64_t nb = (t + v.block - 1) / v.block;
  std::vector<uint8_t> seen(static_cast<size_t>(nb * nb), 0);  // (query block, key block)
  const Stream rnd("variant.bigbird", seed);
  for (int64_t qb = 0; qb < nb; ++qb) {
    uint8_t* row = &seen[static_cast<size_t>(qb * nb)];
    for (int64_t kb = 0; kb < nb; ++kb) row[kb] = std::abs(qb - kb) <= 1 || qb < v.globals || kb < v.globals;
    for (int64_t i = 0; i < v.random_blocks; ++i) {
      std::vector<int64_t> rest;
      for (int64_t kb = 0; kb < nb; ++kb)
        if (!row[kb]) rest.push_back(kb);
      if (rest.empty()) break;
      const uint64_t n = static_cast<uint64_t>((head * nb + qb) * v.random_blocks + i);
      row[rest[static_cast<size_t>(rnd.u64(n) % rest.size())]] = 1;
    }
  }
  std::vector<uint8_t> p(static_cast<size_t>(t * t));
  for (int64_t i = 0; i < t; ++i)
    for (int64_t j = 0; j < t; ++j) p[static_cast<size_t>(i * t + j)] = seen[static_cast<size_t>((i / v.block) * nb + j / v.block)];
  return p;
}

std::vector<uint8_t> axial_pattern(int64_t t, int64_t width, bool rows) {
  std::vector<uint8_t> p(static_cast<size_t>(t * t));
  for (int64_t i = 0; i < t; ++i)
    for (int64_t j = 0; j < t; ++j)
      p[static_cast<size_t>(i * t + j)] = rows ? i / width == j / width : i % width == j % width;
  return p;
}

Tensor linformer_projection(int64_t rank, int64_t t, uint64_t seed) {
  Tensor e = Tensor::empty({rank, t});
  const double scale = 1.0 / std::sqrt(static_cast<double>(rank));
  for (int64_t r = 0; r < rank; ++r) {
    const Stream s("variant.linformer.row" + std::to_string(r), seed);
    for (int64_t j = 0; j < t; ++j) e.data()[r * t + j] = static_cast<float>(s.normal(static_cast<uint64_t>(j)) * scale);
  }
  return e;
}

Tensor relative_bias_table(int64_t heads, int64_t max_distance, uint64_t seed) {
  const int64_t n = 2 * max_distance + 1;
  Tensor table = Tensor::empty({heads, n});
  const Stream s("variant.relative_bias", seed);
  for (int64_t i = 0; i < heads * n; ++i) table.data()[i] = static_cast<float>(s.normal(static_cast<uint64_t>(i)));
  return table;
}

double alibi_slope(int64_t h, int64_t heads) {
  return std::exp2(-8.0 * static_cast<double>(h + 1) / static_cast<double>(heads));
}

}  // namespace attnlab
