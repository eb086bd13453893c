#include "core/codegen/runner.h"

#include "core/codegen/cancel.h"
#include "core/codegen/runner_protocol.h"
#include "core/ir/interpreter.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <functional>
#include <poll.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utility>

extern char** environ;

namespace loopscape::codegen {

namespace {

/// Closes a descriptor when it goes out of scope.
class Fd {
public:
  Fd() = default;
  explicit Fd(int fd) : m_fd(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  Fd(Fd&& o) noexcept : m_fd(std::exchange(o.m_fd, -1)) {}
  Fd& operator=(Fd&& o) noexcept {
    reset();
    m_fd = std::exchange(o.m_fd, -1);
    return *this;
  }
  ~Fd() { reset(); }
  int get() const { return m_fd; }
  void reset() {
    if (m_fd >= 0) ::close(m_fd);
    m_fd = -1;
  }

private:
  int m_fd = -1;
};

/// A shared mapping of a memfd, unmapped on destruction.
struct SharedMemory {
  Fd fd;
  std::byte* data = nullptr;
  std::size_t bytes = 0;
  ~SharedMemory() {
    if (data) ::munmap(data, bytes);
  }
};

Diagnostic systemError(const std::string& what) {
  return Diagnostic::error("runner.system", fmt::format("{}: {}", what, std::strerror(errno)));
}

/// A copy of `fd` numbered >= 10 with close-on-exec, so that dup2 onto 0..4 in the child
/// never meets an identical source and target descriptor.
Expected<Fd> highFd(int fd) {
  int copy = ::fcntl(fd, F_DUPFD_CLOEXEC, 10);
  if (copy < 0) return Unexpected(systemError("cannot duplicate a descriptor"));
  return Fd(copy);
}

std::string tail(const std::string& text, std::size_t n) {
  return text.size() <= n ? text : "..." + text.substr(text.size() - n);
}

constexpr std::uint64_t kAlign = 64;

} // namespace

std::string describeSignal(int sig) {
  const char* what = nullptr;
  switch (sig) {
  case SIGSEGV: what = "segmentation fault"; break;
  case SIGBUS: what = "bus error"; break;
  case SIGFPE: what = "floating-point exception"; break;
  case SIGILL: what = "illegal instruction"; break;
  case SIGABRT: what = "aborted"; break;
  case SIGKILL: what = "killed"; break;
  case SIGTERM: what = "terminated"; break;
  case SIGTRAP: what = "trace trap"; break;
  case SIGSYS: what = "bad system call"; break;
  case SIGXCPU: what = "CPU time limit exceeded"; break;
  default: break;
  }
  const char* abbrev = sigabbrev_np(sig);
  const std::string name = abbrev ? fmt::format("SIG{}", abbrev) : fmt::format("signal {}", sig);
  if (!what) {
    const char* desc = strsignal(sig);
    return desc ? fmt::format("{} ({})", name, desc) : name;
  }
  return fmt::format("{} ({})", name, what);
}

Expected<std::string> findWorker() {
  if (const char* env = std::getenv("LOOPSCAPE_WORKER"); env && *env) {
    if (::access(env, X_OK) == 0) return std::string(env);
    return Unexpected(Diagnostic::error(
        "runner.no-worker", fmt::format("LOOPSCAPE_WORKER is '{}', which is not an executable file", env)));
  }
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  std::vector<std::filesystem::path> candidates;
  if (!ec) {
    const auto dir = self.parent_path();
    candidates = {dir / "loopscape-worker", dir / ".." / "worker" / "loopscape-worker",
                  dir / ".." / "app" / "worker" / "loopscape-worker",
                  dir / ".." / "libexec" / "loopscape" / "loopscape-worker"};
  }
  std::vector<std::string> searched;
  for (const auto& c : candidates) {
    const auto normal = c.lexically_normal();
    if (::access(normal.c_str(), X_OK) == 0) return normal.string();
    searched.push_back(normal.string());
  }
  Diagnostic d = Diagnostic::error("runner.no-worker",
                                   "cannot find the loopscape-worker executable that runs kernels in isolation");
  d.notes.push_back(fmt::format("searched: {}", fmt::join(searched, ", ")));
  d.notes.push_back("set LOOPSCAPE_WORKER to its path, or run in process (--in-process)");
  return Unexpected(d);
}

Expected<std::vector<std::int64_t>> sizeArguments(const LoweredFunc& func, const ir::SizeBindings& sizes) {
  std::vector<std::int64_t> out;
  for (const auto& v : func.sizeVars) {
    const auto& name = v.as<ir::Var>()->name;
    auto it = sizes.find(name);
    if (it == sizes.end())
      return Unexpected(Diagnostic::error(
          "runner.unbound-size", fmt::format("the kernel '{}' needs a value for its size '{}'", func.name, name)));
    out.push_back(it->second);
  }
  return out;
}

Expected<void> checkArguments(const LoweredFunc& func, std::span<const ir::NDArray> args,
                              std::span<const std::int64_t> sizes) {
  if (args.size() != func.params.size())
    return Unexpected(Diagnostic::error("runner.arg-count", fmt::format("the kernel '{}' takes {} buffers, {} given",
                                                                        func.name, func.params.size(), args.size())));
  if (sizes.size() != func.sizeVars.size())
    return Unexpected(Diagnostic::error("runner.size-count", fmt::format("the kernel '{}' takes {} sizes, {} given",
                                                                         func.name, func.sizeVars.size(), sizes.size())));
  ir::SizeBindings bindings;
  for (std::size_t i = 0; i < sizes.size(); ++i) bindings[func.sizeVars[i].as<ir::Var>()->name] = sizes[i];
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto& param = func.params[i];
    auto shape = ir::evalShape(param, bindings);
    if (!shape) return Unexpected(shape.error());
    if (args[i].dtype() != param->dtype || args[i].shape() != *shape) {
      return Unexpected(Diagnostic::error(
          "runner.arg-mismatch",
          fmt::format("argument '{}' is {}, but the kernel expects {}({})", param->name, args[i].describe(),
                      param->dtype.str(), fmt::join(*shape, ", "))));
    }
  }
  return {};
}

namespace {

/// Runs `request` in the worker: its shared memory (request.shmBytes) is filled by `fill`
/// and, on success, read back by `readBack`.
Expected<RunResult> runRequestIsolated(WorkerRequest& request, const std::function<void(std::byte*)>& fill,
                                       const std::function<void(const std::byte*)>& readBack,
                                       const RunOptions& options) {
  if (options.stop.stop_requested()) return Unexpected(cancelledDiagnostic("running"));
  std::string workerPath = options.workerPath;
  if (workerPath.empty()) {
    auto found = findWorker();
    if (!found) return Unexpected(found.error());
    workerPath = *found;
  }

  // 1. The shared-memory file.
  SharedMemory shm;
  shm.fd = Fd(::memfd_create("loopscape-args", MFD_CLOEXEC));
  if (shm.fd.get() < 0) return Unexpected(systemError("memfd_create failed"));
  if (::ftruncate(shm.fd.get(), static_cast<off_t>(request.shmBytes)) != 0)
    return Unexpected(systemError(fmt::format("cannot size {} bytes of shared memory", request.shmBytes)));
  void* mapped = ::mmap(nullptr, request.shmBytes, PROT_READ | PROT_WRITE, MAP_SHARED, shm.fd.get(), 0);
  if (mapped == MAP_FAILED) return Unexpected(systemError("cannot map the shared memory"));
  shm.data = static_cast<std::byte*>(mapped);
  shm.bytes = request.shmBytes;
  fill(shm.data);

  // 2. Pipes for the reply and for whatever the kernel prints.
  int resultPipe[2], outputPipe[2];
  if (::pipe2(resultPipe, O_CLOEXEC) != 0) return Unexpected(systemError("pipe failed"));
  Fd resultRead(resultPipe[0]), resultWriteLow(resultPipe[1]);
  if (::pipe2(outputPipe, O_CLOEXEC) != 0) return Unexpected(systemError("pipe failed"));
  Fd outputRead(outputPipe[0]), outputWriteLow(outputPipe[1]);
  auto shmHigh = highFd(shm.fd.get());
  auto resultWrite = highFd(resultWriteLow.get());
  auto outputWrite = highFd(outputWriteLow.get());
  if (!shmHigh || !resultWrite || !outputWrite) return Unexpected(systemError("cannot duplicate descriptors"));
  resultWriteLow.reset();
  outputWriteLow.reset();

  // 3. Start the worker (posix_spawn: no fork of this possibly multi-threaded process).
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, outputWrite->get(), 1);
  posix_spawn_file_actions_adddup2(&actions, outputWrite->get(), 2);
  posix_spawn_file_actions_adddup2(&actions, shmHigh->get(), kWorkerShmFd);
  posix_spawn_file_actions_adddup2(&actions, resultWrite->get(), kWorkerResultFd);
  std::vector<std::string> argStrings = encodeWorkerArgs(request);
  argStrings.insert(argStrings.begin(), workerPath);
  std::vector<char*> argv;
  for (auto& s : argStrings) argv.push_back(s.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int spawnError = ::posix_spawn(&pid, workerPath.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  resultWrite->reset();
  outputWrite->reset();
  if (spawnError != 0)
    return Unexpected(Diagnostic::error("runner.no-worker", fmt::format("cannot start the worker '{}': {}", workerPath,
                                                                        std::strerror(spawnError))));

  // 4. Collect its output until it exits or the time limit passes.
  using Clock = std::chrono::steady_clock;
  const auto limit =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options.timeoutSeconds));
  ::fcntl(resultRead.get(), F_SETFL, O_NONBLOCK);
  ::fcntl(outputRead.get(), F_SETFL, O_NONBLOCK);
  std::string reply, output;
  auto drain = [](Fd& fd, std::string& into) {
    char buf[4096];
    while (fd.get() >= 0) {
      const ssize_t n = ::read(fd.get(), buf, sizeof buf);
      if (n > 0) {
        into.append(buf, static_cast<std::size_t>(n));
        if (into.size() > (1u << 20)) into.erase(0, into.size() - (1u << 19)); // keep the tail
        continue;
      }
      if (n == 0) fd.reset();
      if (n < 0 && errno == EINTR) continue;
      break;
    }
  };
  int status = 0;
  bool timedOut = false, stopped = false;
  // The time limit applies to each kernel call: every completed call (the worker bumps
  // the progress counter) starts a new period.
  std::atomic_ref<std::uint64_t> progress(
      *reinterpret_cast<std::uint64_t*>(shm.data + request.shmBytes - kWorkerProgressBytes));
  std::uint64_t lastProgress = progress.load(std::memory_order_relaxed);
  auto deadline = Clock::now() + limit;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) {
      const Diagnostic d = systemError("waitpid failed");
      ::kill(pid, SIGKILL);
      return Unexpected(d);
    }
    const auto now = Clock::now();
    if (const auto p = progress.load(std::memory_order_relaxed); p != lastProgress) {
      lastProgress = p;
      deadline = now + limit;
    }
    stopped = options.stop.stop_requested();
    if (now >= deadline || stopped) {
      ::kill(pid, SIGKILL);
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      timedOut = !stopped;
      break;
    }
    pollfd fds[2];
    nfds_t n = 0;
    for (Fd* fd : {&resultRead, &outputRead})
      if (fd->get() >= 0) fds[n++] = {fd->get(), POLLIN, 0};
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
    ::poll(n ? fds : nullptr, n, static_cast<int>(std::clamp<long long>(left, 1, n ? 20 : 5)));
    drain(resultRead, reply);
    drain(outputRead, output);
  }
  drain(resultRead, reply);
  drain(outputRead, output);

  RunResult result;
  result.workerOutput = output;
  auto withOutput = [&](Diagnostic d) {
    if (!output.empty()) d.notes.push_back(fmt::format("the kernel's output: {}", tail(output, 2000)));
    return d;
  };

  // 5. Decode how it ended.
  if (stopped) return Unexpected(cancelledDiagnostic("running"));
  if (timedOut)
    return Unexpected(withOutput(Diagnostic::error(
        "runner.timeout", fmt::format("the kernel did not finish within {:g} s and was stopped", options.timeoutSeconds))));
  if (WIFSIGNALED(status))
    return Unexpected(withOutput(Diagnostic::error(
        "runner.crashed", fmt::format("the kernel crashed with {}", describeSignal(WTERMSIG(status))))));
  const int exitStatus = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (exitStatus != 0 && exitStatus != kWorkerExitError)
    return Unexpected(withOutput(Diagnostic::error(
        "runner.worker-failed", fmt::format("the worker exited with status {} without a result", exitStatus))));
  auto timing = decodeWorkerReply(reply);
  if (!timing) return Unexpected(withOutput(timing.error()));
  result.timing = std::move(*timing);
  readBack(shm.data);
  return result;
}

} // namespace

Expected<RunResult> runLibraryIsolated(const std::string& libraryPath, const std::string& symbol,
                                       std::span<ir::NDArray> args, std::span<const std::int64_t> sizes,
                                       const RunOptions& options) {
  // The arguments laid out in one shared-memory file, each 64-byte aligned.
  WorkerRequest request;
  WorkerCall& call = request.calls.emplace_back();
  call.library = libraryPath;
  call.symbol = symbol;
  call.sizes.assign(sizes.begin(), sizes.end());
  request.timing = options.timing;
  std::uint64_t offset = 0;
  for (const auto& a : args) {
    call.buffers.push_back({offset, a.nbytes()});
    offset += (a.nbytes() + kAlign - 1) / kAlign * kAlign;
  }
  request.shmBytes = offset + kWorkerProgressBytes; // the progress counter comes last
  return runRequestIsolated(
      request,
      [&](std::byte* shm) {
        for (std::size_t i = 0; i < args.size(); ++i)
          if (args[i].nbytes() > 0) std::memcpy(shm + call.buffers[i].offset, args[i].rawData(), args[i].nbytes());
      },
      [&](const std::byte* shm) {
        for (std::size_t i = 0; i < args.size(); ++i)
          if (args[i].nbytes() > 0) std::memcpy(args[i].rawData(), shm + call.buffers[i].offset, args[i].nbytes());
      },
      options);
}

Expected<RunResult> runCallsIsolated(std::vector<WorkerCall> calls, std::span<std::byte> arena,
                                     const RunOptions& options) {
  WorkerRequest request;
  request.calls = std::move(calls);
  request.timing = options.timing;
  request.shmBytes = (arena.size() + kAlign - 1) / kAlign * kAlign + kWorkerProgressBytes;
  return runRequestIsolated(
      request, [&](std::byte* shm) { std::memcpy(shm, arena.data(), arena.size()); },
      [&](const std::byte* shm) { std::memcpy(arena.data(), shm, arena.size()); }, options);
}

Expected<RunResult> runKernel(const LoweredFunc& func, Kernel& kernel, std::span<ir::NDArray> args,
                              std::span<const std::int64_t> sizes, const RunOptions& options) {
  if (!options.uncheckedArguments)
    if (auto ok = checkArguments(func, args, sizes); !ok) return Unexpected(ok.error());
  if (options.isolation == Isolation::Worker) {
    if (kernel.libraryPath().empty() || kernel.symbol().empty())
      return Unexpected(Diagnostic::error(
          "runner.no-library",
          fmt::format("the kernel '{}' has no shared library, so it cannot run in an isolated worker; run it in "
                      "process (--in-process)",
                      func.name)));
    return runLibraryIsolated(kernel.libraryPath(), kernel.symbol(), args, sizes, options);
  }
  if (options.stop.stop_requested()) return Unexpected(cancelledDiagnostic("running"));
  std::vector<void*> pointers;
  for (auto& a : args) pointers.push_back(a.rawData());
  auto timing = timeCalls([&]() { return kernel.run(pointers, sizes); }, options.timing);
  if (!timing) return Unexpected(timing.error());
  RunResult result;
  result.timing = std::move(*timing);
  return result;
}

} // namespace loopscape::codegen
