#include "core/codegen/export.h"

#include "core/codegen/lower.h"
#include "core/codegen/verify.h"
#include "core/ir/printer.h"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>

namespace loopscape::codegen {

namespace fs = std::filesystem;

namespace {

std::string dimText(const ir::Expr& e) {
  if (auto c = ir::asConstInt(e)) return std::to_string(*c);
  if (const auto* v = e.as<ir::Var>()) return sanitizeIdentifier(v->name);
  return ir::printExpr(e);
}

Expected<void> writeFile(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out)
    return Unexpected(Diagnostic::error("export.write-failed", fmt::format("cannot write '{}'", path.string())));
  return {};
}

} // namespace

std::string exportCType(ir::DataType t) {
  if (t.isBool()) return "bool";
  if (t.isFloat()) return t.bits() == 16 ? "_Float16" : t.bits() == 64 ? "double" : "float";
  return fmt::format("{}int{}_t", t.isUInt() ? "u" : "", t.bits());
}

std::string kernelHeader(const ir::PrimFunc& func, const LoweredFunc& lowered, const std::string& origin,
                         bool hasPacked) {
  const auto outputs = outputParams(func);
  std::string h;
  h += fmt::format("// kernel.h: the C interface of the Loopscape kernel `{}`.\n", lowered.name);
  if (!origin.empty()) h += fmt::format("// {}\n", origin);
  h += "//\n"
       "// Every buffer is a pointer to flat, contiguous, row-major data of the element type\n"
       "// shown; element [i0, i1, ...] of a buffer with shape [d0, d1, ...] is at offset\n"
       "// ((i0 * d1) + i1) * d2 + ... . Outputs are fully overwritten; inputs are only read.\n"
       "// Symbolic sizes are passed as int64_t after the buffers and must match the shapes of\n"
       "// the buffers you pass. Link with -lkernel (and -fopenmp or -lgomp when the library\n"
       "// uses OpenMP); see README.txt.\n"
       "#pragma once\n\n#include <stdint.h>\n";
  const bool usesBool = std::any_of(lowered.params.begin(), lowered.params.end(),
                                    [](const ir::Buffer& b) { return b->dtype.isBool(); });
  if (usesBool) h += "#include <stdbool.h>\n";
  h += "\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  h += fmt::format("/// {}: computes {}.\n", lowered.name, [&] {
    std::vector<std::string> names;
    for (auto i : outputs) names.push_back(func.params[i]->name);
    return fmt::format("{}", fmt::join(names, ", "));
  }());
  h += "/// Parameters:\n";
  std::vector<std::string> signature;
  for (std::size_t i = 0; i < lowered.params.size(); ++i) {
    const auto& p = lowered.params[i];
    std::vector<std::string> dims;
    for (const auto& d : p->shape) dims.push_back(dimText(d));
    const bool isOutput = std::find(outputs.begin(), outputs.end(), i) != outputs.end();
    const std::string name = sanitizeIdentifier(p->name);
    h += fmt::format("///   {:<10} {}[{}], {}\n", name, p->dtype.str(), fmt::join(dims, ", "),
                     isOutput ? "output (written)" : "input (read)");
    signature.push_back(fmt::format("{}* {}", exportCType(p->dtype), name));
  }
  for (const auto& v : lowered.sizeVars) {
    const std::string name = sanitizeIdentifier(v.as<ir::Var>()->name);
    std::vector<std::string> uses;
    for (const auto& p : lowered.params)
      for (std::size_t d = 0; d < p->shape.size(); ++d)
        if (p->shape[d].sameAs(v) || (p->shape[d].as<ir::Var>() && p->shape[d].as<ir::Var>()->name == v.as<ir::Var>()->name))
          uses.push_back(fmt::format("{} dim {}", sanitizeIdentifier(p->name), d));
    h += fmt::format("///   {:<10} int64_t symbolic size{}{}\n", name, uses.empty() ? "" : ": ",
                     fmt::join(uses, ", "));
    signature.push_back(fmt::format("int64_t {}", name));
  }
  h += fmt::format("void {}({});\n", lowered.name, fmt::join(signature, ", "));
  if (hasPacked)
    h += fmt::format("\n/// The same kernel taking arrays: buffers[i] is parameter i above, sizes[j] the j-th\n"
                     "/// symbolic size.\nvoid {}_packed(void* const* buffers, const int64_t* sizes);\n",
                     lowered.name);
  h += "\n#ifdef __cplusplus\n}\n#endif\n";
  return h;
}

Expected<ExportResult> exportKernel(Target& target, const ir::PrimFunc& func, const LoweredFunc& lowered,
                                    const ExportOptions& options) {
  const auto formats = target.sourceFormats();
  if (std::find(formats.begin(), formats.end(), "c") == formats.end())
    return Unexpected(Diagnostic::error(
        "export.unsupported-target",
        fmt::format("target '{}' does not produce C source; export a kernel with --target cpu-c", target.name())));
  auto source = target.source(lowered, "c", options.build);
  if (!source) return Unexpected(source.error());
  auto kernel = target.build(lowered, options.build);
  if (!kernel) return Unexpected(kernel.error());
  const std::string library = (*kernel)->libraryPath();
  if (library.empty())
    return Unexpected(Diagnostic::error("export.unsupported-target",
                                        fmt::format("target '{}' built no shared library to export", target.name())));

  std::error_code ec;
  fs::create_directories(options.outDir, ec);
  if (ec || !fs::is_directory(options.outDir))
    return Unexpected(Diagnostic::error(
        "export.write-failed", fmt::format("cannot create the directory '{}'{}", options.outDir,
                                           ec ? ": " + ec.message() : std::string())));
  const fs::path dir(options.outDir);
  ExportResult result;
  result.directory = options.outDir;
  result.symbol = lowered.name;
  const bool hasPacked = source->find(lowered.name + "_packed(") != std::string::npos;

  if (auto ok = writeFile(dir / "kernel.c", *source); !ok) return Unexpected(ok.error());
  if (auto ok = writeFile(dir / "kernel.h", kernelHeader(func, lowered, options.origin, hasPacked)); !ok)
    return Unexpected(ok.error());
  fs::copy_file(library, dir / "libkernel.so", fs::copy_options::overwrite_existing, ec);
  if (ec)
    return Unexpected(Diagnostic::error("export.write-failed", fmt::format("cannot copy '{}' to '{}': {}", library,
                                                                           (dir / "libkernel.so").string(), ec.message())));
  std::vector<std::string> args;
  for (const auto& p : lowered.params) args.push_back(sanitizeIdentifier(p->name));
  for (const auto& v : lowered.sizeVars) args.push_back(sanitizeIdentifier(v.as<ir::Var>()->name));
  const std::string readme = fmt::format(
      "Loopscape kernel export: {}\n"
      "{}\n"
      "Files\n"
      "  kernel.h      the C signature of {} (buffers, then int64_t symbolic sizes), documented\n"
      "  kernel.c      the generated C source (C11 + OpenMP), built as\n"
      "                cc -std=gnu11 -O3 -march=native -fopenmp -fPIC -fwrapv -fno-math-errno {} -shared kernel.c \\\n"
      "                   -o libkernel.so -lm\n"
      "  libkernel.so  that library, built on this machine (-march=native: rebuild it from kernel.c\n"
      "                for another CPU)\n"
      "\n"
      "Use from C or C++\n"
      "  #include \"kernel.h\"\n"
      "  ...\n"
      "  {}({});\n"
      "\n"
      "  cc main.c -I{} -L{} -lkernel -Wl,-rpath,{} -o main\n"
      "\n"
      "Buffers are flat row-major arrays you allocate (64-byte alignment helps vector code); the\n"
      "kernel writes every element of each output. Parallel loops use OpenMP: OMP_NUM_THREADS\n"
      "sets the thread count.\n",
      lowered.name, options.origin.empty() ? "" : options.origin + "\n", lowered.name,
      options.build.fastMath ? "-ffast-math" : "-ffp-contract=off", lowered.name,
      fmt::join(args, ", "), "DIR", "DIR", "DIR");
  if (auto ok = writeFile(dir / "README.txt", readme); !ok) return Unexpected(ok.error());
  for (const char* f : {"kernel.c", "kernel.h", "libkernel.so", "README.txt"}) result.files.push_back((dir / f).string());
  return result;
}

} // namespace loopscape::codegen
