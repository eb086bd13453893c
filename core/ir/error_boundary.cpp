#include "core/ir/error_boundary.h"

#include "core/ir/diagnostic.h"

#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>
#include <new>

namespace loopscape::ir {

namespace {
const char* g_program = "loopscape";

[[noreturn]] void onTerminate() {
  reportInternalError(g_program, std::current_exception());
  std::_Exit(kInternalErrorExit);
}
} // namespace

std::string internalErrorReport(const char* program, std::exception_ptr e) {
  std::string what;
  try {
    if (e) std::rethrow_exception(e);
    what = "the program ended without an exception to report (std::terminate)";
  } catch (const std::bad_alloc& ex) {
    what = fmt::format("out of memory ({}): the input needs more memory than this machine gives; use smaller sizes "
                       "or a lower --max-memory",
                       ex.what());
  } catch (const std::exception& ex) {
    what = quoteForMessage(ex.what(), 400);
  } catch (...) {
    what = "an exception of unknown type";
  }
  return fmt::format("{}: internal error: {}\n", program, what) +
         fmt::format("{}: this is a bug in Loopscape; please report it with the command line and the input files "
                     "that caused it\n",
                     program);
}

void reportInternalError(const char* program, std::exception_ptr e) {
  std::fflush(stdout);
  std::fputs(internalErrorReport(program, e).c_str(), stderr);
  std::fflush(stderr);
}

void installTerminateHandler(const char* program) {
  g_program = program;
  std::set_terminate(onTerminate);
}

} // namespace loopscape::ir
