#include "core/ir/npy.h"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <iterator>
#include <limits>

namespace loopscape::ir {

namespace {
constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicLen = 6;
constexpr std::size_t kAlign = 64;
constexpr std::size_t kGrowthAxisMaxDigits = 21; // numpy.lib.format.GROWTH_AXIS_MAX_DIGITS

Unexpected fail(std::string code, std::string_view name, std::string what) {
  return Unexpected(Diagnostic::error(std::move(code), fmt::format("'{}': {}", name, what)));
}

std::optional<DataType> dtypeFromDescr(std::string_view d) {
  if (d == "<f2") return DataType::float16();
  if (d == "<f4") return DataType::float32();
  if (d == "<f8") return DataType::float64();
  if (d == "<i1" || d == "|i1") return DataType::int8();
  if (d == "<i2") return DataType::int16();
  if (d == "<i4") return DataType::int32();
  if (d == "<i8") return DataType::int64();
  if (d == "|u1" || d == "<u1") return DataType::uint8();
  if (d == "|b1") return DataType::boolean();
  return std::nullopt;
}

/// A tiny reader for the Python dict literal of the header.
class HeaderParser {
public:
  explicit HeaderParser(std::string_view text) : m_text(text) {}

  void skipSpace() {
    while (m_pos < m_text.size() && (m_text[m_pos] == ' ' || m_text[m_pos] == '\t' || m_text[m_pos] == '\n'))
      ++m_pos;
  }
  bool eat(char c) {
    skipSpace();
    if (m_pos < m_text.size() && m_text[m_pos] == c) {
      ++m_pos;
      return true;
    }
    return false;
  }
  std::optional<std::string> string() {
    skipSpace();
    if (m_pos >= m_text.size() || (m_text[m_pos] != '\'' && m_text[m_pos] != '"')) return std::nullopt;
    char q = m_text[m_pos++];
    auto end = m_text.find(q, m_pos);
    if (end == std::string_view::npos) return std::nullopt;
    std::string s(m_text.substr(m_pos, end - m_pos));
    m_pos = end + 1;
    return s;
  }
  std::optional<std::string_view> word() {
    skipSpace();
    std::size_t start = m_pos;
    while (m_pos < m_text.size() && std::isalnum(static_cast<unsigned char>(m_text[m_pos]))) ++m_pos;
    if (start == m_pos) return std::nullopt;
    return m_text.substr(start, m_pos - start);
  }
  std::optional<std::vector<std::int64_t>> tuple() {
    if (!eat('(')) return std::nullopt;
    std::vector<std::int64_t> dims;
    while (!eat(')')) {
      auto w = word();
      if (!w) return std::nullopt;
      std::int64_t v = 0;
      for (char c : *w) {
        if (c == 'L') continue; // Python 2 long suffix
        if (c < '0' || c > '9' || v > (std::int64_t{1} << 50)) return std::nullopt;
        v = v * 10 + (c - '0');
      }
      dims.push_back(v);
      if (!eat(',')) {
        if (!eat(')')) return std::nullopt;
        break;
      }
    }
    return dims;
  }

private:
  std::string_view m_text;
  std::size_t m_pos = 0;
};

std::string shapeRepr(const std::vector<std::int64_t>& shape) {
  if (shape.size() == 1) return fmt::format("({},)", shape[0]);
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + ")";
}
} // namespace

std::string npyDescr(DataType dtype) {
  switch (dtype.code()) {
  case DataType::Code::Bool: return "|b1";
  case DataType::Code::UInt: return "|u1";
  case DataType::Code::Int: return fmt::format("<i{}", dtype.bytes());
  case DataType::Code::Float: return fmt::format("<f{}", dtype.bytes());
  }
  LS_UNREACHABLE("bad dtype");
}

std::vector<std::byte> encodeNpy(const NDArray& array) {
  LS_ASSERT(array.defined(), "encodeNpy of an undefined array");
  std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}",
                                   npyDescr(array.dtype()), shapeRepr(array.shape()));
  if (!array.shape().empty())
    header += std::string(kGrowthAxisMaxDigits - std::to_string(array.shape()[0]).size(), ' ');
  int version = 1;
  std::size_t lenBytes = 2;
  std::size_t hlen = header.size() + 1;
  std::size_t padlen = kAlign - (kMagicLen + 2 + lenBytes + hlen) % kAlign;
  if (hlen + padlen > 65535) {
    version = 2;
    lenBytes = 4;
    padlen = kAlign - (kMagicLen + 2 + lenBytes + hlen) % kAlign;
  }
  header += std::string(padlen, ' ') + '\n';
  std::vector<std::byte> out;
  out.reserve(kMagicLen + 2 + lenBytes + header.size() + array.nbytes());
  for (std::size_t i = 0; i < kMagicLen; ++i) out.push_back(static_cast<std::byte>(kMagic[i]));
  out.push_back(static_cast<std::byte>(version));
  out.push_back(std::byte{0});
  std::uint64_t len = header.size();
  for (std::size_t i = 0; i < lenBytes; ++i) out.push_back(static_cast<std::byte>((len >> (8 * i)) & 0xff));
  for (char c : header) out.push_back(static_cast<std::byte>(c));
  const std::byte* data = array.rawData();
  out.insert(out.end(), data, data + array.nbytes());
  return out;
}

Expected<NDArray> parseNpy(std::span<const std::byte> bytes, std::string_view name) {
  auto byteAt = [&](std::size_t i) { return static_cast<unsigned char>(bytes[i]); };
  if (bytes.size() < kMagicLen + 2 || std::memcmp(bytes.data(), kMagic, kMagicLen) != 0)
    return fail("npy.bad-magic", name, "not a .npy file (missing \\x93NUMPY magic)");
  int major = byteAt(6), minor = byteAt(7);
  if ((major != 1 && major != 2 && major != 3) || minor != 0)
    return fail("npy.bad-version", name, fmt::format("unsupported .npy format version {}.{}", major, minor));
  std::size_t lenBytes = major == 1 ? 2 : 4;
  std::size_t headerStart = kMagicLen + 2 + lenBytes;
  if (bytes.size() < headerStart)
    return fail("npy.truncated", name, "file ends inside the header length");
  std::size_t hlen = 0;
  for (std::size_t i = 0; i < lenBytes; ++i) hlen |= static_cast<std::size_t>(byteAt(8 + i)) << (8 * i);
  if (bytes.size() < headerStart + hlen)
    return fail("npy.truncated", name,
                fmt::format("header of {} bytes but only {} bytes follow", hlen, bytes.size() - headerStart));
  std::string_view header(reinterpret_cast<const char*>(bytes.data()) + headerStart, hlen);

  HeaderParser p(header);
  std::optional<std::string> descr;
  std::optional<bool> fortran;
  std::optional<std::vector<std::int64_t>> shape;
  auto badHeader = [&](std::string what) {
    return fail("npy.bad-header", name, fmt::format("malformed header ({}): {}", what, header.substr(0, header.find('\n'))));
  };
  if (!p.eat('{')) return badHeader("expected '{'");
  while (!p.eat('}')) {
    auto key = p.string();
    if (!key || !p.eat(':')) return badHeader("expected a quoted key and ':'");
    if (*key == "descr") {
      descr = p.string();
      if (!descr) return badHeader("'descr' is not a string (structured dtypes are not supported)");
    } else if (*key == "fortran_order") {
      auto w = p.word();
      if (!w || (*w != "True" && *w != "False")) return badHeader("'fortran_order' is not True or False");
      fortran = *w == "True";
    } else if (*key == "shape") {
      shape = p.tuple();
      if (!shape) return badHeader("'shape' is not a tuple of integers");
    } else {
      return badHeader(fmt::format("unknown key '{}'", *key));
    }
    if (!p.eat(',')) {
      if (!p.eat('}')) return badHeader("expected ',' or '}'");
      break;
    }
  }
  if (!descr || !fortran || !shape) return badHeader("missing 'descr', 'fortran_order' or 'shape'");
  auto dtype = dtypeFromDescr(*descr);
  if (!dtype)
    return fail("npy.unsupported-dtype", name,
                fmt::format("unsupported dtype '{}' (supported: <f2 <f4 <f8 <i1 <i2 <i4 <i8 |u1 |b1)", *descr));
  if (*fortran)
    return fail("npy.fortran-order", name, "Fortran-ordered (column-major) arrays are not supported; save with C order");

  std::uint64_t needed = static_cast<std::uint64_t>(dtype->bytes());
  std::string described = dtype->str() + shapeRepr(*shape);
  for (auto e : *shape) {
    if (e != 0 && needed > std::numeric_limits<std::uint64_t>::max() / static_cast<std::uint64_t>(e))
      return badHeader("shape is too large");
    needed *= static_cast<std::uint64_t>(e);
  }
  std::size_t available = bytes.size() - headerStart - hlen;
  if (available < needed)
    return fail("npy.truncated", name,
                fmt::format("data is truncated: expected {} bytes for {}, found {}", needed, described, available));
  NDArray array(*shape, *dtype);
  std::memcpy(array.rawData(), bytes.data() + headerStart + hlen, array.nbytes());
  return array;
}

Expected<NDArray> loadNpy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail("npy.open-failed", path, fmt::format("cannot open: {}", std::strerror(errno)));
  std::vector<char> raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return fail("npy.open-failed", path, "read error");
  return parseNpy(std::as_bytes(std::span<const char>(raw)), path);
}

Expected<void> saveNpy(const std::string& path, const NDArray& array) {
  auto bytes = encodeNpy(array);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return fail("npy.write-failed", path, fmt::format("cannot open for writing: {}", std::strerror(errno)));
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) return fail("npy.write-failed", path, "write error");
  return {};
}

} // namespace loopscape::ir
