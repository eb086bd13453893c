// `equal A B [--trace-a T] [--trace-b T] [--map-free-vars]`: structural equality of two
// programs (each a .te or TVMScript file, optionally scheduled by a trace), as TVM's
// assert_structural_equal decides it, names of variables and buffers aside. Prints
// "equal" (exit 0), or the first difference (exit 1): its path in both programs, the two
// differing parts, and the line of the loop or block around it in each program,
// underlined.
#include "cli_support.h"
#include "commands.h"

#include "core/ir/printer.h"
#include "core/ir/structural_diff.h"

#include <fmt/format.h>

#include <cstdio>
#include <memory>

namespace loopscape::cli {

namespace {

/// As TVM's assert_structural_equal fails; the same status as an internal failure, which
/// prints "internal error" instead.
constexpr int kExitNotEqual = 1;

struct EqualOptions {
  std::string a, b;
  std::string traceA, traceB;
  bool mapFreeVars = false;
};

/// The program of `file` after `trace` (if any); nullopt with `exitCode` set on failure.
std::optional<ir::PrimFunc> programOf(const std::string& file, const std::string& trace, int& exitCode) {
  auto program = loadProgram(file);
  if (!program) {
    exitCode = kExitBadInput;
    return std::nullopt;
  }
  if (!hasTrace(*program, trace)) return program->func;
  auto applied = applyTraceFile(*program, trace, exitCode);
  if (!applied) return std::nullopt;
  return applied->func();
}

/// The printed line of `node`'s header (`for ...:` / `with T.block(...):`), underlined.
void showStatement(const char* label, const std::string& file, const ir::PrimFunc& func, const ir::StmtNode* node) {
  if (!node) return;
  const ir::PrintedProgram printed = ir::printPrimFuncWithSpans(func);
  for (const auto& span : printed.spans) {
    if (span.node != node) continue;
    std::size_t start = 0;
    for (int l = 1; l < span.line && start != std::string::npos; ++l)
      start = printed.text.find('\n', start) + 1;
    const std::string line = printed.text.substr(start, printed.text.find('\n', start) - start);
    std::fprintf(stdout, "  %s (%s as printed, line %d):\n    %s\n    %s%s\n", label, file.c_str(), span.line,
                 line.c_str(), std::string(static_cast<std::size_t>(span.column - 1), ' ').c_str(),
                 std::string(static_cast<std::size_t>(std::max(1, span.length)), '^').c_str());
    return;
  }
}

int runEqual(const EqualOptions& opt) {
  int exitCode = kExitOk;
  auto a = programOf(opt.a, opt.traceA, exitCode);
  if (!a) return exitCode;
  auto b = programOf(opt.b, opt.traceB, exitCode);
  if (!b) return exitCode;
  auto diff = ir::firstDifference(*a, *b, opt.mapFreeVars);
  if (!diff) {
    std::fputs("equal\n", stdout);
    return kExitOk;
  }
  std::string path;
  for (const auto& step : diff->path)
    path += (path.empty() ? "" : " > ") + step;
  std::fprintf(stdout, "not equal: %s\n  at: %s\n", diff->reason.c_str(),
               path.empty() ? "(the function)" : path.c_str());
  std::fprintf(stdout, "  first:  %s\n  second: %s\n", diff->lhs.c_str(), diff->rhs.c_str());
  showStatement("first", opt.a, *a, diff->lhsStmt);
  showStatement("second", opt.b, *b, diff->rhsStmt);
  return kExitNotEqual;
}

} // namespace

void registerEqual(CLI::App& app, CommandResult& result) {
  auto* cmd = app.add_subcommand("equal", "Structural equality of two programs (names aside), with the first "
                                          "difference when they differ (exit 1)");
  auto opt = std::make_shared<EqualOptions>();
  cmd->add_option("A", opt->a, "First program (.te, TVMScript .py, or a session .lsproj)")->required();
  cmd->add_option("B", opt->b, "Second program (.te, TVMScript .py, or a session .lsproj)")->required();
  cmd->add_option("--trace-a", opt->traceA, "Schedule trace applied to the first program");
  cmd->add_option("--trace-b", opt->traceB, "Schedule trace applied to the second program");
  cmd->add_flag("--map-free-vars", opt->mapFreeVars,
                "Match the symbolic sizes by position (otherwise they must have the same names)");
  cmd->callback([opt, &result] { result.exitCode = runEqual(*opt); });
}

} // namespace loopscape::cli
