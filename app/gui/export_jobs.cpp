#include "app/gui/export_jobs.h"

#include "core/codegen/pipeline.h"

#include <fmt/format.h>

#include <algorithm>

namespace loopscape::gui {

namespace {

KernelExportResult failed(const Diagnostic& d, const std::string& target) {
  KernelExportResult r;
  r.target = target;
  r.code = d.code;
  r.message = fmt::format("Export failed ({}): {}", target, d.message);
  r.detail = renderDiagnostic(d);
  return r;
}

} // namespace

KernelExportResult exportKernelFiles(const ir::PrimFunc& func, const std::string& targetName, const std::string& dir,
                                     const std::string& origin, std::stop_token stop) {
  const codegen::Pipeline pipeline;
  auto target = pipeline.findTarget(targetName);
  std::string used = targetName;
  std::string note;
  // Only a target that writes C can export; the workbench then exports through cpu-c.
  const auto writesC = [](const codegen::Target& t) {
    const std::vector<std::string> formats = t.sourceFormats();
    return std::ranges::find(formats, "c") != formats.end();
  };
  if (target && targetName != "cpu-c" && !writesC(**target)) {
    auto c = pipeline.findTarget("cpu-c");
    if (c) {
      note = fmt::format(" ({} writes no C source: exported through cpu-c)", targetName);
      used = "cpu-c";
      target = std::move(c);
    }
  }
  if (!target) return failed(target.error(), used);
  auto lowered = pipeline.lower(**target, func, stop);
  if (!lowered) return failed(lowered.error(), used);
  codegen::ExportOptions options;
  options.outDir = dir;
  options.origin = fmt::format("{} for target {}.", origin, used);
  auto exported = pipeline.exportKernel(**target, func, *lowered, options, stop);
  if (!exported) return failed(exported.error(), used);
  KernelExportResult r;
  r.ok = true;
  r.target = used;
  r.files = exported->files;
  r.message = fmt::format("Exported kernel {} to {}: {} files{}", exported->symbol, exported->directory,
                          exported->files.size(), note);
  return r;
}

} // namespace loopscape::gui
