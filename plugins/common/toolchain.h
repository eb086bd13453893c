// The system toolchain as the target plugins share it (plugins only; core never includes
// this): finding the C compiler, a build cache keyed by content, and running the compiler
// as a child process that a stop request kills.
//
// The compiler is $CC if set (split at spaces, so "ccache gcc" works), else the first of
// cc, gcc, clang found in PATH; its version comes from `--version`, run once per process.
// cpu-c compiles generated C with it; cpu-llvm links its objects into shared libraries.
//
// The cache directory of a plugin is BuildOptions::workDir when given, else
// $LOOPSCAPE_CACHE_DIR/<plugin>, else $XDG_CACHE_HOME/loopscape/<plugin>, else
// ~/.cache/loopscape/<plugin> (else <tmp>/loopscape-<plugin>). Outputs are named by a
// 64-bit FNV-1a hash of everything that determines them (contentHash) and written under
// a process-unique temporary name, then renamed into place, so that concurrent builds of
// the same kernel never see a half-written file and a cached output is reused as is.
#pragma once

#include "core/codegen/target.h"

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

namespace loopscape::codegen::toolchain {

struct Compiler {
  std::string command; ///< how it is invoked ("cc", or $CC verbatim)
  std::string path;    ///< resolved path ("/usr/bin/cc"), or the command when unresolved
  std::string version; ///< "gcc 12.2.0", "clang 16.0.6"; empty when it did not run
  bool usable() const { return !command.empty() && !version.empty(); }
};

/// The compiler and its version (detected once per process).
const Compiler& systemCompiler();

/// "gcc 12.2.0 at /usr/bin/cc", or why there is no usable compiler.
ToolchainStatus compilerStatus();

/// "<plugin>.no-compiler" when systemCompiler() is not usable.
Expected<void> requireCompiler(std::string_view plugin);

/// The cache directory of `plugin` for `options` (created if missing); error
/// "<plugin>.cache-dir".
Expected<std::string> cacheDir(const BuildOptions& options, std::string_view plugin);

/// 16 hex digits: FNV-1a over `parts`, each followed by a separator.
std::string contentHash(std::initializer_list<std::string_view> parts);

struct CommandResult {
  int exitStatus = 0; ///< the exit status (128 + signal when killed by one)
  std::string output; ///< stdout and stderr together
};

/// Runs the compiler (systemCompiler().command split at spaces) with `args`, LC_ALL=C (ASCII
/// quotes in its messages), stdout and stderr captured. A stop request kills it (SIGKILL,
/// reaped) and returns cancelledDiagnostic("building"). Errors: "<plugin>.no-compiler"
/// when it cannot be started.
Expected<CommandResult> runCompiler(std::string_view plugin, const std::vector<std::string>& args,
                                    std::stop_token stop);

/// Runs the program `argv` (argv[0] a path, or looked up in PATH) like runCompiler: LC_ALL=C,
/// stdout and stderr captured, killed by a stop request. Errors: "<plugin>.cannot-start".
Expected<CommandResult> runProgram(std::string_view plugin, const std::vector<std::string>& argv, std::stop_token stop);

/// `path` when it exists; else `produce(temporary)` writes the output to a temporary path
/// in the same directory, which is then renamed to `path`. Errors: those of `produce`,
/// "<plugin>.write-failed" when the rename fails.
Expected<std::string> cachedOutput(std::string_view plugin, const std::string& path,
                                   const std::function<Expected<void>(const std::string& temporary)>& produce);

} // namespace loopscape::codegen::toolchain
