#include "plugins/common/toolchain.h"

#include "core/codegen/cancel.h"

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <poll.h>
#include <regex>
#include <signal.h>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace loopscape::codegen::toolchain {

namespace fs = std::filesystem;

namespace {

std::string findInPath(const std::string& program) {
  if (program.find('/') != std::string::npos) return fs::exists(program) ? program : std::string();
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    fs::path candidate = fs::path(dir.empty() ? "." : dir) / program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return {};
}

std::vector<std::string> splitWords(const std::string& text) {
  std::vector<std::string> words;
  std::istringstream in(text);
  for (std::string w; in >> w;)
    words.push_back(w);
  return words;
}

/// How a child process ended: spawnError (an errno) when it could not start, stopped
/// when a stop request killed it, else its exit status and output.
struct Spawned {
  int spawnError = 0;
  bool stopped = false;
  CommandResult result;
};

/// Runs `argv` (argv[0] looked up in PATH) with LC_ALL=C, stdin from /dev/null, stdout and
/// stderr into one pipe.
Spawned spawnAndWait(const std::vector<std::string>& argv, const std::stop_token& stop) {
  Spawned s;
  int pipeFds[2];
  if (::pipe2(pipeFds, O_CLOEXEC) != 0) {
    s.spawnError = errno;
    return s;
  }
  std::vector<std::string> envStrings;
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, "LC_ALL=", 7) != 0) envStrings.emplace_back(*e);
  envStrings.emplace_back("LC_ALL=C");
  std::vector<char*> env, args;
  for (auto& e : envStrings)
    env.push_back(e.data());
  env.push_back(nullptr);
  std::vector<std::string> argStrings = argv;
  for (auto& a : argStrings)
    args.push_back(a.data());
  args.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, pipeFds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, pipeFds[1], 2);
  pid_t pid = -1;
  s.spawnError = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipeFds[1]);
  if (s.spawnError != 0) {
    ::close(pipeFds[0]);
    return s;
  }
  // Read its output until it closes the pipe, checking the stop request every 20 ms.
  std::array<char, 4096> buf;
  for (;;) {
    if (stop.stop_requested()) {
      ::kill(pid, SIGKILL);
      s.stopped = true;
      break;
    }
    pollfd fd{pipeFds[0], POLLIN, 0};
    const int ready = ::poll(&fd, 1, 20);
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    const ssize_t n = ::read(pipeFds[0], buf.data(), buf.size());
    if (n > 0) {
      s.result.output.append(buf.data(), static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    break; // end of file (or an error): the compiler is done with its output
  }
  ::close(pipeFds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  s.result.exitStatus = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  return s;
}

Compiler detect() {
  Compiler c;
  if (const char* env = std::getenv("CC"); env && *env) {
    c.command = env;
    const auto words = splitWords(c.command);
    c.path = words.empty() ? std::string() : findInPath(words.back());
    if (c.path.empty()) c.path = c.command;
  } else {
    for (const char* name : {"cc", "gcc", "clang"}) {
      std::string p = findInPath(name);
      if (p.empty()) continue;
      c.command = name;
      c.path = p;
      break;
    }
  }
  const auto words = splitWords(c.command);
  if (words.empty()) return c;
  std::vector<std::string> argv = words;
  argv.push_back("--version");
  const Spawned run = spawnAndWait(argv, {});
  if (run.spawnError != 0 || run.result.exitStatus != 0) return c;
  const std::string& out = run.result.output;
  std::string first = out.substr(0, out.find('\n'));
  std::smatch m;
  if (first.find("clang") != std::string::npos && std::regex_search(first, m, std::regex(R"(version ([0-9][0-9.]*))")))
    c.version = "clang " + m[1].str();
  else if (std::regex_search(first, m, std::regex(R"(([0-9]+\.[0-9]+(\.[0-9]+)?)\s*$)")))
    c.version = "gcc " + m[1].str();
  else
    c.version = first;
  return c;
}

std::string noCompilerMessage(const Compiler& cc) {
  return cc.command.empty() ? "no C compiler found ($CC, cc, gcc or clang in PATH)"
                            : "the C compiler '" + cc.command + "' does not run";
}

} // namespace

const Compiler& systemCompiler() {
  static const Compiler compiler = detect();
  return compiler;
}

ToolchainStatus compilerStatus() {
  const Compiler& cc = systemCompiler();
  if (!cc.usable()) return {false, noCompilerMessage(cc)};
  return {true, cc.version + " at " + cc.path};
}

Expected<void> requireCompiler(std::string_view plugin) {
  const Compiler& cc = systemCompiler();
  if (cc.usable()) return {};
  return std::unexpected(Diagnostic::error(std::string(plugin) + ".no-compiler", noCompilerMessage(cc)));
}

Expected<std::string> cacheDir(const BuildOptions& options, std::string_view plugin) {
  const std::string name(plugin);
  fs::path dir;
  if (!options.workDir.empty())
    dir = options.workDir;
  else if (const char* env = std::getenv("LOOPSCAPE_CACHE_DIR"); env && *env)
    dir = fs::path(env) / name;
  else if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    dir = fs::path(xdg) / "loopscape" / name;
  else if (const char* home = std::getenv("HOME"); home && *home)
    dir = fs::path(home) / ".cache" / "loopscape" / name;
  else
    dir = fs::temp_directory_path() / ("loopscape-" + name);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir))
    return std::unexpected(Diagnostic::error(name + ".cache-dir", "cannot create the build directory " + dir.string() +
                                                                      (ec ? ": " + ec.message() : std::string())));
  return dir.string();
}

std::string contentHash(std::initializer_list<std::string_view> parts) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&](unsigned char ch) {
    h ^= ch;
    h *= 0x100000001b3ull;
  };
  for (std::string_view part : parts) {
    for (unsigned char ch : part)
      mix(ch);
    mix('\n');
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

Expected<CommandResult> runCompiler(std::string_view plugin, const std::vector<std::string>& args,
                                    std::stop_token stop) {
  if (stop.stop_requested()) return std::unexpected(cancelledDiagnostic("building"));
  if (auto ok = requireCompiler(plugin); !ok) return std::unexpected(ok.error());
  std::vector<std::string> argv = splitWords(systemCompiler().command);
  argv.insert(argv.end(), args.begin(), args.end());
  const Spawned run = spawnAndWait(argv, stop);
  if (run.spawnError != 0)
    return std::unexpected(Diagnostic::error(std::string(plugin) + ".no-compiler",
                                             "cannot start the C compiler '" + systemCompiler().command +
                                                 "': " + std::strerror(run.spawnError)));
  if (run.stopped) return std::unexpected(cancelledDiagnostic("building"));
  return run.result;
}

Expected<CommandResult> runProgram(std::string_view plugin, const std::vector<std::string>& argv,
                                   std::stop_token stop) {
  if (stop.stop_requested()) return std::unexpected(cancelledDiagnostic("building"));
  const Spawned run = spawnAndWait(argv, stop);
  if (run.spawnError != 0)
    return std::unexpected(Diagnostic::error(std::string(plugin) + ".cannot-start",
                                             "cannot start '" + argv.front() + "': " + std::strerror(run.spawnError)));
  if (run.stopped) return std::unexpected(cancelledDiagnostic("building"));
  return run.result;
}

Expected<std::string> cachedOutput(std::string_view plugin, const std::string& path,
                                   const std::function<Expected<void>(const std::string& temporary)>& produce) {
  std::error_code ec;
  if (fs::exists(path, ec)) return path;
  static std::atomic<unsigned> serial{0};
  const std::string temporary = path + ".partial" + std::to_string(getpid()) + "-" + std::to_string(serial++);
  if (auto ok = produce(temporary); !ok) {
    fs::remove(temporary, ec);
    return std::unexpected(ok.error());
  }
  fs::rename(temporary, path, ec);
  if (ec) {
    fs::remove(temporary, ec);
    return std::unexpected(
        Diagnostic::error(std::string(plugin) + ".write-failed", "cannot write " + path + ": " + ec.message()));
  }
  return path;
}

} // namespace loopscape::codegen::toolchain
