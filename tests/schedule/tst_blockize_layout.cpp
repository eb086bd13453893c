// blockize and transform_layout: printed results against golden files (TVM's printed
// form), interpreter equality with the original, refused cases per precondition.
#include "schedule_test_helpers.h"

#include "core/ir/interpreter.h"
#include "core/ir/ndarray.h"
#include "core/ir/op.h"
#include "core/ir/printer.h"
#include "core/schedule/instruction.h"
#include "core/schedule/schedule.h"

#include <QtTest>

using namespace loopscape;
using schedule::IndexMap;
using schedule::RV;
using schedule::Schedule;
using schedule::TraceList;
using schedule::TraceValue;

using testing::expectRefused;
using testing::refNames;

namespace {

RV one(const Expected<std::vector<RV>>& r) {
  if (!r) qFatal("%s", r.error().message.c_str());
  return r->at(0);
}
std::vector<RV> all(const Expected<std::vector<RV>>& r) {
  if (!r) qFatal("%s", r.error().message.c_str());
  return *r;
}

/// lambda i, j: (f(i, j)...)
IndexMap map2(const std::function<std::vector<ir::Expr>(const ir::Expr&, const ir::Expr&)>& fn) {
  ir::Expr i = ir::Var::make("i"), j = ir::Var::make("j");
  return IndexMap{{i, j}, fn(i, j)};
}

void golden(const QString& name, const ir::PrimFunc& f) {
  const auto text = ir::printPrimFunc(f);
  const QString msg = testing::checkGolden(name, text);
  QVERIFY2(msg.isEmpty(), qPrintable(msg));
}

const char* const kBatchMatmul = "A = placeholder((2, 4, 6), \"int32\", name=\"A\")\n"
                                 "B = placeholder((2, 6, 8), \"int32\", name=\"B\")\n"
                                 "k = reduce_axis((0, 6), name=\"k\")\n"
                                 "C = compute((2, 4, 8), lambda b, i, j: sum(A[b, i, k] * B[b, k, j], axis=k), "
                                 "name=\"C\")\n";

} // namespace

class TstBlockizeLayout : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void blockizeReduction() {
    const auto f = testing::parseProgram(testing::kSmallMatmul);
    Schedule sch(f);
    const RV c = one(sch.apply("get_block", {}, {"C"}));
    const auto loops = all(sch.apply("get_loops", {c}));
    const auto i = all(sch.apply("split", {loops[0], TraceList{nullptr, 16}}));
    const RV outer = one(sch.apply("blockize", {i[1]}));
    golden("blockize_matmul_inner", sch.func());
    QCOMPARE(QString::fromStdString(testing::compareResults(f, sch.func())), QString());
    QVERIFY(sch.block(outer, "test").value()->block()->name == "C_o");
    QVERIFY(sch.block(c, "test").value()->block()->name == "C");
    // The inner loops keep their RVs.
    QCOMPARE(all(sch.apply("get_loops", {c})).size(), std::size_t{3});
  }

  void blockizeWhole() {
    const auto f = testing::parseProgram(testing::kSmallMatmul);
    Schedule sch(f);
    const RV c = one(sch.apply("get_block", {}, {"C"}));
    const auto loops = all(sch.apply("get_loops", {c}));
    one(sch.apply("blockize", {loops[0]}));
    golden("blockize_matmul_whole", sch.func());
    QCOMPARE(QString::fromStdString(testing::compareResults(f, sch.func())), QString());
  }

  void blockizeSpatial() {
    const auto f = testing::parseProgram(testing::kTwoStage);
    Schedule sch(f);
    const RV b = one(sch.apply("get_block", {}, {"B"}));
    const auto loops = all(sch.apply("get_loops", {b}));
    const auto i = all(sch.apply("split", {loops[0], TraceList{nullptr, 8}}));
    const auto j = all(sch.apply("split", {loops[1], TraceList{nullptr, 16}}));
    sch.apply("reorder", {i[0], j[0], i[1], j[1]}).value();
    one(sch.apply("blockize", {i[1]}, {false}));
    golden("blockize_tile", sch.func());
    QCOMPARE(QString::fromStdString(testing::compareResults(f, sch.func())), QString());
  }

  void blockizeNonDividingSplit() {
    // Regression (differential test): k (6) split by 4 gives k_0 * 4 + k_1 < 6. The inner
    // iterator's domain is the iterator's extent 6, not the loops' 8; the init, lifted
    // to the outer block under copies of the spatial loops only, must not keep the
    // predicate over k_0 and k_1 (they are not bound there).
    const auto f = testing::parseProgram(kBatchMatmul);
    Schedule sch(f);
    const RV c = one(sch.apply("get_block", {}, {"C"}));
    const auto loops = all(sch.apply("get_loops", {c}));
    all(sch.apply("split", {loops[3], TraceList{nullptr, 4}}));
    one(sch.apply("blockize", {loops[0]}));
    golden("blockize_non_dividing_split", sch.func());
    QCOMPARE(QString::fromStdString(testing::compareResults(f, sch.func())), QString());
  }

  void blockizeUnderPartition() {
    // Regression (differential test): after loop_partition, the copy's iterator v_j has
    // the domain [5, 8); blockizing the loop k below keeps that domain for v_j_o (it was
    // [0, 3), and v_j_o = 5 lay outside it).
    const auto f = testing::parseProgram(kBatchMatmul);
    Schedule sch(f);
    const RV c = one(sch.apply("get_block", {}, {"C"}));
    const auto loops = all(sch.apply("get_loops", {c}));
    all(sch.apply("loop_partition", {loops[2], TraceList{5}}));
    const RV c1 = one(sch.apply("get_block", {}, {"C_j1"}));
    const auto inner = all(sch.apply("get_loops", {c1}));
    one(sch.apply("blockize", {inner.back()}));
    golden("blockize_under_partition", sch.func());
    QCOMPARE(QString::fromStdString(testing::compareResults(f, sch.func())), QString());
  }

  void blockizeClipsPaddingRegion() {
    // Regression (differential test): the padding block reads data[i - 1] under a guard;
    // relaxed over the inner loop, the outer block's region started at -1, and cache_read
    // of it copied data[-1].
    const char* const pad = "data = placeholder((6,), \"int32\", name=\"data\")\n"
                            "P = compute((8,), lambda i: if_then_else(all(i >= 1, i < 7), data[i - 1], 0), name=\"P\")\n";
    const auto f = testing::parseProgram(pad);
    Schedule sch(f);
    const RV p = one(sch.apply("get_block", {}, {"P"}));
    const auto loops = all(sch.apply("get_loops", {p}));
    const RV outer = one(sch.apply("blockize", {loops[0]}));
    const auto& reads = sch.block(outer, "test").value()->block()->reads;
    QCOMPARE(QString::fromStdString(ir::printExpr(reads[0].region[0].min)), QString("0"));
    QCOMPARE(QString::fromStdString(ir::printExpr(reads[0].region[0].extent)), QString("6"));
    one(sch.apply("cache_read", {outer, TraceList{}}, {0, "shared"}));
    QCOMPARE(QString::fromStdString(testing::compareResults(f, sch.func())), QString());
  }

  void blockizeRefused() {
    const auto f = testing::parseProgram(testing::kSmallMatmul);
    Schedule sch(f);
    const RV c = one(sch.apply("get_block", {}, {"C"}));
    const auto loops = all(sch.apply("get_loops", {c}));
    const auto i = all(sch.apply("split", {loops[0], TraceList{nullptr, 16}}));
    // 3. the inner loop i_0 carries the high part of v_i.
    sch.apply("reorder", {i[1], i[0]}).value();
    expectRefused(sch, "blockize", {i[0]}, {}, "schedule.blockize.not-divisible", {"C", "i_0"});
    // 1. a list of blocks.
    expectRefused(sch, "blockize", {TraceList{c}}, {}, "schedule.blockize.bad-arguments", {});
    // 2. two blocks under j after decompose_reduction at k.
    one(sch.apply("decompose_reduction", {c, loops[2]}));
    expectRefused(sch, "blockize", {loops[1]}, {}, "schedule.blockize.not-single-block", {"j"});
  }

  void transformIntermediate_data() {
    QTest::addColumn<IndexMap>("map");
    QTest::addColumn<QString>("golden");
    QTest::newRow("transpose") << map2([](auto i, auto j) { return std::vector<ir::Expr>{j, i}; })
                               << "layout_transpose";
    QTest::newRow("tile") << map2([](auto i, auto j) {
      return std::vector<ir::Expr>{ir::floordiv(i, 16), j, ir::floormod(i, 16)};
    }) << "layout_tile";
  }
  void transformIntermediate() {
    QFETCH(IndexMap, map);
    QFETCH(QString, golden);
    const auto f = testing::parseProgram(testing::kTwoStage);
    Schedule sch(f);
    const RV b = one(sch.apply("get_block", {}, {"B"}));
    QVERIFY(sch.apply("transform_layout", {b, TraceList{"write", 0}, map}));
    ::golden(golden, sch.func());
    QCOMPARE(QString::fromStdString(testing::compareResults(f, sch.func())), QString());
  }

  void transformParameter() {
    // The input A becomes column-major: the signature changes as in TVM; feeding the
    // transposed data gives the original result.
    const auto f = testing::parseProgram(testing::kTwoStage);
    Schedule sch(f);
    const RV b = one(sch.apply("get_block", {}, {"B"}));
    QVERIFY(sch.apply("transform_layout", {b, "A", map2([](auto i, auto j) { return std::vector<ir::Expr>{j, i}; })}));
    golden("layout_param", sch.func());
    ir::NDArray a({64, 64}, ir::DataType::float32()), at({64, 64}, ir::DataType::float32());
    a.fillRandom(7);
    for (int i = 0; i < 64; ++i)
      for (int j = 0; j < 64; ++j) at.data<float>()[j * 64 + i] = a.data<float>()[i * 64 + j];
    std::vector<ir::NDArray> x{a, ir::NDArray({64, 64}, ir::DataType::float32())};
    std::vector<ir::NDArray> y{at, ir::NDArray({64, 64}, ir::DataType::float32())};
    QVERIFY(ir::interpret(f, x));
    QVERIFY(ir::interpret(sch.func(), y));
    QVERIFY(!ir::firstMismatch(y[1], x[1], 0.0, 0.0));
  }

  void transformThroughRegions() {
    // A region of more than one element (the outer block of a blockize) is mapped too.
    const auto f = testing::parseProgram(testing::kTwoStage);
    Schedule sch(f);
    const RV b = one(sch.apply("get_block", {}, {"B"}));
    const auto loops = all(sch.apply("get_loops", {b}));
    const auto i = all(sch.apply("split", {loops[0], TraceList{nullptr, 16}}));
    one(sch.apply("blockize", {i[1]}));
    QVERIFY(sch.apply("transform_layout", {b, TraceList{"write", 0}, map2([](auto i, auto j) {
                                             return std::vector<ir::Expr>{ir::floordiv(i, 16), j, ir::floormod(i, 16)};
                                           })}));
    golden("layout_blockized", sch.func());
    QCOMPARE(QString::fromStdString(testing::compareResults(f, sch.func())), QString());
  }

  void transformRefused() {
    const auto f = testing::parseProgram(testing::kTwoStage);
    Schedule sch(f);
    const RV b = one(sch.apply("get_block", {}, {"B"}));
    const auto ident = map2([](auto i, auto j) { return std::vector<ir::Expr>{i, j}; });
    expectRefused(sch, "transform_layout", {b, TraceList{"read", 3}, ident}, {}, "schedule.transform_layout.bad-buffer",
                  {"B"});
    expectRefused(sch, "transform_layout", {b, "Z", ident}, {}, "schedule.transform_layout.bad-buffer", {"B"});
    ir::Expr i = ir::Var::make("i");
    expectRefused(sch, "transform_layout", {b, TraceList{"write", 0}, IndexMap{{i}, {i}}}, {},
                  "schedule.transform_layout.bad-index-map", {"B"});
    expectRefused(sch, "transform_layout", {b, TraceList{"write", 0}, ident}, {0.0},
                  "schedule.transform_layout.unsupported-pad-value", {"B"});
    expectRefused(sch, "transform_layout", {b, TraceList{"write", 0}, map2([](auto i, auto j) {
                                              return std::vector<ir::Expr>{i - 1, j};
                                            })},
                  {}, "schedule.transform_layout.unbounded-result", {"B"});
    auto r = sch.apply("transform_layout", {b, TraceList{"write", 0}, map2([](auto i, auto j) {
                                              return std::vector<ir::Expr>{ir::floordiv(i, 2), j};
                                            })});
    QVERIFY(!r);
    QCOMPARE(QString::fromStdString(r.error().code), QString("schedule.transform_layout.not-injective"));
    QVERIFY2(r.error().message.find("(0, 0) and (1, 0)") != std::string::npos, r.error().message.c_str());
    expectRefused(sch, "transform_layout", {b, TraceList{"write", 0}, map2([](auto i, auto j) {
                                              return std::vector<ir::Expr>{ir::floordiv(i, 48), j, ir::floormod(i, 48)};
                                            })},
                  {}, "schedule.transform_layout.padding", {"B"});
  }
};

QTEST_GUILESS_MAIN(TstBlockizeLayout)
#include "tst_blockize_layout.moc"
