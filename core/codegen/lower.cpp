// lower(): the ordered list of lowering passes (see lower.h).
#include "core/codegen/lower.h"

#include "core/codegen/cancel.h"
#include "core/codegen/gpu_bound_loop_check.h"
#include "core/codegen/lower_blocks.h"
#include "core/codegen/lower_compact.h"
#include "core/codegen/lower_cross_thread.h"
#include "core/codegen/lower_flatten.h"
#include "core/codegen/lower_gpu.h"
#include "core/codegen/lower_gpu_split.h"
#include "core/codegen/lower_partition.h"
#include "core/codegen/lower_storage_sync.h"
#include "core/codegen/lower_thread_check.h"
#include "core/codegen/lower_unroll.h"
#include "core/codegen/lower_unswitch.h"
#include "core/codegen/lower_vectorize.h"
#include "core/ir/printer.h"
#include "core/ir/simplify.h"

#include <algorithm>
#include <cstdio>
#include <set>

namespace loopscape::codegen {

bool isReservedCName(std::string_view name) {
  // C11/C23 keywords and GNU spellings.
  static const std::set<std::string_view> keywords = {
      "alignas",       "alignof",       "asm",      "auto",     "bool",         "break",  "case",    "char",
      "const",         "constexpr",     "continue", "default",  "do",           "double", "else",    "enum",
      "extern",        "false",         "float",    "for",      "goto",         "if",     "inline",  "int",
      "long",          "nullptr",       "register", "restrict", "return",       "short",  "signed",  "sizeof",
      "static",        "static_assert", "struct",   "switch",   "thread_local", "true",   "typedef", "typeof",
      "typeof_unqual", "union",         "unsigned", "void",     "volatile",     "while"};
  // Object-like and function-like macros of the headers a kernel includes (math.h,
  // stdbool.h, stdint.h, stdlib.h, string.h, omp.h) under -std=gnu11, the ones the
  // patterns below do not cover.
  static const std::set<std::string_view> macros = {"BIG_ENDIAN",
                                                    "BYTE_ORDER",
                                                    "EXIT_FAILURE",
                                                    "EXIT_SUCCESS",
                                                    "FD_CLR",
                                                    "FD_ISSET",
                                                    "FD_SET",
                                                    "FD_SETSIZE",
                                                    "FD_ZERO",
                                                    "INFINITY",
                                                    "LITTLE_ENDIAN",
                                                    "MATH_ERREXCEPT",
                                                    "MATH_ERRNO",
                                                    "MB_CUR_MAX",
                                                    "NAN",
                                                    "NFDBITS",
                                                    "NULL",
                                                    "PDP_ENDIAN",
                                                    "RAND_MAX",
                                                    "WCONTINUED",
                                                    "WEXITED",
                                                    "WEXITSTATUS",
                                                    "WIFCONTINUED",
                                                    "WIFEXITED",
                                                    "WIFSIGNALED",
                                                    "WIFSTOPPED",
                                                    "WNOHANG",
                                                    "WNOWAIT",
                                                    "WSTOPPED",
                                                    "WSTOPSIG",
                                                    "WTERMSIG",
                                                    "WUNTRACED",
                                                    "alloca",
                                                    "errno",
                                                    "fpclassify",
                                                    "isfinite",
                                                    "isgreater",
                                                    "isgreaterequal",
                                                    "isinf",
                                                    "isless",
                                                    "islessequal",
                                                    "islessgreater",
                                                    "isnan",
                                                    "isnormal",
                                                    "isunordered",
                                                    "linux",
                                                    "math_errhandling",
                                                    "offsetof",
                                                    "signbit",
                                                    "unix",
                                                    "i386"};
  static const std::string_view macroPrefixes[] = {"INT",   "UINT", "M_",     "FP_",   "HUGE_VAL", "PTRDIFF_",
                                                   "SIZE_", "SIG_", "WCHAR_", "WINT_", "be16",     "be32",
                                                   "be64",  "le16", "le32",   "le64",  "htobe",    "htole"};
  if (keywords.contains(name) || macros.contains(name)) return true;
  // Reserved for the implementation everywhere: `__x`, `_X`.
  if (name.size() >= 2 && name[0] == '_' && (name[1] == '_' || (name[1] >= 'A' && name[1] <= 'Z'))) return true;
  for (std::string_view prefix : macroPrefixes)
    if (name.starts_with(prefix) && name.size() > prefix.size()) {
      // INT32_MAX, UINT8_C, M_PI, FP_NAN, ...: an upper-case name after the prefix.
      const bool upper = std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
      });
      if (upper || prefix.front() == 'b' || prefix.front() == 'l' || prefix.front() == 'h') return true;
    }
  return name.starts_with("omp_");
}

std::string sanitizeIdentifier(std::string_view name) {
  std::string out;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    out += ok ? c : '_';
  }
  if (out.empty() || (out[0] >= '0' && out[0] <= '9')) out.insert(out.begin(), '_');
  if (isReservedCName(out)) out.insert(0, "v_");
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

  // Several kernels: each lowered alone, launched in order (lower_gpu_split.h).
  if (options.deviceKind == "gpu") {
    auto kernels = splitGpuKernels(func);
    if (!kernels) return std::unexpected(kernels.error());
    if (kernels->size() > 1) {
      for (std::size_t i = 0; i < kernels->size(); ++i) {
        auto one = lower((*kernels)[i], options);
        if (!one) return std::unexpected(one.error());
        if (i == 0) {
          out = std::move(*one);
          continue;
        }
        one->name = out.name + "_" + std::to_string(i);
        out.remarks.insert(out.remarks.end(), one->remarks.begin(), one->remarks.end());
        one->remarks.clear();
        out.moreKernels.push_back(std::move(*one));
      }
      return out;
    }
  }

  ir::Stmt body = func.body;
  if (options.deviceKind == "gpu") {
    if (stopped()) return cancelled();
    auto reduced = lowerCrossThreadReductions(body, out.remarks);
    if (!reduced) return std::unexpected(reduced.error());
    body = std::move(*reduced);
    log("lowerCrossThreadReductions", body);
  }

  if (stopped()) return cancelled();
  body = lowerBlocks(body);
  log("lowerBlocks", body);

  if (options.deviceKind == "gpu") {
    if (stopped()) return cancelled();
    auto gpu = lowerGpuKernel(body, options.gpuLimits, out.remarks);
    if (!gpu) return std::unexpected(gpu.error());
    body = std::move(gpu->body);
    out.gpu = std::move(gpu->kernel);
    log("lowerGpuKernel", body);

    // The bound loops against the dependences, once the launch is known to be sound.
    if (stopped()) return cancelled();
    if (const BoundLoopCheck& check = boundLoopCheck())
      if (auto ok = check(func); !ok) return std::unexpected(ok.error());

    if (stopped()) return cancelled();
    body = compactOnChipBuffers(body, *out.gpu);
    log("compactOnChipBuffers", body);
  }

  if (stopped()) return cancelled();
  SizeParams sizes = makeSizeParams(func);
  out.sizeVars = sizes.vars;
  FlatBuffers flat = flattenBuffers(body, func.params, sizes);
  out.flatParams = std::move(flat.flatParams);
  body = std::move(flat.body);
  log("flattenBuffers", body);

  if (options.deviceKind != "gpu") {
    if (stopped()) return cancelled();
    body = versionPartialUnrolls(body, out.remarks);
    log("versionPartialUnrolls", body);
  }

  if (stopped()) return cancelled();
  body = unrollLoops(body, out.remarks);
  log("unrollLoops", body);

  if (stopped()) return cancelled();
  body = ir::simplify(body);
  log("simplify", body);

  if (options.deviceKind == "gpu") {
    if (stopped()) return cancelled();
    auto placed = placeOnChipBuffers(body, options.gpuLimits, *out.gpu);
    if (!placed) return std::unexpected(placed.error());
    body = std::move(*placed);
    log("placeOnChipBuffers", body);

    // float2/float4 accesses: the printers turn an aligned vector access into one access.
    if (stopped()) return cancelled();
    body = vectorizeLoops(body, std::min(options.maxVectorLanes, kGpuMaxVectorLanes), out.remarks);
    log("vectorizeLoops", body);

    if (stopped()) return cancelled();
    body = insertSharedBarriers(body, *out.gpu);
    log("insertSharedBarriers", body);
  } else {
    if (stopped()) return cancelled();
    body = partitionLoops(body, out.remarks);
    log("partitionLoops", body);

    if (stopped()) return cancelled();
    body = vectorizeLoops(body, options.maxVectorLanes, out.remarks, options.maskedLoads);
    log("vectorizeLoops", body);
  }

  if (stopped()) return cancelled();
  out.body = std::move(body);
  // A remark once: the copies of a partitioned or unrolled loop repeat the remarks of
  // the loops inside.
  std::vector<Remark> unique;
  for (auto& r : out.remarks)
    if (std::none_of(unique.begin(), unique.end(),
                     [&](const Remark& u) { return u.loop == r.loop && u.message == r.message; }))
      unique.push_back(std::move(r));
  out.remarks = std::move(unique);
  return out;
}

} // namespace loopscape::codegen
