#include "core/frontend/relay/relay_metadata.h"

#include "core/ir/checked_arith.h"
#include "core/ir/resource_limits.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstring>
#include <variant>

namespace loopscape::frontend::relay {

namespace {

constexpr std::uint64_t kMagic = 0xDD5E40F096B4A13FULL;
constexpr char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::optional<std::vector<std::uint8_t>> base64Decode(std::string_view s) {
  std::vector<std::uint8_t> out;
  std::uint32_t acc = 0;
  int bits = 0;
  for (char c : s) {
    if (c == '=') break;
    const char* p = std::strchr(kB64, c);
    if (c == '\0' || !p) return std::nullopt;
    acc = (acc << 6) | static_cast<std::uint32_t>(p - kB64);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<std::uint8_t>((acc >> bits) & 0xFF));
    }
  }
  return out;
}

std::string base64Encode(const std::vector<std::uint8_t>& bytes) {
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    std::uint32_t v = static_cast<std::uint32_t>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) v |= static_cast<std::uint32_t>(bytes[i + 1]) << 8;
    if (i + 2 < bytes.size()) v |= bytes[i + 2];
    out += kB64[(v >> 18) & 63];
    out += kB64[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? kB64[(v >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kB64[v & 63] : '=';
  }
  return out;
}

template <typename T> bool readLE(const std::vector<std::uint8_t>& b, std::size_t& pos, T& out) {
  if (pos + sizeof(T) > b.size()) return false;
  std::memcpy(&out, b.data() + pos, sizeof(T));
  pos += sizeof(T);
  return true;
}

template <typename T> void writeLE(std::vector<std::uint8_t>& b, T v) {
  std::uint8_t buf[sizeof(T)];
  std::memcpy(buf, &v, sizeof(T));
  b.insert(b.end(), buf, buf + sizeof(T));
}

std::optional<ir::DataType> fromDL(std::uint8_t code, std::uint8_t bits, std::uint16_t lanes) {
  if (lanes != 1) return std::nullopt;
  if (code == 1 && bits == 1) return ir::DataType::boolean();
  if (code == 0 && (bits == 8 || bits == 16 || bits == 32 || bits == 64))
    return ir::DataType(ir::DataType::Code::Int, bits);
  if (code == 1 && bits == 8) return ir::DataType::uint8();
  if (code == 2 && (bits == 16 || bits == 32 || bits == 64)) return ir::DataType(ir::DataType::Code::Float, bits);
  return std::nullopt;
}

/// One b64ndarrays entry; an error message on failure.
std::variant<ir::NDArray, std::string> decodeArray(std::string_view b64) {
  auto bytes = base64Decode(b64);
  if (!bytes) return std::string("it is not valid base64");
  std::size_t pos = 0;
  std::uint64_t magic = 0, reserved = 0;
  std::int32_t devType = 0, devId = 0, ndim = 0;
  std::uint8_t code = 0, bits = 0;
  std::uint16_t lanes = 0;
  if (!readLE(*bytes, pos, magic) || magic != kMagic) return std::string("it does not start with TVM's NDArray magic");
  if (!readLE(*bytes, pos, reserved) || !readLE(*bytes, pos, devType) || !readLE(*bytes, pos, devId) ||
      !readLE(*bytes, pos, ndim) || !readLE(*bytes, pos, code) || !readLE(*bytes, pos, bits) ||
      !readLE(*bytes, pos, lanes))
    return std::string("its header is truncated");
  if (ndim < 0 || ndim > 32) return fmt::format("it has {} dimensions", ndim);
  auto dtype = fromDL(code, bits, lanes);
  if (!dtype) return fmt::format("its dtype (code {}, bits {}, lanes {}) is not supported", code, bits, lanes);
  std::vector<std::int64_t> shape(static_cast<std::size_t>(ndim));
  for (auto& d : shape)
    if (!readLE(*bytes, pos, d) || d < 0) return std::string("its shape is truncated or negative");
  std::int64_t byteCount = 0;
  if (!readLE(*bytes, pos, byteCount)) return std::string("its byte count is missing");
  auto numel = ir::checkedProduct(shape);
  auto need = numel ? ir::checkedMul(*numel, dtype->bytes()) : std::nullopt;
  if (!need || *need != byteCount || *need > ir::resourceLimits().maxBufferBytes ||
      static_cast<std::uint64_t>(byteCount) > bytes->size() - pos)
    return fmt::format("its data has the wrong size for shape {} of {}", shape.size(), dtype->str());
  ir::NDArray array(shape, *dtype);
  std::memcpy(array.rawData(), bytes->data() + pos, static_cast<std::size_t>(byteCount));
  return array;
}

/// Depth of the deepest bracket nesting in a JSON text (strings skipped).
int jsonDepth(std::string_view text) {
  int depth = 0, maxDepth = 0;
  bool inString = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"')
      inString = true;
    else if (c == '[' || c == '{')
      maxDepth = std::max(maxDepth, ++depth);
    else if (c == ']' || c == '}')
      --depth;
  }
  return maxDepth;
}

} // namespace

Expected<std::vector<ir::NDArray>> decodeMetadata(std::string_view text, const SourceLocation& where) {
  auto fail = [&](std::string message) {
    return Unexpected(Diagnostic::error("relay.metadata", "bad #[metadata] section: " + message, where));
  };
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) return std::vector<ir::NDArray>{};
  if (jsonDepth(text) > ir::resourceLimits().maxNestingDepth)
    return fail(fmt::format("JSON nested deeper than {} levels", ir::resourceLimits().maxNestingDepth));
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return fail("it is not a JSON object (TVM's tvm.ir.save_json form)");
  if (!j.contains("nodes") || !j["nodes"].is_array()) return fail("it has no \"nodes\" array");
  const auto& nodes = j["nodes"];
  std::vector<std::string> b64;
  if (j.contains("b64ndarrays") && j["b64ndarrays"].is_array())
    for (const auto& s : j["b64ndarrays"])
      if (s.is_string()) b64.push_back(s.get<std::string>());
  auto nodeAt = [&](const nlohmann::json& ref) -> const nlohmann::json* {
    std::size_t k = 0;
    if (ref.is_number_unsigned())
      k = ref.get<std::size_t>();
    else if (ref.is_string())
      k = static_cast<std::size_t>(std::strtoull(ref.get<std::string>().c_str(), nullptr, 10));
    else
      return nullptr;
    return k < nodes.size() && nodes[k].is_object() ? &nodes[k] : nullptr;
  };
  std::vector<ir::NDArray> constants;
  for (const auto& node : nodes) {
    if (!node.is_object() || node.value("type_key", "") != "Map" || !node.contains("keys") || !node.contains("data"))
      continue;
    const auto& keys = node["keys"];
    const auto& data = node["data"];
    if (!keys.is_array() || !data.is_array()) continue;
    for (std::size_t k = 0; k < keys.size() && k < data.size(); ++k) {
      if (!keys[k].is_string() || keys[k].get<std::string>() != "relay.Constant") continue;
      const auto* array = nodeAt(data[k]);
      if (!array || !array->contains("data") || !(*array)["data"].is_array())
        return fail("relay.Constant is not an Array");
      for (const auto& ref : (*array)["data"]) {
        const auto* c = nodeAt(ref);
        if (!c || !c->contains("attrs") || !(*c)["attrs"].is_object() || !(*c)["attrs"].contains("data"))
          return fail(fmt::format("constant {} is not a relay.Constant node", constants.size()));
        const auto& d = (*c)["attrs"]["data"];
        std::size_t idx = d.is_string()
                              ? static_cast<std::size_t>(std::strtoull(d.get<std::string>().c_str(), nullptr, 10))
                          : d.is_number_unsigned() ? d.get<std::size_t>()
                                                   : b64.size();
        if (idx >= b64.size()) return fail(fmt::format("constant {} names no b64ndarrays entry", constants.size()));
        auto decoded = decodeArray(b64[idx]);
        if (auto* msg = std::get_if<std::string>(&decoded))
          return fail(fmt::format("constant {}: {}", constants.size(), *msg));
        constants.push_back(std::get<ir::NDArray>(std::move(decoded)));
      }
    }
  }
  return constants;
}

std::string encodeB64NDArray(const ir::NDArray& array) {
  std::vector<std::uint8_t> b;
  writeLE(b, kMagic);
  writeLE(b, std::uint64_t{0});
  writeLE(b, std::int32_t{1}); // kDLCPU
  writeLE(b, std::int32_t{0});
  writeLE(b, static_cast<std::int32_t>(array.ndim()));
  ir::DataType t = array.dtype();
  std::uint8_t code = t.isBool() || t.isUInt() ? 1 : t.isInt() ? 0 : 2;
  writeLE(b, code);
  writeLE(b, static_cast<std::uint8_t>(t.isBool() ? 1 : t.bits()));
  writeLE(b, std::uint16_t{1});
  for (auto d : array.shape())
    writeLE(b, d);
  writeLE(b, static_cast<std::int64_t>(array.nbytes()));
  const auto* p = reinterpret_cast<const std::uint8_t*>(array.rawData());
  b.insert(b.end(), p, p + array.nbytes());
  return base64Encode(b);
}

} // namespace loopscape::frontend::relay
