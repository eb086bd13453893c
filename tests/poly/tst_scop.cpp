// Scop extraction and dependences of matmul, a small conv2d, a small softmax and the 1-D
// stencil over time, compared with expected isl sets and maps by isl equality.
#include "poly_test_helpers.h"

#include "core/ir/op.h"
#include "core/poly/checked_schedule.h"
#include "core/poly/dependences.h"
#include "core/poly/isl_util.h"
#include "core/poly/poly_schedule.h"
#include "core/poly/report.h"
#include "core/poly/scop.h"
#include "core/poly/tree_description.h"

#include "core/schedule/schedule.h"

#include <QtTest>
#include <isl/printer.h>
#include <isl/schedule.h>

#include <fmt/format.h>

using namespace loopscape;

namespace {

const char* const kMatmul = "A = placeholder((4, 2), \"float32\", name=\"A\")\n"
                            "B = placeholder((2, 3), \"float32\", name=\"B\")\n"
                            "k = reduce_axis((0, 2), name=\"k\")\n"
                            "C = compute((4, 3), lambda i, j: sum(A[i, k] * B[k, j], axis=k), name=\"C\")\n";

const char* const kConv = "data = placeholder((1, 2, 4, 4), name=\"data\")\n"
                          "weight = placeholder((2, 2, 3, 3), name=\"weight\")\n"
                          "pad_temp = compute((1, 2, 6, 6), lambda i0, i1, i2, i3: if_then_else("
                          "all(i2 >= 1, i2 < 5, i3 >= 1, i3 < 5), data[i0, i1, i2 - 1, i3 - 1], 0.0), name=\"pad_temp\")\n"
                          "rc = reduce_axis((0, 2), name=\"rc\")\n"
                          "ry = reduce_axis((0, 3), name=\"ry\")\n"
                          "rx = reduce_axis((0, 3), name=\"rx\")\n"
                          "conv = compute((1, 2, 4, 4), lambda nn, ff, yy, xx: sum(pad_temp[nn, rc, yy + ry, xx + rx] * "
                          "weight[ff, rc, ry, rx], axis=[rc, ry, rx]), name=\"conv\")\n";

const char* const kSoftmax = "X = placeholder((2, 3), name=\"X\")\n"
                             "k1 = reduce_axis((0, 3), name=\"k1\")\n"
                             "k2 = reduce_axis((0, 3), name=\"k2\")\n"
                             "mx = compute((2,), lambda i: max(X[i, k1], axis=k1), name=\"mx\")\n"
                             "ex = compute((2, 3), lambda i, j: exp(X[i, j] - mx[i]), name=\"ex\")\n"
                             "es = compute((2,), lambda i: sum(ex[i, k2], axis=k2), name=\"es\")\n"
                             "nm = compute((2, 3), lambda i, j: ex[i, j] / es[i], name=\"nm\")\n";

// A batch of one: S's loop n runs once (its band is left out of the flow analysis), T's
// loop of the same depth runs twice.
const char* const kBatchOne = "A = placeholder((1, 2, 3), name=\"A\")\n"
                              "k = reduce_axis((0, 3), name=\"k\")\n"
                              "S = compute((1, 2), lambda n, i: sum(A[n, i, k], axis=k), name=\"S\")\n"
                              "T = compute((2, 2), lambda m, i: S[0, i] + S[0, m], name=\"T\")\n";

// In place: S[i] reads A[i + 1] and writes A[i] (two accesses of one buffer), then U[j]
// updates A[j] (a read-modify-write). S[i + 1] overwrites what S[i] read (WAR); U reads
// and overwrites what S wrote (RAW and WAW from S to U), and U[5] overwrites A[5], which
// S[4] read and nothing wrote since (WAR; S[i]'s other reads were overwritten by S[i + 1]).
ir::PrimFunc inPlace() {
  using namespace ir;
  Buffer A = makeBuffer("A", DataType::float32(), {intImm(6)});
  auto leaf = [&](const char* name, const char* loop, std::int64_t extent, int readOffset) {
    Expr l = Var::make(loop), v = Var::make(std::string("v_") + loop);
    Expr read = v + intImm(readOffset);
    Stmt store = BufferStore::make(A, BufferLoad::make(A, {read}) + FloatImm::make(DataType::float32(), 1.0), {v});
    Stmt block =
        Block::make(name, {{v, Range::fromMinExtent(intImm(0), intImm(extent)), IterKind::Spatial}},
                    {{A, {Range::fromMinExtent(read, intImm(1))}}}, {{A, {Range::fromMinExtent(v, intImm(1))}}}, store);
    return For::make(l, intImm(0), intImm(extent), ForKind::Serial, BlockRealize::make({l}, boolImm(true), block));
  };
  Stmt body = SeqStmt::make({leaf("S", "i", 5, 1), leaf("U", "j", 6, 0)});
  PrimFunc f;
  f.name = "main";
  f.params = {A};
  f.body = BlockRealize::make({}, boolImm(true), Block::make("root", {}, {}, {}, body));
  return f;
}

ir::PrimFunc program(const QString& name) {
  if (name == "in_place") return inPlace();
  if (name == "matmul") return polytest::parseProgram(kMatmul);
  if (name == "conv") return polytest::parseProgram(kConv);
  if (name == "softmax") return polytest::parseProgram(kSoftmax);
  if (name == "batch1") return polytest::parseProgram(kBatchOne);
  if (name == "stencil") return polytest::stencil1d(3, 6);
  if (name == "stencil_symbolic") return polytest::stencil1d(0, 0, true);
  qFatal("unknown program");
}

/// Union of the dependences of one kind.
isl::union_map deps(const poly::Dependences& d, const QString& kind) {
  if (kind == "raw") return d.raw;
  if (kind == "war") return d.war;
  return d.waw;
}

} // namespace

class TestScop : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void relations_data() {
    QTest::addColumn<QString>("program");
    QTest::addColumn<QString>("what");
    QTest::addColumn<QString>("expected");
    // matmul: the init statement fixes k at its minimum.
    QTest::newRow("matmul domain") << "matmul" << "domain"
                                   << "{ C_init[i, j, k] : 0 <= i < 4 and 0 <= j < 3 and k = 0; "
                                      "C[i, j, k] : 0 <= i < 4 and 0 <= j < 3 and 0 <= k < 2 }";
    QTest::newRow("matmul reads") << "matmul" << "reads"
                                  << "{ C[i, j, k] -> A[i, k] : 0 <= i < 4 and 0 <= j < 3 and 0 <= k < 2; "
                                     "C[i, j, k] -> B[k, j] : 0 <= i < 4 and 0 <= j < 3 and 0 <= k < 2; "
                                     "C[i, j, k] -> C[i, j] : 0 <= i < 4 and 0 <= j < 3 and 0 <= k < 2 }";
    QTest::newRow("matmul writes") << "matmul" << "writes"
                                   << "{ C_init[i, j, 0] -> C[i, j] : 0 <= i < 4 and 0 <= j < 3; "
                                      "C[i, j, k] -> C[i, j] : 0 <= i < 4 and 0 <= j < 3 and 0 <= k < 2 }";
    QTest::newRow("matmul instances") << "matmul" << "instances"
                                      << "{ C_init[i, j, 0] -> C_init[i, j] : 0 <= i < 4 and 0 <= j < 3; "
                                         "C[i, j, k] -> C[i, j, k] : 0 <= i < 4 and 0 <= j < 3 and 0 <= k < 2 }";
    QTest::newRow("matmul raw") << "matmul" << "raw"
                                << "{ C_init[i, j, 0] -> C[i, j, 0] : 0 <= i < 4 and 0 <= j < 3; "
                                   "C[i, j, 0] -> C[i, j, 1] : 0 <= i < 4 and 0 <= j < 3 }";
    QTest::newRow("matmul waw") << "matmul" << "waw"
                                << "{ C_init[i, j, 0] -> C[i, j, 0] : 0 <= i < 4 and 0 <= j < 3; "
                                   "C[i, j, 0] -> C[i, j, 1] : 0 <= i < 4 and 0 <= j < 3 }";
    QTest::newRow("matmul war") << "matmul" << "war" << "{ C[i, j, 0] -> C[i, j, 1] : 0 <= i < 4 and 0 <= j < 3 }";
    // conv2d: the padding condition restricts the read of data exactly.
    QTest::newRow("conv domain") << "conv" << "domain"
                                 << "{ pad_temp[0, i1, i2, i3] : 0 <= i1 < 2 and 0 <= i2 < 6 and 0 <= i3 < 6; "
                                    "conv_init[0, ff, yy, xx, 0, 0, 0] : 0 <= ff < 2 and 0 <= yy < 4 and 0 <= xx < 4; "
                                    "conv[0, ff, yy, xx, rc, ry, rx] : 0 <= ff < 2 and 0 <= yy < 4 and 0 <= xx < 4 and "
                                    "0 <= rc < 2 and 0 <= ry < 3 and 0 <= rx < 3 }";
    QTest::newRow("conv reads") << "conv" << "reads"
                                << "{ pad_temp[0, i1, i2, i3] -> data[0, i1, i2 - 1, i3 - 1] : 0 <= i1 < 2 and "
                                   "1 <= i2 < 5 and 1 <= i3 < 5; "
                                   "conv[0, ff, yy, xx, rc, ry, rx] -> pad_temp[0, rc, yy + ry, xx + rx] : 0 <= ff < 2 and "
                                   "0 <= yy < 4 and 0 <= xx < 4 and 0 <= rc < 2 and 0 <= ry < 3 and 0 <= rx < 3; "
                                   "conv[0, ff, yy, xx, rc, ry, rx] -> weight[ff, rc, ry, rx] : 0 <= ff < 2 and "
                                   "0 <= yy < 4 and 0 <= xx < 4 and 0 <= rc < 2 and 0 <= ry < 3 and 0 <= rx < 3; "
                                   "conv[0, ff, yy, xx, rc, ry, rx] -> conv[0, ff, yy, xx] : 0 <= ff < 2 and "
                                   "0 <= yy < 4 and 0 <= xx < 4 and 0 <= rc < 2 and 0 <= ry < 3 and 0 <= rx < 3 }";
    QTest::newRow("conv raw pad") << "conv" << "raw pad_temp"
                                  << "{ pad_temp[0, i1, i2, i3] -> conv[0, ff, yy, xx, i1, ry, rx] : 0 <= i1 < 2 and "
                                     "0 <= ff < 2 and 0 <= yy < 4 and 0 <= xx < 4 and 0 <= ry < 3 and 0 <= rx < 3 and "
                                     "i2 = yy + ry and i3 = xx + rx }";
    // softmax: four stages, two reductions.
    QTest::newRow("softmax domain") << "softmax" << "domain"
                                    << "{ mx_init[i, 0] : 0 <= i < 2; mx[i, k1] : 0 <= i < 2 and 0 <= k1 < 3; "
                                       "ex[i, j] : 0 <= i < 2 and 0 <= j < 3; es_init[i, 0] : 0 <= i < 2; "
                                       "es[i, k2] : 0 <= i < 2 and 0 <= k2 < 3; nm[i, j] : 0 <= i < 2 and 0 <= j < 3 }";
    QTest::newRow("softmax raw") << "softmax" << "raw"
                                 << "{ mx_init[i, 0] -> mx[i, 0] : 0 <= i < 2; mx[i, k] -> mx[i, k + 1] : 0 <= i < 2 and 0 <= k < 2; "
                                    "mx[i, 2] -> ex[i, j] : 0 <= i < 2 and 0 <= j < 3; "
                                    "es_init[i, 0] -> es[i, 0] : 0 <= i < 2; es[i, k] -> es[i, k + 1] : 0 <= i < 2 and 0 <= k < 2; "
                                    "ex[i, j] -> es[i, j] : 0 <= i < 2 and 0 <= j < 3; "
                                    "ex[i, j] -> nm[i, j] : 0 <= i < 2 and 0 <= j < 3; "
                                    "es[i, 2] -> nm[i, j] : 0 <= i < 2 and 0 <= j < 3 }";
    // a batch of one: the same dependences as without the single-iteration loop.
    QTest::newRow("batch1 raw") << "batch1" << "raw"
                                << "{ S_init[0, i, 0] -> S[0, i, 0] : 0 <= i < 2; "
                                   "S[0, i, k] -> S[0, i, k + 1] : 0 <= i < 2 and 0 <= k < 2; "
                                   "S[0, i, 2] -> T[m, i2] : 0 <= i < 2 and 0 <= m < 2 and 0 <= i2 < 2 and "
                                   "(i2 = i or m = i) }";
    QTest::newRow("batch1 war") << "batch1" << "war"
                                << "{ S[0, i, k] -> S[0, i, k + 1] : 0 <= i < 2 and 0 <= k < 2 }";
    QTest::newRow("batch1 waw") << "batch1" << "waw"
                                << "{ S_init[0, i, 0] -> S[0, i, 0] : 0 <= i < 2; "
                                   "S[0, i, k] -> S[0, i, k + 1] : 0 <= i < 2 and 0 <= k < 2 }";
    // one buffer read and written through different accesses (the WAR/WAW split by what
    // the source does with the element).
    QTest::newRow("in_place raw") << "in_place" << "raw"
                                  << "{ S[i] -> U[i] : 0 <= i <= 4 }";
    QTest::newRow("in_place war") << "in_place" << "war"
                                  << "{ S[i] -> S[i + 1] : 0 <= i <= 3; S[4] -> U[5] }";
    QTest::newRow("in_place waw") << "in_place" << "waw"
                                  << "{ S[i] -> U[i] : 0 <= i <= 4 }";
    // stencil over time: one buffer read and written.
    QTest::newRow("stencil domain") << "stencil" << "domain" << "{ stencil[t, i] : 0 <= t < 3 and 1 <= i < 5 }";
    QTest::newRow("stencil reads") << "stencil" << "reads"
                                   << "{ stencil[t, i] -> A[t, o] : 0 <= t < 3 and 1 <= i < 5 and i - 1 <= o <= i + 1 }";
    QTest::newRow("stencil writes") << "stencil" << "writes" << "{ stencil[t, i] -> A[t + 1, i] : 0 <= t < 3 and 1 <= i < 5 }";
    QTest::newRow("stencil raw") << "stencil" << "raw"
                                 << "{ stencil[t, i] -> stencil[t + 1, i2] : 0 <= t < 2 and 1 <= i < 5 and "
                                    "1 <= i2 < 5 and i - 1 <= i2 <= i + 1 }";
    QTest::newRow("stencil war") << "stencil" << "war" << "{ }";
    QTest::newRow("stencil waw") << "stencil" << "waw" << "{ }";
    QTest::newRow("stencil symbolic domain") << "stencil_symbolic" << "domain"
                                             << "[T, N] -> { stencil[t, i] : 0 <= t < T and 1 <= i < N - 1 }";
    QTest::newRow("stencil symbolic raw") << "stencil_symbolic" << "raw"
                                          << "[T, N] -> { stencil[t, i] -> stencil[t + 1, i2] : 0 <= t < T - 1 and "
                                             "1 <= i < N - 1 and 1 <= i2 < N - 1 and i - 1 <= i2 <= i + 1 }";
  }

  void relations() {
    QFETCH(QString, program);
    QFETCH(QString, what);
    QFETCH(QString, expected);
    auto scop = poly::extractScop(::program(program));
    QVERIFY2(scop.has_value(), scop ? "" : scop.error().message.c_str());
    auto d = poly::computeDependences(*scop);
    QVERIFY(d.has_value());
    isl::ctx ctx = poly::detail::islContext();
    if (what == "domain") {
      isl::union_set exp(ctx, expected.toStdString());
      QVERIFY2(scop->domain.is_equal(exp), poly::detail::str(scop->domain).c_str());
      return;
    }
    isl::union_map actual;
    if (what == "reads") actual = scop->reads;
    else if (what == "writes") actual = scop->mayWrites;
    else if (what == "instances") actual = scop->instances;
    else if (what.startsWith("raw ")) {
      actual = isl::union_map::empty(ctx);
      for (const auto& dep : d->list)
        if (dep.kind == poly::DependenceKind::Raw && dep.buffer == what.mid(4).toStdString())
          actual = actual.unite(isl::union_map(dep.relation));
    } else actual = deps(*d, what);
    isl::union_map exp(ctx, expected.toStdString());
    QVERIFY2(actual.is_equal(exp), poly::detail::str(actual).c_str());
  }

  void writesAreMust() {
    auto scop = poly::extractScop(program("matmul"));
    QVERIFY(scop.has_value());
    QVERIFY(scop->mustWrites.is_equal(scop->mayWrites));
    QVERIFY(scop->approximations.empty());
  }

  void loopParallelism_data() {
    QTest::addColumn<QString>("program");
    QTest::addColumn<QString>("expected"); // loop:parallel|carried count
    QTest::newRow("matmul") << "matmul" << "i:P j:P k:3";
    QTest::newRow("stencil") << "stencil" << "t:1 i:P";
    QTest::newRow("softmax") << "softmax" << "i:P k1:3 i:P j:P i:P k2:3 i:P j:P";
  }
  void loopParallelism() {
    QFETCH(QString, program);
    QFETCH(QString, expected);
    auto scop = poly::extractScop(::program(program));
    QVERIFY(scop.has_value());
    auto d = poly::computeDependences(*scop);
    QVERIFY(d.has_value());
    auto loops = poly::loopDependences(*scop, *d);
    QVERIFY(loops.has_value());
    QStringList got;
    for (const auto& l : *loops)
      got << QString::fromStdString(scop->loops[l.loop].name) + ":" +
                 (l.parallel ? QString("P") : QString::number(l.carried.size()));
    QCOMPARE(got.join(' '), expected);
  }

  void distances() {
    auto r = poly::analyzeDependences(program("matmul"));
    QVERIFY(r.has_value());
    QCOMPARE(r->dependences.size(), std::size_t(5));
    const auto& raw = r->dependences[1];
    QCOMPARE(raw.kind, std::string("RAW"));
    QCOMPARE(raw.source, std::string("C"));
    QCOMPARE(raw.sink, std::string("C"));
    QVERIFY(raw.distance.has_value());
    QCOMPARE(*raw.distance, (std::vector<std::int64_t>{0, 0, 1}));
    auto s = poly::analyzeDependences(program("stencil"));
    QVERIFY(s.has_value());
    QCOMPARE(s->dependences.size(), std::size_t(1));
    QVERIFY(!s->dependences[0].distance.has_value());
    isl::set dist(poly::detail::islContext(), s->dependences[0].distances);
    QVERIFY(dist.is_equal(isl::set(poly::detail::islContext(), "{ [1, d] : -1 <= d <= 1 }")));
  }

  void nonAffineRefused() {
    // A loop bound that multiplies two sizes is not quasi-affine.
    auto f = polytest::parseProgram("n = var(\"n\")\nm = var(\"m\")\nA = placeholder((n * m,), name=\"A\")\n"
                                    "B = compute((n * m,), lambda i: A[i] + 1.0, name=\"B\")\n");
    auto scop = poly::extractScop(f);
    QVERIFY(!scop.has_value());
    QCOMPARE(scop.error().code, std::string("poly.non-affine"));
    QCOMPARE(scop.error().message, std::string("block 'B': the bound of loop 'i', `n * m` is not quasi-affine; the "
                                               "polyhedral model cannot represent it"));
  }

  void dataDependentOverApproximated() {
    auto f = polytest::parseProgram("I = placeholder((4,), dtype=\"int32\", name=\"I\")\n"
                                    "A = placeholder((8,), name=\"A\")\n"
                                    "B = compute((4,), lambda i: A[I[i]], name=\"B\")\n");
    auto scop = poly::extractScop(f);
    QVERIFY2(scop.has_value(), scop ? "" : scop.error().message.c_str());
    QCOMPARE(scop->approximations.size(), std::size_t(1));
    QCOMPARE(scop->approximations[0].statement, std::string("B"));
    isl::union_map exp(poly::detail::islContext(),
                       "{ B[i] -> A[o] : 0 <= i < 4 and 0 <= o < 8; B[i] -> I[i] : 0 <= i < 4 }");
    QVERIFY2(scop->reads.is_equal(exp), poly::detail::str(scop->reads).c_str());
  }

  void structureOnly_data() {
    QTest::addColumn<QString>("program");
    for (const char* p : {"matmul", "conv", "softmax", "stencil", "stencil_symbolic", "batch1"})
      QTest::newRow(p) << p;
  }
  void structureOnly() {
    // The structure is the full Scop without the accesses: the same loops, statements,
    // domains, instances and tree; no reads or writes.
    QFETCH(QString, program);
    auto full = poly::extractScop(::program(program));
    auto structure = poly::extractScop(::program(program), poly::ScopContent::Structure);
    QVERIFY(full.has_value() && structure.has_value());
    QVERIFY(!full->reads.is_empty());
    QVERIFY(structure->reads.is_empty() && structure->mayWrites.is_empty() && structure->mustWrites.is_empty());
    QVERIFY(structure->domain.is_equal(full->domain));
    QVERIFY(structure->instances.is_equal(full->instances));
    QVERIFY(structure->scheduleMap().is_equal(full->scheduleMap()));
    QCOMPARE(structure->statements.size(), full->statements.size());
    QCOMPARE(structure->loops.size(), full->loops.size());
    QCOMPARE(QString::fromStdString(poly::detail::str(structure->schedule)),
             QString::fromStdString(poly::detail::str(full->schedule)));
  }

  void tree() {
    // isl's form: the loops i, j, k make one permutable band (every dependence has a
    // non-negative distance along each), i and j coincident (distance zero), k not.
    auto t = poly::describeScheduleTree(program("matmul"));
    QVERIFY(t.has_value());
    const auto& root = t->root;
    QCOMPARE(root.kind, poly::TreeNodeKind::Domain);
    QCOMPARE(root.id, std::string("0"));
    const poly::TreeNodeView& band = root.children.at(0);
    QCOMPARE(band.kind, poly::TreeNodeKind::Band);
    QVERIFY(band.permutable);
    QCOMPARE(band.members.size(), std::size_t(3));
    const char* names[] = {"i", "j", "k"};
    for (int l = 0; l < 3; ++l) {
      const auto& m = band.members[std::size_t(l)];
      QCOMPARE(m.name, std::string(names[l]));
      QCOMPARE(m.loopIndex, l);
      QCOMPARE(m.parallel, l != 2);
      QCOMPARE(m.coincident, l != 2);
      isl::union_pw_aff member(poly::detail::islContext(), m.schedule);
      isl::union_pw_aff expected(poly::detail::islContext(),
                                 fmt::format("{{ C_init[i, j, k] -> [({0})]; C[i, j, k] -> [({0})] }}", names[l]));
      QVERIFY2(member.plain_is_equal(expected), m.schedule.c_str());
    }
    const poly::TreeNodeView* n = &band.children.at(0);
    QCOMPARE(n->id, std::string("0.0.0"));
    QCOMPARE(n->kind, poly::TreeNodeKind::Sequence);
    QCOMPARE(n->children.size(), std::size_t(2));
    QCOMPARE(n->children[0].kind, poly::TreeNodeKind::Filter);
    QVERIFY2(isl::union_set(poly::detail::islContext(), n->children[0].text)
                .is_equal(isl::union_set(poly::detail::islContext(), "{ C_init[i, j, k] }")), n->children[0].text.c_str());
    const std::string text = poly::renderTree(*t);
    QVERIFY2(text.find("  band [i, j, k] permutable: [{ C_init[i, j, k] -> [(i)]; C[i, j, k] -> [(i)] }, "
                       "{ C_init[i, j, k] -> [(j)]; C[i, j, k] -> [(j)] }, { C_init[i, j, k] -> [(k)]; C[i, j, k] -> "
                       "[(k)] }]  # i: parallel (coincident), j: parallel (coincident), k: carries dependences\n"
                       "    sequence\n      filter: { C_init[i, j, k] }\n") != std::string::npos,
             text.c_str());
    // The structure alone (no dependences yet): one band per loop, no flags.
    auto structure = poly::describeScheduleTree(program("matmul"), poly::TreeFacts::StructureOnly);
    QVERIFY(structure.has_value());
    QCOMPARE(structure->root.children.at(0).members.size(), std::size_t(1));
    QVERIFY(!structure->root.children.at(0).permutable);
  }

  void treeKeepsBandsThatCannotBePermutedApart() {
    // The stencil's dependences have distances (1, -1), (1, 0), (1, 1): t and i cannot be
    // permuted, so isl keeps them in two bands; i carries nothing once t is fixed.
    auto t = poly::describeScheduleTree(program("stencil"));
    QVERIFY(t.has_value());
    const poly::TreeNodeView& outer = t->root.children.at(0);
    QCOMPARE(outer.kind, poly::TreeNodeKind::Band);
    QCOMPARE(outer.members.size(), std::size_t(1));
    QCOMPARE(outer.members[0].name, std::string("t"));
    QVERIFY(!outer.members[0].coincident);
    const poly::TreeNodeView& inner = outer.children.at(0);
    QCOMPARE(inner.members.size(), std::size_t(1));
    QCOMPARE(inner.members[0].name, std::string("i"));
    QVERIFY(inner.members[0].coincident);
    // Skewed (i + t), the distances are (1, 0), (1, 1), (1, 2): one permutable band,
    // neither member coincident.
    loopscape::schedule::Schedule sch = loopscape::poly::makeSchedule(program("stencil"));
    QVERIFY(loopscape::poly::polySkew(sch, "t", 1, 0, 1).has_value());
    auto skewed = poly::describeScheduleTree(sch.func());
    QVERIFY(skewed.has_value());
    const poly::TreeNodeView& band = skewed->root.children.at(0);
    QCOMPARE(band.members.size(), std::size_t(2));
    QVERIFY(band.permutable);
    QVERIFY(!band.members[0].coincident);
    QVERIFY(!band.members[1].coincident);
  }

  void treeYamlIsReadBackByIsl() {
    // isl reads the YAML back into the tree the description shows: the same nodes, band
    // members, permutable and coincident flags, schedules and filters.
    for (const char* name : {"matmul", "stencil", "conv", "softmax"}) {
      auto t = poly::describeScheduleTree(program(name));
      QVERIFY(t.has_value());
      isl_schedule* back = isl_schedule_read_from_str(poly::detail::islContext().get(), t->yaml.c_str());
      QVERIFY2(back, t->yaml.c_str());
      int bands = 0;
      std::function<void(isl_schedule_node*, const poly::TreeNodeView&)> same = [&](isl_schedule_node* n,
                                                                                    const poly::TreeNodeView& v) {
        const std::string kind = poly::treeNodeKindName(v.kind);
        QCOMPARE(poly::detail::nodeTypeName(isl::manage_copy(n)), kind);
        if (v.kind == poly::TreeNodeKind::Band) {
          ++bands;
          QCOMPARE(isl_schedule_node_band_n_member(n), isl_size(v.members.size()));
          QCOMPARE(isl_schedule_node_band_get_permutable(n) == isl_bool_true, v.permutable);
          for (std::size_t m = 0; m < v.members.size(); ++m)
            QCOMPARE(isl_schedule_node_band_member_get_coincident(n, int(m)) == isl_bool_true, v.members[m].coincident);
          isl::multi_union_pw_aff read = isl::manage(isl_schedule_node_band_get_partial_schedule(n));
          QVERIFY(read.plain_is_equal(isl::multi_union_pw_aff(poly::detail::islContext(), v.text)));
        }
        if (v.kind == poly::TreeNodeKind::Filter) {
          isl::union_set read = isl::manage(isl_schedule_node_filter_get_filter(n));
          QVERIFY(read.is_equal(isl::union_set(poly::detail::islContext(), v.text)));
        }
        QCOMPARE(isl_schedule_node_n_children(n), isl_size(v.children.size()));
        for (std::size_t c = 0; c < v.children.size(); ++c) {
          isl_schedule_node* child = isl_schedule_node_get_child(n, int(c));
          same(child, v.children[c]);
          isl_schedule_node_free(child);
        }
      };
      isl_schedule_node* root = isl_schedule_get_root(back);
      same(root, t->root);
      isl_schedule_node_free(root);
      isl_schedule_free(back);
      QVERIFY(bands > 0);
    }
  }

  void marks() {
    // A parallel loop gets a mark above its band.
    auto f = program("matmul");
    loopscape::schedule::Schedule sch = loopscape::poly::makeSchedule(f);
    auto b = sch.apply("get_block", {}, {"C"});
    QVERIFY(b.has_value());
    auto loops = sch.apply("get_loops", {(*b)[0]});
    QVERIFY(loops.has_value());
    QVERIFY(sch.apply("parallel", {(*loops)[0]}).has_value());
    auto t = poly::describeScheduleTree(sch.func());
    QVERIFY(t.has_value());
    QCOMPARE(t->root.children.at(0).kind, poly::TreeNodeKind::Mark);
    QCOMPARE(t->root.children.at(0).mark, std::string("parallel"));
    QCOMPARE(t->root.children.at(0).children.at(0).members.at(0).name, std::string("i"));
  }
};

QTEST_GUILESS_MAIN(TestScop)
#include "tst_scop.moc"
