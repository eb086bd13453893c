#include "core/schedule/schedule_error.h"

#include "core/ir/printer.h"
#include "core/schedule/ir_tree.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <sstream>

namespace loopscape::schedule {

Diagnostic scheduleError(std::string_view primitive, std::string_view reason, std::string message,
                         std::vector<IrReference> references) {
  Diagnostic d;
  d.code = fmt::format("schedule.{}.{}", primitive, reason);
  d.message = std::move(message);
  d.references = std::move(references);
  d.subject = DiagnosticSubject::Program;
  return d;
}

IrReference blockRef(std::string name) { return {IrReference::Kind::Block, std::move(name)}; }
IrReference loopRef(std::string name) { return {IrReference::Kind::Loop, std::move(name)}; }

std::string primitiveOf(const Diagnostic& d) {
  constexpr std::string_view prefix = "schedule.";
  std::string_view code = d.code;
  if (code.substr(0, prefix.size()) != prefix) return {};
  code.remove_prefix(prefix.size());
  return std::string(code.substr(0, code.find('.')));
}

namespace {
const std::string& loopVarName(const ir::StmtNode* node) {
  return static_cast<const ir::For*>(node)->loopVar.as<ir::Var>()->name;
}

void collectLoops(const TreeNode& n, const std::string& name, std::vector<const TreeNode*>& out) {
  for (const TreeNode* c : n.children) {
    if (!c->isBlock() && loopVarName(c->node) == name) out.push_back(c);
    collectLoops(*c, name, out);
  }
}

bool isReferenced(const Diagnostic& d, const ir::StmtNode* node) {
  for (const auto& ref : d.references) {
    if (ref.kind == IrReference::Kind::Block && node->kind == ir::StmtKind::Block &&
        static_cast<const ir::Block*>(node)->name == ref.name)
      return true;
    if (ref.kind == IrReference::Kind::Loop && node->kind == ir::StmtKind::For &&
        (ref.identity ? ref.identity == node : loopVarName(node) == ref.name))
      return true;
  }
  return false;
}
} // namespace

void identifyLoops(Diagnostic& d, const IrTree& tree, const std::vector<const ir::StmtNode*>& inputLoops) {
  for (IrReference& ref : d.references) {
    if (ref.kind != IrReference::Kind::Loop || ref.identity) continue;
    std::vector<const ir::StmtNode*> candidates;
    for (const ir::StmtNode* l : inputLoops)
      if (l->kind == ir::StmtKind::For && loopVarName(l) == ref.name) candidates.push_back(l);
    if (candidates.empty())
      for (const IrReference& other : d.references) {
        if (other.kind != IrReference::Kind::Block) continue;
        const TreeNode* block = tree.findBlock(other.name);
        if (!block) continue;
        for (const TreeNode* l : tree.loopsAbove(*block))
          if (loopVarName(l->node) == ref.name) candidates.push_back(l->node);
      }
    if (candidates.empty()) {
      std::vector<const TreeNode*> all;
      collectLoops(tree.root(), ref.name, all);
      for (const TreeNode* l : all)
        candidates.push_back(l->node);
    }
    std::sort(candidates.begin(), candidates.end());
    candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
    if (candidates.size() == 1) ref.identity = candidates.front();
  }
}

std::string renderScheduleError(const Diagnostic& d, const ir::PrimFunc& func) {
  const auto printed = ir::printPrimFuncWithSpans(func);
  // Column ranges to underline, per line.
  std::map<int, std::string> marks;
  for (const auto& span : printed.spans) {
    if (!isReferenced(d, span.node)) continue;
    auto& mark = marks[span.line];
    const auto end = static_cast<std::size_t>(span.column - 1 + span.length);
    if (mark.size() < end) mark.resize(end, ' ');
    for (int c = span.column - 1; c < span.column - 1 + span.length; ++c) mark[c] = '^';
  }
  std::string out = fmt::format("ScheduleError: An error occurred in the schedule primitive '{}'.\n", primitiveOf(d));
  out += "The IR with diagnostic is:\n";
  std::istringstream lines(printed.text);
  std::string line;
  for (int n = 1; std::getline(lines, line); ++n) {
    out += line + "\n";
    if (auto it = marks.find(n); it != marks.end()) out += it->second + "\n";
  }
  out += fmt::format("Error message: {}\n", d.message);
  return out;
}

std::string renderStepDiagnostic(const Diagnostic& d, const ir::PrimFunc& program, std::string_view sourceText) {
  if (d.subject == DiagnosticSubject::Source) return renderDiagnostic(d, sourceText);
  std::string out;
  if (d.location.valid())
    out = fmt::format("{}:{}:{}: in this step\n", d.location.file, d.location.line, d.location.column);
  return out + renderScheduleError(d, program);
}

} // namespace loopscape::schedule
