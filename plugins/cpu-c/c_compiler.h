// The system C compiler as the cpu-c plugin uses it: finding it, compiling generated C
// into a cached shared object (or assembly), and turning its error output into a
// Diagnostic that points at the generated line.
//
// The compiler is $CC if set, else the first of cc, gcc, clang found in PATH. Flags:
//   -std=gnu11 -O3 -march=native -fopenmp -fPIC -fwrapv -fno-math-errno
//   and -ffp-contract=off (no FMA contraction: results match the interpreter's operation
//   order), or -ffast-math instead when BuildOptions::fastMath is set.
// Outputs live in a cache directory keyed by a 64-bit FNV-1a hash of the compiler, its
// version, the flags and the source: <dir>/<hash>.c, <hash>.so, <hash>.s. The directory is
// BuildOptions::workDir when given, else $LOOPSCAPE_CACHE_DIR/cpu-c, else
// $XDG_CACHE_HOME/loopscape/cpu-c, else ~/.cache/loopscape/cpu-c (else /tmp/loopscape-cpu-c).
//
// Test-only hook: with LOOPSCAPE_CPU_C_TEST_BREAK_SOURCE=1 in the environment, the line
// `ls_test_broken_statement;` is inserted after the first block comment of the generated
// source, so that tests can check how a compile error is rendered.
#pragma once

#include "core/codegen/target.h"

#include <string>
#include <vector>

namespace loopscape::codegen::cpu_c {

struct Compiler {
  std::string command; ///< how it is invoked ("cc", or $CC verbatim)
  std::string path;    ///< resolved path ("/usr/bin/cc"), or the command when unresolved
  std::string version; ///< "gcc 12.2.0", "clang 16.0.6"; empty when it did not run
};

/// The compiler and its version (runs `<cc> --version` once per process).
const Compiler& systemCompiler();

std::vector<std::string> compileFlags(const BuildOptions& options);

/// The cache directory for `options` (created if missing).
Expected<std::string> cacheDir(const BuildOptions& options);

/// Applies the test-only hook above to `source`.
std::string applyTestHooks(std::string source);

/// Compiles `source` into a shared object (`assembly` false) or an assembly file (true)
/// in the cache and returns its path; a cached output is reused. Errors:
/// "cpu-c.no-compiler"; "cpu-c.compile-error": the compiler's first error message, the
/// location (file = the generated .c, line, column), a note quoting the generated line,
/// then the full compiler output as notes.
Expected<std::string> compile(const std::string& source, const BuildOptions& options, bool assembly);

} // namespace loopscape::codegen::cpu_c
