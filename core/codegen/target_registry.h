// The target plugin registry: finds plugin files `loopscape-target-*.so`, checks their
// ABI version before calling anything else in them, and hands out their Target objects.
//
// Search order (the first plugin with a given target name wins; later ones are listed
// as disabled, shadowed): the executable's directory, its ../plugins and ../../plugins
// (the build tree: build/tests and build/app/cli -> build/plugins) and
// ../lib/loopscape/plugins (an install: bin -> lib/loopscape/plugins), the install's plugin directory (compile
// definition LOOPSCAPE_PLUGIN_INSTALL_DIR), then each directory of LOOPSCAPE_PLUGIN_PATH (colon-separated). A file
// found twice (by its canonical path) is loaded once.
//
// A plugin is loaded with dlopen(RTLD_NOW | RTLD_LOCAL). It is refused, listed as
// disabled with the reason as a Diagnostic and never called, when:
//   * dlopen fails ("codegen.plugin-load-failed", with dlerror());
//   * a symbol is missing ("codegen.plugin-missing-symbol": "plugin '<file>' does not
//     export loopscape_create_target");
//   * its ABI version differs ("codegen.plugin-abi-mismatch": "plugin '<file>' has ABI
//     version N, but loopscape expects M"), checked before the factory is called;
//   * the factory returns null ("codegen.plugin-factory-failed").
// Plugins stay loaded for the registry's lifetime (never dlclose'd while Targets live).
//
// One registry per process: TargetRegistry::global(), which every front end (CLI, GUI,
// benchmark) reaches through codegen::Pipeline (pipeline.h). Separate registries are for
// tests of the scan itself (other search directories, deliberately broken plugins).
// The registry also keeps one lock per enabled target, the lock of target.h's policy.
#pragma once

#include "core/codegen/target.h"

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace loopscape::codegen {

struct PluginInfo {
  std::string path;        ///< the plugin file as found
  std::string name;        ///< the target's name; for a disabled plugin, from the file name
  bool enabled = false;
  Diagnostic error;        ///< why it is disabled (only when !enabled)
  Target* target = nullptr; ///< owned by the registry; null when disabled
};

class TargetRegistry {
public:
  /// Scans `searchDirs` in order (missing directories are skipped).
  explicit TargetRegistry(std::vector<std::string> searchDirs);
  ~TargetRegistry();
  TargetRegistry(const TargetRegistry&) = delete;
  TargetRegistry& operator=(const TargetRegistry&) = delete;

  /// The process-wide registry over defaultSearchDirs(), scanned on first use.
  static TargetRegistry& global();
  /// The directories of the search order above, for this executable and environment.
  static std::vector<std::string> defaultSearchDirs();

  const std::vector<std::string>& searchDirs() const { return m_dirs; }
  /// Every plugin file found, usable or not, in search order.
  const std::vector<PluginInfo>& plugins() const { return m_plugins; }
  /// The enabled target called `name`. Errors: "codegen.unknown-target" (listing the
  /// available targets), or the refusal of a disabled plugin of that name.
  Expected<Target*> findTarget(std::string_view name) const;

  /// The lock that serialises source() and build() of `target` (target.h); `target` must
  /// be one of this registry's. Taken by codegen::Pipeline only.
  std::mutex& targetLock(const Target& target) const;

  /// Loads one plugin file (what the scan does for each file); exposed for tests.
  static PluginInfo load(const std::string& path, std::unique_ptr<Target>& owned);

private:
  std::vector<std::string> m_dirs;
  std::vector<PluginInfo> m_plugins;
  std::vector<std::unique_ptr<Target>> m_targets;
  std::vector<std::unique_ptr<std::mutex>> m_locks; ///< one per m_targets entry
};

} // namespace loopscape::codegen
