// What the fuzz harnesses share (fuzz/fuzz_<format>.cpp): the input size cap, and the
// programs a trace is applied to. Every harness defines libFuzzer's entry point
// LLVMFuzzerTestOneInput and calls the real entry point a user's file goes through; it
// catches nothing, so an exception, an assertion or a sanitizer report is a finding.
// The same sources build libFuzzer executables (LOOPSCAPE_FUZZ) and, otherwise, replay
// programs (replay_main.cpp) that the tests run over the seed corpora and fixed findings.
#pragma once

#include "core/ir/prim_func.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

// libFuzzer's entry point, defined once per harness.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace loopscape::fuzz {

/// Inputs longer than this are skipped: the formats' own file-size limits are not what is
/// fuzzed, and long inputs make slow runs (bench/fuzz.sh passes the same -max_len).
inline constexpr std::size_t kMaxInputBytes = 64 * 1024;

/// A trace input: a trace applies to a program, named on an optional first line
/// `# program: NAME` (samples/NAME.te; matmul when there is none). `text` is the whole
/// input for a trace script (the line is a comment) and the rest after it for JSON.
struct TraceInput {
  const ir::PrimFunc* program;
  std::string_view text;
};
TraceInput splitTraceInput(std::string_view input, bool stripHeader);

/// samples/NAME.te parsed once (nullptr when there is no such sample or NAME is not made
/// of letters, digits and underscores); aborts when a sample does not parse (the harness
/// is broken, not the input).
const ir::PrimFunc* sampleProgram(std::string_view name);

/// The `# program: NAME` line that names samples/NAME.te.
inline constexpr std::string_view kProgramHeader = "# program: ";

/// Aborts with `what`: an input broke a property the harness checks (a round trip).
[[noreturn]] void propertyFailed(std::string_view what);

} // namespace loopscape::fuzz
