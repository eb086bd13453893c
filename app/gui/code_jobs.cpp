#include "app/gui/code_jobs.h"

#include "core/codegen/lower.h"
#include "core/codegen/target_registry.h"

#include <fmt/format.h>

#include <chrono>
#include <mutex>

namespace loopscape::gui {

namespace {

std::mutex& pluginLock() {
  static std::mutex m;
  return m;
}

codegen::TargetRegistry& registry() {
  static codegen::TargetRegistry* r = [] {
    std::vector<std::string> dirs = codegen::TargetRegistry::defaultSearchDirs();
    dirs.push_back(LS_BUILD_PLUGIN_DIR);
    return new codegen::TargetRegistry(std::move(dirs));
  }();
  return *r;
}

QString qs(const std::string& s) { return QString::fromStdString(s); }

} // namespace

std::vector<views::TargetEntry> availableTargets() {
  std::lock_guard lock(pluginLock());
  std::vector<views::TargetEntry> out;
  for (const codegen::PluginInfo& p : registry().plugins()) {
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
  std::lock_guard lock(pluginLock());
  if (stop.stop_requested()) return r;
  auto target = registry().findTarget(targetName);
  if (!target) {
    r.text = renderDiagnostic(target.error());
    r.status = target.error().message;
    return r;
  }
  const auto start = std::chrono::steady_clock::now();
  codegen::LowerOptions options;
  options.deviceKind = (*target)->deviceKind();
  auto lowered = codegen::lower(func, options);
  if (!lowered) {
    r.text = renderDiagnostic(lowered.error());
    r.status = "lowering failed: " + lowered.error().message;
    return r;
  }
  if (stop.stop_requested()) return r;
  auto text = (*target)->source(*lowered, format, codegen::BuildOptions{});
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
