#include "cli_support.h"
#include "commands.h"

#include "core/ir/printer.h"

#include <cstdio>
#include <memory>

namespace loopscape::cli {

void registerPrint(CLI::App& app, CommandResult& result) {
  auto* cmd = app.add_subcommand("print", "Print the program as TVMScript-style TensorIR");
  auto file = std::make_shared<std::string>();
  cmd->add_option("FILE", *file, "Program file (.te)")->required();
  cmd->callback([file, &result] {
    auto program = loadProgram(*file);
    if (!program) {
      result.exitCode = kExitBadInput;
      return;
    }
    std::fputs(ir::printPrimFunc(program->func).c_str(), stdout);
    result.exitCode = kExitOk;
  });
}

} // namespace loopscape::cli
