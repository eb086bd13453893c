// This machine's data caches, read from Linux's sysfs
// (/sys/devices/system/cpu/cpu0/cache/index*/{level,type,size}), and the byte sizes they
// are written in ("48K", "1024K", "32M"), which users also write (poly's --machine).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace loopscape::ir {

/// "4096", "48K", "1M", "2G" (K, M and G binary, either case; trailing white space
/// ignored): the bytes, or nullopt when the text is not a positive size of at most 1 TiB.
std::optional<std::int64_t> parseByteSize(std::string text);

/// cpu0's data (or unified) caches by level; 0 where sysfs does not say.
struct HostCaches {
  std::int64_t l1 = 0;
  std::int64_t l2 = 0;
  std::int64_t l3 = 0;
};

/// Read once per process.
const HostCaches& hostCaches();

} // namespace loopscape::ir
