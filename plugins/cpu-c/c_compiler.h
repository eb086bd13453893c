// The system C compiler as the cpu-c plugin uses it (found, cached and run by the shared
// toolchain helper, plugins/common/toolchain.h): compiling generated C into a cached
// shared object (or assembly), and turning its error output into a Diagnostic that
// points at the generated line.
//
// Flags:
//   -std=gnu11 -O3 -march=native -fopenmp -fPIC -fwrapv -fno-math-errno
//   and -ffp-contract=off (no FMA contraction: results match the interpreter's operation
//   order), or -ffast-math instead when BuildOptions::fastMath is set.
// Outputs live in the "cpu-c" cache directory (toolchain::cacheDir), named by a hash of
// the compiler, its version, the flags and the source: <hash>.c, <hash>.so, <hash>.s.
//
// Test-only hook: with LOOPSCAPE_CPU_C_TEST_BREAK_SOURCE=1 in the environment, the line
// `ls_test_broken_statement;` is inserted after the first block comment of the generated
// source, so that tests can check how a compile error is rendered.
#pragma once

#include "core/codegen/target.h"

#include <string>
#include <vector>

namespace loopscape::codegen::cpu_c {

std::vector<std::string> compileFlags(const BuildOptions& options);

/// Applies the test-only hook above to `source`.
std::string applyTestHooks(std::string source);

/// Compiles `source` into a shared object (`assembly` false) or an assembly file (true)
/// in the cache and returns its path; a cached output is reused. Errors:
/// "cpu-c.no-compiler"; "cpu-c.compile-error": the compiler's first error message, the
/// location (file = the generated .c, line, column), a note quoting the generated line,
/// then the full compiler output as notes; "codegen.cancelled" when options.stop is
/// requested (the compiler is killed).
Expected<std::string> compile(const std::string& source, const BuildOptions& options, bool assembly);

} // namespace loopscape::codegen::cpu_c
