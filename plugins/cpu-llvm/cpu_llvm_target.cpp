// The cpu-llvm Target: LoweredFunc -> LLVM IR (ir_gen) -> O3 for the host CPU
// (host_machine) -> object -> ORC LLJIT (jit_kernel); and the plugin's two exported
// factory functions (target.h). A stop request (BuildOptions::stop) is seen between
// these steps and between the passes of O3; the machine code generation runs to its end.
#include "core/codegen/cancel.h"
#include "host_machine.h"
#include "ir_gen.h"
#include "jit_kernel.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include <fmt/format.h>

namespace loopscape::codegen::cpullvm {

namespace {

/// An optimised module and the machine it was optimised for (the context owns the module).
struct Compiled {
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
  std::unique_ptr<llvm::TargetMachine> machine;
};

Diagnostic cancelled() { return cancelledDiagnostic("building"); }

Expected<Compiled> compile(const LoweredFunc& func, const BuildOptions& options) {
  if (options.stop.stop_requested()) return Unexpected(cancelled());
  auto machine = createHostMachine(options.fastMath);
  if (!machine) return Unexpected(machine.error());
  Compiled c;
  c.context = std::make_unique<llvm::LLVMContext>();
  GenOptions gen;
  gen.fastMath = options.fastMath;
  gen.threads = options.threads;
  gen.cpu = hostInfo().cpu;
  gen.features = hostInfo().features;
  gen.preferVectorBits = hostInfo().vectorBits;
  auto module = generateModule(func, gen, *c.context);
  if (!module) return Unexpected(module.error());
  c.module = std::move(*module);
  c.machine = std::move(*machine);
  if (options.stop.stop_requested()) return Unexpected(cancelled());
  optimizeModule(*c.module, *c.machine, options.stop);
  if (options.stop.stop_requested()) return Unexpected(cancelled());
  return c;
}

class CpuLlvmTarget final : public Target {
public:
  std::string name() const override { return "cpu-llvm"; }
  std::string deviceKind() const override { return "cpu"; }
  std::string description() const override {
    return fmt::format("LLVM {} IR, O3 for the host CPU ({}), ORC JIT in-process; parallel loops on OpenMP",
                       hostInfo().llvmVersion, hostInfo().usable ? hostInfo().cpu : "unavailable");
  }
  TargetCapabilities capabilities() const override {
    TargetCapabilities caps;
    caps.parallel = true;
    caps.vectorBits = hostInfo().usable ? hostInfo().vectorBits : 0;
    caps.concurrentBuilds = true; // every build has its own LLVMContext, TargetMachine and JIT
    caps.maskedLoads = true;      // llvm.masked.load / llvm.masked.gather (ir_gen_expr.cpp)
    return caps;
  }
  ToolchainStatus toolchain() const override {
    const HostInfo& host = hostInfo();
    if (!host.usable) return {false, host.error};
    std::string text = fmt::format("LLVM {} (ORC LLJIT), host CPU {} ({}), {}-bit vectors", host.llvmVersion, host.cpu,
                                   host.triple, host.vectorBits);
    if (!host.hostCpu.empty())
      text += fmt::format("; LLVM {} names this CPU {}, {} is the nearest model it knows (vendor and features)",
                          host.llvmVersion, host.hostCpu, host.cpu);
    return {true, text};
  }
  std::vector<std::string> sourceFormats() const override { return {"llvm", "asm"}; }

  Expected<std::string> source(const LoweredFunc& func, const std::string& format,
                               const BuildOptions& options) override {
    if (format != "llvm" && format != "asm")
      return Unexpected(Diagnostic::error(
          "codegen.unknown-format", fmt::format("cpu-llvm has no source format '{}' (it has: llvm, asm)", format)));
    auto c = compile(func, options);
    if (!c) return Unexpected(c.error());
    if (format == "llvm") return moduleText(*c->module);
    return emitAssembly(*c->module, *c->machine);
  }

  Expected<std::unique_ptr<Kernel>> build(const LoweredFunc& func, const BuildOptions& options) override {
    auto c = compile(func, options);
    if (!c) return Unexpected(c.error());
    auto object = emitObject(*c->module, *c->machine);
    if (!object) return Unexpected(object.error());
    if (options.stop.stop_requested()) return Unexpected(cancelled());
    KernelSpec spec;
    spec.object = std::move(*object);
    spec.symbol = kernelSymbol(func);
    spec.packedSymbol = packedSymbol(func);
    spec.buffers = func.params.size();
    spec.sizes = func.sizeVars.size();
    spec.workDir = options.workDir;
    spec.stop = options.stop;
    return makeJitKernel(std::move(spec));
  }
};

} // namespace

} // namespace loopscape::codegen::cpullvm

extern "C" __attribute__((visibility("default"))) int loopscape_target_abi_version() {
  return loopscape::codegen::kTargetAbiVersion;
}

extern "C" __attribute__((visibility("default"))) loopscape::codegen::Target* loopscape_create_target() {
  return new loopscape::codegen::cpullvm::CpuLlvmTarget();
}
