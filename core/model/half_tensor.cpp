#include "model/half_tensor.h"

#include <algorithm>
#include <stdexcept>

#include "tensor/parallel.h"
#include "tensor/row_kernels.h"

namespace attnlab {

namespace {

void widen_into(HalfTensor::Format f, const uint16_t* src, float* dst, int64_t n) {
  if (f == HalfTensor::Format::F16)
    widen_f16(best_isa(), src, dst, n);
  else
    widen_bf16(best_isa(), src, dst, n);
}

// n values, split between OpenMP's threads in blocks of 64 Ki when large.
void widen_parallel(HalfTensor::Format f, const uint16_t* src, float* dst, int64_t n) {
  constexpr int64_t kBlock = int64_t{1} << 16;
#pragma omp parallel for schedule(static) if (n >= 4 * kBlock)
  for (int64_t at = 0; at < n; at += kBlock) widen_into(f, src + at, dst + at, std::min(kBlock, n - at));
}

// src (rows, cols) → dst (cols, rows), in 32 × 32 tiles: a tile's stored rows widened into a
// buffer, then written out a column at a time (32 consecutive floats of dst each).
void widen_transposed(HalfTensor::Format f, const uint16_t* src, int64_t rows, int64_t cols, float* dst) {
  constexpr int64_t kTile = 32;
#pragma omp parallel for schedule(static) if (rows * cols >= kParallelElements)
  for (int64_t r0 = 0; r0 < rows; r0 += kTile) {
    float tile[kTile][kTile];
    const int64_t nr = std::min(kTile, rows - r0);
    for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
      const int64_t nc = std::min(kTile, cols - c0);
      for (int64_t r = 0; r < nr; ++r) widen_into(f, src + (r0 + r) * cols + c0, tile[r], nc);
      for (int64_t c = 0; c < nc; ++c)
        for (int64_t r = 0; r < nr; ++r) dst[(c0 + c) * rows + r0 + r] = tile[r][c];
    }
  }
}

bool finite_bits(HalfTensor::Format f, uint16_t h) {
  return f == HalfTensor::Format::F16 ? (h & 0x7C00u) != 0x7C00u : (h & 0x7F80u) != 0x7F80u;
}

}  // namespace

Tensor HalfTensor::widen() const {
  Tensor t = Tensor::empty(shape);
  if (transposed)  // bits: (shape[1], shape[0])
    widen_transposed(format, bits->data(), shape[1], shape[0], t.data());
  else
    widen_parallel(format, bits->data(), t.data(), numel());
  return t;
}

Tensor HalfTensor::widen_rows(const std::vector<int64_t>& which) const {
  if (shape.size() != 2) throw std::logic_error("HalfTensor::widen_rows: a 2-D tensor only");
  const int64_t rows = shape[0], cols = shape[1];
  Tensor t = Tensor::empty({static_cast<int64_t>(which.size()), cols});
  std::vector<uint16_t> gathered(transposed ? static_cast<size_t>(cols) : 0);
  for (size_t i = 0; i < which.size(); ++i) {
    const int64_t r = which[i];
    if (r < 0 || r >= rows) throw std::logic_error("HalfTensor::widen_rows: a row outside the tensor");
    const uint16_t* src = bits->data() + r * cols;
    if (transposed) {  // bits: (cols, rows); row r of `shape` is stored column r
      for (int64_t c = 0; c < cols; ++c) gathered[static_cast<size_t>(c)] = (*bits)[static_cast<size_t>(c * rows + r)];
      src = gathered.data();
    }
    widen_into(format, src, t.data() + static_cast<int64_t>(i) * cols, cols);
  }
  return t;
}

HalfTensor HalfTensor::transpose() const {
  if (shape.size() != 2) throw std::logic_error("HalfTensor::transpose: a 2-D tensor only");
  HalfTensor t = *this;
  t.transposed = !transposed;
  t.shape = {shape[1], shape[0]};
  return t;
}

int64_t HalfTensor::first_non_finite() const {
  const uint16_t* p = bits->data();
  const int64_t n = numel();
  int64_t first = -1;
  for (int64_t i = 0; i < n; ++i) {
    if (finite_bits(format, p[i])) continue;
    if (!transposed) return i;
    // stored index r·shape[0] + c of the (shape[1], shape[0]) matrix is element (c, r) of `shape`;
    // stored order is not `shape`'s C order, so the smallest of them all
    const int64_t at = (i % shape[0]) * shape[1] + i / shape[0];
    first = first < 0 ? at : std::min(first, at);
  }
  return first;
}

HalfTensor HalfTensor::concat_rows(const std::vector<HalfTensor>& parts) {
  if (parts.empty()) return {};
  HalfTensor out = parts[0];
  auto bits = std::make_shared<std::vector<uint16_t>>();
  out.shape[0] = 0;
  for (const auto& p : parts) {
    if (p.transposed || p.format != out.format || p.shape.size() != out.shape.size() ||
        !std::equal(p.shape.begin() + 1, p.shape.end(), out.shape.begin() + 1))
      throw std::logic_error("HalfTensor::concat_rows: parts differ in format, layout or trailing sizes");
    bits->insert(bits->end(), p.bits->begin(), p.bits->end());
    out.shape[0] += p.shape[0];
  }
  out.bits = std::move(bits);
  return out;
}

}  // namespace attnlab
