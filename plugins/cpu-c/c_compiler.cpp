#include "plugins/cpu-c/c_compiler.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <unistd.h>

namespace loopscape::codegen::cpu_c {

namespace fs = std::filesystem;

namespace {

std::string shellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

/// stdout of `command` (stderr discarded), or nullopt when it could not run / failed.
std::optional<std::string> capture(const std::string& command) {
  FILE* pipe = popen((command + " 2>/dev/null").c_str(), "r");
  if (!pipe) return std::nullopt;
  std::string out;
  std::array<char, 4096> buf;
  while (std::size_t n = fread(buf.data(), 1, buf.size(), pipe)) out.append(buf.data(), n);
  int status = pclose(pipe);
  if (status != 0) return std::nullopt;
  return out;
}

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

Compiler detect() {
  Compiler c;
  if (const char* env = std::getenv("CC"); env && *env) {
    c.command = env;
    std::string first = c.command.substr(0, c.command.find(' '));
    c.path = findInPath(first);
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
  if (c.command.empty()) return c;
  auto out = capture(c.command + " --version");
  if (!out) return c;
  std::string first = out->substr(0, out->find('\n'));
  std::smatch m;
  if (first.find("clang") != std::string::npos && std::regex_search(first, m, std::regex(R"(version ([0-9][0-9.]*))")))
    c.version = "clang " + m[1].str();
  else if (std::regex_search(first, m, std::regex(R"(([0-9]+\.[0-9]+(\.[0-9]+)?)\s*$)")))
    c.version = "gcc " + m[1].str();
  else
    c.version = first;
  return c;
}

std::uint64_t fnv1a(std::string_view text, std::uint64_t h = 0xcbf29ce484222325ull) {
  for (unsigned char ch : text) {
    h ^= ch;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::optional<std::string> readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool writeText(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  return static_cast<bool>(out);
}

std::string lineOf(const std::string& text, int line) {
  std::stringstream ss(text);
  std::string l;
  for (int i = 1; std::getline(ss, l); ++i)
    if (i == line) return l;
  return {};
}

Diagnostic compileError(const std::string& cPath, const std::string& source, const std::string& output) {
  std::smatch m;
  std::regex errorLine(R"(:([0-9]+):([0-9]+): (fatal )?error: ([^\n]*))");
  auto d = Diagnostic::error("cpu-c.compile-error", "the C compiler rejected the generated code");
  if (std::regex_search(output, m, errorLine)) {
    int line = std::stoi(m[1].str());
    d.message += ": " + m[4].str();
    d.location = {cPath, line, std::stoi(m[2].str()), 1};
    d.notes.push_back("generated line " + std::to_string(line) + ": " + lineOf(source, line));
  }
  d.notes.push_back("compiler output:\n" + output);
  return d;
}

} // namespace

const Compiler& systemCompiler() {
  static const Compiler compiler = detect();
  return compiler;
}

std::vector<std::string> compileFlags(const BuildOptions& options) {
  std::vector<std::string> flags = {"-std=gnu11", "-O3", "-march=native", "-fopenmp", "-fPIC", "-fwrapv",
                                    "-fno-math-errno"};
  flags.push_back(options.fastMath ? "-ffast-math" : "-ffp-contract=off");
  return flags;
}

Expected<std::string> cacheDir(const BuildOptions& options) {
  fs::path dir;
  if (!options.workDir.empty()) dir = options.workDir;
  else if (const char* env = std::getenv("LOOPSCAPE_CACHE_DIR"); env && *env) dir = fs::path(env) / "cpu-c";
  else if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) dir = fs::path(xdg) / "loopscape" / "cpu-c";
  else if (const char* home = std::getenv("HOME"); home && *home) dir = fs::path(home) / ".cache" / "loopscape" / "cpu-c";
  else dir = fs::temp_directory_path() / "loopscape-cpu-c";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir))
    return std::unexpected(Diagnostic::error("cpu-c.cache-dir", "cannot create the build directory " + dir.string() +
                                                                     (ec ? ": " + ec.message() : std::string())));
  return dir.string();
}

std::string applyTestHooks(std::string source) {
  const char* hook = std::getenv("LOOPSCAPE_CPU_C_TEST_BREAK_SOURCE");
  if (!hook || std::string_view(hook) != "1") return source;
  auto pos = source.find("// block ");
  if (pos == std::string::npos) return source;
  auto lineStart = source.rfind('\n', pos) + 1;
  auto lineEnd = source.find('\n', pos) + 1;
  std::string indent = source.substr(lineStart, pos - lineStart);
  source.insert(lineEnd, indent + "ls_test_broken_statement;\n");
  return source;
}

Expected<std::string> compile(const std::string& source, const BuildOptions& options, bool assembly) {
  const Compiler& cc = systemCompiler();
  if (cc.command.empty() || cc.version.empty())
    return std::unexpected(Diagnostic::error(
        "cpu-c.no-compiler", cc.command.empty() ? "no C compiler found ($CC, cc, gcc, clang in PATH)"
                                                : "the C compiler '" + cc.command + "' does not run"));
  auto dir = cacheDir(options);
  if (!dir) return std::unexpected(dir.error());
  std::vector<std::string> flags = compileFlags(options);
  flags.push_back(assembly ? "-S" : "-shared");
  std::string key = cc.path + "\n" + cc.version + "\n";
  for (const auto& f : flags) key += f + " ";
  key += "\n" + source;
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(fnv1a(key)));
  fs::path base = fs::path(*dir) / hash;
  std::string cPath = base.string() + ".c";
  std::string outPath = base.string() + (assembly ? ".s" : ".so");
  if (fs::exists(outPath)) return outPath;

  if (!writeText(cPath, source))
    return std::unexpected(Diagnostic::error("cpu-c.write-failed", "cannot write " + cPath));
  std::string tmp = outPath + ".tmp" + std::to_string(getpid());
  std::string errPath = base.string() + ".err" + std::to_string(getpid());
  std::string command = "LC_ALL=C " + cc.command; // ASCII quotes in messages
  for (const auto& f : flags) command += " " + f;
  command += " -o " + shellQuote(tmp) + " " + shellQuote(cPath) + (assembly ? "" : " -lm") + " > " + shellQuote(errPath) + " 2>&1";
  int status = std::system(command.c_str());
  std::string output = readText(errPath).value_or("");
  std::error_code ec;
  fs::remove(errPath, ec);
  if (status != 0) {
    fs::remove(tmp, ec);
    if (output.empty()) output = "(no output; exit status " + std::to_string(status) + ")";
    return std::unexpected(compileError(cPath, source, output));
  }
  fs::rename(tmp, outPath, ec);
  if (ec) return std::unexpected(Diagnostic::error("cpu-c.write-failed", "cannot write " + outPath + ": " + ec.message()));
  return outPath;
}

} // namespace loopscape::codegen::cpu_c
