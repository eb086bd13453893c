// Layering rules of ../shared/DESIGN.md, checked on the source tree: each core module and
// each plugin includes only the modules its row of the module table (layering_helpers.h)
// allows, core/ and plugins/ never include Qt, isl stays in core/poly and LLVM in
// plugins/cpu-llvm. A header that breaks the layering fails here.
#include "layering_helpers.h"

#include <QtTest>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

namespace fs = std::filesystem;

namespace {
std::string moduleOf(const std::string& relative) {
  const auto* rule = loopscape::layering::ruleFor(relative);
  return rule ? rule->folder : std::string();
}
} // namespace

class TestLayering : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void includesFollowDesign() {
    const fs::path root = LS_SOURCE_DIR;
    const std::regex include("^\\s*#\\s*include\\s*[<\"]([^>\"]+)[>\"]");
    QStringList violations;
    int filesChecked = 0;
    for (const char* top : {"core", "plugins"}) {
      if (!fs::exists(root / top)) continue;
      for (const auto& entry : fs::recursive_directory_iterator(root / top)) {
        auto ext = entry.path().extension();
        if (ext != ".h" && ext != ".cpp") continue;
        const std::string relative = fs::relative(entry.path(), root).generic_string();
        const std::string module = moduleOf(relative);
        ++filesChecked;
        std::ifstream in(entry.path());
        std::string line;
        int lineNo = 0;
        while (std::getline(in, line)) {
          ++lineNo;
          std::smatch m;
          if (!std::regex_search(line, m, include)) continue;
          const std::string target = m[1];
          auto where = QString::fromStdString(relative + ":" + std::to_string(lineNo) + ": ");
          if (target.rfind("Q", 0) == 0 || target.rfind("qt", 0) == 0)
            violations << where + QString::fromStdString("Qt header <" + target + "> in core/ or plugins/");
          if (target.rfind("isl/", 0) == 0 && module != "core/poly")
            violations << where + QString::fromStdString("isl header outside core/poly");
          if (target.rfind("llvm/", 0) == 0 && relative.rfind("plugins/cpu-llvm/", 0) != 0)
            violations << where + QString::fromStdString("LLVM header outside plugins/cpu-llvm");
          if (target.rfind("core/", 0) != 0 || module.empty()) continue;
          const std::string targetModule = moduleOf(target);
          if (targetModule != module && !loopscape::layering::ruleFor(module)->mayDependOn.contains(targetModule))
            violations << where + QString::fromStdString(module + " must not include " + target);
        }
      }
    }
    QVERIFY2(filesChecked > 10, "the source tree was not found");
    QVERIFY2(violations.isEmpty(), qPrintable(violations.join('\n')));
  }
};

QTEST_GUILESS_MAIN(TestLayering)
#include "tst_layering.moc"
