// Tests of structural equality and hashing (core/ir/structural_equal.h): equality modulo
// the names of variables and buffers with a bijection by first appearance, inequality
// for every other difference, hash consistency, and copy-on-change mutators.
#include "core/ir/mutator.h"
#include "core/ir/op.h"
#include "core/ir/simplify.h"
#include "core/ir/structural_equal.h"

#include <QtTest/QtTest>

#include <cmath>
#include <set>

using namespace loopscape::ir;

namespace {

/// Programs are built twice by the same builder with fresh variables and buffers, so each
/// pair differs at least in the identity (and, through `suffix`, the names) of every Var
/// and Buffer. The options change one aspect at a time.
struct Options {
  std::string suffix;
  ForKind outerKind = ForKind::Serial;
  std::string threadTag;
  std::string blockName = "C";
  std::int64_t extent = 16;
  DataType bufferType = DataType::float32();
  MemoryScope scope = MemoryScope::Global;
  bool swapIndices = false; // C[j, i] instead of C[i, j]
  bool sameIndex = false;   // C[i, i]
  bool readsOutput = false; // C += C instead of C += A
  IterKind reduceKind = IterKind::Reduce;
  double scale = 2.0; // the float constant in the body
  Annotations annotations = {};
  bool stridedA = false;
};

struct Program {
  PrimFunc func;
  Stmt loops; ///< the loop nest below the root block
};

Program build(const Options& o) {
  Expr n = Var::make("n" + o.suffix);
  std::vector<Expr> stridesA;
  if (o.stridedA) stridesA = {n + 1, intImm(1)};
  Buffer a = makeBuffer("A" + o.suffix, o.bufferType, {n, intImm(o.extent)}, o.scope, stridesA);
  Buffer c = makeBuffer("C" + o.suffix, o.bufferType, {n, intImm(o.extent)});
  Expr i = Var::make("i" + o.suffix), j = Var::make("j" + o.suffix), k = Var::make("k" + o.suffix);
  Expr vi = Var::make("vi" + o.suffix), vj = Var::make("vj" + o.suffix), vk = Var::make("vk" + o.suffix);
  Expr second = o.sameIndex ? vi : vj;
  std::vector<Expr> idx = o.swapIndices ? std::vector<Expr>{second, vi} : std::vector<Expr>{vi, second};
  Buffer src = o.readsOutput ? c : a;
  Expr value = BufferLoad::make(c, idx) + BufferLoad::make(src, {vi, vk}) * floatImm(o.scale, o.bufferType);
  Stmt body = BufferStore::make(c, value, idx);
  Stmt init = BufferStore::make(c, floatImm(0.0, o.bufferType), idx);
  auto dom = [&](Expr extent) { return Range::fromMinExtent(intImm(0), std::move(extent)); };
  Stmt block =
      Block::make(o.blockName,
                  {IterVar{vi, dom(n), IterKind::Spatial}, IterVar{vj, dom(intImm(o.extent)), IterKind::Spatial},
                   IterVar{vk, dom(intImm(o.extent)), o.reduceKind}},
                  {BufferRegion{c, {Range::fromMinExtent(vi, intImm(1)), Range::fromMinExtent(vj, intImm(1))}},
                   BufferRegion{src, {Range::fromMinExtent(vi, intImm(1)), Range::fromMinExtent(vk, intImm(1))}}},
                  {BufferRegion{c, {Range::fromMinExtent(vi, intImm(1)), Range::fromMinExtent(vj, intImm(1))}}}, body,
                  init, {}, o.annotations);
  Stmt realize = BlockRealize::make({i, j, k}, boolImm(true), block);
  Stmt loops = For::make(i, intImm(0), n, o.outerKind,
                         For::make(j, intImm(0), intImm(o.extent), ForKind::Serial,
                                   For::make(k, intImm(0), intImm(o.extent), ForKind::Serial, realize)),
                         o.threadTag);
  Stmt root = BlockRealize::make({}, boolImm(true), Block::make("root", {}, {}, {}, loops));
  PrimFunc f;
  f.name = "main" + o.suffix;
  f.params = {a, c};
  f.body = root;
  f.attrs = {{"global_symbol", StringImm::make("main")}};
  return {f, loops};
}

struct Variant {
  Options options;
};

} // namespace

Q_DECLARE_METATYPE(Variant)

class TestStructural : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void unequalVariants_data();
  void unequalVariants();
  void equalUnderRenaming();
  void variableBijection();
  void freeVariables();
  void ifThenElseIsNotSelect();
  void constantsAndTypes();
  void buffersAndFunctions();
  void hashesOfUnequalProgramsDiffer();
  void mutatorIdempotence();
  void simplifiedEqualsHandWritten();
};

void TestStructural::unequalVariants_data() {
  QTest::addColumn<Variant>("variant");
  auto row = [](const char* name, auto tweak) {
    Options o;
    o.suffix = "_b";
    tweak(o);
    QTest::newRow(name) << Variant{o};
  };
  row("loop kind", [](Options& o) { o.outerKind = ForKind::Parallel; });
  row("thread tag", [](Options& o) {
    o.outerKind = ForKind::ThreadBinding;
    o.threadTag = "blockIdx.x";
  });
  row("block name", [](Options& o) { o.blockName = "D"; });
  row("extent", [](Options& o) { o.extent = 17; });
  row("buffer dtype", [](Options& o) { o.bufferType = DataType::float64(); });
  row("buffer scope", [](Options& o) { o.scope = MemoryScope::Shared; });
  row("buffer strides", [](Options& o) { o.stridedA = true; });
  row("swapped indices", [](Options& o) { o.swapIndices = true; });
  row("same index twice", [](Options& o) { o.sameIndex = true; });
  row("other buffer read", [](Options& o) { o.readsOutput = true; });
  row("iter kind", [](Options& o) { o.reduceKind = IterKind::Spatial; });
  row("float constant", [](Options& o) { o.scale = 3.0; });
  row("negative zero", [](Options& o) { o.scale = -0.0; });
  row("annotation", [](Options& o) { o.annotations = {{"meta_schedule.unroll", intImm(16)}}; });
}

void TestStructural::unequalVariants() {
  QFETCH(Variant, variant);
  Options base;
  base.suffix = "_a";
  if (std::signbit(variant.options.scale)) base.scale = 0.0; // -0.0 against +0.0
  Program a = build(base), b = build(variant.options);
  QVERIFY(!structuralEqual(a.func, b.func));
  QVERIFY(!structuralEqual(b.func, a.func));
  QVERIFY(!structuralEqual(a.loops, b.loops));
  QVERIFY(structuralHash(a.func) != structuralHash(b.func));
  QVERIFY(structuralHash(a.loops) != structuralHash(b.loops));
  // Each is equal to a fresh copy of itself.
  Options again = variant.options;
  again.suffix = "_c";
  Program c = build(again);
  QVERIFY(structuralEqual(b.func, c.func));
  QCOMPARE(structuralHash(b.func), structuralHash(c.func));
}

void TestStructural::equalUnderRenaming() {
  Options x, y;
  x.suffix = "_x";
  y.suffix = "_renamed";
  Program a = build(x), b = build(y);
  QVERIFY(structuralEqual(a.func, b.func));
  QVERIFY(structuralEqual(a.loops, b.loops));
  QVERIFY(structuralEqual(a.func.body, b.func.body));
  QCOMPARE(structuralHash(a.func), structuralHash(b.func));
  QCOMPARE(structuralHash(a.loops), structuralHash(b.loops));
  // The function name is ignored; attributes count.
  b.func.name = "other";
  QVERIFY(structuralEqual(a.func, b.func));
  QCOMPARE(structuralHash(a.func), structuralHash(b.func));
  b.func.attrs["tir.noalias"] = boolImm(true);
  QVERIFY(!structuralEqual(a.func, b.func));
  QVERIFY(structuralHash(a.func) != structuralHash(b.func));
}

void TestStructural::variableBijection() {
  // for i: for j: evaluate(<e>) with e in {i + j, i + i, j + i}
  auto nest = [](int which) {
    Expr i = Var::make("i"), j = Var::make("j");
    Expr e = which == 0 ? i + j : which == 1 ? i + i : j + i;
    return For::make(i, intImm(0), intImm(8), ForKind::Serial,
                     For::make(j, intImm(0), intImm(8), ForKind::Serial, Evaluate::make(e)));
  };
  for (int p = 0; p < 3; ++p) {
    for (int q = 0; q < 3; ++q) {
      Stmt a = nest(p), b = nest(q);
      QCOMPARE(structuralEqual(a, b), p == q);
      if (p == q)
        QCOMPARE(structuralHash(a), structuralHash(b));
      else
        QVERIFY(structuralHash(a) != structuralHash(b));
    }
  }
  // A variable of one program cannot map to two of the other (and back).
  Expr i = Var::make("i"), j = Var::make("j"), k = Var::make("k");
  QVERIFY(!structuralEqual(i + j + i, i + j + j));
  QVERIFY(!structuralEqual(i + i, j + k));
  QVERIFY(!structuralEqual(j + k, i + i));
  QVERIFY(structuralEqual(i + j + i, k + i + k));
  // Variables of different types never correspond.
  QVERIFY(!structuralEqual(Var::make("a", DataType::int64()), Var::make("a", DataType::int32())));
}

void TestStructural::ifThenElseIsNotSelect() {
  // TVM's T.if_then_else evaluates one branch, T.Select both: two different programs.
  Expr i = Var::make("i", DataType::int32()), j = Var::make("j", DataType::int32());
  Expr lazy = Select::make(i < j, i, j, /*lazy=*/true), select = Select::make(i < j, i, j);
  QVERIFY(!structuralEqual(lazy, select));
  QVERIFY(structuralHash(lazy) != structuralHash(select));
  QVERIFY(structuralEqual(lazy, Select::make(i < j, i, j, /*lazy=*/true)));
  QVERIFY(structuralEqual(select, Select::make(i < j, i, j)));
}

void TestStructural::freeVariables() {
  Expr x = Var::make("x"), y = Var::make("y");
  QVERIFY(structuralEqual(x + 1, y + 1));
  QCOMPARE(structuralHash(x + 1), structuralHash(y + 1));
  QVERIFY(structuralEqual(x * y - x, y * x - y));
  QVERIFY(!structuralEqual(x * y - x, y * x - x));
}

void TestStructural::constantsAndTypes() {
  Expr x = Var::make("x");
  QVERIFY(structuralEqual(x + 1, x + 1));
  QVERIFY(!structuralEqual(x + 1, x + 2));
  QVERIFY(!structuralEqual(intImm(1), intImm(1, DataType::int64())));
  QVERIFY(!structuralEqual(floatImm(0.0), floatImm(-0.0)));
  QVERIFY(!structuralEqual(floatImm(1.0), floatImm(1.0, DataType::float64())));
  QVERIFY(structuralEqual(floatImm(std::nan("")), floatImm(std::nan(""))));
  QVERIFY(!structuralEqual(x + 1, 1 + x));
  QVERIFY(!structuralEqual(floordiv(x, 2), floormod(x, 2)));
  QVERIFY(!structuralEqual(x < 2, x <= 2));
  QVERIFY(!structuralEqual(StringImm::make("a"), StringImm::make("ab")));
  QVERIFY(structuralEqual(StringImm::make("a longer string"), StringImm::make("a longer string")));
  QVERIFY(!structuralEqual(Cast::make(DataType::int64(), x), Cast::make(DataType::int16(), x)));
  Expr f = Var::make("f", DataType::float32());
  QVERIFY(!structuralEqual(Call::make(DataType::float32(), CallOp::Exp, {f}),
                           Call::make(DataType::float32(), CallOp::Log, {f})));
  QVERIFY(!structuralEqual(Broadcast::make(x, 4), Broadcast::make(x, 8)));
  QVERIFY(structuralEqual(Ramp::make(x, intImm(1), 4), Ramp::make(Var::make("z"), intImm(1), 4)));
  QVERIFY(structuralEqual(Expr(), Expr()));
  QVERIFY(!structuralEqual(Expr(), x));
  // Thread tags count on their own (same loop kind).
  auto bound = [](const char* tag) {
    Expr t = Var::make("t");
    return For::make(t, intImm(0), intImm(32), ForKind::ThreadBinding, Evaluate::make(t), tag);
  };
  QVERIFY(structuralEqual(bound("threadIdx.x"), bound("threadIdx.x")));
  QVERIFY(!structuralEqual(bound("threadIdx.x"), bound("threadIdx.y")));
  QVERIFY(structuralHash(bound("threadIdx.x")) != structuralHash(bound("threadIdx.y")));
}

void TestStructural::buffersAndFunctions() {
  Expr i = Var::make("i");
  Buffer a = makeBuffer("A", DataType::float32(), {intImm(8)});
  Buffer b = makeBuffer("B", DataType::float32(), {intImm(8)});
  Buffer a2 = makeBuffer("A2", DataType::float32(), {intImm(8)});
  auto copy = [&](Buffer dst, Buffer src) {
    return For::make(i, intImm(0), intImm(8), ForKind::Serial, BufferStore::make(dst, BufferLoad::make(src, {i}), {i}));
  };
  QVERIFY(structuralEqual(copy(a, b), copy(b, a)));  // A = B vs B = A: a bijection
  QVERIFY(!structuralEqual(copy(a, a), copy(a, b))); // in-place vs copy
  QVERIFY(structuralEqual(copy(a, a), copy(a2, a2)));
  Buffer shorter = makeBuffer("S", DataType::float32(), {intImm(7)});
  QVERIFY(!structuralEqual(copy(a, b), copy(a, shorter)));
  // Allocate and LetStmt are definition sites like loops.
  Expr t = Var::make("t"), u = Var::make("u");
  Stmt la = Allocate::make(a, LetStmt::make(t, intImm(3), BufferStore::make(a, floatImm(1.0), {t})));
  Stmt lb = Allocate::make(b, LetStmt::make(u, intImm(3), BufferStore::make(b, floatImm(1.0), {u})));
  Stmt lc = Allocate::make(b, LetStmt::make(u, intImm(4), BufferStore::make(b, floatImm(1.0), {u})));
  QVERIFY(structuralEqual(la, lb));
  QVERIFY(!structuralEqual(la, lc));
  // Params order and count matter.
  PrimFunc f1{"f", {a, b}, copy(b, a), {}}, f2{"g", {b, a}, copy(b, a), {}}, f3{"h", {a}, copy(b, a), {}};
  QVERIFY(!structuralEqual(f1, f2));
  QVERIFY(!structuralEqual(f1, f3));
  PrimFunc f4{"f4", {a2, shorter}, copy(shorter, a2), {}};
  QVERIFY(!structuralEqual(f1, f4)); // shapes differ
  PrimFunc f5{"f5", {a2, makeBuffer("Z", DataType::float32(), {intImm(8)})}, {}, {}};
  f5.body = copy(f5.params[1], f5.params[0]);
  QVERIFY(structuralEqual(f1, f5));
  QCOMPARE(structuralHash(f1), structuralHash(f5));
  // Seq and If structure.
  Stmt s1 = SeqStmt::make({copy(a, b), copy(b, a)});
  Stmt s2 = SeqStmt::make({copy(b, a), copy(a, b)});
  QVERIFY(structuralEqual(s1, s2)); // same shape under A <-> B
  Stmt if1 = IfThenElse::make(i < 3, copy(a, b));
  Stmt if2 = IfThenElse::make(i < 3, copy(a, b), copy(b, a));
  QVERIFY(!structuralEqual(if1, if2));
}

void TestStructural::hashesOfUnequalProgramsDiffer() {
  // Many small distinct expressions: all pairwise unequal, and their hashes distinct.
  std::vector<Expr> exprs;
  Expr x = Var::make("x"), y = Var::make("y");
  for (int c = 0; c < 20; ++c) {
    exprs.push_back(x + c);
    exprs.push_back(x * c);
    exprs.push_back(floordiv(x, c + 1));
    exprs.push_back(x + y * c);
    exprs.push_back(y + x * c + x);
  }
  std::set<std::uint64_t> hashes;
  for (std::size_t p = 0; p < exprs.size(); ++p) {
    hashes.insert(structuralHash(exprs[p]));
    for (std::size_t q = p + 1; q < exprs.size(); ++q)
      QVERIFY(!structuralEqual(exprs[p], exprs[q]));
  }
  QCOMPARE(hashes.size(), exprs.size());
}

void TestStructural::mutatorIdempotence() {
  class Identity final : public StmtMutator {};
  Options o;
  Program p = build(o);
  Identity id;
  QVERIFY(id.mutate(p.func.body).sameAs(p.func.body));
  QVERIFY(id.mutate(p.loops).sameAs(p.loops));
  Expr x = Var::make("x");
  Expr e = Select::make(x < 3, floordiv(x, 2) + 1, min(x, 7));
  QVERIFY(id.mutate(e).sameAs(e));
  // A mutator that rewrites one constant changes the program, structurally too.
  class Bump final : public StmtMutator {
  protected:
    Expr visitFloatImm(const FloatImm& op, const Expr& self) override {
      return op.value == 2.0 ? floatImm(4.0, op.dtype) : self;
    }
  };
  Bump bump;
  Stmt changed = bump.mutate(p.loops);
  QVERIFY(!changed.sameAs(p.loops));
  QVERIFY(!structuralEqual(changed, p.loops));
  // Simplifying an already simple program keeps it (same node).
  QVERIFY(simplify(p.loops).sameAs(p.loops));
}

void TestStructural::simplifiedEqualsHandWritten() {
  Buffer a = makeBuffer("A", DataType::float32(), {intImm(4), intImm(32)});
  auto nest = [&](bool fused) {
    Expr i = Var::make("i"), j = Var::make("j");
    Expr f = i * 32 + j;
    std::vector<Expr> idx = fused ? std::vector<Expr>{floordiv(f, 32), floormod(f, 32)} : std::vector<Expr>{i, j};
    return For::make(i, intImm(0), intImm(4), ForKind::Serial,
                     For::make(j, intImm(0), intImm(32), ForKind::Serial, BufferStore::make(a, floatImm(1.0), idx)));
  };
  Stmt simplified = simplify(nest(true));
  QVERIFY(!structuralEqual(nest(true), nest(false)));
  QVERIFY(structuralEqual(simplified, nest(false)));
  QCOMPARE(structuralHash(simplified), structuralHash(nest(false)));
}

QTEST_GUILESS_MAIN(TestStructural)
#include "tst_structural.moc"
