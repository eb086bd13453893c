// MachineModel (tile_model.h): this machine's caches from sysfs and vector registers from
// the CPU's features, or a model written as text.
#include "core/poly/tile_model.h"

#include "core/ir/host_caches.h"

#include <fmt/format.h>

#include <sstream>

namespace loopscape::poly {

MachineModel MachineModel::host() {
  MachineModel m;
  const ir::HostCaches& caches = ir::hostCaches();
  if (caches.l1 > 0) m.l1Bytes = caches.l1;
  if (caches.l2 > 0) m.l2Bytes = caches.l2;
  if (caches.l3 > 0) m.l3Bytes = caches.l3;
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
    const auto value = ir::parseByteSize(item.substr(eq + 1));
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
