// The isl-free view of a program's dependences, for the CLI and the views: the readable
// list (kind, source and sink statements, buffer, distance) with each relation as isl
// text, and for every loop whether it is parallel and which dependences it carries.
#pragma once

#include "core/ir/diagnostic.h"
#include "core/ir/prim_func.h"
#include "core/schedule/program_state.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace loopscape::poly {

struct DependenceView {
  std::string kind;     ///< "RAW", "WAR", "WAW"
  std::string source;   ///< statement (block name, or `<block>_init`)
  std::string sink;
  std::string buffer;
  std::vector<std::string> commonLoops; ///< loops enclosing both statements, outermost first
  std::optional<std::vector<std::int64_t>> distance; ///< uniform distance over commonLoops
  std::string distances; ///< the set of distances (isl text)
  std::string relation;  ///< the dependence relation (isl text)
};

struct LoopView {
  std::string name;
  int depth = 0;
  bool parallel = true;
  std::vector<int> carried; ///< indices into DependenceReport::dependences
};

struct DependenceReport {
  std::vector<DependenceView> dependences;
  std::vector<LoopView> loops; ///< every loop in program order
  std::string raw, war, waw;   ///< the unions as isl text
  std::vector<std::string> approximations; ///< "statement: what (`expr`)"
};

/// Errors: those of extractScop / computeDependences. The report is an analysis of the
/// state: computed once, shared by every thread.
Expected<std::shared_ptr<const DependenceReport>> analyzeDependences(const schedule::ProgramState& state);
/// The report of a fresh state of `func`.
Expected<DependenceReport> analyzeDependences(const ir::PrimFunc& func);

/// The readable list (`RAW C -> C on C: distance (0, 0, 1) over (i, j, k)`), the loops
/// (`loop k: carries RAW C -> C, WAW C -> C`), then the isl maps.
std::string renderDependenceReport(const DependenceReport& report);

} // namespace loopscape::poly
