// Compiled groups kept on disk per user, so that reopening a model does not recompile:
// $LOOPSCAPE_CACHE_DIR, else $XDG_CACHE_HOME/loopscape, else ~/.cache/loopscape, under
// kernels/. An entry is keyed by (the group's workload hash, the trace, the target, the
// build options, the Loopscape version): <key>.so (the kernel's shared library, copied in
// atomically) and <key>.json (its symbol and the trace). A second key, from the group's
// schedule choice (and a trace file's or tuning log's contents), remembers which trace the
// choice gave, so poly_optimize and the default rules need not run again either.
#pragma once

#include "core/ir/diagnostic.h"

#include <optional>
#include <string>

namespace loopscape::graph {

struct CachedKernel {
  std::string library; ///< path of the cached shared library
  std::string symbol;
};

class KernelCache {
public:
  /// Over `dir` (created on first store); empty: defaultDir(). Disabled: lookups miss and
  /// stores do nothing.
  explicit KernelCache(std::string dir = {}, bool enabled = true);
  static std::string defaultDir();
  const std::string& dir() const { return m_dir; }
  bool enabled() const { return m_enabled; }

  /// A stable hex key of `parts`.
  static std::string key(std::initializer_list<std::string_view> parts);

  std::optional<CachedKernel> findKernel(const std::string& key) const;
  /// Copies `library` into the cache; returns the cached entry (or the given one when the
  /// cache is disabled or cannot be written: caching is never an error).
  CachedKernel storeKernel(const std::string& key, const std::string& library, const std::string& symbol) const;

  std::optional<std::string> findTrace(const std::string& key) const;
  void storeTrace(const std::string& key, const std::string& traceJson) const;

private:
  std::string m_dir;
  bool m_enabled = true;
};

} // namespace loopscape::graph
