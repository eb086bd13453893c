// Scan and opaque block iterators (TVMScript's T.axis.scan / T.axis.opaque): neither
// data-parallel nor reductions, so the primitives that need a complete or a reduction
// block refuse them with the iterator named, while order-preserving ones (split) still
// apply and compute what the original computes.
#include "schedule_test_helpers.h"

#include "core/frontend/tvmscript/tvmscript.h"

#include <QtTest>

using namespace loopscape;
using schedule::RV;
using schedule::Schedule;

namespace {

// T is an intermediate computed by an opaque block; D a scan over it.
const char* kProgram = R"(# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def main(A: T.Buffer((8,), "float32"), D: T.Buffer((8,), "float32")):
    Tmp = T.sblock_alloc_buffer((8,))
    for i in range(8):
        with T.sblock("T"):
            w = T.axis.opaque(8, i)
            Tmp[w] = A[w] * T.float32(2.0)
    for i in range(8):
        with T.sblock("D"):
            v = T.axis.scan(8, i)
            D[v] = T.if_then_else(v == 0, Tmp[v], D[v - 1] + Tmp[v])
)";

ir::PrimFunc program() {
  auto p = frontend::parseTvmScript(kProgram, "t.py");
  if (!p) qFatal("%s", renderDiagnostic(p.error(), kProgram).c_str());
  return p->module.functions.front();
}

RV one(Expected<std::vector<RV>> r) {
  if (!r) qFatal("%s", r.error().message.c_str());
  return r->front();
}

} // namespace

class TestIterKinds : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void refusedWhereAKindIsNeeded_data() {
    QTest::addColumn<QString>("primitive");
    QTest::addColumn<QString>("block");
    QTest::addColumn<QString>("code");
    QTest::addColumn<QString>("message");
    QTest::newRow("inline opaque") << "compute_inline"
                                   << "T"
                                   << "schedule.compute_inline.reduction-block"
                                   << "compute_inline: block 'T' is not a complete block (it has the opaque iterator "
                                      "'w'); only a complete block can be inlined";
    QTest::newRow("parallel scan") << "parallel"
                                   << "D"
                                   << "schedule.parallel.not-compact-dataflow"
                                   << "the block 'D' under loop 'i' is neither a complete block nor a reduction block: "
                                      "it has the scan iterator 'v'";
    QTest::newRow("bind scan") << "bind"
                               << "D"
                               << "schedule.bind.not-compact-dataflow"
                               << "the block 'D' under loop 'i' is neither a complete block nor a reduction block: it "
                                  "has the scan iterator 'v'";
    QTest::newRow("decompose scan") << "decompose_reduction"
                                    << "D"
                                    << "schedule.decompose_reduction.not-reduction"
                                    << "";
  }

  void refusedWhereAKindIsNeeded() {
    QFETCH(QString, primitive);
    QFETCH(QString, block);
    QFETCH(QString, code);
    QFETCH(QString, message);
    Schedule sch(program());
    RV b = one(sch.apply("get_block", {}, {block.toStdString()}));
    RV loop = one(sch.apply("get_loops", {b}));
    std::vector<schedule::TraceValue> inputs{b};
    std::vector<schedule::TraceValue> attrs;
    if (primitive == "parallel" || primitive == "bind") inputs = {loop};
    if (primitive == "bind") attrs = {std::string("threadIdx.x")};
    if (primitive == "decompose_reduction") inputs = {b, loop};
    const ir::PrimFunc before = sch.func();
    auto r = sch.apply(primitive.toStdString(), inputs, attrs);
    QVERIFY(!r);
    if (!message.isEmpty()) QCOMPARE(QString::fromStdString(r.error().message), message);
    QCOMPARE(QString::fromStdString(r.error().code), code);
    QVERIFY(sch.func().body.sameAs(before.body));
  }

  void orderPreservingStepsApply() {
    Schedule sch(program());
    RV d = one(sch.apply("get_block", {}, {"D"}));
    RV loop = one(sch.apply("get_loops", {d}));
    auto split = sch.apply("split", {loop, schedule::TraceList{nullptr, 4}});
    QVERIFY2(split.has_value(), split ? "" : split.error().message.c_str());
    const std::string diff = testing::compareResults(program(), sch.func());
    QVERIFY2(diff.empty(), diff.c_str());
  }
};

QTEST_GUILESS_MAIN(TestIterKinds)
#include "tst_iter_kinds.moc"
