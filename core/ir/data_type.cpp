#include "core/ir/data_type.h"

#include <charconv>
#include <cstring>

namespace loopscape::ir {

std::string DataType::str() const {
  std::string base;
  switch (m_code) {
  case Code::Bool: base = "bool"; break;
  case Code::Int: base = "int" + std::to_string(m_bits); break;
  case Code::UInt: base = "uint" + std::to_string(m_bits); break;
  case Code::Float: base = "float" + std::to_string(m_bits); break;
  }
  if (m_lanes != 1) base += "x" + std::to_string(m_lanes);
  return base;
}

std::optional<DataType> DataType::parse(std::string_view text) {
  int lanes = 1;
  if (auto x = text.rfind('x'); x != std::string_view::npos && x + 1 < text.size()) {
    auto digits = text.substr(x + 1);
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), lanes);
    if (ec != std::errc() || ptr != digits.data() + digits.size() || lanes < 1) return std::nullopt;
    text = text.substr(0, x);
  }
  static constexpr struct { std::string_view name; DataType type; } kScalars[] = {
      {"bool", DataType::boolean()},   {"int8", DataType::int8()},       {"int16", DataType::int16()},
      {"int32", DataType::int32()},    {"int64", DataType::int64()},     {"uint8", DataType::uint8()},
      {"float16", DataType::float16()}, {"float32", DataType::float32()}, {"float64", DataType::float64()},
  };
  for (const auto& s : kScalars)
    if (s.name == text) return s.type.withLanes(lanes);
  return std::nullopt;
}

namespace {
std::int64_t wrapToType(DataType t, std::int64_t v) {
  if (t.isBool()) return v != 0;
  if (t.bits() >= 64) return v;
  auto u = static_cast<std::uint64_t>(v) & ((std::uint64_t{1} << t.bits()) - 1);
  if (t.isUInt()) return static_cast<std::int64_t>(u);
  auto sign = std::uint64_t{1} << (t.bits() - 1);
  return static_cast<std::int64_t>((u ^ sign) - sign);
}

float halfToFloat(std::uint16_t h) {
  std::uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  std::uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else { // subnormal
      exp = 127 - 15 + 1;
      while ((mant & 0x400) == 0) {
        mant <<= 1;
        --exp;
      }
      mant &= 0x3ff;
      bits = sign | (exp << 23) | (mant << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

std::uint16_t floatToHalf(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, 4);
  std::uint32_t sign = (x >> 16) & 0x8000u;
  std::int32_t exp = static_cast<std::int32_t>((x >> 23) & 0xff);
  std::uint32_t mant = x & 0x7fffffu;
  if (exp == 255) return static_cast<std::uint16_t>(sign | 0x7c00u | (mant ? 0x200u : 0u));
  exp = exp - 127 + 15;
  if (exp >= 31) return static_cast<std::uint16_t>(sign | 0x7c00u);
  if (exp <= 0) {
    if (exp < -10) return static_cast<std::uint16_t>(sign);
    mant |= 0x800000u;
    std::uint32_t shift = static_cast<std::uint32_t>(14 - exp);
    std::uint32_t half = mant >> shift;
    std::uint32_t rem = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1))) ++half;
    return static_cast<std::uint16_t>(sign | half);
  }
  std::uint32_t half = (static_cast<std::uint32_t>(exp) << 10) | (mant >> 13);
  std::uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1))) ++half; // may carry into exponent: correct
  return static_cast<std::uint16_t>(sign | half);
}
} // namespace

std::int64_t wrapInt(DataType t, std::int64_t v) { return wrapToType(t, v); }

double roundToFloatType(DataType t, double v) {
  if (t.bits() == 64) return v;
  if (t.bits() == 32) return static_cast<double>(static_cast<float>(v));
  return static_cast<double>(halfToFloat(floatToHalf(static_cast<float>(v))));
}

std::uint16_t float16Bits(float value) { return floatToHalf(value); }
float float16Value(std::uint16_t bits) { return halfToFloat(bits); }

} // namespace loopscape::ir
