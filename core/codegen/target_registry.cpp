#include "core/codegen/target_registry.h"

#include "core/ir/assert.h"

#include <algorithm>
#include <cstdlib>
#include <dlfcn.h>
#include <filesystem>
#include <set>
#include <system_error>

#ifndef LOOPSCAPE_PLUGIN_INSTALL_DIR
#define LOOPSCAPE_PLUGIN_INSTALL_DIR "/usr/local/lib/loopscape/plugins"
#endif

namespace loopscape::codegen {

namespace fs = std::filesystem;

namespace {
constexpr std::string_view kPrefix = "loopscape-target-";
constexpr std::string_view kSuffix = ".so";

std::string nameFromFile(const std::string& path) {
  std::string file = fs::path(path).filename().string();
  if (file.starts_with(kPrefix)) file = file.substr(kPrefix.size());
  if (file.ends_with(kSuffix)) file.resize(file.size() - kSuffix.size());
  return file;
}

Diagnostic refusal(std::string code, std::string message, const std::string& path) {
  auto d = Diagnostic::error(std::move(code), std::move(message));
  d.location.file = path;
  return d;
}
} // namespace

PluginInfo TargetRegistry::load(const std::string& path, std::unique_ptr<Target>& owned) {
  PluginInfo info;
  info.path = path;
  info.name = nameFromFile(path);
  std::string file = fs::path(path).filename().string();
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    info.error = refusal("codegen.plugin-load-failed",
                         "plugin '" + file + "' could not be loaded: " + (why ? why : "unknown error"), path);
    return info;
  }
  auto missing = [&](const char* symbol) {
    info.error = refusal("codegen.plugin-missing-symbol",
                         "plugin '" + file + "' does not export " + std::string(symbol), path);
    return info;
  };
  auto version = reinterpret_cast<LoopscapeTargetAbiVersionFn>(dlsym(handle, "loopscape_target_abi_version"));
  if (!version) return missing("loopscape_target_abi_version");
  int abi = version();
  if (abi != kTargetAbiVersion) {
    info.error = refusal("codegen.plugin-abi-mismatch",
                         "plugin '" + file + "' has ABI version " + std::to_string(abi) + ", but loopscape expects " +
                             std::to_string(kTargetAbiVersion),
                         path);
    return info; // the handle stays open: unloading code that may hold static state is not worth it
  }
  auto create = reinterpret_cast<LoopscapeCreateTargetFn>(dlsym(handle, "loopscape_create_target"));
  if (!create) return missing("loopscape_create_target");
  owned.reset(create());
  if (!owned) {
    info.error = refusal("codegen.plugin-factory-failed", "plugin '" + file + "' returned no target", path);
    return info;
  }
  info.name = owned->name();
  info.target = owned.get();
  info.enabled = true;
  return info;
}

TargetRegistry::TargetRegistry(std::vector<std::string> searchDirs) : m_dirs(std::move(searchDirs)) {
  std::set<std::string> seenFiles;
  for (const auto& dir : m_dirs) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) continue;
    std::vector<std::string> files;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      std::string file = entry.path().filename().string();
      if (file.starts_with(kPrefix) && file.ends_with(kSuffix)) files.push_back(entry.path().string());
    }
    std::sort(files.begin(), files.end());
    for (const auto& path : files) {
      std::string canonical = fs::weakly_canonical(path, ec).string();
      if (!seenFiles.insert(ec ? path : canonical).second) continue;
      std::unique_ptr<Target> owned;
      PluginInfo info = load(path, owned);
      if (info.enabled) {
        auto same = std::find_if(m_plugins.begin(), m_plugins.end(),
                                 [&](const PluginInfo& p) { return p.enabled && p.name == info.name; });
        if (same != m_plugins.end()) {
          info.enabled = false;
          info.target = nullptr;
          info.error = refusal("codegen.plugin-shadowed",
                               "plugin '" + fs::path(path).filename().string() + "' provides target '" + info.name +
                                   "', already provided by " + same->path,
                               path);
          owned.reset();
        }
      }
      if (owned) {
        m_targets.push_back(std::move(owned));
        m_locks.push_back(std::make_unique<std::mutex>());
      }
      m_plugins.push_back(std::move(info));
    }
  }
}

TargetRegistry::~TargetRegistry() = default;

TargetRegistry& TargetRegistry::global() {
  // Never destroyed: plugins' code must stay mapped while static destructors run.
  static auto* registry = new TargetRegistry(defaultSearchDirs());
  return *registry;
}

std::vector<std::string> TargetRegistry::defaultSearchDirs() {
  std::vector<std::string> dirs;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path dir = exe.parent_path();
    dirs.push_back(dir.string());
    dirs.push_back((dir.parent_path() / "plugins").string());
    dirs.push_back((dir.parent_path().parent_path() / "plugins").string());
    dirs.push_back((dir.parent_path() / "lib" / "loopscape" / "plugins").string());
  }
  dirs.push_back(LOOPSCAPE_PLUGIN_INSTALL_DIR);
  if (const char* env = std::getenv("LOOPSCAPE_PLUGIN_PATH")) {
    std::string_view rest = env;
    while (!rest.empty()) {
      auto colon = rest.find(':');
      std::string_view part = rest.substr(0, colon);
      if (!part.empty()) dirs.emplace_back(part);
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
  }
  return dirs;
}

std::mutex& TargetRegistry::targetLock(const Target& target) const {
  for (std::size_t i = 0; i < m_targets.size(); ++i)
    if (m_targets[i].get() == &target) return *m_locks[i];
  LS_UNREACHABLE("targetLock: the target '{}' does not belong to this registry", target.name());
}

Expected<Target*> TargetRegistry::findTarget(std::string_view name) const {
  for (const auto& p : m_plugins)
    if (p.enabled && p.name == name) return p.target;
  for (const auto& p : m_plugins)
    if (!p.enabled && p.name == name) return std::unexpected(p.error);
  std::string available;
  for (const auto& p : m_plugins) {
    if (!p.enabled) continue;
    available += available.empty() ? "" : ", ";
    available += p.name;
  }
  auto d = Diagnostic::error("codegen.unknown-target", "no target plugin named '" + std::string(name) + "'");
  d.notes.push_back(available.empty() ? "no target plugin was found; searched: " + [&] {
    std::string s;
    for (const auto& dir : m_dirs) s += (s.empty() ? "" : ", ") + dir;
    return s;
  }()
                                      : "available targets: " + available);
  return std::unexpected(std::move(d));
}

} // namespace loopscape::codegen
