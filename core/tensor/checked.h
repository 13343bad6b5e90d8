// Size arithmetic that cannot wrap: a count of elements or bytes that saturates at INT64_MAX
// ("more than any budget") instead of overflowing, for estimates computed from what a user typed.
#pragma once

#include <cstdint>
#include <limits>

namespace attnlab {

class Count {
 public:
  static constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr Count(int64_t v = 0) : v_(v < 0 ? 0 : v) {}  // NOLINT: implicit, so that sizes mix freely
  constexpr int64_t value() const { return v_; }
  constexpr bool saturated() const { return v_ == kMax; }

  friend constexpr Count operator+(Count a, Count b) {
    int64_t r = 0;
    return __builtin_add_overflow(a.v_, b.v_, &r) ? Count(kMax) : Count(r);
  }
  friend constexpr Count operator*(Count a, Count b) {
    int64_t r = 0;
    return __builtin_mul_overflow(a.v_, b.v_, &r) ? Count(kMax) : Count(r);
  }
  Count& operator+=(Count b) { return *this = *this + b; }
  friend constexpr bool operator<(Count a, Count b) { return a.v_ < b.v_; }
  friend constexpr bool operator==(Count a, Count b) = default;

 private:
  int64_t v_;
};

constexpr Count max(Count a, Count b) { return a < b ? b : a; }

}  // namespace attnlab
