#include "layering_helpers.h"

#include <deque>
#include <sstream>

namespace loopscape::layering {

namespace {
bool within(const std::string& path, const std::string& folder) {
  return path == folder || path.rfind(folder + "/", 0) == 0;
}

bool withinAny(const std::string& path, const std::set<std::string>& folders) {
  for (const auto& folder : folders)
    if (within(path, folder)) return true;
  return false;
}

bool isLibrary(const LibraryRule& library, const std::string& item) {
  for (const auto& prefix : library.prefixes)
    if (item.rfind(prefix, 0) == 0) return true;
  return false;
}

bool mayUse(const LibraryRule& library, const std::string& sourceDir) {
  if (!library.allowedIn.empty()) return withinAny(sourceDir, library.allowedIn);
  return !withinAny(sourceDir, library.forbiddenIn);
}

bool isTestOrBench(const std::string& sourceDir) { return within(sourceDir, "tests") || within(sourceDir, "bench"); }

/// Every item that reaches `name`'s compilation, with the target it came through (empty:
/// linked by `name` itself).
std::map<std::string, std::string> usageClosure(const LinkGraph& graph, const std::string& name) {
  std::map<std::string, std::string> reached;
  std::deque<std::string> queue;
  for (const auto& item : graph.targets.at(name).link)
    if (reached.emplace(item, "").second) queue.push_back(item);
  while (!queue.empty()) {
    const std::string current = queue.front();
    queue.pop_front();
    auto found = graph.targets.find(current);
    if (found == graph.targets.end()) continue;
    for (const auto& item : found->second.usage)
      if (reached.emplace(item, current).second) queue.push_back(item);
  }
  return reached;
}

/// "through a -> b" for an item reached from `name` (empty when linked directly).
std::string pathTo(const std::map<std::string, std::string>& reached, const std::string& item) {
  std::vector<std::string> chain;
  for (std::string via = reached.at(item); !via.empty(); via = reached.at(via))
    chain.push_back(via);
  if (chain.empty()) return "";
  std::string text = " through ";
  for (auto it = chain.rbegin(); it != chain.rend(); ++it)
    text += (it == chain.rbegin() ? "" : " -> ") + *it;
  return text;
}
} // namespace

const std::vector<ModuleRule>& moduleTable() {
  static const std::vector<ModuleRule> table = {
      {"core/ir", {}},
      {"core/syntax", {"core/ir"}},
      {"core/frontend", {"core/ir", "core/syntax"}},
      {"core/schedule", {"core/ir", "core/syntax"}},
      {"core/poly", {"core/ir", "core/schedule"}},
      {"core/codegen", {"core/ir"}},
      {"core/tune", {"core/ir", "core/syntax", "core/frontend", "core/schedule", "core/poly", "core/codegen"}},
      {"core/graph",
       {"core/ir", "core/syntax", "core/frontend", "core/schedule", "core/poly", "core/codegen", "core/tune"}},
      {"plugins", {"core/ir", "core/codegen"}},
      {"views",
       {"core/ir", "core/syntax", "core/frontend", "core/schedule", "core/poly", "core/codegen", "core/tune",
        "core/graph"}},
      {"app",
       {"core/ir", "core/syntax", "core/frontend", "core/schedule", "core/poly", "core/codegen", "core/tune",
        "core/graph", "views"}},
  };
  return table;
}

const ModuleRule* ruleFor(const std::string& path) {
  for (const auto& rule : moduleTable())
    if (within(path, rule.folder)) return &rule;
  return nullptr;
}

const std::vector<LibraryRule>& libraryTable() {
  static const std::vector<LibraryRule> table = {
      {"isl", {"PkgConfig::ISL"}, {"core/poly"}, {}},
      {"XGBoost", {"xgboost::"}, {"core/tune"}, {}},
      {"LLVM", {"LLVM"}, {"plugins/cpu-llvm"}, {}},
      {"Qt", {"Qt6::", "Qt::"}, {}, {"core", "plugins"}, false},
  };
  return table;
}

LinkGraph parseLinkGraph(const std::string& text, std::vector<std::string>& errors) {
  LinkGraph graph;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::istringstream fields(line);
    std::string kind, name, third, fourth;
    fields >> kind >> name >> third;
    if (kind == "target") {
      fields >> fourth;
      graph.targets[name].type = third;
      graph.targets[name].sourceDir = fourth;
    } else if (kind == "link") {
      graph.targets[name].link.push_back(third);
    } else if (kind == "usage") {
      graph.targets[name].usage.push_back(third);
    } else if (kind == "link-only") {
      graph.targets[name].linkOnly.push_back(third);
    } else {
      errors.push_back("unknown line: " + line);
    }
  }
  return graph;
}

std::vector<std::string> checkLinkGraph(const LinkGraph& graph) {
  std::vector<std::string> violations;
  for (const auto& [name, target] : graph.targets) {
    const std::string where = name + " (" + target.sourceDir + ")";
    // 1. Module dependencies follow the module table.
    if (const ModuleRule* rule = ruleFor(target.sourceDir)) {
      for (const auto& item : target.link) {
        auto dep = graph.targets.find(item);
        if (dep == graph.targets.end()) continue;
        const ModuleRule* depRule = ruleFor(dep->second.sourceDir);
        if (!depRule || depRule == rule || rule->mayDependOn.contains(depRule->folder)) continue;
        violations.push_back(where + " links " + item + " of " + depRule->folder + ", which " + rule->folder +
                             " may not depend on");
      }
    }
    // 2. Restricted libraries reach only the targets that may use them.
    const auto reached = usageClosure(graph, name);
    for (const auto& library : libraryTable()) {
      for (const auto& [item, via] : reached) {
        if (!isLibrary(library, item) || mayUse(library, target.sourceDir)) continue;
        if (library.testsMayDeclare && isTestOrBench(target.sourceDir) && via.empty()) continue;
        violations.push_back(where + " uses " + library.name + " (" + item + ")" + pathTo(reached, item));
      }
      // 3. ... and are not passed on by those that may.
      if (library.allowedIn.empty()) continue;
      for (const auto& item : target.usage)
        if (isLibrary(library, item))
          violations.push_back(where + " passes " + library.name + " (" + item + ") on to its users; link it PRIVATE");
    }
  }
  return violations;
}

} // namespace loopscape::layering
