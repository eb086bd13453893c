// NDArray: a dense, contiguous, row-major tensor of one scalar DataType, the value that
// flows into and out of the reference interpreter, compiled kernels and .npy files.
// Storage is 64-byte aligned and shared: copying an NDArray shares the bytes (like a
// numpy view of the whole array); `clone()` deep-copies. Elements can be read and written
// generically as double or int64 at a flat (row-major) index, converting per dtype.
// `fillRandom` is deterministic across machines and compilers (own splitmix64 stream).
#pragma once

#include "core/ir/assert.h"
#include "core/ir/data_type.h"
#include "core/ir/diagnostic.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace loopscape::ir {

/// A stable summary of an array's contents, for the CLI and golden tests.
/// `sum` and `absSum` add getDouble(i) / |getDouble(i)| in flat index order in double
/// precision; `hash` is 64-bit FNV-1a (offset basis 0xcbf29ce484222325, prime
/// 0x100000001b3) over the raw little-endian element bytes in order, so it is
/// order-sensitive and bit-exact (it distinguishes -0.0 from 0.0 and NaN payloads).
struct ArrayChecksum {
  double sum = 0;
  double absSum = 0;
  std::uint64_t hash = 0;
  /// "sum=<%.9g> abs=<%.9g> fnv1a=<16 hex digits>", e.g. "sum=1.5 abs=2.5 fnv1a=00ab...".
  std::string str() const;
  friend bool operator==(const ArrayChecksum&, const ArrayChecksum&) = default;
};

class NDArray {
public:
  /// An undefined array (no storage); defined() is false.
  NDArray() = default;
  /// A zero-filled array of a size the program itself chose (copies of existing arrays,
  /// small fixed sizes). `dtype` must be a scalar type; every extent must be >= 0 and the
  /// byte size must fit in 64 bits and be allocatable (asserted). Sizes that come from
  /// the user (shapes, --shape bindings, files) go through create().
  NDArray(std::vector<std::int64_t> shape, DataType dtype);

  /// A zero-filled array, or a Diagnostic when it cannot be made: "ndarray.negative-extent",
  /// "ndarray.too-large" (the element count or byte size overflows 64 bits, or the bytes
  /// exceed resourceLimits().maxBufferBytes: states the bytes needed and the limit),
  /// "ndarray.out-of-memory" (the allocation failed). `name` (a buffer or parameter
  /// name) is quoted in messages when given: "buffer 'A' float32(...) is too large: ...".
  static Expected<NDArray> create(std::vector<std::int64_t> shape, DataType dtype, std::string_view name = {});
  /// The bytes an array of `shape` and `dtype` takes, checked as create() checks them
  /// (including the limit), without allocating.
  static Expected<std::int64_t> checkedBytes(const std::vector<std::int64_t>& shape, DataType dtype,
                                             std::string_view name = {});

  bool defined() const { return m_storage != nullptr; }
  const std::vector<std::int64_t>& shape() const { return m_shape; }
  DataType dtype() const { return m_dtype; }
  std::size_t ndim() const { return m_shape.size(); }
  /// Product of the extents (1 for a 0-d array).
  std::int64_t numel() const { return m_numel; }
  /// numel() * dtype().bytes().
  std::size_t nbytes() const { return static_cast<std::size_t>(m_numel) * static_cast<std::size_t>(m_dtype.bytes()); }

  std::byte* rawData() { return m_storage.get(); }
  const std::byte* rawData() const { return m_storage.get(); }
  /// Typed access; `sizeof(T)` must equal the element size (bool: std::uint8_t or bool,
  /// float16: std::uint16_t holding the IEEE binary16 bits).
  template <typename T> T* data() {
    LS_ASSERT(sizeof(T) == static_cast<std::size_t>(m_dtype.bytes()), "data<T>() with sizeof {} on {}", sizeof(T),
              m_dtype.str());
    return reinterpret_cast<T*>(m_storage.get());
  }
  template <typename T> const T* data() const { return const_cast<NDArray*>(this)->data<T>(); }

  /// Element `i` (flat row-major index) converted to double (bool: 0/1).
  double getDouble(std::int64_t i) const;
  /// Stores `v` converted to the dtype: floats round to nearest even; integers truncate
  /// toward zero and wrap to the width (NaN becomes 0, values beyond int64 saturate
  /// before wrapping); bool stores v != 0.
  void setDouble(std::int64_t i, double v);
  /// Element `i` as int64 (floats truncate toward zero, NaN gives 0, saturating).
  std::int64_t getInt(std::int64_t i) const;
  /// Stores `v`: integers wrap to the width, bool stores v != 0, floats convert.
  void setInt(std::int64_t i, std::int64_t v);

  /// A deep copy with its own storage.
  NDArray clone() const;
  /// True when both arrays share the same storage.
  bool sameStorage(const NDArray& other) const { return m_storage == other.m_storage; }

  /// Fills with a deterministic pseudo-random stream: element i takes the i-th output of
  /// splitmix64 seeded with `seed`. Floats: uniform in [-1, 1) on a grid exact in the
  /// dtype (2^-23 steps for float32, 2^-10 for float16, 2^-52 for float64); signed ints:
  /// uniform in [-8, 8]; uint8: [0, 16]; bool: 0/1 (top bit).
  void fillRandom(std::uint64_t seed);
  ArrayChecksum checksum() const;

  /// "float32(2, 3)".
  std::string describe() const;

private:
  struct Unchecked {};
  /// An array whose element count `numel` is already checked; allocate() may leave it
  /// undefined (out of memory).
  NDArray(Unchecked, std::vector<std::int64_t> shape, DataType dtype, std::int64_t numel);
  /// Allocates nbytes() zero-filled bytes; leaves the storage null when that fails.
  void allocate();

  std::vector<std::int64_t> m_shape;
  DataType m_dtype = DataType::float32();
  std::int64_t m_numel = 0;
  std::shared_ptr<std::byte> m_storage;
};

/// The first element where `actual` and `expected` differ beyond tolerance.
struct Mismatch {
  std::int64_t index = -1; ///< flat index
  double expected = 0;
  double actual = 0;
};

/// First flat index i where |actual[i] - expected[i]| > atol + rtol * |expected[i]|.
/// Equal values (including equal infinities) and NaN in both never mismatch; NaN in
/// only one always does. The arrays must have the same shape (dtypes may differ; both
/// are compared as double).
std::optional<Mismatch> firstMismatch(const NDArray& actual, const NDArray& expected, double atol, double rtol);
/// max_i |a[i] - b[i]| as double (NaN if any difference is NaN); same shape required.
double maxAbsDiff(const NDArray& a, const NDArray& b);

} // namespace loopscape::ir
