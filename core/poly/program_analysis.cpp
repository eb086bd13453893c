#include "core/poly/program_analysis.h"

#include "core/poly/isl_util.h"

#include <algorithm>
#include <vector>

namespace loopscape::poly::detail {

namespace {

Expected<ProgramAnalysis> compute(const ir::PrimFunc& func) {
  auto scop = extractScop(func);
  if (!scop) return Unexpected(scop.error());
  auto deps = computeDependences(*scop);
  if (!deps) return Unexpected(deps.error());
  return ProgramAnalysis{std::move(*scop), std::move(*deps)};
}

/// The calling thread's isl forms, most recently used first.
class ThreadCache {
public:
  struct Entry {
    schedule::StatePtr state; ///< keeps the state (and so its address) alive
    std::shared_ptr<const ProgramAnalysis> full;
    std::shared_ptr<const Scop> structure;
    std::optional<Diagnostic> error; ///< why the full analysis failed
  };

  Entry& get(const schedule::ProgramState& state) {
    auto it = std::find_if(m_entries.begin(), m_entries.end(), [&](const Entry& e) { return e.state.get() == &state; });
    if (it == m_entries.end())
      it = std::find_if(m_entries.begin(), m_entries.end(),
                        [&](const Entry& e) { return sameProgram(e.state->func(), state.func()); });
    if (it != m_entries.end()) {
      std::rotate(m_entries.begin(), it, it + 1);
      return m_entries.front();
    }
    if (m_entries.size() >= kEntries) m_entries.pop_back();
    m_entries.insert(m_entries.begin(), Entry{state.shared_from_this(), nullptr, nullptr, std::nullopt});
    return m_entries.front();
  }

  void clear() { m_entries.clear(); }

private:
  static constexpr std::size_t kEntries = 8;
  std::vector<Entry> m_entries;
};

ThreadCache& cache() {
  // The context first: thread_locals are destroyed in reverse order of construction, so
  // the cached isl objects are freed before the context they live in.
  (void)islContext();
  thread_local ThreadCache c;
  return c;
}

} // namespace

bool sameProgram(const ir::PrimFunc& a, const ir::PrimFunc& b) {
  if (a.name != b.name || !a.body.sameAs(b.body) || a.params.size() != b.params.size() ||
      a.attrs.size() != b.attrs.size())
    return false;
  for (std::size_t i = 0; i < a.params.size(); ++i)
    if (!a.params[i].sameAs(b.params[i])) return false;
  for (auto x = a.attrs.begin(), y = b.attrs.begin(); x != a.attrs.end(); ++x, ++y)
    if (x->first != y->first || !x->second.sameAs(y->second)) return false;
  return true;
}

Expected<std::shared_ptr<const ProgramAnalysis>> analyzeProgram(const schedule::ProgramState& state) {
  ThreadCache::Entry& e = cache().get(state);
  if (e.full) return e.full;
  if (e.error) return Unexpected(*e.error);
  auto a = compute(state.func());
  ThreadCache::Entry& again = cache().get(state);
  if (!a) {
    again.error = a.error();
    return Unexpected(a.error());
  }
  again.full = std::make_shared<const ProgramAnalysis>(std::move(*a));
  return again.full;
}

std::shared_ptr<const ProgramAnalysis> cachedProgramAnalysis(const schedule::ProgramState& state) {
  return cache().get(state).full;
}

Expected<std::shared_ptr<const Scop>> programStructure(const schedule::ProgramState& state) {
  if (auto full = cachedProgramAnalysis(state)) return std::shared_ptr<const Scop>(full, &full->scop);
  ThreadCache::Entry& e = cache().get(state);
  if (e.structure) return e.structure;
  auto scop = extractScop(state.func(), ScopContent::Structure);
  if (!scop) return Unexpected(scop.error());
  e.structure = std::make_shared<const Scop>(std::move(*scop));
  return e.structure;
}

void clearProgramAnalyses() { cache().clear(); }

} // namespace loopscape::poly::detail
