#include "core/poly/program_analysis.h"

#include "core/poly/isl_util.h"

#include <algorithm>
#include <vector>

namespace loopscape::poly::detail {

namespace {

class AnalysisCache {
public:
  std::shared_ptr<const ProgramAnalysis> find(const ir::PrimFunc& func) {
    auto it = std::find_if(m_entries.begin(), m_entries.end(),
                           [&](const Entry& e) { return sameProgram(e.func, func); });
    if (it == m_entries.end()) return nullptr;
    std::rotate(m_entries.begin(), it, it + 1);
    return m_entries.front().analysis;
  }

  Expected<std::shared_ptr<const ProgramAnalysis>> get(const ir::PrimFunc& func) {
    if (auto found = find(func)) return found;
    auto scop = extractScop(func);
    if (!scop) return Unexpected(scop.error());
    auto deps = computeDependences(*scop);
    if (!deps) return Unexpected(deps.error());
    auto analysis = std::make_shared<const ProgramAnalysis>(ProgramAnalysis{std::move(*scop), std::move(*deps)});
    if (m_entries.size() >= kEntries) m_entries.pop_back();
    m_entries.insert(m_entries.begin(), Entry{func, analysis});
    return analysis;
  }

  void clear() { m_entries.clear(); }

private:
  struct Entry {
    ir::PrimFunc func; ///< keeps the nodes the key compares alive
    std::shared_ptr<const ProgramAnalysis> analysis;
  };
  static constexpr std::size_t kEntries = 6;
  std::vector<Entry> m_entries; ///< most recently used first
};

AnalysisCache& cache() {
  // The context first: thread_locals are destroyed in reverse order of construction, so
  // the cached isl objects are freed before the context they live in.
  (void)islContext();
  thread_local AnalysisCache c;
  return c;
}

} // namespace

bool sameProgram(const ir::PrimFunc& a, const ir::PrimFunc& b) {
  if (a.name != b.name || !a.body.sameAs(b.body) || a.params.size() != b.params.size()) return false;
  for (std::size_t i = 0; i < a.params.size(); ++i)
    if (!a.params[i].sameAs(b.params[i])) return false;
  return true;
}

Expected<std::shared_ptr<const ProgramAnalysis>> analyzeProgram(const ir::PrimFunc& func) { return cache().get(func); }

std::shared_ptr<const ProgramAnalysis> cachedProgramAnalysis(const ir::PrimFunc& func) { return cache().find(func); }

void clearProgramAnalyses() { cache().clear(); }

} // namespace loopscape::poly::detail
