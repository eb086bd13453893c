// loopscape-worker: the process side of the isolated runner. It maps the argument buffers
// the parent put in shared memory, dlopens the kernel library, and times the kernel as the
// request says (runner_protocol.h has the command line and the reply). Whatever the kernel
// does to this process (a crash, an endless loop) is seen by the parent, never suffered.
// The worker never outlives its parent: it is killed when the parent (the thread that
// started it) ends, so a host that crashes or is killed leaves no kernel running. An
// exception that escapes is an internal error (error_boundary.h), never an abort.
#include "core/codegen/c_abi_call.h"
#include "core/codegen/profile_timer.h"
#include "core/codegen/runner_protocol.h"
#include "core/ir/error_boundary.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <dlfcn.h>
#include <fmt/format.h>
#include <string>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <utility>
#include <vector>

namespace {

using namespace loopscape;
using namespace loopscape::codegen;

void writeAll(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

int fail(const Diagnostic& d) {
  writeAll(kWorkerResultFd, encodeWorkerError(d));
  return kWorkerExitError;
}

int runWorker(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  auto request = decodeWorkerArgs(args);
  if (!request) return fail(request.error());

  void* shm = ::mmap(nullptr, request->shmBytes, PROT_READ | PROT_WRITE, MAP_SHARED, kWorkerShmFd, 0);
  if (shm == MAP_FAILED)
    return fail(Diagnostic::error("worker.no-shared-memory", "cannot map the argument buffers from the runner"));

  // Every call's function and arguments, each library loaded once.
  std::vector<void*> functions;
  std::vector<std::vector<std::uint64_t>> callArgs;
  for (const auto& call : request->calls) {
    void* library = ::dlopen(call.library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library)
      return fail(
          Diagnostic::error("worker.cannot-load", fmt::format("cannot load the kernel library: {}", dlerror())));
    void* fn = ::dlsym(library, call.symbol.c_str());
    if (!fn)
      return fail(Diagnostic::error(
          "worker.no-symbol", fmt::format("the kernel library '{}' has no function '{}'", call.library, call.symbol)));
    functions.push_back(fn);
    auto& a = callArgs.emplace_back();
    for (const auto& b : call.buffers)
      a.push_back(reinterpret_cast<std::uint64_t>(static_cast<std::byte*>(shm) + b.offset));
    for (auto s : call.sizes)
      a.push_back(static_cast<std::uint64_t>(s));
  }

  std::atomic_ref<std::uint64_t> progress(*reinterpret_cast<std::uint64_t*>(
      static_cast<std::byte*>(shm) + request->shmBytes - kWorkerProgressBytes));
  // With several calls, each call's time in every run of the sequence.
  const bool several = functions.size() > 1;
  std::vector<std::vector<double>> callTimes(several ? functions.size() : 0);
  auto timing = timeCalls(
      [&]() -> Expected<void> {
        for (std::size_t c = 0; c < functions.size(); ++c) {
          const auto start = std::chrono::steady_clock::now();
          callCAbi(functions[c], callArgs[c]);
          if (several)
            callTimes[c].push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
          progress.fetch_add(1, std::memory_order_relaxed); // the runner's per-call time limit
        }
        return {};
      },
      request->timing);
  if (timing)
    for (auto& times : callTimes) {
      std::sort(times.begin(), times.end());
      timing->callSeconds.push_back(times[times.size() / 2]);
    }
  if (!timing) return fail(timing.error());
  std::fflush(stdout);
  writeAll(kWorkerResultFd, encodeWorkerReply(*timing));
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  // An exception escaping is reported on stderr (which the runner shows as the kernel's
  // output) with exit status 1, which the runner reads as "exited without a result".
  return loopscape::ir::runWithErrorBoundary("loopscape-worker", [&] { return runWorker(argc, argv); });
}
