// The top-level error boundary of every Loopscape program (loopscape-cli, loopscape-worker,
// loopscape): an exception that escapes all the layers that should have turned it into a
// Diagnostic is a bug, and ends the program with "PROGRAM: internal error: WHAT", a line
// asking to report it, and exit status 1 — never an abort or a core dump. std::bad_alloc
// says that memory ran out. The same report comes from std::terminate (an exception thrown
// on another thread or through noexcept), installed by installTerminateHandler.
#pragma once

#include <exception>
#include <string>

namespace loopscape::ir {

/// Exit status of an internal error (the CLI's "internal failure").
inline constexpr int kInternalErrorExit = 1;

/// The report for the exception `e` (a null pointer: no exception was active), ending in
/// a newline: "PROGRAM: internal error: WHAT\nPROGRAM: this is a bug ...".
std::string internalErrorReport(const char* program, std::exception_ptr e);

/// Writes internalErrorReport(program, e) to stderr.
void reportInternalError(const char* program, std::exception_ptr e);

/// Makes std::terminate report the active exception and end the process with
/// kInternalErrorExit (std::_Exit: no abort, no core dump). `program` must outlive the process.
void installTerminateHandler(const char* program);

/// Runs `body` (returning the exit status) and turns any exception into the report and
/// kInternalErrorExit.
template <typename F> int runWithErrorBoundary(const char* program, F&& body) {
  installTerminateHandler(program);
  try {
    return body();
  } catch (...) {
    reportInternalError(program, std::current_exception());
    return kInternalErrorExit;
  }
}

} // namespace loopscape::ir
