// lower(): the ordered list of lowering passes (see lower.h).
#include "core/codegen/lower.h"

#include "core/codegen/cancel.h"
#include "core/codegen/lower_blocks.h"
#include "core/codegen/lower_flatten.h"
#include "core/codegen/lower_thread_check.h"
#include "core/codegen/lower_unroll.h"
#include "core/codegen/lower_vectorize.h"
#include "core/ir/printer.h"
#include "core/ir/simplify.h"

#include <cstdio>

namespace loopscape::codegen {

std::string sanitizeIdentifier(std::string_view name) {
  std::string out;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    out += ok ? c : '_';
  }
  if (out.empty() || (out[0] >= '0' && out[0] <= '9')) out.insert(out.begin(), '_');
  return out;
}

Expected<LoweredFunc> lower(const ir::PrimFunc& func, const LowerOptions& options) {
  auto log = [&](std::string_view pass, const ir::Stmt& body) {
    if (!options.trace) return;
    std::string text = ir::printStmt(body);
    if (options.log) {
      options.log(pass, text);
      return;
    }
    std::fprintf(stderr, "=== after %.*s ===\n%s\n", static_cast<int>(pass.size()), pass.data(), text.c_str());
  };

  // A stop request is seen before each pass.
  const auto stopped = [&] { return options.stop.stop_requested(); };
  const auto cancelled = [] { return std::unexpected(cancelledDiagnostic("lowering")); };

  LoweredFunc out;
  out.name = sanitizeIdentifier(func.name) + "_kernel";
  out.params = func.params;

  if (stopped()) return cancelled();
  if (auto ok = checkThreadBindings(func.body, options.deviceKind); !ok) return std::unexpected(ok.error());

  if (stopped()) return cancelled();
  ir::Stmt body = lowerBlocks(func.body);
  log("lowerBlocks", body);

  if (stopped()) return cancelled();
  SizeParams sizes = makeSizeParams(func);
  out.sizeVars = sizes.vars;
  FlatBuffers flat = flattenBuffers(body, func.params, sizes);
  out.flatParams = std::move(flat.flatParams);
  body = std::move(flat.body);
  log("flattenBuffers", body);

  if (stopped()) return cancelled();
  body = unrollLoops(body, out.remarks);
  log("unrollLoops", body);

  if (stopped()) return cancelled();
  body = ir::simplify(body);
  log("simplify", body);

  if (stopped()) return cancelled();
  body = vectorizeLoops(body, options.maxVectorLanes, out.remarks);
  log("vectorizeLoops", body);

  if (stopped()) return cancelled();
  out.body = std::move(body);
  return out;
}

} // namespace loopscape::codegen
