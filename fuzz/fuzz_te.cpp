// A `.te` program, as `loopscape-cli print FILE.te` reads it: parseTe (lex, parse,
// evaluate, lower as te.create_prim_func), then the TVMScript printer on the PrimFunc.
#include "fuzz/fuzz_support.h"

#include "core/frontend/te_frontend.h"
#include "core/ir/printer.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace loopscape;
  if (size > fuzz::kMaxInputBytes) return -1;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto func = frontend::parseTe(text, "fuzz.te");
  if (!func) return 0;
  (void)ir::printPrimFunc(*func);
  return 0;
}
