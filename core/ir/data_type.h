// DataType: the scalar (or vector, for lowering) element type of an expression or buffer.
// Spelled as in TVM: "bool", "int8".."int64", "uint8", "float16", "float32", "float64";
// vector types print with a lane suffix, "float32x8".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace loopscape::ir {

class DataType {
public:
  enum class Code : std::uint8_t { Bool, Int, UInt, Float };

  constexpr DataType() = default;
  constexpr DataType(Code code, int bits, int lanes = 1)
      : m_code(code), m_bits(static_cast<std::uint8_t>(bits)), m_lanes(static_cast<std::uint16_t>(lanes)) {}

  static constexpr DataType boolean(int lanes = 1) { return {Code::Bool, 1, lanes}; }
  static constexpr DataType int8() { return {Code::Int, 8}; }
  static constexpr DataType int16() { return {Code::Int, 16}; }
  static constexpr DataType int32() { return {Code::Int, 32}; }
  static constexpr DataType int64() { return {Code::Int, 64}; }
  static constexpr DataType uint8() { return {Code::UInt, 8}; }
  static constexpr DataType float16() { return {Code::Float, 16}; }
  static constexpr DataType float32() { return {Code::Float, 32}; }
  static constexpr DataType float64() { return {Code::Float, 64}; }

  constexpr Code code() const { return m_code; }
  constexpr int bits() const { return m_bits; }
  constexpr int lanes() const { return m_lanes; }
  constexpr bool isBool() const { return m_code == Code::Bool; }
  constexpr bool isInt() const { return m_code == Code::Int; }
  constexpr bool isUInt() const { return m_code == Code::UInt; }
  /// Int or UInt (not Bool).
  constexpr bool isInteger() const { return m_code == Code::Int || m_code == Code::UInt; }
  constexpr bool isFloat() const { return m_code == Code::Float; }
  constexpr bool isScalar() const { return m_lanes == 1; }
  /// Bytes of one element of one lane (bool takes one byte in memory).
  constexpr int bytes() const { return m_code == Code::Bool ? 1 : (m_bits + 7) / 8; }

  constexpr DataType withLanes(int lanes) const { return {m_code, m_bits, lanes}; }
  constexpr DataType element() const { return withLanes(1); }

  /// "float32", "int64", "bool", "float32x4".
  std::string str() const;
  /// Parses the spellings str() produces; nullopt for anything else.
  static std::optional<DataType> parse(std::string_view text);

  friend constexpr bool operator==(const DataType&, const DataType&) = default;

private:
  Code m_code = Code::Int;
  std::uint8_t m_bits = 32;
  std::uint16_t m_lanes = 1;
};

/// `v` wrapped to the width of integer type `t` (two's complement; bool: 0 or 1).
std::int64_t wrapInt(DataType t, std::int64_t v);
/// `v` rounded to float type `t` (float16 and float32 round to nearest even).
double roundToFloatType(DataType t, double v);
/// IEEE binary16 bit pattern of `value` (round to nearest even), and back.
std::uint16_t float16Bits(float value);
float float16Value(std::uint16_t bits);

} // namespace loopscape::ir
