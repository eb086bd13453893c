#include "fuzz/fuzz_support.h"

#include "core/frontend/te_frontend.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace loopscape::fuzz {

const ir::PrimFunc* sampleProgram(std::string_view name) {
  static std::map<std::string, ir::PrimFunc, std::less<>> programs;
  if (auto it = programs.find(name); it != programs.end()) return &it->second;
  const auto isNameChar = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  if (name.empty() || !std::all_of(name.begin(), name.end(), isNameChar)) return nullptr;
  const std::string path = std::string(LS_SOURCE_DIR "/samples/") + std::string(name) + ".te";
  std::ifstream in(path, std::ios::binary);
  if (!in) return nullptr;
  std::ostringstream text;
  text << in.rdbuf();
  auto func = frontend::parseTe(text.str(), path);
  if (!func) {
    std::fprintf(stderr, "fuzz harness: sample %s does not parse: %s\n", path.c_str(), func.error().message.c_str());
    std::abort();
  }
  return &programs.emplace(std::string(name), std::move(*func)).first->second;
}

TraceInput splitTraceInput(std::string_view input, bool stripHeader) {
  const ir::PrimFunc* program = nullptr;
  std::string_view text = input;
  if (input.starts_with(kProgramHeader)) {
    const std::size_t end = input.find('\n');
    std::string_view name = input.substr(kProgramHeader.size(), end - kProgramHeader.size());
    if (name.ends_with('\r')) name.remove_suffix(1);
    program = sampleProgram(name);
    if (stripHeader) text = end == std::string_view::npos ? std::string_view() : input.substr(end + 1);
  }
  if (!program) program = sampleProgram("matmul");
  if (!program) {
    std::fprintf(stderr, "fuzz harness: samples/matmul.te is missing under %s\n", LS_SOURCE_DIR);
    std::abort();
  }
  return {program, text};
}

void propertyFailed(std::string_view what) {
  std::fprintf(stderr, "fuzz harness: property failed: %.*s\n", static_cast<int>(what.size()), what.data());
  std::abort();
}

} // namespace loopscape::fuzz
