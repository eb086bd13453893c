// Link dependencies of ../shared/DESIGN.md, checked on the build's link graph (written by
// cmake/LinkGraph.cmake at configure time): module targets link only the modules their row
// of the module table allows, isl reaches only core/poly's compilation and LLVM only
// plugins/cpu-llvm's (tests and benchmarks that link them themselves excepted), Qt never
// reaches core/ or plugins/, and no target passes isl or LLVM on to its users.
#include "layering_helpers.h"

#include <QtTest>

#include <fstream>
#include <sstream>
#include <string>

using namespace loopscape::layering;

namespace {
LinkGraph parseOrFail(const std::string& text) {
  std::vector<std::string> errors;
  LinkGraph graph = parseLinkGraph(text, errors);
  if (!errors.empty()) qFatal("%s", errors.front().c_str());
  return graph;
}

QString joined(const std::vector<std::string>& lines) {
  QStringList list;
  for (const auto& line : lines)
    list << QString::fromStdString(line);
  return list.join('\n');
}

// A small graph in which core/poly links isl PRIVATE and the views use poly.
const char* kHealthy = "target loopscape_ir STATIC_LIBRARY core/ir\n"
                       "target loopscape_schedule STATIC_LIBRARY core/schedule\n"
                       "link loopscape_schedule loopscape_ir\n"
                       "usage loopscape_schedule loopscape_ir\n"
                       "target loopscape_poly STATIC_LIBRARY core/poly\n"
                       "link loopscape_poly loopscape_ir\n"
                       "link loopscape_poly loopscape_schedule\n"
                       "link loopscape_poly PkgConfig::ISL\n"
                       "usage loopscape_poly loopscape_ir\n"
                       "usage loopscape_poly loopscape_schedule\n"
                       "link-only loopscape_poly PkgConfig::ISL\n"
                       "target loopscape_views STATIC_LIBRARY views\n"
                       "link loopscape_views loopscape_poly\n"
                       "link loopscape_views Qt6::Widgets\n"
                       "usage loopscape_views loopscape_poly\n"
                       "usage loopscape_views Qt6::Widgets\n";
} // namespace

class TestLinkLayering : public QObject {
  Q_OBJECT
private Q_SLOTS:
  // The checker on small graphs: each row adds lines to kHealthy and names the violations
  // expected (a substring each, in order), none for an allowed graph.
  void checker_data() {
    QTest::addColumn<QString>("extra");
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("healthy") << "" << QStringList{};
    QTest::newRow("isl passed on by poly") << "usage loopscape_poly PkgConfig::ISL\n"
                                           << QStringList{"loopscape_poly (core/poly) passes isl",
                                                          "loopscape_views (views) uses isl (PkgConfig::ISL) through "
                                                          "loopscape_poly"};
    QTest::newRow("test links isl itself") << "target tst_poly_scop EXECUTABLE tests\n"
                                              "link tst_poly_scop loopscape_poly\n"
                                              "link tst_poly_scop PkgConfig::ISL\n"
                                           << QStringList{};
    QTest::newRow("module links isl") << "link loopscape_schedule PkgConfig::ISL\n"
                                      << QStringList{"loopscape_schedule (core/schedule) uses isl (PkgConfig::ISL)"};
    QTest::newRow("LLVM outside cpu-llvm") << "target loopscape_codegen STATIC_LIBRARY core/codegen\n"
                                              "link loopscape_codegen LLVM\n"
                                           << QStringList{"loopscape_codegen (core/codegen) uses LLVM (LLVM)"};
    QTest::newRow("LLVM in cpu-llvm") << "target loopscape-target-cpu-llvm MODULE_LIBRARY plugins/cpu-llvm\n"
                                         "link loopscape-target-cpu-llvm loopscape_ir\n"
                                         "link loopscape-target-cpu-llvm LLVM\n"
                                      << QStringList{};
    QTest::newRow("Qt in core") << "link loopscape_ir Qt6::Core\nusage loopscape_ir Qt6::Core\n"
                                << QStringList{"loopscape_ir (core/ir) uses Qt (Qt6::Core)",
                                               "loopscape_poly (core/poly) uses Qt (Qt6::Core) through loopscape_ir",
                                               "loopscape_schedule (core/schedule) uses Qt (Qt6::Core) through "
                                               "loopscape_ir"};
    QTest::newRow("module upward") << "link loopscape_schedule loopscape_poly\n"
                                   << QStringList{"loopscape_schedule (core/schedule) links loopscape_poly of "
                                                  "core/poly, which core/schedule may not depend on"};
    QTest::newRow("plugin links schedule") << "target loopscape-target-cpu-c MODULE_LIBRARY plugins/cpu-c\n"
                                              "link loopscape-target-cpu-c loopscape_schedule\n"
                                           << QStringList{"loopscape-target-cpu-c (plugins/cpu-c) links "
                                                          "loopscape_schedule of core/schedule, which plugins may "
                                                          "not depend on"};
    QTest::newRow("syntax below schedule") << "target loopscape_syntax STATIC_LIBRARY core/syntax\n"
                                              "link loopscape_syntax loopscape_ir\n"
                                              "link loopscape_schedule loopscape_syntax\n"
                                           << QStringList{};
    QTest::newRow("syntax above frontend") << "target loopscape_syntax STATIC_LIBRARY core/syntax\n"
                                              "target loopscape_frontend STATIC_LIBRARY core/frontend\n"
                                              "link loopscape_syntax loopscape_frontend\n"
                                           << QStringList{"loopscape_syntax (core/syntax) links loopscape_frontend"};
  }
  void checker() {
    QFETCH(QString, extra);
    QFETCH(QStringList, expected);
    const auto violations = checkLinkGraph(parseOrFail(std::string(kHealthy) + extra.toStdString()));
    QCOMPARE(int(violations.size()), int(expected.size()));
    for (int i = 0; i < expected.size(); ++i)
      QVERIFY2(QString::fromStdString(violations[i]).contains(expected[i]),
               qPrintable(QString::fromStdString(violations[i]) + " lacks " + expected[i]));
  }

  void parserRejectsUnknownLines() {
    std::vector<std::string> errors;
    parseLinkGraph("target a STATIC_LIBRARY core/ir\nlinks a b\n", errors);
    QCOMPARE(int(errors.size()), 1);
  }

  // The build's own graph.
  void buildFollowsDesign() {
    std::ifstream in(LS_LINK_GRAPH);
    QVERIFY2(in, "build/link_graph.txt was not found (written when CMake configures)");
    std::stringstream text;
    text << in.rdbuf();
    const LinkGraph graph = parseOrFail(text.str());
    for (const char* target : {"loopscape_ir", "loopscape_schedule", "loopscape_poly", "loopscape_codegen"})
      QVERIFY2(graph.targets.contains(target), target);
    const auto violations = checkLinkGraph(graph);
    QVERIFY2(violations.empty(), qPrintable(joined(violations)));
  }
};

QTEST_GUILESS_MAIN(TestLinkLayering)
#include "tst_link_layering.moc"
