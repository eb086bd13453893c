// The layering rules of ../shared/DESIGN.md as data, shared by the include check
// (tst_layering) and the link check (tst_link_layering): which module folder may depend on
// which, where isl, LLVM and Qt may be used, and a checker for the link graph that CMake
// writes at configure time (cmake/LinkGraph.cmake, build/link_graph.txt).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

namespace loopscape::layering {

/// One row of DESIGN.md's module table: a folder (a core module, or a group of targets such
/// as "plugins" or "app") and the module folders it may depend on (itself always allowed).
/// To add a module, add its row here and name it in the rows of the modules that use it.
struct ModuleRule {
  std::string folder;
  std::set<std::string> mayDependOn;
};

/// DESIGN.md's table, in its order (arrows only point up this list).
const std::vector<ModuleRule>& moduleTable();

/// The table row whose folder is `path` or a parent of it ("core/poly/scop.h",
/// "plugins/cpu-c"), or nullptr.
const ModuleRule* ruleFor(const std::string& path);

/// A third-party library that only some folders may use: isl in core/poly, LLVM in
/// plugins/cpu-llvm, Qt outside core/ and plugins/.
struct LibraryRule {
  std::string name;                  ///< for messages: "isl"
  std::vector<std::string> prefixes; ///< link items that are this library ("PkgConfig::ISL")
  std::set<std::string> allowedIn;   ///< folders whose targets may use it; empty: see forbiddenIn
  std::set<std::string> forbiddenIn; ///< with an empty allowedIn: every folder but these may
  bool testsMayDeclare = true;       ///< tests/ and bench/ may use it by linking it themselves
};
const std::vector<LibraryRule>& libraryTable();

/// The link graph of one build (format: cmake/LinkGraph.cmake).
struct LinkGraph {
  struct Target {
    std::string type;                  ///< STATIC_LIBRARY, EXECUTABLE, MODULE_LIBRARY, ...
    std::string sourceDir;             ///< relative to the repository: "core/poly"
    std::vector<std::string> link;     ///< what the target compiles and links with
    std::vector<std::string> usage;    ///< what it passes on to its users' compilation
    std::vector<std::string> linkOnly; ///< what it passes on to the final link line only
  };
  std::map<std::string, Target> targets;
};

/// Parses the text of link_graph.txt; unknown lines are reported in `errors`.
LinkGraph parseLinkGraph(const std::string& text, std::vector<std::string>& errors);

/// Every violation of the tables in `graph`, one message each:
///  - a target in a table folder links a target of a folder its row does not allow;
///  - a library reaches a target's compilation (its own links plus, transitively, the usage
///    of the targets it links) outside the folders allowed, unless the target is in tests/
///    or bench/ and links the library itself;
///  - a target passes a restricted library on to its users (it must link it PRIVATE).
std::vector<std::string> checkLinkGraph(const LinkGraph& graph);

} // namespace loopscape::layering
