// Checked 64-bit integer arithmetic for sizes, extents, factors and byte counts. Every
// product or sum that comes from user input (shapes, --shape bindings, split factors,
// skew factors, tile sizes) goes through these: an overflow is a value the caller turns
// into a "too large" Diagnostic, never a wrapped number.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>

namespace loopscape::ir {

/// a * b, or nullopt when it does not fit in int64.
[[nodiscard]] inline std::optional<std::int64_t> checkedMul(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

/// a + b, or nullopt when it does not fit in int64.
[[nodiscard]] inline std::optional<std::int64_t> checkedAdd(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

/// a - b, or nullopt when it does not fit in int64.
[[nodiscard]] inline std::optional<std::int64_t> checkedSub(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
  return r;
}

/// The product of `values` (1 for none), or nullopt on overflow.
[[nodiscard]] inline std::optional<std::int64_t> checkedProduct(std::span<const std::int64_t> values) {
  std::int64_t r = 1;
  for (std::int64_t v : values) {
    auto next = checkedMul(r, v);
    if (!next) return std::nullopt;
    r = *next;
  }
  return r;
}

/// Whether `v` is representable in a signed integer of `bits` bits (8, 16, 32, 64).
[[nodiscard]] inline bool fitsSignedBits(std::int64_t v, int bits) {
  if (bits >= 64) return true;
  const std::int64_t hi = (std::int64_t{1} << (bits - 1)) - 1;
  return v >= -hi - 1 && v <= hi;
}

} // namespace loopscape::ir
