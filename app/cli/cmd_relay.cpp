// `relay`: Relay models (core/frontend/relay). `relay print MODEL` (also reached as
// `print MODEL --format relay`) parses and type-checks the model and prints the typed
// graph back in Relay text.
#include "cli_support.h"
#include "commands.h"

#include "core/frontend/relay/relay_parser.h"
#include "core/frontend/relay/relay_printer.h"
#include "core/frontend/relay/relay_type_infer.h"

#include <cstdio>
#include <memory>

namespace loopscape::cli {

namespace {

/// The parsed and typed model, or nullopt after printing the diagnostic (bad input).
std::optional<frontend::relay::Module> loadRelay(const std::string& path, std::string& source) {
  auto text = readFile(path);
  if (!text) {
    printDiagnostic(text.error());
    return std::nullopt;
  }
  source = std::move(*text);
  auto parsed = frontend::relay::parseRelay(source, path);
  if (!parsed) {
    printDiagnostic(parsed.error(), source);
    return std::nullopt;
  }
  auto typed = frontend::relay::inferTypes(*parsed);
  if (!typed) {
    printDiagnostic(typed.error(), source);
    return std::nullopt;
  }
  return std::move(*typed);
}

} // namespace

int printRelayModel(const std::string& path) {
  std::string source;
  auto model = loadRelay(path, source);
  if (!model) return kExitBadInput;
  std::fputs(frontend::relay::printRelay(*model).c_str(), stdout);
  return kExitOk;
}

void registerRelay(CLI::App& app, CommandResult& result) {
  auto* relay = app.add_subcommand("relay", "Relay models: print the typed graph");
  relay->require_subcommand(1);
  auto file = std::make_shared<std::string>();
  auto* print = relay->add_subcommand("print", "Parse and type-check MODEL.relay and print the typed graph");
  print->add_option("MODEL", *file, "Relay text file (TVM 0.8-0.18, #[version = \"0.0.5\"])")->required();
  print->callback([file, &result] { result.exitCode = printRelayModel(*file); });
}

} // namespace loopscape::cli
