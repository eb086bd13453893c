#include "app/gui/code_jobs.h"

#include "core/codegen/pipeline.h"
#include "core/ir/visitor.h"
#include "views/qt_text.h"

#include <fmt/format.h>

#include <chrono>
#include <unordered_map>

namespace loopscape::gui {

namespace {

using views::qs;

/// The view's links from the plugin's line map: each loop's Var as a handle (found in
/// `body`, whose Vars the map's keys point to).
views::CodeMap codeMap(const std::string& format, const ir::Stmt& body, const codegen::SourceMap& source) {
  views::CodeMap map;
  map.format = qs(format);
  if (!source.linked) {
    map.unlinked = format == "llvm"  ? QStringLiteral("LLVM IR lines are not linked to loops (O3 rebuilds the loops)")
                   : format == "asm" ? QStringLiteral("assembly lines are not linked to loops")
                                     : QStringLiteral("%1 lines are not linked to loops").arg(map.format);
    return map;
  }
  struct Loops final : ir::StmtVisitor {
    std::unordered_map<const ir::ExprNode*, ir::Expr> vars;
    void visitFor(const ir::For& op, const ir::Stmt& self) override {
      vars.emplace(op.loopVar.get(), op.loopVar);
      ir::StmtVisitor::visitFor(op, self);
    }
  } loops;
  loops(body);
  for (const codegen::LoopLines& l : source.loops) {
    auto it = loops.vars.find(l.loopVar);
    if (it != loops.vars.end()) map.loops.push_back({it->second, l.firstLine, l.lastLine});
  }
  return map;
}

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
  codegen::SourceMap sourceMap;
  codegen::BuildOptions options;
  options.sourceMap = &sourceMap;
  auto text = pipeline.source(**target, *lowered, format, options, stop);
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
  r.map = codeMap(format, lowered->body, sourceMap);
  r.status = fmt::format("{} {} · {:.0f} ms", (*target)->name(), format, ms);
  return r;
}

} // namespace loopscape::gui
