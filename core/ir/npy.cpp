#include "core/ir/npy.h"

#include "core/ir/checked_arith.h"
#include "core/ir/file_read.h"
#include "core/ir/resource_limits.h"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <fstream>
#include <limits>
#include <sys/stat.h>
#include <unistd.h>

namespace loopscape::ir {

namespace {
constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicLen = 6;
constexpr std::size_t kAlign = 64;
constexpr std::size_t kGrowthAxisMaxDigits = 21; // numpy.lib.format.GROWTH_AXIS_MAX_DIGITS
/// Headers longer than this are refused before they are read (numpy writes a few hundred
/// bytes; numpy.load itself refuses more than 10000 by default).
constexpr std::size_t kMaxHeaderBytes = std::size_t{1} << 20;
/// numpy 2's NPY_MAXDIMS.
constexpr std::size_t kMaxDims = 64;

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

namespace {
/// What the preamble and header of a .npy file say.
struct NpyHeader {
  DataType dtype;
  std::vector<std::int64_t> shape;
  std::size_t dataOffset = 0; ///< where the data starts
  std::int64_t dataBytes = 0; ///< how many bytes of data the header promises
  std::string described;      ///< "float32(2, 3)"
};

/// Parses the preamble and header from `bytes`, which hold the file's first bytes (at
/// least the whole header when the file has one).
Expected<NpyHeader> parseHeader(std::span<const std::byte> bytes, std::string_view name) {
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
  if (hlen > kMaxHeaderBytes)
    return fail(
        "npy.bad-header", name,
        fmt::format("header of {} bytes is longer than the {} bytes this reader accepts", hlen, kMaxHeaderBytes));
  if (bytes.size() < headerStart + hlen)
    return fail("npy.truncated", name,
                fmt::format("header of {} bytes but only {} bytes follow", hlen, bytes.size() - headerStart));
  std::string_view header(reinterpret_cast<const char*>(bytes.data()) + headerStart, hlen);

  HeaderParser p(header);
  std::optional<std::string> descr;
  std::optional<bool> fortran;
  std::optional<std::vector<std::int64_t>> shape;
  auto badHeader = [&](std::string what) {
    return fail("npy.bad-header", name,
                fmt::format("malformed header ({}): {}", what, quoteForMessage(header.substr(0, header.find('\n')))));
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
      if (shape->size() > kMaxDims)
        return fail("npy.bad-header", name,
                    fmt::format("the shape has {} dimensions, more than the {} supported", shape->size(), kMaxDims));
    } else {
      return badHeader(fmt::format("unknown key '{}'", quoteForMessage(*key, 40)));
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
                fmt::format("unsupported dtype '{}' (supported: <f2 <f4 <f8 <i1 <i2 <i4 <i8 |u1 |b1)",
                            quoteForMessage(*descr, 40)));
  if (*fortran)
    return fail("npy.fortran-order", name, "Fortran-ordered (column-major) arrays are not supported; save with C order");

  NpyHeader h;
  h.dtype = *dtype;
  h.described = dtype->str() + shapeRepr(*shape);
  auto numel = checkedProduct(*shape);
  auto needed = numel ? checkedMul(*numel, dtype->bytes()) : std::nullopt;
  if (!needed)
    return fail(
        "npy.too-large", name,
        fmt::format("the header's shape {} is too large: its size in bytes does not fit in 64 bits", h.described));
  h.shape = std::move(*shape);
  h.dataOffset = headerStart + hlen;
  h.dataBytes = *needed;
  return h;
}

Unexpected truncated(std::string_view name, const NpyHeader& h, std::uint64_t available) {
  return fail(
      "npy.truncated", name,
      fmt::format("data is truncated: expected {} bytes for {}, found {}", h.dataBytes, h.described, available));
}

Unexpected trailing(std::string_view name, const NpyHeader& h, std::string_view extra) {
  return fail("npy.size-mismatch", name,
              fmt::format("the file holds {} after the {} bytes of data its header declares for {}; the header "
                          "does not match the data",
                          extra, h.dataBytes, h.described));
}

Unexpected notCreated(std::string_view name, const Diagnostic& d) {
  Diagnostic out = d;
  out.message = fmt::format("'{}': {}", name, d.message);
  return Unexpected(std::move(out));
}

/// Reads up to `n` bytes into `out`; returns how many were read (fewer only at the end).
Expected<std::size_t> readSome(int fd, std::byte* out, std::size_t n, const std::string& path) {
  std::size_t done = 0;
  while (done < n) {
    const ssize_t r = ::read(fd, out + done, std::min<std::size_t>(n - done, std::size_t{1} << 30));
    if (r == 0) break;
    if (r < 0) {
      if (errno == EINTR) continue;
      return fail("npy.open-failed", path, fmt::format("read error: {}", std::strerror(errno)));
    }
    done += static_cast<std::size_t>(r);
  }
  return done;
}
} // namespace

Expected<NDArray> parseNpy(std::span<const std::byte> bytes, std::string_view name) {
  auto header = parseHeader(bytes, name);
  if (!header) return Unexpected(header.error());
  const std::uint64_t available = bytes.size() - header->dataOffset;
  const auto needed = static_cast<std::uint64_t>(header->dataBytes);
  if (available < needed) return truncated(name, *header, available);
  if (available > needed) return trailing(name, *header, fmt::format("{} more bytes", available - needed));
  auto array = NDArray::create(header->shape, header->dtype);
  if (!array) return notCreated(name, array.error());
  std::memcpy(array->rawData(), bytes.data() + header->dataOffset, array->nbytes());
  return array;
}

Expected<NDArray> loadNpy(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return fail("npy.open-failed", path, fmt::format("cannot open: {}", std::strerror(errno)));
  if (S_ISDIR(st.st_mode)) return fail("npy.open-failed", path, "cannot open: it is a directory");
  if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
    return fail("npy.open-failed", path, "cannot open: it is a device or a socket, not a regular file");
  const std::int64_t limit = resourceLimits().maxNpyFileBytes;
  if (S_ISREG(st.st_mode) && st.st_size > limit)
    return fail("npy.too-large", path,
                fmt::format("the file has {} bytes ({}), more than the limit of {} bytes ({}) for .npy inputs",
                            st.st_size, formatBytes(st.st_size), limit, formatBytes(limit)));
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail("npy.open-failed", path, fmt::format("cannot open: {}", std::strerror(errno)));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};

  // The preamble, then the header it announces (bounded by kMaxHeaderBytes).
  std::vector<std::byte> head(kMagicLen + 2 + 4);
  auto got = readSome(fd, head.data(), head.size(), path);
  if (!got) return Unexpected(got.error());
  head.resize(*got);
  if (head.size() >= kMagicLen + 2 + 4 && std::memcmp(head.data(), kMagic, kMagicLen) == 0) {
    const std::size_t lenBytes = static_cast<unsigned char>(head[6]) == 1 ? 2 : 4;
    std::size_t hlen = 0;
    for (std::size_t i = 0; i < lenBytes; ++i)
      hlen |= static_cast<std::size_t>(static_cast<unsigned char>(head[8 + i])) << (8 * i);
    const std::size_t total = kMagicLen + 2 + lenBytes + std::min(hlen, kMaxHeaderBytes + 1);
    const std::size_t have = head.size();
    if (total > have) {
      head.resize(total);
      auto more = readSome(fd, head.data() + have, total - have, path);
      if (!more) return Unexpected(more.error());
      head.resize(have + *more);
    }
  }
  auto header = parseHeader(head, path);
  if (!header) return Unexpected(header.error());
  // Bytes of data read along with the header (a version 1.0 preamble is 2 bytes shorter).
  const std::size_t early = head.size() - header->dataOffset;
  if (S_ISREG(st.st_mode)) {
    const auto available = static_cast<std::uint64_t>(st.st_size) - header->dataOffset;
    const auto needed = static_cast<std::uint64_t>(header->dataBytes);
    if (available < needed) return truncated(path, *header, available);
    if (available > needed) return trailing(path, *header, fmt::format("{} more bytes", available - needed));
  }
  auto array = NDArray::create(header->shape, header->dtype);
  if (!array) return notCreated(path, array.error());
  const std::size_t nbytes = array->nbytes();
  const std::size_t fromHead = std::min(early, nbytes);
  std::memcpy(array->rawData(), head.data() + header->dataOffset, fromHead);
  auto rest = readSome(fd, array->rawData() + fromHead, nbytes - fromHead, path);
  if (!rest) return Unexpected(rest.error());
  if (fromHead + *rest < nbytes) return truncated(path, *header, fromHead + *rest);
  std::byte extra{};
  auto after = readSome(fd, &extra, 1, path);
  if (!after) return Unexpected(after.error());
  if (early > nbytes || *after > 0) return trailing(path, *header, "more bytes");
  return array;
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
