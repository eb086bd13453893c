#include "core/poly/program_analysis.h"

#include "core/poly/isl_util.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace loopscape::poly::detail {

namespace {

/// The isl-free members of `from` into `to`, a new analysis, in place: isl's C++ objects
/// cannot be copied or moved while null (their copy constructor throws), so a
/// ProgramAnalysis whose isl members are unset is never copied or moved either.
void copyIslFree(const ProgramAnalysis& from, ProgramAnalysis& to) {
  const Scop& a = from.scop;
  Scop& b = to.scop;
  b.funcName = a.funcName;
  b.params = a.params;
  b.loops = a.loops;
  b.buffers = a.buffers;
  b.approximations = a.approximations;
  b.statements.resize(a.statements.size());
  for (std::size_t i = 0; i < a.statements.size(); ++i) {
    const ScopStatement& s = a.statements[i];
    ScopStatement& t = b.statements[i];
    t.name = s.name;
    t.blockName = s.blockName;
    t.isInit = s.isInit;
    t.block = s.block;
    t.realize = s.realize;
    t.loops = s.loops;
    t.iterators = s.iterators;
    t.exact = s.exact;
  }
  to.deps.list.resize(from.deps.list.size());
  for (std::size_t i = 0; i < from.deps.list.size(); ++i) {
    const Dependence& d = from.deps.list[i];
    Dependence& t = to.deps.list[i];
    t.kind = d.kind;
    t.buffer = d.buffer;
    t.source = d.source;
    t.sink = d.sink;
    t.commonLoops = d.commonLoops;
    t.distance = d.distance;
    t.distances = d.distances;
  }
}

/// Calls `f` on every isl member of `a`, in a fixed order (statements and dependences must
/// already have their final count).
template <class Analysis, class F> void forEachIsl(Analysis& a, F&& f) {
  f(a.scop.context);
  f(a.scop.domain);
  f(a.scop.reads);
  f(a.scop.mustWrites);
  f(a.scop.mayWrites);
  f(a.scop.instances);
  f(a.scop.schedule);
  for (auto& s : a.scop.statements) {
    f(s.domain);
    f(s.iterValues);
    f(s.reads);
    f(s.mustWrites);
    f(s.mayWrites);
  }
  for (auto& d : a.deps.list)
    f(d.relation);
  f(a.deps.raw);
  f(a.deps.war);
  f(a.deps.waw);
}

/// A ProgramAnalysis in a form any thread may read: the isl-free members (`skeleton`, its
/// isl members unset) and every isl member as isl text, in the order forEachIsl visits
/// them. The thread that computed the analysis only prints it (it keeps its own objects);
/// a thread that re-reads it checks that each object reads back consistently (reading the
/// printed re-read object gives the same object) and computes the analysis itself when one
/// does not or cannot be read (a name isl prints but cannot parse, such as `i.0`).
struct SharedAnalysis {
  std::shared_ptr<const ProgramAnalysis> skeleton;
  std::vector<std::string> text;
};

/// The shared form of `a` (run on the thread that owns `a`'s isl objects).
SharedAnalysis share(const ProgramAnalysis& a) {
  auto skeleton = std::make_shared<ProgramAnalysis>();
  copyIslFree(a, *skeleton);
  SharedAnalysis s{skeleton, {}};
  forEachIsl(a, [&](const auto& obj) { s.text.push_back(obj.is_null() ? std::string() : str(obj)); });
  return s;
}

/// Whether a re-read object is the object that was printed (the same set, relation or
/// tree: isl may print a re-read object with other dimension names or union order).
bool same(const isl::set& a, const isl::set& b) { return isl_set_is_equal(a.get(), b.get()) == isl_bool_true; }
bool same(const isl::union_set& a, const isl::union_set& b) {
  return isl_union_set_is_equal(a.get(), b.get()) == isl_bool_true;
}
bool same(const isl::map& a, const isl::map& b) { return isl_map_is_equal(a.get(), b.get()) == isl_bool_true; }
bool same(const isl::union_map& a, const isl::union_map& b) {
  return isl_union_map_is_equal(a.get(), b.get()) == isl_bool_true;
}
bool same(const isl::multi_pw_aff& a, const isl::multi_pw_aff& b) {
  return isl_multi_pw_aff_is_equal(a.get(), b.get()) == isl_bool_true;
}
bool same(const isl::schedule& a, const isl::schedule& b) {
  return isl_schedule_plain_is_equal(a.get(), b.get()) == isl_bool_true;
}

/// The calling thread's isl form of a shared analysis; null when some text does not read
/// back to the object it was printed from (read twice: the second reading of the printed
/// form must equal the first). Throws isl exceptions.
std::shared_ptr<const ProgramAnalysis> unshare(const SharedAnalysis& s) {
  auto a = std::make_shared<ProgramAnalysis>();
  copyIslFree(*s.skeleton, *a);
  std::size_t i = 0;
  bool exact = true;
  forEachIsl(*a, [&](auto& obj) {
    const std::string& text = s.text[i++];
    if (text.empty() || !exact) return;
    using T = std::decay_t<decltype(obj)>;
    obj = T(islContext(), text);
    if (!same(obj, T(islContext(), str(obj)))) exact = false;
  });
  return exact ? a : nullptr;
}

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
  };

  Entry& get(const schedule::ProgramState& state) {
    auto it = std::find_if(m_entries.begin(), m_entries.end(), [&](const Entry& e) { return e.state.get() == &state; });
    if (it != m_entries.end()) {
      std::rotate(m_entries.begin(), it, it + 1);
      return m_entries.front();
    }
    if (m_entries.size() >= kEntries) m_entries.pop_back();
    m_entries.insert(m_entries.begin(), Entry{state.shared_from_this(), nullptr, nullptr});
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

Expected<std::shared_ptr<const ProgramAnalysis>> fromShared(const SharedAnalysis& s, const ir::PrimFunc& func) {
  try {
    if (auto a = unshare(s)) return a;
  } catch (const isl::exception&) {
  } catch (const IslError&) {
  }
  auto own = compute(func);
  if (!own) return Unexpected(own.error());
  return std::make_shared<const ProgramAnalysis>(std::move(*own));
}

} // namespace

Expected<std::shared_ptr<const ProgramAnalysis>> analyzeProgram(const schedule::ProgramState& state) {
  ThreadCache::Entry& e = cache().get(state);
  if (e.full) return e.full;
  std::shared_ptr<const ProgramAnalysis> computedHere;
  auto shared = state.analysis<SharedAnalysis>([&]() -> Expected<SharedAnalysis> {
    auto a = compute(state.func());
    if (!a) return Unexpected(a.error());
    computedHere = std::make_shared<const ProgramAnalysis>(std::move(*a));
    try {
      return share(*computedHere);
    } catch (const isl::exception& ex) {
      return Unexpected(Diagnostic::error("poly.isl", fmt::format("isl failed sharing the analysis: {}", ex.what())));
    }
  });
  if (!shared) return Unexpected(shared.error());
  ThreadCache::Entry& again = cache().get(state); // the computation may have used the cache
  if (computedHere) {
    again.full = std::move(computedHere);
    return again.full;
  }
  auto a = fromShared(**shared, state.func());
  if (!a) return Unexpected(a.error());
  again.full = *a;
  return again.full;
}

std::shared_ptr<const ProgramAnalysis> cachedProgramAnalysis(const schedule::ProgramState& state) {
  ThreadCache::Entry& e = cache().get(state);
  if (e.full) return e.full;
  auto shared = state.cachedAnalysis<SharedAnalysis>();
  if (!shared) return nullptr;
  auto a = fromShared(*shared, state.func());
  if (!a) return nullptr;
  e.full = *a;
  return e.full;
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

bool sharedAnalysisRereads(const schedule::ProgramState& state) {
  auto shared = state.cachedAnalysis<SharedAnalysis>();
  if (!shared) return false;
  try {
    return unshare(*shared) != nullptr;
  } catch (const isl::exception&) {
    return false;
  } catch (const IslError&) {
    return false;
  }
}

void clearProgramAnalyses() { cache().clear(); }

} // namespace loopscape::poly::detail
