#include "core/poly/report.h"

#include "core/poly/dependences.h"
#include "core/poly/isl_util.h"
#include "core/poly/program_analysis.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace loopscape::poly {

using namespace detail;

namespace {

Expected<DependenceReport> computeReport(const schedule::ProgramState& state) {
  auto analysis = analyzeProgram(state);
  if (!analysis) return Unexpected(analysis.error());
  const Scop* scop = &(*analysis)->scop;
  const Dependences* deps = &(*analysis)->deps;
  auto loops = loopDependences(*scop, *deps);
  if (!loops) return Unexpected(loops.error());
  try {
    DependenceReport r;
    for (const auto& d : deps->list) {
      DependenceView v;
      v.kind = dependenceKindName(d.kind);
      v.source = d.source;
      v.sink = d.sink;
      v.buffer = d.buffer;
      for (int l : d.commonLoops) v.commonLoops.push_back(scop->loops[l].name);
      v.distance = d.distance;
      v.distances = d.distances;
      v.relation = str(d.relation);
      r.dependences.push_back(std::move(v));
    }
    for (const auto& ld : *loops) {
      const auto& loop = scop->loops[ld.loop];
      r.loops.push_back({loop.name, loop.depth, ld.parallel, ld.carried});
    }
    r.raw = str(deps->raw);
    r.war = str(deps->war);
    r.waw = str(deps->waw);
    for (const auto& a : scop->approximations)
      r.approximations.push_back(fmt::format("{}: {} (`{}`)", a.statement, a.what, a.expression));
    return r;
  } catch (const isl::exception& e) {
    return Unexpected(Diagnostic::error("poly.isl", std::string("isl failed: ") + e.what()));
  }
}

} // namespace

Expected<std::shared_ptr<const DependenceReport>> analyzeDependences(const schedule::ProgramState& state) {
  return state.analysis<DependenceReport>([&] { return computeReport(state); });
}

Expected<DependenceReport> analyzeDependences(const ir::PrimFunc& func) {
  return computeReport(*schedule::ProgramState::make(func));
}

std::string renderDependenceReport(const DependenceReport& r) {
  std::string out = "dependences:\n";
  if (r.dependences.empty()) out += "  (none)\n";
  for (const auto& d : r.dependences) {
    std::string dist = d.distance ? fmt::format("distance ({})", fmt::join(*d.distance, ", "))
                                  : fmt::format("distances {}", d.distances);
    if (d.commonLoops.empty())
      out += fmt::format("  {} {} -> {} on {}: no common loop\n", d.kind, d.source, d.sink, d.buffer);
    else
      out += fmt::format("  {} {} -> {} on {}: {} over ({})\n", d.kind, d.source, d.sink, d.buffer, dist,
                         fmt::join(d.commonLoops, ", "));
  }
  out += "loops:\n";
  for (const auto& l : r.loops) {
    std::string pad(std::size_t(l.depth) * 2, ' ');
    if (l.parallel) {
      out += fmt::format("  {}{}: parallel\n", pad, l.name);
      continue;
    }
    std::vector<std::string> carried;
    for (int i : l.carried) {
      const auto& d = r.dependences[i];
      carried.push_back(fmt::format("{} {} -> {} on {}", d.kind, d.source, d.sink, d.buffer));
    }
    out += fmt::format("  {}{}: carries {}\n", pad, l.name, fmt::join(carried, ", "));
  }
  if (!r.approximations.empty()) {
    out += "approximations:\n";
    for (const auto& a : r.approximations) out += "  " + a + "\n";
  }
  out += fmt::format("RAW: {}\nWAR: {}\nWAW: {}\n", r.raw, r.war, r.waw);
  return out;
}

} // namespace loopscape::poly
