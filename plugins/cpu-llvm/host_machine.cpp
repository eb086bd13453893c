// The host CPU as an LLVM target: initialisation, TargetMachine, O3 pipeline, emission.
#include "host_machine.h"

#include <llvm/ADT/StringMap.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassInstrumentation.h>
#include <llvm/MC/SubtargetFeature.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>

#include <mutex>

namespace loopscape::codegen::cpullvm {

namespace {

/// The CPU model nearest to a host that LLVM names "generic" (a CPU newer than this LLVM:
/// LLVM 16 does not know Zen 5), from its vendor and features, so that the backend tunes
/// for a real model (scheduling, costs) instead of none; "generic" when nothing fits. The
/// host's own features are still what the code may use.
std::string nearestKnownCpu(const llvm::StringMap<bool>& features) {
#if defined(__x86_64__)
  auto has = [&](const char* name) { return features.lookup(name); };
  __builtin_cpu_init();
  if (__builtin_cpu_is("amd")) {
    if (has("avx512f")) return "znver4";
    if (has("avx2") && has("vaes")) return "znver3";
    if (has("avx2") && has("clwb")) return "znver2";
    if (has("avx2")) return "znver1";
  } else if (__builtin_cpu_is("intel")) {
    if (has("avx512fp16")) return "sapphirerapids";
    if (has("avx512vbmi2")) return "icelake-server";
    if (has("avx512f")) return "skylake-avx512";
    if (has("avx2")) return "haswell";
  }
  if (has("avx2")) return "x86-64-v3";
  if (has("sse4.2")) return "x86-64-v2";
#else
  (void)features;
#endif
  return "generic";
}

/// Bounds the memory dependences LLVM's instruction schedulers (the machine scheduler, and
/// the post-RA scheduler the Zen models enable) track in one scheduling region: past this
/// many loads and stores the DAG builder orders them by a chain instead of comparing each
/// pair. LLVM's default, 1000, lets a fully unrolled tile (sample_categorical's unroll
/// 512, one basic block of thousands of vector loads and stores) spend most of its
/// compile in SUnit::addPred: 23 s for one tuned conv2d candidate on a Zen 1, 9.8 s with
/// 400, the same kernel time; 200 cost some candidates 5 % of their speed. Set once per
/// process, and only if nothing else set it (LLVM's options are process-wide).
constexpr const char* kSchedulerHugeRegion = "400";

void boundSchedulingRegions() {
  auto& options = llvm::cl::getRegisteredOptions();
  auto it = options.find("dag-maps-huge-region");
  if (it != options.end() && it->second->getNumOccurrences() == 0)
    it->second->addOccurrence(0, "dag-maps-huge-region", kSchedulerHugeRegion);
}

HostInfo detectHost() {
  HostInfo info;
  info.llvmVersion = LLVM_VERSION_STRING;
  if (llvm::InitializeNativeTarget() || llvm::InitializeNativeTargetAsmPrinter() ||
      llvm::InitializeNativeTargetAsmParser()) {
    info.error = "LLVM " + info.llvmVersion + " has no native target for this machine";
    return info;
  }
  boundSchedulingRegions();
  info.triple = llvm::sys::getProcessTriple();
  info.cpu = llvm::sys::getHostCPUName().str();
  llvm::StringMap<bool> features;
  llvm::SubtargetFeatures enabled;
  if (llvm::sys::getHostCPUFeatures(features))
    for (const auto& f : features)
      if (f.second) enabled.AddFeature(f.first(), true);
  info.features = enabled.getString();
  if (info.cpu == "generic") {
    info.hostCpu = info.cpu;
    info.cpu = nearestKnownCpu(features);
    // The model's implied features the host lacks are turned off again.
    llvm::SubtargetFeatures exact(info.features);
    for (const auto& f : features)
      if (!f.second) exact.AddFeature(f.first(), false);
    info.features = exact.getString();
  }
  auto has = [&](const char* name) { return features.lookup(name); };
  info.vectorBits = has("avx512f") ? 512 : has("avx") ? 256 : 128;
  info.usable = true;
  return info;
}

} // namespace

const HostInfo& hostInfo() {
  static std::once_flag once;
  static HostInfo info;
  std::call_once(once, [] { info = detectHost(); });
  return info;
}

Expected<std::unique_ptr<llvm::TargetMachine>> createHostMachine(bool fastMath) {
  const HostInfo& host = hostInfo();
  if (!host.usable) return Unexpected(Diagnostic::error("cpu-llvm.toolchain", host.error));
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    return Unexpected(Diagnostic::error("cpu-llvm.toolchain", "cannot describe the host CPU to LLVM: " +
                                                                  llvm::toString(builder.takeError())));
  builder->setCPU(host.cpu);
  builder->getFeatures() = llvm::SubtargetFeatures(host.features);
  builder->setCodeGenOptLevel(llvm::CodeGenOpt::Aggressive);
  builder->setRelocationModel(llvm::Reloc::PIC_);
  builder->setCodeModel(llvm::CodeModel::Small);
  if (fastMath) {
    builder->getOptions().AllowFPOpFusion = llvm::FPOpFusion::Fast;
    builder->getOptions().UnsafeFPMath = true;
    builder->getOptions().NoInfsFPMath = true;
    builder->getOptions().NoNaNsFPMath = true;
    builder->getOptions().NoSignedZerosFPMath = true;
  }
  auto machine = builder->createTargetMachine();
  if (!machine)
    return Unexpected(Diagnostic::error("cpu-llvm.toolchain", "cannot create a target machine for " + host.cpu + ": " +
                                                                  llvm::toString(machine.takeError())));
  return std::move(*machine);
}

void optimizeModule(llvm::Module& module, llvm::TargetMachine& machine, std::stop_token stop) {
  module.setTargetTriple(machine.getTargetTriple().str());
  module.setDataLayout(machine.createDataLayout());
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  tuning.LoopUnrolling = true;
  // Asked before every pass that may be skipped (all of O3's but the required ones), so a
  // stop is seen within one pass on one function or loop, not after the whole pipeline.
  llvm::PassInstrumentationCallbacks instrumentation;
  instrumentation.registerShouldRunOptionalPassCallback(
      [stop](llvm::StringRef, llvm::Any) { return !stop.stop_requested(); });
  llvm::PassBuilder pb(&machine, tuning, std::nullopt, &instrumentation);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  mpm.run(module, mam);
}

std::string moduleText(const llvm::Module& module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os, nullptr);
  os.flush();
  return text;
}

namespace {
Expected<std::vector<char>> emit(llvm::Module& module, llvm::TargetMachine& machine, llvm::CodeGenFileType type) {
  module.setTargetTriple(machine.getTargetTriple().str());
  module.setDataLayout(machine.createDataLayout());
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  if (machine.addPassesToEmitFile(pm, os, nullptr, type))
    return Unexpected(Diagnostic::error("cpu-llvm.codegen", "the LLVM target cannot emit this kind of file"));
  pm.run(module);
  return std::vector<char>(buffer.begin(), buffer.end());
}
} // namespace

Expected<std::string> emitAssembly(llvm::Module& module, llvm::TargetMachine& machine) {
  auto bytes = emit(module, machine, llvm::CGFT_AssemblyFile);
  if (!bytes) return Unexpected(bytes.error());
  return std::string(bytes->begin(), bytes->end());
}

Expected<std::vector<char>> emitObject(llvm::Module& module, llvm::TargetMachine& machine) {
  return emit(module, machine, llvm::CGFT_ObjectFile);
}

} // namespace loopscape::codegen::cpullvm
