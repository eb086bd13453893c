// poly_optimize: the cost model's choices for given cache and register sizes (tile sizes,
// intra-tile order, register tile, vector and parallel members), golden programs on
// matmul and a 2-D stencil, every small sample computing what the original computes and
// legal against its dependences, the decision replaying on another machine model, and
// bad options refused with their codes. Packing (packing.h): the model's decision and
// refusals in words, the NT dense's golden program with its transposed copy, equal to the
// interpreter and legal; the parallel depth fusing two tile loops into one parallel loop;
// the vector tail's separation (tail_split.h) on gemm: golden, equal, legal, and where it
// does not apply. Stencils (a band with no coincident member): the time loop kept outside
// when one step's writes fit in L2 (golden, equal, legal, replayed on a machine where the
// model would tile in time), tiled in time otherwise; the in-place seidel-2d kept in its
// original order.
#include "poly_codegen_test_util.h"

#include "core/frontend/tvmscript/tvmscript.h"
#include "core/ir/printer.h"
#include "core/poly/checked_schedule.h"
#include "core/poly/legality.h"
#include "core/poly/packing.h"
#include "core/poly/poly_optimize.h"
#include "core/poly/poly_schedule.h"
#include "core/poly/program_analysis.h"
#include "core/poly/tail_split.h"
#include "core/schedule/schedule.h"
#include "core/schedule/trace_python.h"

#include <fmt/ranges.h>

#include <QtTest>

using namespace loopscape;
using namespace loopscape::polytest;

class TstPolyOptimize : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void initTestCase() { poly::registerPolyInstructionKinds(); }
  void tileModelMatmul();
  void tileModelDivisors();
  void tileModelNoVector();
  void machineText();
  void samples_data();
  void samples();
  void goldens_data();
  void goldens();
  void decisionReplays();
  void repeatedRunsShareTheirWork();
  void badOptions();
  void packModel();
  void packDenseNt();
  void packRefusals();
  void parallelDepth();
  void tailSplitGemm();
  void tailSplitRefusals();
  void timeOutside();
  void timeOutsideInPlace();
  void timeOutsideSelector();
};

namespace {

/// C[i, j] += A[i, k] * B[k, j] as the band model sees it (members i, j, k).
poly::BandModel matmulBand(std::int64_t m, std::int64_t n, std::int64_t k) {
  using V = std::vector<std::int64_t>;
  poly::BandModel b;
  b.members = {"i", "j", "k"};
  b.coincident = {true, true, false};
  b.permutable = true;
  b.extent = {m, n, k};
  b.accesses = {
      {"C", 4, true, {V{1, 0}, V{0, 1}, V{0, 0}}},
      {"C", 4, false, {V{1, 0}, V{0, 1}, V{0, 0}}},
      {"A", 4, false, {V{1, 0}, V{0, 0}, V{0, 1}}},
      {"B", 4, false, {V{0, 0}, V{0, 1}, V{1, 0}}},
  };
  return b;
}

poly::MachineModel machine(const char* text) {
  auto m = poly::MachineModel::parse(text);
  if (!m) qFatal("bad machine %s", text);
  return *m;
}

/// The NT dense of BERT's FFN (Relay's nn.dense): C[i, j] = sum_k A[i, k] * W[j, k].
std::string denseNt(int m, int n, int k) {
  return fmt::format("from tvm import te\n"
                     "M, N, K = {}, {}, {}\n"
                     "A = te.placeholder((M, K), dtype=\"float32\", name=\"A\")\n"
                     "W = te.placeholder((N, K), dtype=\"float32\", name=\"W\")\n"
                     "k = te.reduce_axis((0, K), name=\"k\")\n"
                     "C = te.compute((M, N), lambda i, j: te.sum(A[i, k] * W[j, k], axis=k), name=\"C\")\n",
                     m, n, k);
}

std::string printed(const std::vector<std::int64_t>& v) {
  std::string out;
  for (auto x : v)
    out += (out.empty() ? "" : ",") + std::to_string(x);
  return out;
}

} // namespace

void TstPolyOptimize::tileModelMatmul() {
  // AVX-512 with 48 KiB L1 and 1 MiB L2 (Zen 4): 6 rows x 4 vectors of 16 lanes = 24
  // accumulators of 32 registers (2.4 FMAs per load, where 8 rows of 2 vectors make 1.6);
  // 6 does not divide 1024, so each cache tile ends with a partial register tile. The k
  // strip (6 x 64 of A, 64 x 64 of B, 6 x 64 of C) is 19 KiB, half of L1 at most (128
  // would make it 37 KiB). The rows' tile divides 1024: 128 x 512 x 64 is 416 KiB, and
  // 256 rows (704 KiB) or 1024 columns (800 KiB) would pass half of L2.
  auto p = poly::planBand(matmulBand(1024, 1024, 1024), machine("l1=48K,l2=1M,vector=64,registers=32"), {});
  QVERIFY(p.tiled);
  QCOMPARE(QString::fromStdString(printed(p.tile)), QString("128,512,64"));
  QCOMPARE(QString::fromStdString(printed(p.registerTile)), QString("6,64,64"));
  QCOMPARE(p.vectorMember, 1);
  QCOMPARE(p.innerMember, 1);
  QCOMPARE(p.unrollMember, 0);
  QCOMPARE(p.reductionMember, 2);
  QCOMPARE(p.parallelMember, 0);
  QCOMPARE(p.l1Footprint, std::int64_t((6 * 64 + 64 * 64 + 6 * 64) * 4));
  QCOMPARE(p.l2Footprint, std::int64_t((128 * 64 + 64 * 512 + 128 * 512) * 4));
  // AVX2, 32 KiB L1, 512 KiB L2: 16 registers leave 6 rows x 2 vectors of 8 lanes (BLIS's
  // 6 x 16 on Haswell; 4 vectors would leave 2 rows: 1.33 FMAs per load against 1.5); the
  // k strip (6 x 128 of A, 128 x 16 of B, 6 x 16 of C) is 11 KiB, the next size (256)
  // would pass 16 KiB.
  auto q = poly::planBand(matmulBand(1024, 1024, 1024), machine("l1=32K,l2=512K,vector=32,registers=16"), {});
  QCOMPARE(QString::fromStdString(printed(q.registerTile)), QString("6,16,128"));
  QCOMPARE(q.l1Footprint, std::int64_t((6 * 128 + 128 * 16 + 6 * 16) * 4));
  // 64 x 256 x 128 is 224 KiB; 128 rows would make it 320 KiB, past half of L2.
  QCOMPARE(QString::fromStdString(printed(q.tile)), QString("64,256,128"));
  QCOMPARE(q.parallelMember, 0);
  // Given sizes and register tile are kept; vectorize=false keeps j innermost unvectorized.
  poly::PlanOptions given{.vectorize = true, .parallel = true, .unrollJam = {4, 16}, .tile = {64, 64, 32}};
  auto g = poly::planBand(matmulBand(1024, 1024, 1024), machine("vector=64,registers=32"), given);
  QCOMPARE(QString::fromStdString(printed(g.tile)), QString("64,64,32"));
  QCOMPARE(QString::fromStdString(printed(g.registerTile)), QString("4,16,32"));
  // Rows that do not divide the tile are kept (the last register tile of each cache tile
  // is partial: lowering versions it); lanes that do not divide it are not (the vector
  // loop needs a constant trip count), and the plan says why.
  poly::PlanOptions rows{.vectorize = true, .parallel = true, .unrollJam = {6, 32}, .tile = {64, 64, 32}};
  auto r = poly::planBand(matmulBand(1024, 1024, 1024), machine("vector=64,registers=32"), rows);
  QCOMPARE(QString::fromStdString(printed(r.registerTile)), QString("6,32,32"));
  QCOMPARE(r.unrollMember, 0);
  poly::PlanOptions lanes{.vectorize = true, .parallel = true, .unrollJam = {4, 32}, .tile = {64, 48, 32}};
  auto l = poly::planBand(matmulBand(1024, 1024, 1024), machine("vector=64,registers=32"), lanes);
  QCOMPARE(QString::fromStdString(printed(l.registerTile)), QString("1,1,1"));
  QVERIFY(std::find(l.notes.begin(), l.notes.end(),
                    "tile size 48 of j is not a multiple of its register tile 32: no register tiling") !=
          l.notes.end());
  poly::PlanOptions scalar{.vectorize = false};
  auto s = poly::planBand(matmulBand(1024, 1024, 1024), machine("vector=64,registers=32"), scalar);
  QCOMPARE(s.vectorMember, -1);
  QCOMPARE(s.innerMember, 1);
  QCOMPARE(s.unrollMember, -1);
}

void TstPolyOptimize::tileModelDivisors() {
  // PolyBench MEDIUM gemm, 200 x 220 x 240: 32 lanes do not divide 220 and neither do 16
  // or 8, so j's vector loop takes 4 lanes (the largest power of two dividing 220: an odd
  // width such as 20 would be legalised lane by lane); with one vector per row, 8 rows;
  // every tile size divides its extent, so no loop of the tile has a partial trip count;
  // i keeps two tiles for the threads.
  auto p = poly::planBand(matmulBand(200, 220, 240), machine("l1=48K,l2=1M,vector=64,registers=32"), {});
  QCOMPARE(QString::fromStdString(printed(p.registerTile)), QString("8,4,240"));
  for (int d = 0; d < 3; ++d) {
    QVERIFY(std::int64_t(std::vector<std::int64_t>{200, 220, 240}[d]) % p.tile[d] == 0);
    QVERIFY(p.tile[d] % p.registerTile[d] == 0);
  }
  QVERIFY(200 / p.tile[0] >= 2);
  // An odd extent has no vector width: j stays innermost, unvectorized, and says why.
  auto q = poly::planBand(matmulBand(200, 221, 240), machine("l1=48K,l2=1M,vector=64,registers=32"), {});
  QCOMPARE(q.vectorMember, -1);
  QCOMPARE(q.innerMember, 1);
  QVERIFY(std::find(q.notes.begin(), q.notes.end(),
                    "j is not vectorized: its extent 221 has no power-of-two divisor of 4 or more") != q.notes.end());
}

void TstPolyOptimize::tileModelNoVector() {
  // y[i] += A[j, i] * x[j]: A and y are contiguous along i and x is invariant, so i is
  // the vector member; no other coincident member is left to unroll and jam.
  using V = std::vector<std::int64_t>;
  poly::BandModel b;
  b.members = {"i", "j"};
  b.coincident = {true, false};
  b.permutable = true;
  b.extent = {512, 512};
  b.accesses = {{"y", 4, true, {V{1}, V{0}}}, {"A", 4, false, {V{0, 1}, V{1, 0}}}, {"x", 4, false, {V{0}, V{1}}}};
  auto p = poly::planBand(b, machine("vector=32,registers=16"), {});
  QCOMPARE(p.vectorMember, 0);
  QCOMPARE(p.reductionMember, -1); // no coincident member left to jam
  // A[i, j] instead (row-major matvec): i is strided for A, so no member is vectorizable;
  // j has the stride-1 access and goes innermost (the compiler's reduction vectorizer).
  b.accesses = {{"y", 4, true, {V{1}, V{0}}}, {"A", 4, false, {V{1, 0}, V{0, 1}}}, {"x", 4, false, {V{0}, V{1}}}};
  auto q = poly::planBand(b, machine("vector=32,registers=16"), {});
  QCOMPARE(q.vectorMember, -1);
  QCOMPARE(q.innerMember, 1);
  QVERIFY(q.notes.size() > 1);
  QCOMPARE(QString::fromStdString(q.notes[1]),
           QString("no member is vectorized: no coincident member has only contiguous or invariant accesses; j goes "
                   "innermost for its stride-1 accesses"));
  // A band that is not permutable is not tiled; its outermost coincident member is parallel.
  b.permutable = false;
  auto r = poly::planBand(b, machine("vector=32,registers=16"), {});
  QVERIFY(!r.tiled);
  QCOMPARE(r.parallelMember, 0);
}

void TstPolyOptimize::machineText() {
  auto m = machine("l1=48K,l2=1M,l3=32M,vector=64,registers=32");
  QCOMPARE(m.l1Bytes, std::int64_t(48 * 1024));
  QCOMPARE(QString::fromStdString(m.str()), QString("l1=48K,l2=1M,l3=32M,vector=64,registers=32"));
  std::string why;
  QVERIFY(!poly::MachineModel::parse("l1=48Q", &why));
  QCOMPARE(QString::fromStdString(why), QString("'48Q' is not a positive size (K, M or G suffix allowed)"));
  QVERIFY(!poly::MachineModel::parse("l4=1M", &why));
  QCOMPARE(QString::fromStdString(why), QString("unknown or out-of-range key 'l4' (l1, l2, l3, vector, registers)"));
  const auto host = poly::MachineModel::host();
  QVERIFY(host.l1Bytes > 0 && host.l2Bytes >= host.l1Bytes && host.vectorBytes >= 16);
}

void TstPolyOptimize::samples_data() {
  QTest::addColumn<int>("index");
  QTest::addColumn<QString>("machine");
  QTest::addColumn<bool>("wavefront");
  // Without wavefronts, the stencils keep their time loop outside (their steps fit in
  // either L2); with them, they are tiled in time.
  for (int i = 0; i < int(std::size(kSmallSamples)); ++i)
    for (const char* m : {"l1=256,l2=2K,vector=16,registers=16", "l1=48K,l2=1M,vector=64,registers=32"})
      for (bool wavefront : {true, false})
        QTest::newRow(qPrintable(QString("%1/%2/%3").arg(kSmallSamples[i].file, m, wavefront ? "wavefront" : "plain")))
            << i << m << wavefront;
}

void TstPolyOptimize::samples() {
  QFETCH(int, index);
  QFETCH(QString, machine);
  QFETCH(bool, wavefront);
  const Small& s = kSmallSamples[index];
  std::string text = smallSample(s.file, s.from, s.to);
  if (s.from2) text.replace(text.find(s.from2), std::string(s.from2).size(), s.to2);
  ir::PrimFunc f = parseTe(text);
  schedule::Schedule sch = poly::makeSchedule(f);
  poly::PolyOptimizeOptions o;
  o.machine = poly::MachineModel::parse(machine.toStdString());
  o.wavefront = wavefront; // small sizes: the wavefront's legality check is quick
  auto r = poly::polyOptimize(sch, o);
  QVERIFY2(r.has_value(), r ? "" : renderDiagnostic(r.error()).c_str());
  const std::string diff = compareRuns(f, sch.func(), s.integer ? 0.0 : 1e-5);
  QVERIFY2(diff.empty(), (diff + "\n" + ir::printPrimFunc(sch.func())).c_str());
  auto legal = poly::checkLegality(f, sch.func());
  QVERIFY2(legal.has_value(), legal ? "" : renderDiagnostic(legal.error()).c_str());
  QVERIFY2(legal->legal, legal->legal ? "" : poly::counterexampleMessage(*legal->counterexample).c_str());
}

void TstPolyOptimize::goldens_data() {
  QTest::addColumn<QString>("file");
  QTest::addColumn<QString>("from");
  QTest::addColumn<QString>("to");
  QTest::addColumn<QString>("golden");
  // matmul: 16 x 64 x 32 tiles, k outside a 4 x 16 register tile (i unrolled, j
  // vectorized by two 8-lane vectors), the init hoisted before k, i's tiles parallel.
  QTest::newRow("matmul") << "matmul.te"
                          << "M, N, K = 1024, 1024, 1024"
                          << "M, N, K = 64, 64, 64"
                          << "optimize_matmul";
  // 2-D Jacobi: isl skews i and j by t into one permutable band with no coincident member
  // (every member carries a dependence): tiled in time (t's tile halved to give two time
  // tiles), innermost t_j for its stride-1 accesses, and the tiles run as wavefronts
  // (wave = t_0 + t_i_0 + t_j_0) with t_i_0 parallel inside one wavefront.
  QTest::newRow("stencil2d") << "stencil2d.te"
                             << "T, H, W = 16, 256, 256"
                             << "T, H, W = 4, 16, 16"
                             << "optimize_stencil2d";
}

void TstPolyOptimize::goldens() {
  QFETCH(QString, file);
  QFETCH(QString, from);
  QFETCH(QString, to);
  QFETCH(QString, golden);
  ir::PrimFunc f = parseTe(smallSample(file.toStdString(), from.toStdString(), to.toStdString()));
  poly::PolyOptimizeOptions o;
  o.machine = poly::MachineModel::parse("l1=8K,l2=32K,vector=32,registers=16");
  o.wavefront = true;
  auto report = poly::explainPolyOptimize(f, o);
  QVERIFY2(report.has_value(), report ? "" : renderDiagnostic(report.error()).c_str());
  schedule::Schedule sch = poly::makeSchedule(f);
  auto r = poly::polyOptimize(sch, o);
  QVERIFY2(r.has_value(), r ? "" : renderDiagnostic(r.error()).c_str());
  // The program (a TVMScript golden: the round-trip test reads it back), and the decisions
  // with the trace.
  QString msg = checkPolyGolden(golden, ir::printPrimFunc(sch.func()));
  QVERIFY2(msg.isEmpty(), qPrintable(msg));
  std::string text = "decisions:\n";
  for (const auto& line : report->lines)
    text += "  " + line + "\n";
  text += "\n" + schedule::traceToPython(sch.trace());
  msg = checkPolyGolden(golden, text, ".decisions.txt");
  QVERIFY2(msg.isEmpty(), qPrintable(msg));
  const std::string diff = compareRuns(f, sch.func(), 1e-5);
  QVERIFY2(diff.empty(), diff.c_str());
}

void TstPolyOptimize::decisionReplays() {
  // The decision fixes the sizes: replayed, or applied under another machine model, the
  // trace gives the same program.
  ir::PrimFunc f = parseTe(smallSample("matmul.te", "M, N, K = 1024, 1024, 1024", "M, N, K = 48, 64, 40"));
  schedule::Schedule a = poly::makeSchedule(f);
  poly::PolyOptimizeOptions o;
  o.machine = poly::MachineModel::parse("l1=2K,l2=16K,vector=32,registers=16");
  QVERIFY(poly::polyOptimize(a, o).has_value());
  const auto& inst = a.trace().instructions.at(0);
  QVERIFY(inst.decision.has_value());
  auto replay = poly::replaySchedule(f, a.trace());
  QVERIFY2(replay.has_value(), replay ? "" : renderDiagnostic(replay.error()).c_str());
  QCOMPARE(ir::printPrimFunc(replay->func()), ir::printPrimFunc(a.func()));
  schedule::Schedule b = poly::makeSchedule(f);
  auto attrs = inst.attrs;
  attrs[6] = std::string("l1=48K,l2=1M,vector=64,registers=32");
  auto r = b.apply("poly_optimize", {}, attrs, inst.decision);
  QVERIFY2(r.has_value(), r ? "" : renderDiagnostic(r.error()).c_str());
  QCOMPARE(ir::printPrimFunc(b.func()), ir::printPrimFunc(a.func()));
  // Without the decision the other machine's model chooses other sizes.
  schedule::Schedule c = poly::makeSchedule(f);
  QVERIFY(c.apply("poly_optimize", {}, attrs).has_value());
  QVERIFY(ir::printPrimFunc(c.func()) != ir::printPrimFunc(a.func()));
}

void TstPolyOptimize::repeatedRunsShareTheirWork() {
  // The tuner applies poly_optimize to states made from one PrimFunc object, with other
  // decisions each time: they share the analysis (the same object) and isl's tree, and the
  // program is the one a cold run (an equal program parsed again: other nodes) makes.
  const std::string source = denseNt(32, 64, 48); // packed: the prepared program is cached too
  ir::PrimFunc f = parseTe(source);
  auto s1 = schedule::ProgramState::make(f);
  auto s2 = schedule::ProgramState::make(f);
  auto a1 = poly::detail::analyzeProgram(*s1);
  auto a2 = poly::detail::analyzeProgram(*s2);
  QVERIFY(a1 && a2);
  QCOMPARE(a1->get(), a2->get());
  ir::PrimFunc again = parseTe(source);
  auto a3 = poly::detail::analyzeProgram(*schedule::ProgramState::make(again));
  QVERIFY(a3);
  QVERIFY(a3->get() != a1->get());

  poly::PolyOptimizeOptions o;
  o.machine = poly::MachineModel::parse("l1=8K,l2=32K,vector=32,registers=16");
  schedule::Schedule first = poly::makeSchedule(f);
  QVERIFY(poly::polyOptimize(first, o).has_value());
  const schedule::Instruction inst = first.trace().instructions.at(0);
  QVERIFY(inst.decision.has_value());
  // Another decision: the first band's first size halved (or doubled from 1).
  auto bands = *inst.decision->get<schedule::TraceList>();
  auto band = *bands.at(0).get<schedule::TraceList>();
  const std::int64_t size = *band.at(0).get<std::int64_t>();
  band[0] = size > 1 ? size / 2 : std::int64_t{2};
  bands[0] = band;
  const schedule::TraceValue other = bands;
  auto warm = poly::makeSchedule(f);
  auto r = warm.apply("poly_optimize", {}, inst.attrs, other);
  QVERIFY2(r.has_value(), r ? "" : renderDiagnostic(r.error()).c_str());
  auto cold = poly::makeSchedule(again);
  poly::detail::clearProgramAnalyses();
  r = cold.apply("poly_optimize", {}, inst.attrs, other);
  QVERIFY2(r.has_value(), r ? "" : renderDiagnostic(r.error()).c_str());
  QCOMPARE(ir::printPrimFunc(warm.func()), ir::printPrimFunc(cold.func()));
  QVERIFY(ir::printPrimFunc(warm.func()) != ir::printPrimFunc(first.func()));
  const std::string diff = compareRuns(f, warm.func(), 1e-5);
  QVERIFY2(diff.empty(), diff.c_str());
}

void TstPolyOptimize::badOptions() {
  ir::PrimFunc f = parseTe(smallSample("matmul.te", "M, N, K = 1024, 1024, 1024", "M, N, K = 8, 6, 5"));
  schedule::Schedule sch = poly::makeSchedule(f);
  using schedule::TraceList;
  auto r = sch.apply("poly_optimize", {}, {"max", TraceList{}, TraceList{}, true, false, true, "l1=1M,l7=2"});
  QVERIFY(!r.has_value());
  QCOMPARE(QString::fromStdString(r.error().code), QString("schedule.poly_optimize.bad-option"));
  QCOMPARE(QString::fromStdString(r.error().message),
           QString("machine \"l1=1M,l7=2\": unknown or out-of-range key 'l7' (l1, l2, l3, vector, registers)"));
  r = sch.apply("poly_optimize", {}, {"max", TraceList{}, TraceList{std::int64_t(0)}, true, false, true, ""});
  QVERIFY(!r.has_value());
  QCOMPARE(QString::fromStdString(r.error().code), QString("schedule.poly_optimize.bad-size"));
  r = sch.apply("poly_optimize", {}, {"most", TraceList{}, TraceList{}, true, false, true, ""});
  QVERIFY(!r.has_value());
  QCOMPARE(QString::fromStdString(r.error().code), QString("schedule.poly_auto.bad-option"));
  QVERIFY(sch.func().body.sameAs(f.body));
  QCOMPARE(sch.trace().instructions.size(), std::size_t(0));
}

void TstPolyOptimize::packModel() {
  // W (768 x 3072) read with stride 3072 along j, reused 128 times along i: packed with
  // its first dimension last.
  poly::PackCandidate c{.buffer = "W",
                        .block = "C",
                        .shape = {768, 3072},
                        .elemBytes = 4,
                        .dim = 0,
                        .vectorIter = "v_j",
                        .vectorExtent = 768,
                        .reuseIters = {"v_i"},
                        .reuse = 128};
  auto p = poly::planPack(c, machine("vector=64"));
  QVERIFY(p.pack);
  QCOMPARE(p.order, (std::vector<int>{1, 0}));
  QCOMPARE(QString::fromStdString(p.note),
           QString("pack: W (768 x 3072) read by C with stride 3072 along v_j: copied first into W_global (3072 x 768, "
                   "dimension 0 last), read with stride 1 along v_j; each element is read 128 times (v_i), the copy "
                   "moves it once (9 MiB)"));
  // Read 4 times: the copy would cost a quarter of the reads.
  c.reuse = 4;
  p = poly::planPack(c, machine("vector=64"));
  QVERIFY(!p.pack);
  QCOMPARE(QString::fromStdString(p.note),
           QString("not packed: W (768 x 3072) read by C with stride 3072 along v_j: each element is read 4 times "
                   "(v_i), fewer than 8: the copy would not pay"));
  // j spans less than one vector.
  c.reuse = 128;
  c.vectorExtent = 8;
  p = poly::planPack(c, machine("vector=64"));
  QVERIFY(!p.pack);
  QCOMPARE(QString::fromStdString(p.note),
           QString("not packed: W (768 x 3072) read by C with stride 3072 along v_j: v_j spans 8 elements, less than "
                   "one vector of 16 lanes"));
  // A 3-D input: the dimension v indexes moves last, the others keep their order.
  c.shape = {4, 8, 16};
  c.dim = 1;
  c.vectorExtent = 8;
  p = poly::planPack(c, machine("vector=32"));
  QVERIFY(p.pack);
  QCOMPARE(p.order, (std::vector<int>{0, 2, 1}));
}

void TstPolyOptimize::packDenseNt() {
  // The NT dense: W is copied transposed into W_global (its own tiled band, first), and
  // the product's j reads it with stride 1: vectorized, i unrolled and jammed.
  ir::PrimFunc f = parseTe(denseNt(32, 64, 48));
  auto candidates = poly::packCandidates(f);
  QCOMPARE(candidates.size(), std::size_t(1));
  QCOMPARE(QString::fromStdString(candidates[0].buffer), QString("W"));
  QCOMPARE(candidates[0].reuse, std::int64_t(32));
  poly::PolyOptimizeOptions o;
  o.machine = poly::MachineModel::parse("l1=8K,l2=32K,vector=32,registers=16");
  auto report = poly::explainPolyOptimize(f, o);
  QVERIFY2(report.has_value(), report ? "" : renderDiagnostic(report.error()).c_str());
  schedule::Schedule sch = poly::makeSchedule(f);
  auto r = poly::polyOptimize(sch, o);
  QVERIFY2(r.has_value(), r ? "" : renderDiagnostic(r.error()).c_str());
  QString msg = checkPolyGolden("optimize_dense_nt", ir::printPrimFunc(sch.func()));
  QVERIFY2(msg.isEmpty(), qPrintable(msg));
  std::string text = "decisions:\n";
  for (const auto& line : report->lines)
    text += "  " + line + "\n";
  text += "\n" + schedule::traceToPython(sch.trace());
  msg = checkPolyGolden("optimize_dense_nt", text, ".decisions.txt");
  QVERIFY2(msg.isEmpty(), qPrintable(msg));
  const std::string diff = compareRuns(f, sch.func(), 1e-5);
  QVERIFY2(diff.empty(), diff.c_str());
  // Legal against the original's dependences; the copy has no original counterpart.
  auto legal = poly::checkLegality(f, sch.func());
  QVERIFY2(legal.has_value(), legal ? "" : renderDiagnostic(legal.error()).c_str());
  QVERIFY(legal->legal);
  QCOMPARE(legal->unmatched, (std::vector<std::string>{"W_global"}));
  // The trace replays to the same program.
  auto replay = poly::replaySchedule(f, sch.trace());
  QVERIFY2(replay.has_value(), replay ? "" : renderDiagnostic(replay.error()).c_str());
  QCOMPARE(ir::printPrimFunc(replay->func()), ir::printPrimFunc(sch.func()));
  // pack=False: no copy, and no vector loop (W moves by a row along j).
  schedule::Schedule plain = poly::makeSchedule(f);
  o.pack = false;
  QVERIFY(poly::polyOptimize(plain, o).has_value());
  const std::string printedPlain = ir::printPrimFunc(plain.func());
  QVERIFY(printedPlain.find("W_global") == std::string::npos);
  QVERIFY(printedPlain.find("T.vectorized") == std::string::npos);
  QVERIFY(compareRuns(f, plain.func(), 1e-5).empty());
}

void TstPolyOptimize::packRefusals() {
  poly::PolyOptimizeOptions o;
  o.machine = poly::MachineModel::parse("l1=8K,l2=32K,vector=32,registers=16");
  // Four rows: each element of W is read 4 times; not packed, and said so.
  ir::PrimFunc f = parseTe(denseNt(4, 64, 48));
  auto report = poly::explainPolyOptimize(f, o);
  QVERIFY(report.has_value());
  QVERIFY(!report->lines.empty());
  QCOMPARE(QString::fromStdString(report->lines[0]),
           QString("not packed: W (64 x 48) read by C with stride 48 along v_j: each element is read 4 times (v_i), "
                   "fewer than 8: the copy would not pay"));
  schedule::Schedule sch = poly::makeSchedule(f);
  QVERIFY(poly::polyOptimize(sch, o).has_value());
  QVERIFY(ir::printPrimFunc(sch.func()).find("W_global") == std::string::npos);
  QVERIFY(compareRuns(f, sch.func(), 1e-5).empty());
  // matmul (B[k, j]) and gemm read their inputs with stride 1 along j already: no candidate.
  QVERIFY(poly::packCandidates(parseTe(smallSample("matmul.te", "M, N, K = 1024, 1024, 1024", "M, N, K = 8, 6, 5")))
              .empty());
  QVERIFY(poly::packCandidates(
              parseTe(smallSample("polybench/gemm.te", "NI, NJ, NK = 200, 220, 240", "NI, NJ, NK = 20, 25, 30")))
              .empty());
}

void TstPolyOptimize::parallelDepth() {
  // parallel_depth=2 with 16 x 32 tiles: i's and j's tile loops (4 x 2 tiles) become one
  // parallel loop of 8.
  ir::PrimFunc f = parseTe(smallSample("matmul.te", "M, N, K = 1024, 1024, 1024", "M, N, K = 64, 64, 64"));
  poly::PolyOptimizeOptions o;
  o.machine = poly::MachineModel::parse("l1=8K,l2=32K,vector=32,registers=16");
  o.parallelDepth = 2;
  {
    // The model's own tiles leave j one tile of 64: not fused, and said so.
    auto one = poly::explainPolyOptimize(f, o);
    QVERIFY(one.has_value());
    QVERIFY2(std::find(one->lines.begin(), one->lines.end(),
                       "parallel depth 2: the tile loop of j is not fused into the parallel loop (it has one tile)") !=
                 one->lines.end(),
             fmt::format("{}", fmt::join(one->lines, "\n")).c_str());
  }
  o.tile = {16, 32};
  auto report = poly::explainPolyOptimize(f, o);
  QVERIFY(report.has_value());
  QVERIFY2(std::find(report->lines.begin(), report->lines.end(),
                     "parallel: the tile loops of i, j fused into one parallel loop of 8 tiles") != report->lines.end(),
           fmt::format("{}", fmt::join(report->lines, "\n")).c_str());
  schedule::Schedule sch = poly::makeSchedule(f);
  auto r = poly::polyOptimize(sch, o);
  QVERIFY2(r.has_value(), r ? "" : renderDiagnostic(r.error()).c_str());
  const std::string text = ir::printPrimFunc(sch.func());
  QVERIFY2(text.find("for i_0_j_0_fused in T.parallel(8):") != std::string::npos, text.c_str());
  std::size_t parallels = 0;
  for (std::size_t at = text.find("T.parallel("); at != std::string::npos; at = text.find("T.parallel(", at + 1))
    ++parallels;
  QCOMPARE(parallels, std::size_t(1));
  QVERIFY(compareRuns(f, sch.func(), 1e-5).empty());
  auto legal = poly::checkLegality(f, sch.func());
  QVERIFY(legal.has_value() && legal->legal);
  // Refused: a depth outside 1..8.
  schedule::Schedule bad = poly::makeSchedule(f);
  using schedule::TraceList;
  auto e =
      bad.apply("poly_optimize", {}, {"smart", TraceList{}, TraceList{}, true, false, true, "", true, std::int64_t(0)});
  QVERIFY(!e.has_value());
  QCOMPARE(QString::fromStdString(e.error().code), QString("schedule.poly_optimize.bad-option"));
  QCOMPARE(QString::fromStdString(e.error().message),
           QString("parallel_depth 0 is not between 1 and 8 (1: the outermost coincident tile loop alone)"));
}

void TstPolyOptimize::tailSplitGemm() {
  // PolyBench gemm with NJ = 25 on 8 lanes: AB and C_out run j in [0, 24), fused, with
  // 8-lane vectors, and copies AB_tail and C_out_tail the last column; both inits are
  // hoisted (each nest alone).
  ir::PrimFunc f = parseTe(smallSample("polybench/gemm.te", "NI, NJ, NK = 200, 220, 240", "NI, NJ, NK = 16, 25, 12"));
  poly::PolyOptimizeOptions o;
  o.machine = poly::MachineModel::parse("l1=8K,l2=32K,vector=32,registers=16");
  auto report = poly::explainPolyOptimize(f, o);
  QVERIFY2(report.has_value(), report ? "" : renderDiagnostic(report.error()).c_str());
  QVERIFY(!report->lines.empty());
  QCOMPARE(QString::fromStdString(report->lines[0]),
           QString("tail: AB's j (25 iterations) is not a multiple of 8 lanes: AB runs j in [0, 24) (full vectors) "
                   "and a copy AB_tail the last 1"));
  schedule::Schedule sch = poly::makeSchedule(f);
  auto r = poly::polyOptimize(sch, o);
  QVERIFY2(r.has_value(), r ? "" : renderDiagnostic(r.error()).c_str());
  const std::string text = ir::printPrimFunc(sch.func());
  QString msg = checkPolyGolden("optimize_gemm_tail", text);
  QVERIFY2(msg.isEmpty(), qPrintable(msg));
  std::string decisions = "decisions:\n";
  for (const auto& line : report->lines)
    decisions += "  " + line + "\n";
  decisions += "\n" + schedule::traceToPython(sch.trace());
  msg = checkPolyGolden("optimize_gemm_tail", decisions, ".decisions.txt");
  QVERIFY2(msg.isEmpty(), qPrintable(msg));
  QVERIFY(text.find("T.init()") == std::string::npos);
  for (const char* block : {"AB_init", "AB_update", "AB_tail_init", "AB_tail_update"})
    QVERIFY2(text.find(fmt::format("with T.block(\"{}\")", block)) != std::string::npos, block);
  const std::string diff = compareRuns(f, sch.func(), 1e-5);
  QVERIFY2(diff.empty(), diff.c_str());
  auto legal = poly::checkLegality(f, sch.func());
  QVERIFY2(legal.has_value(), legal ? "" : renderDiagnostic(legal.error()).c_str());
  QVERIFY(legal->legal);
  QCOMPARE(legal->unmatched, (std::vector<std::string>{"AB_tail_init", "AB_tail_update", "C_out_tail"}));
  auto replay = poly::replaySchedule(f, sch.trace());
  QVERIFY2(replay.has_value(), replay ? "" : renderDiagnostic(replay.error()).c_str());
  QCOMPARE(ir::printPrimFunc(replay->func()), text);
}

namespace {

/// A reduction over k into A[i, j] (4 x 38 of a 5 x 38 buffer): `A[vi, vj] = A[vi, vj] + <term>`.
ir::PrimFunc accumulation(const char* term) {
  const std::string text =
      fmt::format("# from tvm.script import tir as T\n\n"
                  "@T.prim_func\n"
                  "def main(A: T.Buffer((5, 38), \"float32\"), X: T.Buffer((2, 38), \"float32\")):\n"
                  "    for i, j, k in T.grid(4, 38, 2):\n"
                  "        with T.block(\"acc\"):\n"
                  "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
                  "            T.reads(A[vi:vi + 2, 0:38], X[vk, vj])\n"
                  "            T.writes(A[vi, vj])\n"
                  "            with T.init():\n"
                  "                A[vi, vj] = T.float32(0)\n"
                  "            A[vi, vj] = A[vi, vj] + {}\n",
                  term);
  auto program = frontend::parseTvmScript(text, "acc.py");
  if (!program) qFatal("%s", renderDiagnostic(program.error()).c_str());
  auto f = frontend::selectFunction(*program, "", "acc.py");
  if (!f) qFatal("%s", renderDiagnostic(f.error()).c_str());
  return *f;
}

} // namespace

void TstPolyOptimize::tailSplitRefusals() {
  // A reduction reading its output at another element (A[vi + 1, 0], which the original
  // reads before row vi + 1 is computed) is not split: the head would compute A[1, 0]
  // before the tail's row 0 reads it. Reading only the element it writes, it is split, and
  // the split program equals the original.
  const auto m8 = machine("vector=32,registers=16");
  QCOMPARE(poly::splitVectorTails(accumulation("X[vk, vj] * A[vi + 1, 0]"), m8).split, 0);
  // The NT dense without packing: W[j, k] moves by a row along j, no vector member to split.
  QCOMPARE(poly::splitVectorTails(parseTe(denseNt(32, 25, 16)), m8).split, 0);
  ir::PrimFunc acc = accumulation("X[vk, vj]");
  auto split = poly::splitVectorTails(acc, m8);
  QCOMPARE(split.split, 1);
  QCOMPARE(QString::fromStdString(split.notes.at(0)),
           QString("tail: acc's j (38 iterations) is not a multiple of 8 lanes: acc runs j in [0, 32) (full "
                   "vectors) and a copy acc_tail the last 6"));
  QVERIFY(compareRuns(acc, split.func, 0.0).empty());

  poly::PolyOptimizeOptions o;
  o.machine = poly::MachineModel::parse("l1=8K,l2=32K,vector=32,registers=16");
  // NJ = 12 is less than two vectors of 8: no tail copy (j keeps 4 lanes).
  ir::PrimFunc small =
      parseTe(smallSample("polybench/gemm.te", "NI, NJ, NK = 200, 220, 240", "NI, NJ, NK = 16, 12, 12"));
  schedule::Schedule a = poly::makeSchedule(small);
  QVERIFY(poly::polyOptimize(a, o).has_value());
  QVERIFY(ir::printPrimFunc(a.func()).find("AB_tail") == std::string::npos);
  // Without vectorization nothing is separated.
  ir::PrimFunc f = parseTe(smallSample("polybench/gemm.te", "NI, NJ, NK = 200, 220, 240", "NI, NJ, NK = 16, 25, 12"));
  schedule::Schedule b = poly::makeSchedule(f);
  o.vectorize = false;
  QVERIFY(poly::polyOptimize(b, o).has_value());
  QVERIFY(ir::printPrimFunc(b.func()).find("AB_tail") == std::string::npos);
  QVERIFY(compareRuns(f, b.func(), 1e-5).empty());
}

void TstPolyOptimize::timeOutside() {
  // 2-D Jacobi, T x 16 x 16: one step writes 16 x 16 floats (1 KiB). With L2 = 32 KiB the
  // step's values stay in L2 for the next step, so t stays the outer sequential loop and
  // (i, j) below it is an ordinary band: coincident, tiled, i's tiles parallel, j
  // innermost for its stride-1 accesses (the window of reads moves by one element along j:
  // windowDelta) but not marked vectorized: the border's T.if_then_else has loads in its
  // branches, which the vector lowering would leave scalar.
  const ir::PrimFunc f = parseTe(smallSample("stencil2d.te", "T, H, W = 16, 256, 256", "T, H, W = 4, 16, 16"));
  poly::PolyOptimizeOptions o;
  o.machine = poly::MachineModel::parse("l1=8K,l2=32K,vector=32,registers=16");
  auto report = poly::explainPolyOptimize(f, o);
  QVERIFY2(report.has_value(), report ? "" : renderDiagnostic(report.error()).c_str());
  schedule::Schedule sch = poly::makeSchedule(f);
  auto r = poly::polyOptimize(sch, o);
  QVERIFY2(r.has_value(), r ? "" : renderDiagnostic(r.error()).c_str());
  QString msg = checkPolyGolden("optimize_stencil2d_time_outside", ir::printPrimFunc(sch.func()));
  QVERIFY2(msg.isEmpty(), qPrintable(msg));
  std::string text = "decisions:\n";
  for (const auto& line : report->lines)
    text += "  " + line + "\n";
  text += "\n" + schedule::traceToPython(sch.trace());
  msg = checkPolyGolden("optimize_stencil2d_time_outside", text, ".decisions.txt");
  QVERIFY2(msg.isEmpty(), qPrintable(msg));
  const std::string diff = compareRuns(f, sch.func(), 1e-5);
  QVERIFY2(diff.empty(), diff.c_str());
  auto legal = poly::checkLegality(f, sch.func());
  QVERIFY2(legal.has_value(), legal ? "" : renderDiagnostic(legal.error()).c_str());
  QVERIFY(legal->legal);

  // L2 = 512 bytes: the step does not fit, the band is tiled in time as before.
  poly::PolyOptimizeOptions small = o;
  small.machine = poly::MachineModel::parse("l1=256,l2=512,vector=32,registers=16");
  auto tiled = poly::explainPolyOptimize(f, small);
  QVERIFY(tiled.has_value());
  QVERIFY2(std::find(tiled->lines.begin(), tiled->lines.end(),
                     "band (t, t_i, t_j): one time step writes 1 KiB (L2 512 B): tiled in time") != tiled->lines.end(),
           fmt::format("{}", fmt::join(tiled->lines, "\n")).c_str());
  schedule::Schedule t = poly::makeSchedule(f);
  QVERIFY(poly::polyOptimize(t, small).has_value());
  QVERIFY(ir::printPrimFunc(t.func()) != ir::printPrimFunc(sch.func()));
  QCOMPARE(compareRuns(f, t.func(), 1e-5), std::string());

  // The decision ([1] for the stencil's band) replays on the small machine to the same
  // program.
  const auto& inst = sch.trace().instructions.at(0);
  QVERIFY(inst.decision.has_value());
  schedule::Schedule b = poly::makeSchedule(f);
  auto attrs = inst.attrs;
  attrs[6] = std::string("l1=256,l2=512,vector=32,registers=16");
  auto replayed = b.apply("poly_optimize", {}, attrs, inst.decision);
  QVERIFY2(replayed.has_value(), replayed ? "" : renderDiagnostic(replayed.error()).c_str());
  QCOMPARE(ir::printPrimFunc(b.func()), ir::printPrimFunc(sch.func()));

  // wavefront=True keeps the time tiling (the user asked for the tiles' wavefronts).
  poly::PolyOptimizeOptions wave = o;
  wave.wavefront = true;
  auto w = poly::explainPolyOptimize(f, wave);
  QVERIFY(w.has_value());
  QVERIFY(std::none_of(w->lines.begin(), w->lines.end(),
                       [](const std::string& l) { return l.find("not tiled in time") != std::string::npos; }));
}

void TstPolyOptimize::timeOutsideInPlace() {
  // seidel-2d (in place, TVMScript) at 3 sweeps of 10 x 10: isl skews i and j by t; with
  // the time loop outside, (i, j) still carries dependences in both members (the sweep
  // reads its own row i-1 and column j-1 updates, and j+1 of the previous sweep), so it
  // is not permutable and keeps the original order: t, i, j exactly as written.
  std::string text = smallSample("polybench/seidel-2d.py", "", "");
  for (auto [from, to] : {std::pair{"400", "10"}, {"398", "8"}, {"100", "3"}})
    for (auto pos = text.find(from); pos != std::string::npos; pos = text.find(from, pos + 1))
      text.replace(pos, std::string(from).size(), to);
  auto program = frontend::parseTvmScript(text, "seidel.py");
  QVERIFY2(program.has_value(), program ? "" : renderDiagnostic(program.error(), text).c_str());
  auto selected = frontend::selectFunction(*program, "", "seidel.py");
  QVERIFY(selected.has_value());
  const ir::PrimFunc f = *selected;
  poly::PolyOptimizeOptions o;
  o.machine = poly::MachineModel::parse("l1=8K,l2=32K,vector=32,registers=16");
  auto report = poly::explainPolyOptimize(f, o);
  QVERIFY(report.has_value());
  const std::string lines = fmt::format("{}", fmt::join(report->lines, "\n"));
  QVERIFY2(lines.find("band (t, t_i, t_i_j): no coincident member; one time step writes 256 B (L2 32 KiB): not tiled "
                      "in time, t outermost and the loops (i, j) below it in their original order\n"
                      "band (t) surrounds other bands: not tiled; the bands inside are optimised\n"
                      "no member is vectorized: no coincident member has only contiguous or invariant accesses; j "
                      "goes innermost for its stride-1 accesses\n"
                      "band (i, j) is not permutable: not tiled, its loops keep isl's order") != std::string::npos,
           lines.c_str());
  schedule::Schedule sch = poly::makeSchedule(f);
  QVERIFY(poly::polyOptimize(sch, o).has_value());
  QVERIFY2(ir::printPrimFunc(sch.func()).find("    for t, i, j in T.grid(3, 8, 8):\n") != std::string::npos,
           ir::printPrimFunc(sch.func()).c_str());
  QCOMPARE(compareRuns(f, sch.func()), std::string());
  auto legal = poly::checkLegality(f, sch.func());
  QVERIFY(legal.has_value() && legal->legal);
}

void TstPolyOptimize::timeOutsideSelector() {
  // fdtd-2d (one te.scan state for the fields ex, ey, hz: member f of extent 3, which the
  // update's if_then_else tests): with the time loop outside, f is split off the band
  // below t and unrolled, so each copy computes its own field's branch; the coincident i
  // goes above it as the one parallel loop of the step (one parallel region per step,
  // not one per field), and j is the band below.
  const ir::PrimFunc f =
      parseTe(smallSample("polybench/fdtd-2d.te", "TMAX, NX, NY = 100, 200, 240", "TMAX, NX, NY = 4, 8, 16"));
  poly::PolyOptimizeOptions o;
  o.machine = poly::MachineModel::parse("l1=8K,l2=32K,vector=32,registers=16");
  auto report = poly::explainPolyOptimize(f, o);
  QVERIFY(report.has_value());
  const std::string lines = fmt::format("{}", fmt::join(report->lines, "\n"));
  QVERIFY2(lines.find("band (t, t_i, t_j): no coincident member; one time step writes 2 KiB (L2 32 KiB): not tiled in "
                      "time, t outermost and the loops (f, i, j) below it in their original order\n"
                      "band (t) surrounds other bands: not tiled; the bands inside are optimised\n"
                      "band (i) surrounds other bands: parallel; the bands inside are optimised\n"
                      "band (f) surrounds other bands: unrolled (a condition of the block tests it: each copy "
                      "computes its own branch); the bands inside are optimised\n"
                      "band (j): permutable, coincident: j\n") != std::string::npos,
           lines.c_str());
  schedule::Schedule sch = poly::makeSchedule(f);
  QVERIFY(poly::polyOptimize(sch, o).has_value());
  const std::string printed = ir::printPrimFunc(sch.func());
  QVERIFY2(
      printed.find("    for t in range(1, 5):\n        for i in T.parallel(8):\n            for f in T.unroll(3):\n") !=
          std::string::npos,
      printed.c_str());
  QCOMPARE(compareRuns(f, sch.func()), std::string());
  auto legal = poly::checkLegality(f, sch.func());
  QVERIFY(legal.has_value() && legal->legal);
}

QTEST_GUILESS_MAIN(TstPolyOptimize)
#include "tst_poly_optimize.moc"
