// The host CPU as an LLVM code generation target (internal to the cpu-llvm plugin): the
// native target initialised once per process, a TargetMachine for the host CPU name and
// features (sys::getHostCPUName / getHostCPUFeatures; AVX-512 where present), the
// standard O3 pipeline, and emission of the module as text, assembly or an object file.
// Objects are position independent, so the same bytes load into the JIT and link into a
// shared library.
#pragma once

#include "core/ir/diagnostic.h"

#include <memory>
#include <stop_token>
#include <string>
#include <vector>

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace loopscape::codegen::cpullvm {

struct HostInfo {
  bool usable = false;
  std::string error;       ///< why not, when !usable
  std::string llvmVersion; ///< "16.0.6"
  std::string triple;      ///< "x86_64-pc-linux-gnu"
  std::string cpu;         ///< "znver4", "skylake-avx512": what the code is tuned for
  /// "generic" when LLVM did not know the host CPU (cpu is then the nearest model it
  /// knows, from the vendor and features); empty when it did.
  std::string hostCpu;
  std::string features; ///< "+avx512f,+fma,...": the host's (when hostCpu is set, "-x" for
                        ///< each feature it lacks, so the model implies nothing more)
  int vectorBits = 128; ///< 512 with AVX-512F, 256 with AVX, else 128
};

/// Initialises the native target on first use (thread-safe) and describes the host.
const HostInfo& hostInfo();

/// A TargetMachine for the host (O3, PIC); `fastMath` enables FP op fusion.
Expected<std::unique_ptr<llvm::TargetMachine>> createHostMachine(bool fastMath);

/// Sets the module's triple and data layout to the machine's and runs the O3 pipeline. A
/// stop request skips the passes still to run (the module is then only partly optimised:
/// the caller sees the stop and discards it).
void optimizeModule(llvm::Module& module, llvm::TargetMachine& machine, std::stop_token stop = {});

/// The module as LLVM assembly text.
std::string moduleText(const llvm::Module& module);

/// Machine code of `module` as assembly text or as an ELF object (the module is changed
/// by code generation; pass a copy when it is needed afterwards).
Expected<std::string> emitAssembly(llvm::Module& module, llvm::TargetMachine& machine);
Expected<std::vector<char>> emitObject(llvm::Module& module, llvm::TargetMachine& machine);

} // namespace loopscape::codegen::cpullvm
