#include "plugins/cpu-c/c_compiler.h"

#include "plugins/common/toolchain.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

namespace loopscape::codegen::cpu_c {

namespace fs = std::filesystem;

namespace {

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

std::vector<std::string> compileFlags(const BuildOptions& options) {
  std::vector<std::string> flags = {"-std=gnu11", "-O3", "-march=native", "-fopenmp", "-fPIC", "-fwrapv",
                                    "-fno-math-errno"};
  flags.push_back(options.fastMath ? "-ffast-math" : "-ffp-contract=off");
  return flags;
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
  if (auto ok = toolchain::requireCompiler("cpu-c"); !ok) return std::unexpected(ok.error());
  auto dir = toolchain::cacheDir(options, "cpu-c");
  if (!dir) return std::unexpected(dir.error());
  std::vector<std::string> flags = compileFlags(options);
  flags.push_back(assembly ? "-S" : "-shared");
  std::string flagText;
  for (const auto& f : flags)
    flagText += f + " ";
  const toolchain::Compiler& cc = toolchain::systemCompiler();
  const fs::path base = fs::path(*dir) / toolchain::contentHash({cc.path, cc.version, flagText, source});
  const std::string cPath = base.string() + ".c";
  return toolchain::cachedOutput(
      "cpu-c", base.string() + (assembly ? ".s" : ".so"), [&](const std::string& temporary) -> Expected<void> {
        if (!writeText(cPath, source))
          return std::unexpected(Diagnostic::error("cpu-c.write-failed", "cannot write " + cPath));
        std::vector<std::string> args = flags;
        args.insert(args.end(), {"-o", temporary, cPath});
        if (!assembly) args.push_back("-lm");
        auto ran = toolchain::runCompiler("cpu-c", args, options.stop);
        if (!ran) return std::unexpected(ran.error());
        if (ran->exitStatus == 0) return {};
        std::string output = ran->output;
        if (output.empty()) output = "(no output; exit status " + std::to_string(ran->exitStatus) + ")";
        return std::unexpected(compileError(cPath, source, output));
      });
}

} // namespace loopscape::codegen::cpu_c
