#include "app/gui/code_jobs.h"

#include "core/codegen/pipeline.h"

#include <fmt/format.h>

#include <chrono>

namespace loopscape::gui {

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

} // namespace

std::vector<views::TargetEntry> availableTargets() {
  std::vector<views::TargetEntry> out;
  for (const codegen::PluginInfo& p : codegen::Pipeline().registry().plugins()) {
    views::TargetEntry e;
    e.name = qs(p.name);
    e.enabled = p.enabled && p.target != nullptr;
    if (e.enabled) {
      e.description = qs(p.target->description());
      const codegen::ToolchainStatus tc = p.target->toolchain();
      e.description += QStringLiteral("\n") + qs(tc.message);
      for (const std::string& f : p.target->sourceFormats()) e.formats << qs(f);
    } else {
      e.reason = qs(p.error.message);
    }
    out.push_back(std::move(e));
  }
  return out;
}

CodeResult generateCode(const ir::PrimFunc& func, const std::string& targetName, const std::string& format,
                        std::stop_token stop) {
  CodeResult r;
  if (stop.stop_requested()) return r;
  const codegen::Pipeline pipeline;
  auto target = pipeline.findTarget(targetName);
  if (!target) {
    r.text = renderDiagnostic(target.error());
    r.status = target.error().message;
    return r;
  }
  const auto start = std::chrono::steady_clock::now();
  auto lowered = pipeline.lower(**target, func, stop);
  if (stop.stop_requested()) return r;
  if (!lowered) {
    r.text = renderDiagnostic(lowered.error());
    r.status = "lowering failed: " + lowered.error().message;
    return r;
  }
  auto text = pipeline.source(**target, *lowered, format, codegen::BuildOptions{}, stop);
  if (stop.stop_requested()) return r;
  if (!text) {
    r.text = renderDiagnostic(text.error());
    r.status = (*target)->name() + ": " + text.error().message;
    return r;
  }
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  r.ok = true;
  r.text = std::move(*text);
  r.status = fmt::format("{} {} · {:.0f} ms", (*target)->name(), format, ms);
  return r;
}

} // namespace loopscape::gui
