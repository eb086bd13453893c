#include "core/ir/ndarray.h"

#include "core/ir/checked_arith.h"
#include "core/ir/file_read.h"
#include "core/ir/resource_limits.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <limits>

namespace loopscape::ir {

namespace {
std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

std::int64_t doubleToInt64(double v) {
  if (std::isnan(v)) return 0;
  if (v >= 9223372036854775807.0) return std::numeric_limits<std::int64_t>::max();
  if (v <= -9223372036854775808.0) return std::numeric_limits<std::int64_t>::min();
  return static_cast<std::int64_t>(v);
}

template <typename T> T load(const std::byte* p, std::int64_t i) {
  T v;
  std::memcpy(&v, p + i * static_cast<std::int64_t>(sizeof(T)), sizeof(T));
  return v;
}
template <typename T> void store(std::byte* p, std::int64_t i, T v) {
  std::memcpy(p + i * static_cast<std::int64_t>(sizeof(T)), &v, sizeof(T));
}
} // namespace

std::string ArrayChecksum::str() const { return fmt::format("sum={:.9g} abs={:.9g} fnv1a={:016x}", sum, absSum, hash); }

namespace {
/// The product of the extents, or nullopt when it overflows; an array with an extent 0 is
/// empty whatever its other extents are.
std::optional<std::int64_t> elementCount(const std::vector<std::int64_t>& shape) {
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return 0;
  return checkedProduct(shape);
}

std::string subject(const std::vector<std::int64_t>& shape, DataType dtype, std::string_view name) {
  const std::string described = fmt::format("{}({})", dtype.str(), fmt::join(shape, ", "));
  if (name.empty()) return "array " + described;
  return fmt::format("buffer '{}' {}", quoteForMessage(name), described);
}
} // namespace

Expected<std::int64_t> NDArray::checkedBytes(const std::vector<std::int64_t>& shape, DataType dtype,
                                             std::string_view name) {
  LS_ASSERT(dtype.isScalar(), "NDArray of vector type {}", dtype.str());
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (shape[d] < 0)
      return Unexpected(
          Diagnostic::error("ndarray.negative-extent", fmt::format("{} has negative extent {} in dimension {}",
                                                                   subject(shape, dtype, name), shape[d], d)));
  auto numel = elementCount(shape);
  auto bytes = numel ? checkedMul(*numel, dtype.bytes()) : std::nullopt;
  if (!bytes)
    return Unexpected(
        Diagnostic::error("ndarray.too-large",
                          fmt::format("{} is too large: its size in bytes does not fit in 64 bits; use smaller sizes",
                                      subject(shape, dtype, name))));
  const std::int64_t limit = resourceLimits().maxBufferBytes;
  if (*bytes > limit)
    return Unexpected(Diagnostic::error(
        "ndarray.too-large",
        fmt::format("{} is too large: it needs {} bytes ({}), more than the memory limit of {} bytes ({}); use "
                    "smaller sizes or raise the limit (--max-memory)",
                    subject(shape, dtype, name), *bytes, formatBytes(*bytes), limit, formatBytes(limit))));
  return *bytes;
}

Expected<NDArray> NDArray::create(std::vector<std::int64_t> shape, DataType dtype, std::string_view name) {
  auto bytes = checkedBytes(shape, dtype, name);
  if (!bytes) return Unexpected(bytes.error());
  const std::int64_t numel = *bytes / dtype.bytes();
  NDArray array(Unchecked{}, std::move(shape), dtype, numel);
  if (!array.defined())
    return Unexpected(Diagnostic::error(
        "ndarray.out-of-memory",
        fmt::format("cannot allocate {} bytes ({}) for {}: out of memory; use smaller sizes or lower the memory "
                    "limit (--max-memory)",
                    *bytes, formatBytes(*bytes), subject(array.shape(), dtype, name))));
  return array;
}

NDArray::NDArray(std::vector<std::int64_t> shape, DataType dtype) : m_shape(std::move(shape)), m_dtype(dtype) {
  LS_ASSERT(dtype.isScalar(), "NDArray of vector type {}", dtype.str());
  for (auto e : m_shape)
    LS_ASSERT(e >= 0, "NDArray with negative extent {}", e);
  auto numel = elementCount(m_shape);
  LS_ASSERT(numel && checkedMul(*numel, dtype.bytes()), "NDArray {} overflows 64 bits", describe());
  m_numel = *numel;
  allocate();
  LS_ASSERT(defined(), "out of memory allocating {}", describe());
}

NDArray::NDArray(Unchecked, std::vector<std::int64_t> shape, DataType dtype, std::int64_t numel)
    : m_shape(std::move(shape)), m_dtype(dtype), m_numel(numel) {
  allocate();
}

void NDArray::allocate() {
  const std::size_t bytes = nbytes();
  if (bytes > std::numeric_limits<std::size_t>::max() - 63) return;
  std::size_t rounded = (bytes + 63) / 64 * 64;
  if (rounded == 0) rounded = 64;
  void* p = std::aligned_alloc(64, rounded);
  if (!p) return;
  std::memset(p, 0, rounded);
  m_storage = std::shared_ptr<std::byte>(static_cast<std::byte*>(p), [](std::byte* q) { std::free(q); });
}

double NDArray::getDouble(std::int64_t i) const {
  LS_ASSERT(i >= 0 && i < m_numel, "index {} out of range for {}", i, describe());
  const std::byte* p = m_storage.get();
  switch (m_dtype.code()) {
  case DataType::Code::Bool: return load<std::uint8_t>(p, i) != 0 ? 1.0 : 0.0;
  case DataType::Code::UInt: return static_cast<double>(load<std::uint8_t>(p, i));
  case DataType::Code::Int:
    switch (m_dtype.bits()) {
    case 8: return load<std::int8_t>(p, i);
    case 16: return load<std::int16_t>(p, i);
    case 32: return load<std::int32_t>(p, i);
    default: return static_cast<double>(load<std::int64_t>(p, i));
    }
  case DataType::Code::Float:
    switch (m_dtype.bits()) {
    case 16: return float16Value(load<std::uint16_t>(p, i));
    case 32: return load<float>(p, i);
    default: return load<double>(p, i);
    }
  }
  LS_UNREACHABLE("bad dtype");
}

void NDArray::setDouble(std::int64_t i, double v) {
  LS_ASSERT(i >= 0 && i < m_numel, "index {} out of range for {}", i, describe());
  if (!m_dtype.isFloat()) return setInt(i, m_dtype.isBool() ? (v != 0) : doubleToInt64(v));
  std::byte* p = m_storage.get();
  switch (m_dtype.bits()) {
  case 16: store<std::uint16_t>(p, i, float16Bits(static_cast<float>(v))); break;
  case 32: store<float>(p, i, static_cast<float>(v)); break;
  default: store<double>(p, i, v); break;
  }
}

std::int64_t NDArray::getInt(std::int64_t i) const {
  if (m_dtype.isFloat()) return doubleToInt64(getDouble(i));
  if (m_dtype.isInt() && m_dtype.bits() == 64) {
    LS_ASSERT(i >= 0 && i < m_numel, "index {} out of range for {}", i, describe());
    return load<std::int64_t>(m_storage.get(), i);
  }
  return static_cast<std::int64_t>(getDouble(i));
}

void NDArray::setInt(std::int64_t i, std::int64_t v) {
  LS_ASSERT(i >= 0 && i < m_numel, "index {} out of range for {}", i, describe());
  if (m_dtype.isFloat()) return setDouble(i, static_cast<double>(v));
  std::byte* p = m_storage.get();
  v = wrapInt(m_dtype, v);
  switch (m_dtype.bytes()) {
  case 1: store<std::uint8_t>(p, i, static_cast<std::uint8_t>(v)); break;
  case 2: store<std::int16_t>(p, i, static_cast<std::int16_t>(v)); break;
  case 4: store<std::int32_t>(p, i, static_cast<std::int32_t>(v)); break;
  default: store<std::int64_t>(p, i, v); break;
  }
}

NDArray NDArray::clone() const {
  if (!defined()) return {};
  NDArray copy(m_shape, m_dtype);
  std::memcpy(copy.rawData(), rawData(), nbytes());
  return copy;
}

void NDArray::fillRandom(std::uint64_t seed) {
  std::uint64_t state = seed;
  for (std::int64_t i = 0; i < m_numel; ++i) {
    std::uint64_t x = splitmix64(state);
    switch (m_dtype.code()) {
    case DataType::Code::Bool: setInt(i, static_cast<std::int64_t>(x >> 63)); break;
    case DataType::Code::UInt: setInt(i, static_cast<std::int64_t>(x % 17)); break;
    case DataType::Code::Int: setInt(i, static_cast<std::int64_t>(x % 17) - 8); break;
    case DataType::Code::Float: {
      int bits = m_dtype.bits() == 16 ? 11 : m_dtype.bits() == 32 ? 24 : 53;
      double u = std::ldexp(static_cast<double>(x >> (64 - bits)), -bits); // [0, 1)
      setDouble(i, 2.0 * u - 1.0);                                            // exact in dtype
      break;
    }
    }
  }
}

ArrayChecksum NDArray::checksum() const {
  ArrayChecksum c;
  c.hash = 0xcbf29ce484222325ull;
  const auto* bytes = reinterpret_cast<const unsigned char*>(rawData());
  for (std::size_t b = 0, n = nbytes(); b < n; ++b) {
    c.hash ^= bytes[b];
    c.hash *= 0x100000001b3ull;
  }
  for (std::int64_t i = 0; i < m_numel; ++i) {
    double v = getDouble(i);
    c.sum += v;
    c.absSum += std::fabs(v);
  }
  return c;
}

std::string NDArray::describe() const {
  std::string s = m_dtype.str() + "(";
  for (std::size_t d = 0; d < m_shape.size(); ++d) s += (d ? ", " : "") + std::to_string(m_shape[d]);
  return s + ")";
}

std::optional<Mismatch> firstMismatch(const NDArray& actual, const NDArray& expected, double atol, double rtol) {
  LS_ASSERT(actual.shape() == expected.shape(), "comparing {} with {}", actual.describe(), expected.describe());
  for (std::int64_t i = 0; i < actual.numel(); ++i) {
    double a = actual.getDouble(i), e = expected.getDouble(i);
    if (a == e || (std::isnan(a) && std::isnan(e))) continue;
    if (!(std::fabs(a - e) <= atol + rtol * std::fabs(e))) return Mismatch{i, e, a};
  }
  return std::nullopt;
}

double maxAbsDiff(const NDArray& a, const NDArray& b) {
  LS_ASSERT(a.shape() == b.shape(), "comparing {} with {}", a.describe(), b.describe());
  double m = 0;
  for (std::int64_t i = 0; i < a.numel(); ++i) {
    double x = a.getDouble(i), y = b.getDouble(i);
    if (x == y) continue;
    double d = std::fabs(x - y);
    if (std::isnan(d)) return d;
    m = std::max(m, d);
  }
  return m;
}

} // namespace loopscape::ir
