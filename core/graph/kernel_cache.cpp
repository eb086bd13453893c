#include "core/graph/kernel_cache.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace loopscape::graph {

namespace fs = std::filesystem;

namespace {

std::uint64_t fnv1a(std::string_view text, std::uint64_t h) {
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

std::optional<std::string> readText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Writes `text` to `path` through a temporary file and a rename (readers never see a
/// half-written entry). False when it cannot.
bool writeAtomically(const fs::path& path, const std::string& text) {
  const fs::path tmp = path.string() + fmt::format(".{}.tmp", ::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out.flush()) return false;
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) fs::remove(tmp, ec);
  return !ec;
}

} // namespace

KernelCache::KernelCache(std::string dir, bool enabled)
    : m_dir(dir.empty() ? defaultDir() : std::move(dir)), m_enabled(enabled && !m_dir.empty()) {}

std::string KernelCache::defaultDir() {
  if (const char* d = std::getenv("LOOPSCAPE_CACHE_DIR"); d && *d) return (fs::path(d) / "kernels").string();
  if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d) return (fs::path(d) / "loopscape" / "kernels").string();
  if (const char* h = std::getenv("HOME"); h && *h) return (fs::path(h) / ".cache" / "loopscape" / "kernels").string();
  return {};
}

std::string KernelCache::key(std::initializer_list<std::string_view> parts) {
  // Two independent FNV-1a streams (different offsets) make a 128-bit key.
  std::uint64_t a = 0xcbf29ce484222325ULL, b = 0x84222325cbf29ce4ULL;
  for (auto p : parts) {
    const std::string framed = fmt::format("{}:{}|", p.size(), p);
    a = fnv1a(framed, a);
    b = fnv1a(framed, b ^ 0x9e3779b97f4a7c15ULL);
  }
  return fmt::format("{:016x}{:016x}", a, b);
}

std::optional<CachedKernel> KernelCache::findKernel(const std::string& key) const {
  if (!m_enabled) return std::nullopt;
  const fs::path base = fs::path(m_dir) / key;
  auto meta = readText(base.string() + ".json");
  std::error_code ec;
  if (!meta || !fs::exists(base.string() + ".so", ec)) return std::nullopt;
  auto j = nlohmann::json::parse(*meta, nullptr, false);
  if (j.is_discarded() || !j.contains("symbol") || !j["symbol"].is_string()) return std::nullopt;
  return CachedKernel{base.string() + ".so", j["symbol"].get<std::string>()};
}

CachedKernel KernelCache::storeKernel(const std::string& key, const std::string& library,
                                      const std::string& symbol) const {
  CachedKernel given{library, symbol};
  if (!m_enabled) return given;
  std::error_code ec;
  fs::create_directories(m_dir, ec);
  if (ec) return given;
  const fs::path base = fs::path(m_dir) / key;
  const fs::path tmp = base.string() + fmt::format(".{}.so.tmp", ::getpid());
  fs::copy_file(library, tmp, fs::copy_options::overwrite_existing, ec);
  if (ec) return given;
  fs::rename(tmp, base.string() + ".so", ec);
  if (ec) {
    fs::remove(tmp, ec);
    return given;
  }
  if (!writeAtomically(base.string() + ".json", nlohmann::json{{"symbol", symbol}}.dump() + "\n")) return given;
  return CachedKernel{base.string() + ".so", symbol};
}

std::optional<std::string> KernelCache::findTrace(const std::string& key) const {
  if (!m_enabled) return std::nullopt;
  return readText(fs::path(m_dir) / (key + ".trace.json"));
}

void KernelCache::storeTrace(const std::string& key, const std::string& traceJson) const {
  if (!m_enabled) return;
  std::error_code ec;
  fs::create_directories(m_dir, ec);
  if (!ec) (void)writeAtomically(fs::path(m_dir) / (key + ".trace.json"), traceJson);
}

} // namespace loopscape::graph
