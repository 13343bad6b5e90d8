// A mask as each query row's visible interval of keys. Every built-in kind is one: padding
// hides the keys from the row's length on, causal the keys after the row, both the union of
// the two. O(B·Tq) numbers instead of the dense mask's O(B·Tq·Tk): at S 16,384 that is 128 KiB
// instead of 1 GiB, which the fast path's tiled attention needs to stay in linear memory.
#pragma once

#include <cstdint>
#include <vector>

#include "tensor/ops.h"
#include "tensor/tensor.h"

namespace attnlab {

struct KeyRanges {
  int64_t batch = 0, queries = 0, keys = 0;
  std::vector<int32_t> lo, hi;  // (B·Tq): row (b, i) may attend keys [lo, hi); lo == hi: none

  int64_t row(int64_t b, int64_t i) const { return b * queries + i; }
  Shape shape() const { return {batch, queries, keys}; }  // the dense mask's
  Tensor dense() const;                                   // (B, Tq, Tk): 1 inside, 0 outside
};

// The ranges of make_mask(kind, k_len, tq, tk), without making it. Throws ShapeError for
// lengths outside [0, tk] or sizes past int32.
KeyRanges key_ranges(MaskKind kind, const std::vector<int>& k_len, int64_t tq, int64_t tk);

// mask (B, Tq, Tk) contiguous → each row's hull: the first visible key and the one after the
// last. *exact (when given) says whether every row shows exactly its hull, i.e. whether the
// ranges alone are the mask.
KeyRanges key_ranges_of(const Tensor& mask, bool* exact = nullptr);

}  // namespace attnlab
