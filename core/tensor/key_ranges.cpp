#include "tensor/key_ranges.h"

#include <algorithm>
#include <limits>

#include "text/errors.h"

namespace attnlab {

namespace {

void check_sizes(int64_t b, int64_t tq, int64_t tk) {
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  if (b < 0 || tq < 0 || tk < 0 || tq > kMax || tk > kMax)
    throw ShapeError("key_ranges: sizes B " + std::to_string(b) + ", Tq " + std::to_string(tq) + ", Tk " +
                     std::to_string(tk) + " out of range");
}

KeyRanges sized(int64_t b, int64_t tq, int64_t tk) {
  check_sizes(b, tq, tk);
  KeyRanges r{b, tq, tk, {}, {}};
  r.lo.assign(static_cast<size_t>(b * tq), 0);
  r.hi.assign(static_cast<size_t>(b * tq), 0);
  return r;
}

}  // namespace

Tensor KeyRanges::dense() const {
  Tensor m({batch, queries, keys}, 0.0f);
  for (int64_t r = 0; r < batch * queries; ++r) {
    float* row = m.data() + r * keys;
    std::fill(row + lo[static_cast<size_t>(r)], row + hi[static_cast<size_t>(r)], 1.0f);
  }
  return m;
}

KeyRanges key_ranges(MaskKind kind, const std::vector<int>& k_len, int64_t tq, int64_t tk) {
  const int64_t b = static_cast<int64_t>(k_len.size());
  KeyRanges r = sized(b, tq, tk);
  const bool pad = kind == MaskKind::Padding || kind == MaskKind::PaddingCausal;
  const bool causal = kind == MaskKind::Causal || kind == MaskKind::PaddingCausal;
  for (int64_t bb = 0; bb < b; ++bb) {
    const int64_t len = k_len[static_cast<size_t>(bb)];
    if (len < 0 || len > tk)
      throw ShapeError("key_ranges: length " + std::to_string(len) + " of row " + std::to_string(bb) +
                       " is outside [0, " + std::to_string(tk) + "]");
    for (int64_t i = 0; i < tq; ++i) {
      int64_t hi = pad ? len : tk;               // padding: keys [len, tk) hidden
      if (causal) hi = std::min(hi, i + 1);      // causal: keys after i hidden
      r.hi[static_cast<size_t>(r.row(bb, i))] = static_cast<int32_t>(hi);
    }
  }
  return r;
}

KeyRanges key_ranges_of(const Tensor& mask, bool* exact) {
  if (mask.dim() != 3 || !mask.is_contiguous())
    throw ShapeError("key_ranges_of: mask " + shape_str(mask.shape()) + " must be (B, Tq, Tk) contiguous");
  const int64_t tk = mask.size(2);
  KeyRanges r = sized(mask.size(0), mask.size(1), tk);
  bool all_exact = true;
  for (int64_t row = 0; row < r.batch * r.queries; ++row) {
    const float* m = mask.data() + row * tk;
    int64_t lo = 0, hi = tk;
    while (lo < tk && m[lo] == 0.0f) ++lo;
    while (hi > lo && m[hi - 1] == 0.0f) --hi;
    if (lo == tk) lo = hi = 0;  // nothing visible
    all_exact = all_exact && std::none_of(m + lo, m + hi, [](float x) { return x == 0.0f; });
    r.lo[static_cast<size_t>(row)] = static_cast<int32_t>(lo);
    r.hi[static_cast<size_t>(row)] = static_cast<int32_t>(hi);
  }
  if (exact) *exact = all_exact;
  return r;
}

}  // namespace attnlab
