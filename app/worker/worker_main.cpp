// loopscape-worker: the process side of the isolated runner. It maps the argument buffers
// the parent put in shared memory, dlopens the kernel library, and times the kernel as the
// request says (runner_protocol.h has the command line and the reply). Whatever the kernel
// does to this process (a crash, an endless loop) is seen by the parent, never suffered.
// The worker never outlives its parent: it is killed when the parent (the thread that
// started it) ends, so a host that crashes or is killed leaves no kernel running. An
// exception that escapes is an internal error (error_boundary.h), never an abort.
#include "core/codegen/profile_timer.h"
#include "core/codegen/runner_protocol.h"
#include "core/ir/error_boundary.h"

#include <atomic>
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

// Every kernel argument (a pointer or an int64 size) is passed as a 64-bit integer: on the
// x86-64 System V and AArch64 procedure-call standards both classes travel in the same
// integer registers and stack slots, so `void f(uint64_t, ...)` with the right count is
// call-compatible with `void f(float*, ..., int64_t, ...)`.
template <std::size_t... I> void callWith(void* fn, const std::uint64_t* a, std::index_sequence<I...>) {
  using Fn = void (*)(decltype((void)I, std::uint64_t{})...);
  reinterpret_cast<Fn>(fn)(a[I]...);
}

template <std::size_t... N>
void callKernel(void* fn, const std::vector<std::uint64_t>& args, std::index_sequence<N...>) {
  ((args.size() == N ? (callWith(fn, args.data(), std::make_index_sequence<N>{}), true) : false) || ...);
}

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

  void* library = ::dlopen(request->library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library)
    return fail(Diagnostic::error("worker.cannot-load", fmt::format("cannot load the kernel library: {}", dlerror())));
  void* fn = ::dlsym(library, request->symbol.c_str());
  if (!fn)
    return fail(Diagnostic::error("worker.no-symbol", fmt::format("the kernel library '{}' has no function '{}'",
                                                                  request->library, request->symbol)));

  std::vector<std::uint64_t> callArgs;
  for (const auto& b : request->buffers)
    callArgs.push_back(reinterpret_cast<std::uint64_t>(static_cast<std::byte*>(shm) + b.offset));
  for (auto s : request->sizes) callArgs.push_back(static_cast<std::uint64_t>(s));

  std::atomic_ref<std::uint64_t> progress(*reinterpret_cast<std::uint64_t*>(
      static_cast<std::byte*>(shm) + request->shmBytes - kWorkerProgressBytes));
  auto timing = timeCalls(
      [&]() -> Expected<void> {
        callKernel(fn, callArgs, std::make_index_sequence<kWorkerMaxArgs + 1>{});
        progress.fetch_add(1, std::memory_order_relaxed); // the runner's per-call time limit
        return {};
      },
      request->timing);
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
