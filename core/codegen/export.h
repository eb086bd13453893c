// Exporting a kernel for use outside Loopscape: a directory with
//   kernel.c       the C source the target generated (self-contained C11 + OpenMP)
//   kernel.h       the C signature, documented: one comment line per parameter with its
//                  shape, dtype and role, then the symbolic sizes; extern "C" for C++
//   libkernel.so   the shared library the target built from kernel.c (the same binary the
//                  runner verifies), linkable with -lkernel
//   README.txt     how to compile against it and call it
// Only targets that produce C source ("c" in Target::sourceFormats(), i.e. cpu-c) and a
// shared library can export; others are refused with "export.unsupported-target".
#pragma once

#include "core/codegen/lowered_func.h"
#include "core/codegen/target.h"
#include "core/ir/prim_func.h"

#include <string>
#include <vector>

namespace loopscape::codegen {

struct ExportOptions {
  std::string outDir;       ///< created if missing; existing files of the same names are replaced
  BuildOptions build;       ///< how the library is built (threads, fast math)
  std::string origin;       ///< one line naming where the kernel came from (program, trace)
};

struct ExportResult {
  std::string directory;
  std::vector<std::string> files; ///< full paths, in the order listed above
  std::string symbol;             ///< the kernel function's name
};

/// The C type of a scalar dtype in the exported header ("float", "int32_t", "_Float16",
/// "bool").
std::string exportCType(ir::DataType t);

/// The text of kernel.h for `lowered` (built from `func`, whose parameters it documents).
/// `hasPacked`: also declare `<name>_packed(void* const* buffers, const int64_t* sizes)`.
std::string kernelHeader(const ir::PrimFunc& func, const LoweredFunc& lowered, const std::string& origin,
                         bool hasPacked);

/// Writes the export directory (see the file comment).
Expected<ExportResult> exportKernel(Target& target, const ir::PrimFunc& func, const LoweredFunc& lowered,
                                    const ExportOptions& options);

} // namespace loopscape::codegen
