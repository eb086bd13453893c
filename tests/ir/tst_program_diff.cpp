// diffPrograms (core/ir/program_diff.h) on known pairs, as golden text: matmul against
// matmul split + reorder + parallel + vectorize, a compute_inline that removes a block and
// its loops, a compute_at (the consumer's loop, the same variable, now encloses both blocks),
// a reorder (depths), an annotation and an unroll, identical programs (empty), and
// programs equal but for loop names (renamed loops, nothing else); the entries' sides,
// lines and nodes, as a view uses them to highlight printed lines.
#include "core/frontend/te_frontend.h"
#include "core/ir/printer.h"
#include "core/ir/program_diff.h"
#include "core/schedule/schedule.h"
#include "core/schedule/trace_script.h"

#include <QtTest>

using namespace loopscape;

namespace {

const char* kMatmul = R"(from tvm import te
A = te.placeholder((64, 48), dtype="float32", name="A")
B = te.placeholder((48, 32), dtype="float32", name="B")
k = te.reduce_axis((0, 48), name="k")
C = te.compute((64, 32), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
)";

const char* kMatmulRenamed = R"(from tvm import te
A = te.placeholder((64, 48), dtype="float32", name="A")
B = te.placeholder((48, 32), dtype="float32", name="B")
r = te.reduce_axis((0, 48), name="r")
C = te.compute((64, 32), lambda x, y: te.sum(A[x, r] * B[r, y], axis=r), name="C")
)";

const char* kTwoStage = R"(from tvm import te
A = te.placeholder((16, 8), dtype="float32", name="A")
B = te.compute((16, 8), lambda i, j: A[i, j] * 2.0, name="B")
C = te.compute((16, 8), lambda i, j: B[i, j] + 1.0, name="C")
)";

ir::PrimFunc parse(const char* text) {
  auto f = frontend::parseTe(text, "t.te");
  if (!f) qFatal("%s", f.error().message.c_str());
  return *f;
}

ir::PrimFunc scheduled(const ir::PrimFunc& program, const char* trace) {
  schedule::Schedule sch(program);
  auto ok = schedule::applyScript(sch, trace, "t.py");
  if (!ok) qFatal("%s", ok.error().message.c_str());
  return sch.func();
}

} // namespace

class TestProgramDiff : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void golden_data() {
    QTest::addColumn<QString>("program");
    QTest::addColumn<QString>("traceA");
    QTest::addColumn<QString>("traceB");
    QTest::addColumn<QString>("expected");
    QTest::newRow("identical") << "matmul"
                               << ""
                               << ""
                               << "no structural difference\n";
    QTest::newRow("split+reorder+parallel")
        << "matmul"
        << ""
        << "def apply_trace(sch):\n"
           "    i, j, k = sch.get_loops(sch.get_block(\"C\"))\n"
           "    i_0, i_1 = sch.split(i, factors=[None, 16])\n"
           "    j_0, j_1 = sch.split(j, factors=[None, 16])\n"
           "    sch.reorder(i_0, j_0, k, i_1, j_1)\n"
           "    sch.parallel(i_0)\n"
           "    sch.vectorize(j_1)\n"
        << QString("- loop i (block C) [A line 7]: for i, j, k in T.grid(64, 32, 48):\n"
                   "-   loop j (block C) [A line 7]: for i, j, k in T.grid(64, 32, 48):\n"
                   "+ loop i_0 (block C) [B line 7]: for i_0 in T.parallel(4):\n"
                   "+   loop j_0 (block C) [B line 8]: for j_0, k, i_1 in T.grid(2, 48, 16):\n"
                   "+       loop i_1 (block C) [B line 8]: for j_0, k, i_1 in T.grid(2, 48, 16):\n"
                   "+         loop j_1 (block C) [B line 9]: for j_1 in T.vectorized(16):\n"
                   "~           block C [A line 8, B line 10]\n"
                   "                loops i, j, k -> i_0, j_0, k, i_1, j_1\n"
                   "                binding v_i: i -> i_0 * 16 + i_1\n"
                   "                binding v_j: j -> j_0 * 16 + j_1\n");
    QTest::newRow("compute_inline") << "two-stage"
                                    << ""
                                    << "def apply_trace(sch):\n"
                                       "    sch.compute_inline(sch.get_block(\"B\"))\n"
                                    << QString("~ block root [A line 6, B line 6]\n"
                                               "      allocates: B -> (none)\n"
                                               "- loop i (block B) [A line 8]: for i, j in T.grid(16, 8):\n"
                                               "-   loop j (block B) [A line 8]: for i, j in T.grid(16, 8):\n"
                                               "-     block B [A line 9]: with T.block(\"B\"):\n"
                                               "~     block C [A line 15, B line 8]\n"
                                               "          reads: B[v_i, v_j] -> A[v_i, v_j]\n"
                                               "          body: C[v_i, v_j] = B[v_i, v_j] + T.float32(1) -> C[v_i, "
                                               "v_j] = A[v_i, v_j] * T.float32(2) + T.float32(1)\n");
    QTest::newRow("compute_at") << "two-stage"
                                << ""
                                << "def apply_trace(sch):\n"
                                   "    sch.compute_at(sch.get_block(\"B\"), sch.get_loops(sch.get_block(\"C\"))[0])\n"
                                << QString("- loop i (block B) [A line 8]: for i, j in T.grid(16, 8):\n"
                                           "~ loop i (block C) [A line 14, B line 8]\n"
                                           "      encloses C -> B, C\n"
                                           "~   loop j (block B) [A line 8, B line 9]\n"
                                           "        renamed j -> ax0\n"
                                           "~     block B [A line 9, B line 10]\n"
                                           "          loops i, j -> i, ax0\n");
    QTest::newRow("reorder+unroll+annotate") << "matmul"
                                             << ""
                                             << "def apply_trace(sch):\n"
                                                "    i, j, k = sch.get_loops(sch.get_block(\"C\"))\n"
                                                "    sch.reorder(k, i, j)\n"
                                                "    sch.unroll(j)\n"
                                                "    sch.annotate(i, ann_key=\"pragma_x\", ann_val=4)\n"
                                             << QString("~ loop k (block C) [A line 7, B line 7]\n"
                                                        "      depth 2 -> 0\n"
                                                        "~   loop i (block C) [A line 7, B line 8]\n"
                                                        "        annotation pragma_x added: 4\n"
                                                        "        depth 0 -> 1\n"
                                                        "~     loop j (block C) [A line 7, B line 9]\n"
                                                        "          kind: serial -> unroll\n"
                                                        "          depth 1 -> 2\n"
                                                        "~       block C [A line 8, B line 10]\n"
                                                        "            loops i, j, k -> k, i, j\n");
  }
  void golden() {
    QFETCH(QString, program);
    QFETCH(QString, traceA);
    QFETCH(QString, traceB);
    QFETCH(QString, expected);
    const char* text = program == "matmul" ? kMatmul : kTwoStage;
    // Both sides are schedules of one parsed program, as compare makes them.
    const auto original = parse(text);
    const auto a = traceA.isEmpty() ? original : scheduled(original, qPrintable(traceA));
    const auto b = traceB.isEmpty() ? original : scheduled(original, qPrintable(traceB));
    const auto diff = ir::diffPrograms(a, b);
    QCOMPARE(QString::fromStdString(ir::renderProgramDiff(diff)), expected);
    QCOMPARE(diff.empty(), expected == "no structural difference\n");
  }

  /// The entries as a view uses them: kind, item, block and loop, the printed line (and
  /// the node) on each side, none on the side that lacks the item; programLoops.
  void entriesLocateTheirLines() {
    const auto a = parse(kMatmul);
    const auto b = scheduled(a, "def apply_trace(sch):\n"
                                "    i, j, k = sch.get_loops(sch.get_block(\"C\"))\n"
                                "    i_0, i_1 = sch.split(i, factors=[None, 16])\n"
                                "    sch.parallel(i_0)\n");
    const auto diff = ir::diffPrograms(a, b);
    QCOMPARE(diff.entries.size(), std::size_t(6));
    const auto& removed = diff.entries[0];
    QCOMPARE(removed.kind, ir::DiffKind::Removed);
    QCOMPARE(removed.item, ir::DiffItem::Loop);
    QCOMPARE(removed.loop, std::string("i"));
    QCOMPARE(removed.block, std::string("C"));
    QCOMPARE(removed.a.line, 7);
    QCOMPARE(removed.a.text, std::string("for i, j, k in T.grid(64, 32, 48):"));
    QCOMPARE(removed.b.line, 0);
    QVERIFY(removed.b.node == nullptr);
    QCOMPARE(diff.entries[1].kind, ir::DiffKind::Added);
    QCOMPARE(diff.entries[1].loop, std::string("i_0"));
    QCOMPARE(diff.entries[1].b.text, std::string("for i_0 in T.parallel(4):"));
    QCOMPARE(diff.entries[2].loop, std::string("i_1"));
    QCOMPARE(diff.entries[2].b.depth, 1);
    QCOMPARE(diff.entries[3].kind, ir::DiffKind::Changed);
    QCOMPARE(diff.entries[3].loop, std::string("j"));
    QCOMPARE(diff.entries[3].changes, std::vector<std::string>{"depth 1 -> 2"});
    const auto& block = diff.entries[5];
    QCOMPARE(block.kind, ir::DiffKind::Changed);
    QCOMPARE(block.item, ir::DiffItem::Block);
    QCOMPARE(block.a.line, 8);
    QCOMPARE(block.b.line, 9);
    QCOMPARE(block.b.text, std::string("with T.block(\"C\"):"));
    QVERIFY(block.b.node != nullptr && block.b.node->kind == ir::StmtKind::Block);
    QCOMPARE(block.changes,
             (std::vector<std::string>{"loops i, j, k -> i_0, i_1, j, k", "binding v_i: i -> i_0 * 16 + i_1"}));
    QCOMPARE(std::string(ir::diffKindSign(block.kind)), std::string("~"));

    const auto loops = ir::programLoops(b);
    QCOMPARE(loops.size(), std::size_t(4));
    QCOMPARE(loops[0].name, std::string("i_0"));
    QCOMPARE(loops[0].kind, ir::ForKind::Parallel);
    QCOMPARE(loops[0].extent, std::string("4"));
    QCOMPARE(loops[3].depth, 3);
    QCOMPARE(loops[3].blocks, std::vector<std::string>{"C"});
  }

  /// Equal programs but for the names of loops and iterators: the loops are paired as
  /// renamed (same place, same extent) and the block's bindings, regions and body compare
  /// equal under the renaming.
  void renamedButEqual() {
    const auto diff = ir::diffPrograms(parse(kMatmul), parse(kMatmulRenamed));
    QCOMPARE(QString::fromStdString(ir::renderProgramDiff(diff)),
             QString("~ loop i (block C) [A line 7, B line 7]\n"
                     "      renamed i -> x\n"
                     "~   loop j (block C) [A line 7, B line 7]\n"
                     "        renamed j -> y\n"
                     "~     loop k (block C) [A line 7, B line 7]\n"
                     "          renamed k -> r\n"
                     "~       block C [A line 8, B line 8]\n"
                     "            iterator v_i renamed -> v_x\n"
                     "            iterator v_j renamed -> v_y\n"
                     "            iterator v_k renamed -> v_r\n"));
  }
};

QTEST_GUILESS_MAIN(TestProgramDiff)
#include "tst_program_diff.moc"
