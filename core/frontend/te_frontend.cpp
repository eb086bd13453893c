#include "core/frontend/te_frontend.h"

#include "core/frontend/te_eval.h"
#include "core/frontend/te_lower.h"
#include "core/frontend/te_parser.h"

namespace loopscape::frontend {

Expected<ir::PrimFunc> parseTe(std::string_view source, std::string fileName) {
  auto module = parseTeModule(source, fileName);
  if (!module) return std::unexpected(module.error());
  auto program = evaluateTe(*module, fileName);
  if (!program) return std::unexpected(program.error());
  return lowerTe(*program);
}

} // namespace loopscape::frontend
