// The subcommands of loopscape-cli. Each registers its options on the app and runs from a
// CLI11 callback, leaving its exit status in `result`.
#pragma once

#include "core/ir/prim_func.h"

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

namespace loopscape::cli {

struct CommandResult {
  int exitCode = 0;
};

/// `print FILE`: the program as TVMScript-style TensorIR.
void registerPrint(CLI::App& app, CommandResult& result);
/// `check FILE [--shape n=64 ...] [--inputs DIR] [--save DIR] [--seed N]`: run the
/// reference interpreter on seeded random (or given) inputs, print output checksums.
void registerCheck(CLI::App& app, CommandResult& result);
/// `run FILE --target NAME [--trace T] [--verify] ...`: compile, run isolated, verify, time.
void registerRun(CLI::App& app, CommandResult& result);
/// `export FILE --trace T --target cpu-c --out DIR`: kernel.c, kernel.h, libkernel.so, README.
void registerExport(CLI::App& app, CommandResult& result);
/// `targets`: the target plugins found, their capabilities and toolchain status.
void registerTargets(CLI::App& app, CommandResult& result);

/// `legal FILE --trace T`: exact legality against the original dependences (exit 3 if illegal).
void registerLegal(CLI::App& app, CommandResult& result);
/// `poly FILE --auto [--fusion max|min] [--tile 32,32] [--check] [--trace T]`: isl scheduler.
void registerPoly(CLI::App& app, CommandResult& result);
/// `equal A B [--trace-a T] [--trace-b T] [--map-free-vars]`: structural equality, with
/// the first difference (exit 1).
void registerEqual(CLI::App& app, CommandResult& result);
/// `compare FILE --a T --b T [--target T] [--run] [--html OUT]`: two schedules of one
/// program: structural diff, paired schedule trees, parallelism, measurements (cmd_compare.cpp).
void registerCompare(CLI::App& app, CommandResult& result);
/// `tune FILE --target T --trials N [--strategy S] [--records LOG] ...`: auto-scheduling.
void registerTune(CLI::App& app, CommandResult& result);
/// `relay print|groups|run|extract MODEL.relay`: Relay models (cmd_relay.cpp).
void registerRelay(CLI::App& app, CommandResult& result);
/// The fused groups (with a call) of the Relay model at `path` as PrimFuncs, in execution
/// order, after the model's passes (with AlterOpLayout when `alterLayout`); nullopt after
/// printing the diagnostic (bad input).
std::optional<std::vector<ir::PrimFunc>> relayGroupFunctions(const std::string& path, bool alterLayout = false);
/// `print MODEL.relay --format relay`: the typed Relay graph.
int printRelayModel(const std::string& path);
/// `print --format tree|deps`: the schedule tree or the dependence report of `func`.
int printPolyFormat(const ir::PrimFunc& func, const std::string& format); ///< "tree", "tree-isl" or "deps"

} // namespace loopscape::cli
