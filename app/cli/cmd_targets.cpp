// `targets`: every target plugin the registry found (target_registry.h), with its device
// kind, capabilities and whether its toolchain is usable here; refused plugins are listed
// with the reason. Exit status 0 even when no plugin is usable (it is a report).
#include "cli_support.h"
#include "commands.h"

#include "core/codegen/pipeline.h"

#include <cstdio>
#include <string>

namespace loopscape::cli {

namespace {
int runTargets() {
  const auto& registry = codegen::Pipeline().registry();
  if (registry.plugins().empty()) {
    std::string dirs;
    for (const auto& d : registry.searchDirs()) dirs += "  " + d + "\n";
    std::printf("no target plugins found; searched:\n%s", dirs.c_str());
    return kExitOk;
  }
  for (const auto& p : registry.plugins()) {
    if (!p.enabled) {
      std::printf("%s  disabled: %s\n  file: %s\n", p.name.c_str(), p.error.message.c_str(), p.path.c_str());
      continue;
    }
    const codegen::Target& t = *p.target;
    auto caps = t.capabilities();
    auto tc = t.toolchain();
    std::string formats;
    for (const auto& f : t.sourceFormats()) formats += (formats.empty() ? "" : ", ") + f;
    std::printf("%s  (%s) %s\n", t.name().c_str(), tc.usable ? "usable" : "not usable", t.description().c_str());
    std::printf("  device: %s; parallel: %s; vector bits: %d; gpu threads: %s; shared memory: %s\n",
                t.deviceKind().c_str(), caps.parallel ? "yes" : "no", caps.vectorBits, caps.gpuThreads ? "yes" : "no",
                caps.sharedMemory ? "yes" : "no");
    if (t.deviceKind() == "gpu")
      std::printf("  limits: %lld threads per block (%lld x %lld x %lld), %lld bytes shared memory per block, %lld "
                  "bytes local memory per thread\n",
                  static_cast<long long>(caps.gpu.maxThreadsPerBlock), static_cast<long long>(caps.gpu.maxThreadDim[0]),
                  static_cast<long long>(caps.gpu.maxThreadDim[1]), static_cast<long long>(caps.gpu.maxThreadDim[2]),
                  static_cast<long long>(caps.gpu.maxSharedBytesPerBlock),
                  static_cast<long long>(caps.gpu.maxLocalBytesPerThread));
    std::printf("  formats: %s\n  toolchain: %s\n  file: %s\n", formats.c_str(), tc.message.c_str(), p.path.c_str());
  }
  return kExitOk;
}
} // namespace

void registerTargets(CLI::App& app, CommandResult& result) {
  auto* cmd = app.add_subcommand("targets", "List the target plugins, their capabilities and toolchain status");
  cmd->callback([&result] { result.exitCode = runTargets(); });
}

} // namespace loopscape::cli
