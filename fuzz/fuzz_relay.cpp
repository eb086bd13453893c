// A Relay model in TVM's text format, as `loopscape-cli relay groups MODEL.relay` reads it:
// parseRelay, type inference, the printer (whose output must parse and print back to the
// same text: print ∘ parse ∘ print = print), the graph passes, TVM's fusion and the
// lowering of every fused group to a PrimFunc. Constants get no values (no interpreter
// runs), so FoldConstant only folds what the text itself holds.
#include "fuzz/fuzz_support.h"

#include "core/frontend/relay/relay_fuse.h"
#include "core/frontend/relay/relay_parser.h"
#include "core/frontend/relay/relay_passes.h"
#include "core/frontend/relay/relay_printer.h"
#include "core/frontend/relay/relay_type_infer.h"

#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace loopscape;
  namespace relay = frontend::relay;
  if (size > fuzz::kMaxInputBytes) return -1;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parsed = relay::parseRelay(text, "fuzz.relay");
  if (!parsed) return 0;
  auto typed = relay::inferTypes(*parsed);
  if (!typed) return 0;
  const std::string printed = relay::printRelay(*typed);
  auto reparsed = relay::parseRelay(printed, "printed.relay");
  auto retyped = reparsed ? relay::inferTypes(*reparsed) : decltype(typed)(std::unexpected(reparsed.error()));
  if (!retyped || relay::printRelay(*retyped) != printed) {
    std::fprintf(stderr, "fuzz_relay: the printed model does not print back the same:\n%s\n%s\n", printed.c_str(),
                 retyped ? relay::printRelay(*retyped).c_str() : retyped.error().message.c_str());
    std::abort();
  }
  auto passed = relay::runPasses(*typed);
  if (!passed || passed->functions.empty()) return 0;
  const relay::FusionResult fusion = relay::fuseOps(passed->functions.front());
  for (const relay::FusedGroup& group : fusion.groups)
    (void)relay::lowerGroup(group);
  return 0;
}
