#include "core/ir/host_caches.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>

namespace loopscape::ir {

namespace {

std::string firstLine(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

} // namespace

std::optional<std::int64_t> parseByteSize(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.pop_back();
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

const HostCaches& hostCaches() {
  static const HostCaches caches = [] {
    HostCaches c;
    namespace fs = std::filesystem;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator("/sys/devices/system/cpu/cpu0/cache", ec)) {
      if (!entry.path().filename().string().starts_with("index")) continue;
      const std::string type = firstLine(entry.path() / "type");
      if (type != "Data" && type != "Unified") continue;
      const auto size = parseByteSize(firstLine(entry.path() / "size"));
      if (!size) continue;
      const std::string level = firstLine(entry.path() / "level");
      if (level == "1") c.l1 = *size;
      if (level == "2") c.l2 = *size;
      if (level == "3") c.l3 = *size;
    }
    return c;
  }();
  return caches;
}

} // namespace loopscape::ir
