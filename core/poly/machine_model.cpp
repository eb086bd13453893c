// MachineModel (tile_model.h): this machine's caches from sysfs and vector registers from
// the CPU's features, or a model written as text.
#include "core/poly/tile_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace loopscape::poly {

namespace {

std::optional<std::int64_t> parseBytes(std::string text) {
  if (text.empty()) return std::nullopt;
  std::int64_t scale = 1;
  const char last = static_cast<char>(std::toupper(static_cast<unsigned char>(text.back())));
  if (last == 'K' || last == 'M' || last == 'G') {
    scale = last == 'K' ? 1024 : last == 'M' ? (1 << 20) : (std::int64_t{1} << 30);
    text.pop_back();
  }
  if (text.empty() || text.size() > 12 || !std::all_of(text.begin(), text.end(), ::isdigit)) return std::nullopt;
  const std::int64_t n = std::stoll(text);
  if (n < 1 || n > (std::int64_t{1} << 40) / scale) return std::nullopt; // at most 1 TiB: no overflow
  return n * scale;
}

std::string readLine(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::string line;
  std::getline(in, line);
  return line;
}

} // namespace

MachineModel MachineModel::host() {
  MachineModel m;
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path dir = "/sys/devices/system/cpu/cpu0/cache";
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().filename().string().rfind("index", 0) != 0) continue;
    const std::string type = readLine(entry.path() / "type");
    const std::string level = readLine(entry.path() / "level");
    const auto size = parseBytes(readLine(entry.path() / "size"));
    if (!size || type == "Instruction") continue;
    if (level == "1") m.l1Bytes = *size;
    if (level == "2") m.l2Bytes = *size;
    if (level == "3") m.l3Bytes = *size;
  }
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) {
    m.vectorBytes = 64;
    m.vectorRegisters = 32;
  } else if (__builtin_cpu_supports("avx2")) {
    m.vectorBytes = 32;
    m.vectorRegisters = 16;
  } else {
    m.vectorBytes = 16;
    m.vectorRegisters = 16;
  }
#endif
  return m;
}

std::optional<MachineModel> MachineModel::parse(const std::string& text, std::string* error) {
  MachineModel m;
  std::stringstream ss(text);
  std::string item;
  auto fail = [&](std::string message) -> std::optional<MachineModel> {
    if (error) *error = std::move(message);
    return std::nullopt;
  };
  while (std::getline(ss, item, ',')) {
    const auto eq = item.find('=');
    if (eq == std::string::npos) return fail(fmt::format("'{}' is not KEY=VALUE", item));
    const std::string key = item.substr(0, eq);
    const auto value = parseBytes(item.substr(eq + 1));
    if (!value) return fail(fmt::format("'{}' is not a positive size (K, M or G suffix allowed)", item.substr(eq + 1)));
    if (key == "l1")
      m.l1Bytes = *value;
    else if (key == "l2")
      m.l2Bytes = *value;
    else if (key == "l3")
      m.l3Bytes = *value;
    else if (key == "vector" && *value <= 256)
      m.vectorBytes = static_cast<int>(*value);
    else if (key == "registers" && *value <= 256)
      m.vectorRegisters = static_cast<int>(*value);
    else
      return fail(fmt::format("unknown or out-of-range key '{}' (l1, l2, l3, vector, registers)", key));
  }
  return m;
}

std::string MachineModel::str() const {
  auto size = [](std::int64_t b) {
    if (b % (1 << 20) == 0) return fmt::format("{}M", b >> 20);
    if (b % 1024 == 0) return fmt::format("{}K", b / 1024);
    return fmt::format("{}", b);
  };
  return fmt::format("l1={},l2={},l3={},vector={},registers={}", size(l1Bytes), size(l2Bytes), size(l3Bytes),
                     vectorBytes, vectorRegisters);
}

} // namespace loopscape::poly
