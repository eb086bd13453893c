// Traces: printing as TVM Python and JSON, reading both back (round trips), replay,
// hand-written TVM-syntax scripts, exact parse/argument errors, schedule errors located
// in the script, and the sample traces of samples/traces applied to small copies of the
// samples (interpreter results equal to the unscheduled program).
#include "schedule_test_helpers.h"

#include "core/ir/printer.h"
#include "core/ir/structural_equal.h"
#include "core/ir/op.h"
#include "core/schedule/instruction.h"
#include "core/schedule/trace_json.h"
#include "core/schedule/trace_python.h"
#include "core/schedule/trace_script.h"

#include <QDir>
#include <QFile>
#include <QtTest>

#include <fmt/format.h>

using namespace loopscape;
using namespace loopscape::schedule;
using loopscape::testing::compareResults;
using loopscape::testing::kSmallMatmul;
using loopscape::testing::parseProgram;

namespace {

/// get_block, get_loops, two splits, reorder, fuse on the small matmul.
Schedule tiledMatmul() {
  Schedule sch(parseProgram(kSmallMatmul));
  auto b = sch.apply("get_block", {}, {"C"});
  auto loops = sch.apply("get_loops", {(*b)[0]});
  auto si = sch.apply("split", {(*loops)[0], TraceList{nullptr, 16}});
  auto sj = sch.apply("split", {(*loops)[1], TraceList{nullptr, 8}});
  auto r = sch.apply("reorder", {(*si)[0], (*sj)[0], (*loops)[2], (*si)[1], (*sj)[1]});
  auto f = sch.apply("fuse", {(*si)[0], (*sj)[0]}, {false});
  if (!b || !loops || !si || !sj || !r || !f) qFatal("tiledMatmul: a primitive failed");
  return sch;
}

std::string readText(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) qFatal("cannot read %s", qPrintable(path));
  return f.readAll().toStdString();
}

/// Applies `script` to a fresh schedule of `source`; fails the test on error.
Schedule applied(const std::string& source, const std::string& script) {
  Schedule sch(parseProgram(source));
  auto ok = applyScript(sch, script, "t.py");
  if (!ok) qFatal("%s", renderDiagnostic(ok.error(), script).c_str());
  return sch;
}

const char* const kTiledPython =
    "# from tvm import tir\n"
    "b0 = sch.get_block(name=\"C\", func_name=\"main\")\n"
    "l1, l2, l3 = sch.get_loops(block=b0)\n"
    "l4, l5 = sch.split(loop=l1, factors=[None, 16], preserve_unit_iters=True, disable_predication=False)\n"
    "l6, l7 = sch.split(loop=l2, factors=[None, 8], preserve_unit_iters=True, disable_predication=False)\n"
    "sch.reorder(l4, l6, l3, l5, l7)\n"
    "l8 = sch.fuse(l4, l6, preserve_unit_iters=False)\n";

} // namespace

class TestTrace : public QObject {
  Q_OBJECT
private Q_SLOTS:
  // ------------------------------------------------------------------ Python form
  void printsPython() {
    const Schedule sch = tiledMatmul();
    QCOMPARE(QString::fromStdString(traceToPython(sch.trace())), QString(kTiledPython));
  }

  void singleOutputOfVariadicKindKeepsTheComma() {
    Schedule sch(parseProgram("A = placeholder((8,), name=\"A\")\nB = compute((8,), lambda i: A[i] + 1.0, name=\"B\")\n"));
    auto b = sch.apply("get_block", {}, {"B"});
    QVERIFY(b.has_value());
    QVERIFY(sch.apply("get_loops", {(*b)[0]}).has_value());
    QCOMPARE(QString::fromStdString(instructionToPython(sch.trace().instructions.back())),
             QString("l1, = sch.get_loops(block=b0)"));
  }

  void values_data() {
    QTest::addColumn<int>("which");
    QTest::addColumn<QString>("python");
    QTest::addColumn<QString>("json");
    QTest::newRow("none") << 0 << "None" << "null";
    QTest::newRow("bools") << 1 << "[True, False]" << "[true, false]";
    QTest::newRow("ints") << 2 << "[0, -7, 9223372036854775807]" << "[0, -7, 9223372036854775807]";
    QTest::newRow("floats") << 3 << "[1.0, 0.5, 1e-05, -2.5e+20]" << "[1.0, 0.5, 1e-05, -2.5e+20]";
    QTest::newRow("string") << 4 << "\"sh\\\"ared\"" << "\"\\\"sh\\\\\\\"ared\\\"\"";
    QTest::newRow("rvs") << 5 << "[b0, [b0]]" << "[\"b0\", [\"b0\"]]";
    QTest::newRow("index map") << 6 << "lambda i, j: (i // 16, j, i % 16)"
                               << "{\"index_map\": \"lambda i, j: (i // 16, j, i % 16)\"}";
    QTest::newRow("index map 1") << 7 << "lambda i: (i * 4 + 1,)" << "{\"index_map\": \"lambda i: (i * 4 + 1,)\"}";
  }
  void values() {
    QFETCH(int, which);
    QFETCH(QString, python);
    QFETCH(QString, json);
    TraceValue v;
    ir::Expr i = ir::Var::make("i"), j = ir::Var::make("j");
    switch (which) {
    case 0: break;
    case 1: v = TraceList{true, false}; break;
    case 2: v = TraceList{0, -7, std::int64_t(9223372036854775807)}; break;
    case 3: v = TraceList{1.0, 0.5, 1e-5, -2.5e20}; break;
    case 4: v = "sh\"ared"; break;
    case 5: v = TraceList{RV{RVKind::Block, 0}, TraceList{RV{RVKind::Block, 0}}}; break;
    case 6: v = IndexMap{{i, j}, {ir::floordiv(i, 16), j, ir::floormod(i, 16)}}; break;
    case 7: v = IndexMap{{i}, {i * 4 + 1}}; break;
    }
    QCOMPARE(QString::fromStdString(pythonValue(v)), python);
    // In JSON, as an input (annotate's ann_val): strings keep their Python quotes.
    Trace t;
    Instruction get{findInstructionKind("get_block"), {}, {"C", "main"}, {RV{RVKind::Block, 0}}, {}};
    Instruction annotate{findInstructionKind("annotate"), {RV{RVKind::Block, 0}, v}, {"key"}, {}, {}};
    t.instructions = {get, annotate};
    t.rvCount = 1;
    const std::string text = traceToJson(t);
    const std::string expectedLine = fmt::format("    [\"Annotate\", [\"b0\", {}], [\"key\"], []]", json.toStdString());
    QVERIFY2(text.find(expectedLine) != std::string::npos, text.c_str());
    auto back = traceFromJson(text, "t.json");
    QVERIFY2(back.has_value(), back ? "" : back.error().message.c_str());
    QCOMPARE(QString::fromStdString(traceToJson(*back)), QString::fromStdString(text));
    QCOMPARE(QString::fromStdString(pythonValue(back->instructions[1].inputs[1])), python);
    QCOMPARE(QString::fromStdString(instructionToPython(back->instructions[1])),
             "sch.annotate(block_or_loop=b0, ann_key=\"key\", ann_val=" + python + ")");
  }

  void indexMapParses() {
    auto map = parseIndexMap("lambda i, j: ((i + 1) // 4, j * -2, i % 4 - 3)", "m.py");
    QVERIFY(map.has_value());
    QCOMPARE(QString::fromStdString(indexMapToPython(*map)), QString("lambda i, j: ((i + 1) // 4, j * -2, i % 4 - 3)"));
    auto bad = parseIndexMap("lambda i: (i / 2,)", "m.py");
    QVERIFY(!bad.has_value());
    QCOMPARE(QString::fromStdString(renderDiagnostic(bad.error())),
             QString("m.py:1:12: error: operator '/' is not supported in index maps (use // for integer division)\n"));
  }

  void pythonRoundTrip_data() {
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("script");
    QTest::newRow("tiled matmul") << kSmallMatmul << kTiledPython;
    QTest::newRow("annotations") << kSmallMatmul
                                 << "b0 = sch.get_block(\"C\")\n"
                                    "i, j, k = sch.get_loops(b0)\n"
                                    "j0, j1 = sch.split(j, [None, 4])\n"
                                    "sch.parallel(i)\n"
                                    "sch.vectorize(j1)\n"
                                    "sch.unroll(k)\n";
    QTest::newRow("sampling") << kSmallMatmul
                              << "b0 = sch.get_block(\"C\")\n"
                                 "i, j, k = sch.get_loops(b0)\n"
                                 "v = sch.sample_perfect_tile(i, n=2, max_innermost_factor=16, decision=[4, 16])\n"
                                 "sch.split(i, factors=v)\n"
                                 "c = sch.sample_categorical(candidates=[2, 4, 8], probs=[0.25, 0.5, 0.25], "
                                 "decision=2)\n"
                                 "sch.split(j, factors=[None, c])\n";
    QTest::newRow("two stages inlined") << loopscape::testing::kTwoStage
                                        << "sch.compute_inline(sch.get_block(\"B\"))\n"
                                           "i, j = sch.get_loops(sch.get_block(\"C\"))\n"
                                           "sch.fuse(i, j)\n";
  }
  void pythonRoundTrip() {
    QFETCH(QString, source);
    QFETCH(QString, script);
    const Schedule first = applied(source.toStdString(), script.toStdString());
    const std::string printed = traceToPython(first.trace());
    const Schedule second = applied(source.toStdString(), printed);
    QCOMPARE(QString::fromStdString(traceToPython(second.trace())), QString::fromStdString(printed));
    QVERIFY(ir::structuralEqual(first.func(), second.func()));
    QCOMPARE(QString::fromStdString(ir::printPrimFunc(second.func())),
             QString::fromStdString(ir::printPrimFunc(first.func())));
    QCOMPARE(QString::fromStdString(compareResults(first.original(), second.func())), QString());
    // traceFromPython gives the same trace.
    auto trace = traceFromPython(first.original(), printed, "p.py");
    QVERIFY(trace.has_value());
    QCOMPARE(QString::fromStdString(traceToPython(*trace)), QString::fromStdString(printed));
  }

  // ------------------------------------------------------------------ JSON form
  void printsJson() {
    const Schedule sch = tiledMatmul();
    QCOMPARE(QString::fromStdString(traceToJson(sch.trace())),
             QString("[\n"
                     "  [\n"
                     "    [\"GetBlock\", [], [\"C\", \"main\"], [\"b0\"]],\n"
                     "    [\"GetLoops\", [\"b0\"], [], [\"l1\", \"l2\", \"l3\"]],\n"
                     "    [\"Split\", [\"l1\", [null, 16]], [true, false], [\"l4\", \"l5\"]],\n"
                     "    [\"Split\", [\"l2\", [null, 8]], [true, false], [\"l6\", \"l7\"]],\n"
                     "    [\"Reorder\", [\"l4\", \"l6\", \"l3\", \"l5\", \"l7\"], [], []],\n"
                     "    [\"Fuse\", [\"l4\", \"l6\"], [false], [\"l8\"]]\n"
                     "  ],\n"
                     "  []\n"
                     "]\n"));
    QCOMPARE(QString::fromStdString(traceToJson(Trace{})), QString("[\n  [],\n  []\n]\n"));
  }

  void jsonRoundTripAndReplay_data() { pythonRoundTrip_data(); }
  void jsonRoundTripAndReplay() {
    QFETCH(QString, source);
    QFETCH(QString, script);
    const Schedule sch = applied(source.toStdString(), script.toStdString());
    const std::string json = traceToJson(sch.trace());
    auto parsed = traceFromJson(json, "t.json");
    QVERIFY2(parsed.has_value(), parsed ? "" : renderDiagnostic(parsed.error(), json).c_str());
    QCOMPARE(QString::fromStdString(traceToJson(*parsed)), QString::fromStdString(json));
    QCOMPARE(QString::fromStdString(traceToPython(*parsed)), QString::fromStdString(traceToPython(sch.trace())));
    // Replay of the parsed trace and application of the text give the same program.
    auto replayed = replayTrace(sch.original(), *parsed);
    QVERIFY2(replayed.has_value(), replayed ? "" : replayed.error().message.c_str());
    QVERIFY(ir::structuralEqual(replayed->func(), sch.func()));
    Schedule fresh(sch.original());
    auto ok = applyJsonTrace(fresh, json, "t.json");
    QVERIFY(ok.has_value());
    QVERIFY(ir::structuralEqual(fresh.func(), sch.func()));
    QCOMPARE(QString::fromStdString(traceToJson(fresh.trace())), QString::fromStdString(json));
  }

  void replayAfterPrimitives() {
    const Schedule sch = tiledMatmul();
    auto replayed = replayTrace(sch.original(), sch.trace());
    QVERIFY(replayed.has_value());
    QVERIFY(ir::structuralEqual(replayed->func(), sch.func()));
    QCOMPARE(replayed->trace().instructions.size(), sch.trace().instructions.size());
    QVERIFY(!ir::structuralEqual(sch.func(), sch.original()));
    QCOMPARE(QString::fromStdString(compareResults(sch.original(), replayed->func())), QString());
  }

  // ------------------------------------------------------------------ hand-written scripts
  void handWritten_data() {
    QTest::addColumn<QString>("script");
    // Every script below schedules the small matmul exactly as tiledMatmul() does.
    QTest::newRow("positional") << "b = sch.get_block(\"C\")\n"
                                   "i, j, k = sch.get_loops(b)\n"
                                   "io, ii = sch.split(i, [None, 16])\n"
                                   "jo, ji = sch.split(j, [None, 8], True, False)\n"
                                   "sch.reorder(io, jo, k, ii, ji)\n"
                                   "sch.fuse(io, jo, preserve_unit_iters=False)\n";
    QTest::newRow("keywords in any order") << "b = sch.get_block(func_name='main', name='C')\n"
                                              "(i, j, k) = sch.get_loops(block=b)\n"
                                              "io, ii = sch.split(factors=[None, 16], loop=i)\n"
                                              "[jo, ji] = sch.split(loop=j, factors=[None, 2 * 4])\n"
                                              "sch.reorder(io, jo, k, ii, ji)\n"
                                              "fused = sch.fuse(io, jo, preserve_unit_iters=False)\n";
    QTest::newRow("subscripts and lists") << "loops = sch.get_loops(sch.get_block(\"C\"))\n"
                                             "i = sch.split(loops[0], factors=[None, 16])\n"
                                             "j = sch.split(loops[-2], factors=[None, 8])\n"
                                             "order = [i[0], j[0], loops[2], i[-1], j[1]]\n"
                                             "sch.reorder(*order)\n"
                                             "sch.fuse(*[i[0], j[0]], preserve_unit_iters=False)\n";
    QTest::newRow("def wrapper") << "# from tvm import tir\n"
                                    "import tvm\n"
                                    "from tvm import tir\n"
                                    "\n"
                                    "def apply_trace(s: tir.Schedule) -> None:\n"
                                    "    # the body is the script\n"
                                    "    b0 = s.get_block(name=\"C\",\n"
                                    "                     func_name=\"main\")\n"
                                    "\n"
                                    "    l1, l2, l3 = s.get_loops(block=b0)\n"
                                    "    l4, l5 = s.split(loop=l1, factors=[None, 16])  # i\n"
                                    "    l6, l7 = s.split(loop=l2, factors=(None, 8))\n"
                                    "    s.reorder(l4, l6, l3, l5, l7)\n"
                                    "    l8, = [s.fuse(l4, l6, preserve_unit_iters=False)]\n";
    QTest::newRow("blocks by name") << "i, j, k = sch.get_loops(\"C\")\n"
                                       "io, ii = sch.split(i, [None, 16])\n"
                                       "jo, ji = sch.split(j, [None, 8])\n"
                                       "sch.reorder(io, jo, k, ii, ji)\n"
                                       "sch.fuse(io, jo, preserve_unit_iters=False)\n";
    QTest::newRow("TVM 0.27 as_python") << "b0 = sch.get_sblock(name=\"C\", func_name=\"main\")\n"
                                           "l1, l2, l3 = sch.get_loops(block=b0)\n"
                                           "l4, l5 = sch.split(loop=l1, factors=[None, 16], preserve_unit_iters=True, "
                                           "disable_predication=False)\n"
                                           "l6, l7 = sch.split(loop=l2, factors=[None, 8], preserve_unit_iters=True, "
                                           "disable_predication=False)\n"
                                           "sch.reorder(l4, l6, l3, l5, l7)\n"
                                           "l8 = sch.fuse(l4, l6, preserve_unit_iters=False)\n";
  }
  void handWritten() {
    QFETCH(QString, script);
    const Schedule sch = applied(kSmallMatmul, script.toStdString());
    QCOMPARE(QString::fromStdString(traceToPython(sch.trace())), QString(kTiledPython));
    QVERIFY(ir::structuralEqual(sch.func(), tiledMatmul().func()));
  }

  // ------------------------------------------------------------------ errors
  void scriptErrors_data() {
    QTest::addColumn<QString>("script");
    QTest::addColumn<QString>("rendered");
    QTest::newRow("unterminated string") << "b = sch.get_block(\"C)\n"
                                         << "e.py:1:19: error: unterminated string literal\n"
                                            "  b = sch.get_block(\"C)\n"
                                            "                    ^\n";
    QTest::newRow("missing comma") << "l = sch.get_loops(sch.get_block(\"C\"))\nsch.split(l[0], [None 4])\n"
                                   << "e.py:2:23: error: expected ',' or ']', found a number\n"
                                      "  sch.split(l[0], [None 4])\n"
                                      "                        ^\n";
    QTest::newRow("never closed") << "b = sch.get_block(\"C\"\n"
                                  << "e.py:1:18: error: '(' was never closed\n"
                                     "  b = sch.get_block(\"C\"\n"
                                     "                   ^\n";
    QTest::newRow("bad character") << "b = sch.get_block(\"C\") $\n"
                                   << "e.py:1:24: error: unexpected character '$'\n"
                                      "  b = sch.get_block(\"C\") $\n"
                                      "                         ^\n";
    QTest::newRow("unexpected indent") << "b = sch.get_block(\"C\")\n  l = sch.get_loops(b)\n"
                                       << "e.py:2:3: error: unexpected indentation\n"
                                          "    l = sch.get_loops(b)\n"
                                          "    ^\n";
    QTest::newRow("unknown name") << "l = sch.get_loops(blk)\n"
                                  << "e.py:1:19: error: unknown name 'blk'\n"
                                     "  l = sch.get_loops(blk)\n"
                                     "                    ^~~\n";
    QTest::newRow("unknown primitive") << "b = sch.get_blok(\"C\")\n"
                                       << "e.py:1:9: error: unknown schedule primitive 'get_blok'\n"
                                          "  b = sch.get_blok(\"C\")\n"
                                          "          ^~~~~~~~\n";
    QTest::newRow("unknown keyword") << "b = sch.get_block(nme=\"C\")\n"
                                     << "e.py:1:19: error: get_block has no argument 'nme' (arguments: name, "
                                        "func_name)\n"
                                        "  b = sch.get_block(nme=\"C\")\n"
                                        "                    ^~~\n";
    QTest::newRow("missing argument") << "b = sch.get_block(\"C\")\nsch.split(factors=[2, None])\n"
                                      << "e.py:2:1: error: split: missing argument 'loop'\n"
                                         "  sch.split(factors=[2, None])\n"
                                         "  ^~~~~~~~~~~~~~~~~~~~~~~~~~~~\n";
    QTest::newRow("too many arguments") << "b = sch.get_block(\"C\", \"main\", 3)\n"
                                        << "e.py:1:32: error: get_block takes at most 2 positional arguments (name, "
                                           "func_name), got 3\n"
                                           "  b = sch.get_block(\"C\", \"main\", 3)\n"
                                           "                                 ^\n";
    QTest::newRow("duplicate argument") << "b = sch.get_block(\"C\", name=\"C\")\n"
                                        << "e.py:1:24: error: get_block: argument 'name' given twice\n"
                                           "  b = sch.get_block(\"C\", name=\"C\")\n"
                                           "                         ^~~~\n";
    QTest::newRow("unpack count") << "b = sch.get_block(\"C\")\ni, j = sch.get_loops(b)\n"
                                  << "e.py:2:1: error: get_loops returned 3 values, but 2 names are assigned\n"
                                     "  i, j = sch.get_loops(b)\n"
                                     "  ^\n";
    QTest::newRow("index out of range") << "l = sch.get_loops(sch.get_block(\"C\"))\nsch.parallel(l[3])\n"
                                        << "e.py:2:16: error: index 3 is out of range for a list of 3 values\n"
                                           "  sch.parallel(l[3])\n"
                                           "                 ^\n";
    QTest::newRow("list to variadic") << "l = sch.get_loops(sch.get_block(\"C\"))\nsch.reorder(l)\n"
                                      << "e.py:2:13: error: reorder takes its loops as separate arguments, got a "
                                         "list (write *l to pass a list)\n"
                                         "  sch.reorder(l)\n"
                                         "              ^\n";
    QTest::newRow("positional after keyword") << "b = sch.get_block(name=\"C\", \"main\")\n"
                                              << "e.py:1:29: error: positional argument follows keyword argument\n"
                                                 "  b = sch.get_block(name=\"C\", \"main\")\n"
                                                 "                              ^~~~~~\n";
    QTest::newRow("unsupported statement") << "for i in range(3):\n    pass\n"
                                           << "e.py:1:1: error: 'for' is not supported in trace scripts (only "
                                              "assignments and schedule calls)\n"
                                              "  for i in range(3):\n"
                                              "  ^~~\n";
    QTest::newRow("bad assignment target") << "sch.get_block(\"C\") = 3\n"
                                           << "e.py:1:1: error: cannot assign to this expression; assignment "
                                              "targets are names\n"
                                              "  sch.get_block(\"C\") = 3\n"
                                              "  ^~~~~~~~~~~~~~~~~~\n";
    QTest::newRow("def without body") << "def apply_trace(sch):\nb = sch.get_block(\"C\")\n"
                                      << "e.py:2:1: error: expected an indented block after the function "
                                         "definition on line 1\n"
                                         "  b = sch.get_block(\"C\")\n"
                                         "  ^\n";
    QTest::newRow("huge integer") << "x = 99999999999999999999\n"
                                  << "e.py:1:5: error: integer literal 99999999999999999999 does not fit in 64 "
                                     "bits\n"
                                     "  x = 99999999999999999999\n"
                                     "      ^~~~~~~~~~~~~~~~~~~~\n";
  }
  void scriptErrors() {
    QFETCH(QString, script);
    QFETCH(QString, rendered);
    Schedule sch(parseProgram(kSmallMatmul));
    const std::string text = script.toStdString();
    auto ok = applyScript(sch, text, "e.py");
    QVERIFY(!ok.has_value());
    QVERIFY2(ok.error().code.starts_with("trace."), ok.error().code.c_str());
    QCOMPARE(QString::fromStdString(renderDiagnostic(ok.error(), text)), rendered);
  }

  void refusedPrimitiveIsLocatedInTheScript() {
    Schedule sch(parseProgram(kSmallMatmul));
    const std::string script = "b0 = sch.get_block(\"C\")\n"
                               "i, j, k = sch.get_loops(b0)\n"
                               "i0, i1 = sch.split(i, [None, 16])\n"
                               "sch.split(j,\n"
                               "          [3, 5])\n"
                               "sch.parallel(i0)\n";
    auto ok = applyScript(sch, script, "s.py");
    QVERIFY(!ok.has_value());
    const Diagnostic& d = ok.error();
    QCOMPARE(QString::fromStdString(d.code), QString("schedule.split.factor-product"));
    QCOMPARE(d.location.line, 4);
    QCOMPARE(d.location.column, 1);
    QCOMPARE(d.references.size(), std::size_t(1));
    QCOMPARE(QString::fromStdString(d.references[0].name), QString("j"));
    QCOMPARE(QString::fromStdString(renderDiagnostic(d, script)),
             QString("s.py:4:1: error: split of loop 'j': the factors multiply to 15, less than the extent 32\n"
                     "  sch.split(j,\n"
                     "  ^~~~~~~~~\n"));
    // The schedule stopped before the refused step.
    QCOMPARE(sch.trace().instructions.size(), std::size_t(3));
  }

  void jsonErrors_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("rendered");
    QTest::newRow("syntax") << "[\n  [\n    [\"GetBlock\", [], [\"C\"] [\"b0\"]]\n  ],\n  []\n]\n"
                            << "t.json:3:28: error: invalid JSON: syntax error while parsing array - unexpected '['; "
                               "expected ']'\n"
                               "      [\"GetBlock\", [], [\"C\"] [\"b0\"]]\n"
                               "                             ^\n";
    QTest::newRow("not a pair") << "[[]]\n"
                                << "t.json: error: a trace is [instructions, decisions]: an array of two arrays\n";
    QTest::newRow("unknown kind") << "[\n  [\n    [\"GetBlock\", [], [\"C\"], [\"b0\"]],\n    [\"Splitt\", [], [], []]\n  ],\n  []\n]\n"
                                  << "t.json:4:5: error: instruction 1: unknown instruction kind 'Splitt'\n"
                                     "      [\"Splitt\", [], [], []]\n"
                                     "      ^\n";
    QTest::newRow("malformed entry") << "[[[\"GetBlock\", [], [\"C\"], [\"b0\"]], [\"GetLoops\", [\"b0\"]]], []]\n"
                                     << "t.json:1:36: error: instruction 1: expected [kind, [inputs], [attrs], "
                                        "[outputs]]\n"
                                        "  [[[\"GetBlock\", [], [\"C\"], [\"b0\"]], [\"GetLoops\", [\"b0\"]]], []]\n"
                                        "                                     ^\n";
    QTest::newRow("undefined rv") << "[[[\"GetLoops\", [\"b0\"], [], [\"l1\"]]], []]\n"
                                  << "t.json:1:3: error: instruction 0 (GetLoops): 'b0' is not defined by an earlier "
                                     "instruction\n"
                                     "  [[[\"GetLoops\", [\"b0\"], [], [\"l1\"]]], []]\n"
                                     "    ^\n";
    QTest::newRow("wrong output kind") << "[[[\"GetBlock\", [], [\"C\"], [\"l0\"]]], []]\n"
                                       << "t.json:1:3: error: instruction 0 (GetBlock): output \"l0\" must be the "
                                          "name of a block RV ('b' followed by its number)\n"
                                          "  [[[\"GetBlock\", [], [\"C\"], [\"l0\"]]], []]\n"
                                          "    ^\n";
    QTest::newRow("decision of a non-sampling kind") << "[[[\"GetBlock\", [], [\"C\"], [\"b0\"]]], [[0, 1]]]\n"
                                                     << "t.json:1:3: error: decision 0: instruction 0 (GetBlock) is "
                                                        "not a sampling instruction\n"
                                                        "  [[[\"GetBlock\", [], [\"C\"], [\"b0\"]]], [[0, 1]]]\n"
                                                        "    ^\n";
  }
  void jsonErrors() {
    QFETCH(QString, text);
    QFETCH(QString, rendered);
    const std::string t = text.toStdString();
    auto parsed = traceFromJson(t, "t.json");
    QVERIFY(!parsed.has_value());
    QCOMPARE(QString::fromStdString(renderDiagnostic(parsed.error(), t)), rendered);
  }

  void refusedJsonInstructionIsLocated() {
    const std::string text = "[\n  [\n    [\"GetBlock\", [], [\"C\", \"main\"], [\"b0\"]],\n"
                             "    [\"GetLoops\", [\"b0\"], [], [\"l1\", \"l2\", \"l3\"]],\n"
                             "    [\"Split\", [\"l1\", [3, 5]], [true, false], [\"l4\", \"l5\"]]\n  ],\n  []\n]\n";
    Schedule sch(parseProgram(kSmallMatmul));
    auto ok = applyJsonTrace(sch, text, "t.json");
    QVERIFY(!ok.has_value());
    QCOMPARE(QString::fromStdString(ok.error().code), QString("schedule.split.factor-product"));
    QCOMPARE(ok.error().location.line, 5);
    QCOMPARE(ok.error().location.column, 5);
    QCOMPARE(sch.trace().instructions.size(), std::size_t(2));
  }

  // ------------------------------------------------------------------ sample traces
  void sampleTraces_data() {
    QTest::addColumn<QString>("trace");
    QTest::addColumn<QString>("sample");
    QTest::addColumn<QStringList>("smallSizes"); // pairs: sample line, small replacement
    QTest::addColumn<QString>("bindings");       // "n=12" or empty
    struct Small {
      const char* trace;
      const char* sample;
      QStringList sizes;
      const char* bindings;
    };
    const Small smalls[] = {
        {"matmul_tile.py", "matmul.te", {"M, N, K = 1024, 1024, 1024", "M, N, K = 64, 64, 16"}, ""},
        {"batch_matmul_fuse.py",
         "batch_matmul.te",
         {"batch, M, K, N = 16, 128, 64, 128", "batch, M, K, N = 2, 64, 8, 64"},
         ""},
        {"conv2d_nchw_inline.py",
         "conv2d_nchw.te",
         {"batch, in_channel, height, width = 1, 64, 56, 56", "batch, in_channel, height, width = 1, 4, 6, 6",
          "out_channel, kernel, pad, stride = 64, 3, 1, 1", "out_channel, kernel, pad, stride = 32, 3, 1, 1"},
         ""},
        {"dense_dynamic_split.py", "dense_dynamic.te", {"in_dim, units = 512, 1000", "in_dim, units = 8, 40"}, "n=12"},
        {"depthwise_conv2d_inline.py",
         "depthwise_conv2d.te",
         {"batch, channel, height, width = 1, 32, 112, 112", "batch, channel, height, width = 1, 4, 8, 20"},
         ""},
        {"softmax_rows.py", "softmax.te", {"m, n = 128, 1024", "m, n = 4, 96"}, ""},
        {"layernorm_split.py", "layernorm.te", {"rows, cols = 256, 768", "rows, cols = 4, 96"}, ""},
        {"matmul_tuned.py", "matmul.te", {"M, N, K = 1024, 1024, 1024", "M, N, K = 128, 64, 8"}, ""},
        {"matmul_gpu.py", "matmul.te", {"M, N, K = 1024, 1024, 1024", "M, N, K = 128, 128, 32"}, ""},
        {"matmul_gpu_128.py", "matmul.te", {"M, N, K = 1024, 1024, 1024", "M, N, K = 128, 128, 16"}, ""},
        {"softmax_gpu.py", "softmax.te", {"m, n = 128, 1024", "m, n = 4, 256"}, ""},
        {"conv2d_nchw_gpu.py",
         "conv2d_nchw.te",
         {"batch, in_channel, height, width = 1, 64, 56, 56", "batch, in_channel, height, width = 1, 4, 4, 56",
          "out_channel, kernel, pad, stride = 64, 3, 1, 1", "out_channel, kernel, pad, stride = 8, 3, 1, 1"},
         ""},
        {"conv2d_nchw_tuned.py",
         "conv2d_nchw.te",
         {"batch, in_channel, height, width = 1, 64, 56, 56", "batch, in_channel, height, width = 1, 2, 8, 8",
          "out_channel, kernel, pad, stride = 64, 3, 1, 1", "out_channel, kernel, pad, stride = 16, 3, 1, 1"},
         ""},
    };
    QStringList covered;
    for (const auto& s : smalls) {
      QTest::newRow(s.trace) << s.trace << s.sample << s.sizes << s.bindings;
      covered << s.trace;
    }
    // Every trace in samples/traces has a small copy here.
    const auto files = QDir(LS_SOURCE_DIR "/samples/traces").entryList({"*.py"}, QDir::Files);
    for (const auto& f : files)
      if (!covered.contains(f)) QTest::newRow(qPrintable(f)) << f << QString() << QStringList() << QString();
  }
  void sampleTraces() {
    QFETCH(QString, trace);
    QFETCH(QString, sample);
    QFETCH(QStringList, smallSizes);
    QFETCH(QString, bindings);
    QVERIFY2(!sample.isEmpty(), qPrintable("no small copy of the sample for samples/traces/" + trace));
    const std::string script = readText(LS_SOURCE_DIR "/samples/traces/" + trace);
    QVERIFY2(script.find("samples/" + sample.toStdString()) != std::string::npos,
             "the trace's comment must name its sample");
    std::string source = readText(LS_SOURCE_DIR "/samples/" + sample);
    for (int k = 0; k + 1 < smallSizes.size(); k += 2) {
      const auto at = source.find(smallSizes[k].toStdString());
      QVERIFY2(at != std::string::npos, qPrintable("size line not found: " + smallSizes[k]));
      source.replace(at, smallSizes[k].size(), smallSizes[k + 1].toStdString());
    }
    const ir::PrimFunc func = parseProgram(source);
    Schedule sch(func);
    auto ok = applyScript(sch, script, trace.toStdString());
    QVERIFY2(ok.has_value(), ok ? "" : renderDiagnostic(ok.error(), script).c_str());
    QVERIFY(!ir::structuralEqual(sch.func(), func));
    std::map<std::string, std::int64_t> sizes;
    if (!bindings.isEmpty()) sizes[bindings.section('=', 0, 0).toStdString()] = bindings.section('=', 1).toLongLong();
    QCOMPARE(QString::fromStdString(compareResults(func, sch.func(), sizes)), QString());
    // The full-size sample accepts the trace too.
    Schedule full(parseProgram(readText(LS_SOURCE_DIR "/samples/" + sample)));
    auto fullOk = applyScript(full, script, trace.toStdString());
    QVERIFY2(fullOk.has_value(), fullOk ? "" : fullOk.error().message.c_str());
  }
};

QTEST_GUILESS_MAIN(TestTrace)
#include "tst_trace.moc"
