// The prior (core/tune/prior_model.h): the cycles it estimates for three schedules of a
// 64^3 matmul, computed by hand from its definition (one latency-bound accumulator chain;
// eight unrolled rows of vector accumulators, in parallel; 32 rows, more accumulators
// than registers; short chains that overlap; a parallel loop started once per iteration of
// a serial one; a partial register tile's two versions; cache fills), the ranking its
// scores give, the threads, its model file and its name in makeCostModel.
#include "core/codegen/lower.h"
#include "core/frontend/te_frontend.h"
#include "core/poly/poly_schedule.h"
#include "core/schedule/schedule.h"
#include "core/schedule/trace_script.h"
#include "core/tune/prior_model.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace loopscape;

namespace {

const char* const kMatmul = R"(from tvm import te
A = te.placeholder((64, 64), dtype="float32", name="A")
B = te.placeholder((64, 64), dtype="float32", name="B")
k = te.reduce_axis((0, 64), name="k")
C = te.compute((64, 64), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
)";

/// 100 rows: poly_optimize's register tile of 6 rows leaves a partial last tile.
const char* const kMatmul100 = R"(from tvm import te
A = te.placeholder((100, 64), dtype="float32", name="A")
B = te.placeholder((64, 64), dtype="float32", name="B")
k = te.reduce_axis((0, 64), name="k")
C = te.compute((100, 64), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
)";

/// The matmul scheduled by `script` (empty: as written), lowered.
codegen::LoweredFunc lowered(const std::string& script, const char* te = kMatmul) {
  auto program = frontend::parseTe(te, "matmul.te");
  if (!program) qFatal("%s", program.error().message.c_str());
  schedule::Schedule sch(*program);
  if (!script.empty())
    if (auto ok = schedule::applyScript(sch, script, "s.py"); !ok) qFatal("%s", ok.error().message.c_str());
  auto low = codegen::lower(sch.func());
  if (!low) qFatal("%s", low.error().message.c_str());
  return *low;
}

/// i split by `rows` (the inner part unrolled), j by 16 (vectorised), k between them, the
/// outer i loop parallel, the reduction's init before k (its loops copied, kinds kept).
std::string registerTile(int rows) {
  return "b = sch.get_block(\"C\")\ni, j, k = sch.get_loops(b)\n"
         "i0, i1 = sch.split(i, factors=[None, " +
         std::to_string(rows) +
         "])\n"
         "j0, j1 = sch.split(j, factors=[None, 16])\n"
         "sch.reorder(i0, j0, k, i1, j1)\n"
         "sch.unroll(i1)\nsch.vectorize(j1)\nsch.parallel(i0)\n"
         "sch.decompose_reduction(b, k)\n";
}

/// AVX-512 on two threads, the other options at their defaults (pipes 2, latency 4,
/// 4 registers reserved, spills at 0.4 of the issue rate).
tune::PriorOptions avx512(int threads) {
  tune::PriorOptions o;
  o.threads = threads;
  o.vectorBytes = 64;
  o.vectorRegisters = 32;
  return o;
}

} // namespace

class TestPriorModel : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void cyclesByHand() {
    const tune::PriorModel prior(avx512(2));
    // As written: the init C = 0 (4096 scalar stores, no operation: one move each) and
    // the update, one scalar mad on a chain along k: 1 chain of 8 needed, 1/8 of the rate.
    QCOMPARE(prior.cycles(lowered("")), 4096 / 2.0 + 64.0 * 64 * 64 / 2 / 0.125);
    // Eight unrolled rows of one 16-lane vector: 8 accumulators along k, the full rate;
    // i0 (8 iterations) on 2 threads: 2x. Per row: the update 8 * 4 * 64 iterations, the
    // init 8 * 4; and one start of the parallel loop, 8000 cycles.
    QCOMPARE(prior.cycles(lowered(registerTile(8))), 8 * (8.0 * 4 * 64 / 2 / 1 / 2 + 8.0 * 4 / 2 / 2) + 8000);
    // 32 rows: 32 accumulators, over the 28 registers left: 0.4 of the rate.
    QCOMPARE(prior.cycles(lowered(registerTile(32))), 32 * (2.0 * 4 * 64 / 2 / 0.4 / 2 + 2.0 * 4 / 2 / 2) + 8000);
    // k split by 4, j between the parts: chains of 4 dependent updates, one per element of
    // a row; 64 / 4 of them overlap in the window, 16 chains: the full rate.
    const std::string shortChains = "b = sch.get_block(\"C\")\ni, j, k = sch.get_loops(b)\n"
                                    "k0, k1 = sch.split(k, factors=[None, 4])\nsch.reorder(i, k0, j, k1)\n"
                                    "sch.decompose_reduction(b, k0)\n";
    QCOMPARE(prior.cycles(lowered(shortChains)), 4096 / 2.0 + 64.0 * 64 * 64 / 2);
    // The eight rows as a loop, not unrolled, inside k: each row's accumulator goes
    // through memory, 0.4 of the rate.
    std::string looped = registerTile(8);
    looped.erase(looped.find("sch.unroll(i1)\n"), 15);
    QCOMPARE(prior.cycles(lowered(looped)), 8 * (8.0 * 4 * 64 / 2 / 0.4 / 2 + 8.0 * 4 / 2 / 2) + 8000);
    // The parallel loop one level in (j0, 4 iterations: 2x on 2 threads) starts once per
    // iteration of the serial i0 around it: 8 starts.
    std::string inner = registerTile(8);
    inner.replace(inner.find("sch.parallel(i0)"), 16, "sch.parallel(j0)");
    QCOMPARE(prior.cycles(lowered(inner)), 8 * (8.0 * 4 * 64 / 2 / 1 / 2 + 8.0 * 4 / 2 / 2) + 8 * 8000);
  }

  void partialRegisterTile() {
    poly::registerPolyInstructionKinds();
    // poly_optimize on 100 rows: 17 tiles of `min(5, 99 - i_1_0 * 6) + 1` unrolled rows of
    // 64 lanes, versioned (lower_unswitch.h): `if` that extent is 6, the unrolled copies,
    // `else` a loop. The midpoint of i_1_0 (8) takes the `if`; the `else` counts nothing.
    // Init: 6 stores of 4 vectors, 17 times, 2 a cycle. Update: 6 stores of 4 vector mads,
    // 17 * 64 times; 24 chains of 64 updates along k: the full rate.
    const tune::PriorModel prior(avx512(1));
    QCOMPARE(prior.cycles(lowered("sch.poly_optimize(parallel=False, vectorize=True)\n", kMatmul100)),
             6 * 17 * 4 / 2.0 + 6 * 17 * 64 * 4 / 2.0);
  }

  void threadsAndVectors() {
    // One thread: no speedup from the parallel loop, and no start (the body is called).
    QCOMPARE(tune::PriorModel(avx512(1)).cycles(lowered(registerTile(8))), 8 * (8.0 * 4 * 64 / 2 + 8.0 * 4 / 2));
    // AVX2 (8 lanes, 16 registers): a 16-lane store is two vector instructions and two
    // chains, 16 accumulators over the 12 registers left.
    tune::PriorOptions avx2 = avx512(2);
    avx2.vectorBytes = 32;
    avx2.vectorRegisters = 16;
    QCOMPARE(tune::PriorModel(avx2).cycles(lowered(registerTile(8))),
             8 * (8.0 * 4 * 64 * 2 / 2 / 0.4 / 2 + 8.0 * 4 * 2 / 2 / 2) + 8000);
  }

  void cacheFills() {
    // An 8 KiB L1 filled at 1 byte a cycle (L2 and L3 hold everything), the matmul as
    // written. The update's nest touches A, B and C whole (48 KiB); with i fixed, a row of A
    // and of C and all of B (16.5 KiB); with i and j fixed, a row of A (256 bytes), a column
    // of B (256) and one element of C (4): 516 bytes fit, filled 64 * 64 times. The init's
    // nest is C (16 KiB); with i fixed, a row (256 bytes), filled 64 times. Both stores
    // take their fill cycles, more than their issue cycles (1M and 2048).
    tune::PriorOptions small = avx512(1);
    small.l1Bytes = 8 * 1024;
    small.l2Bandwidth = 1;
    small.l2Bytes = small.l3Bytes = 1 << 30;
    QCOMPARE(tune::PriorModel(small).cycles(lowered("")), 64.0 * 256 + 64.0 * 64 * 516);
    // A nest that fits stays in the cache from one call to the next: nothing to fill.
    small.l1Bytes = 48 * 1024;
    QCOMPARE(tune::PriorModel(small).cycles(lowered("")), 4096 / 2.0 + 64.0 * 64 * 64 / 2 / 0.125);
    // Eight unrolled rows share the columns of B they read: the fills of each row's store
    // (under k: a row of A, 64 x 16 of B, one 16-lane vector of C, 256 + 4096 + 64 bytes,
    // filled 8 * 4 times) are divided among the 8 copies. The init's nest (8 * 64 bytes of a
    // row) fits.
    small.l1Bytes = 8 * 1024;
    QCOMPARE(tune::PriorModel(small).cycles(lowered(registerTile(8))),
             8 * (std::max(8.0 * 4 * 64 / 2, 8.0 * 4 * 4416 / 8) + 8.0 * 4 / 2));
  }

  void scoresRankFewerCyclesFirst() {
    tune::PriorModel prior(avx512(2));
    const codegen::LoweredFunc plain = lowered(""), eight = lowered(registerTile(8)),
                               spilled = lowered(registerTile(32));
    const codegen::LoweredFunc* programs[] = {&plain, &eight, &spilled};
    const auto scores = prior.predict(programs);
    QCOMPARE(scores.size(), std::size_t{3});
    QVERIFY(scores[1] > scores[2]);
    QVERIFY(scores[2] > scores[0]);
    QCOMPARE(scores[1], -std::log2(1 + prior.cycles(eight)));
    QVERIFY(prior.informed());
    prior.update(programs, std::vector<double>{1, 2, 3}); // learns nothing
    QCOMPARE(prior.predict(programs), scores);
  }

  void modelFileAndFactory() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("log.prior").toStdString();
    tune::PriorModel prior(avx512(2));
    QVERIFY(prior.save(path));
    QVERIFY(prior.load(path));
    { std::ofstream(dir.filePath("other").toStdString()) << "{\"model\":\"random\",\"seed\":1}\n"; }
    auto wrong = prior.load(dir.filePath("other").toStdString());
    QVERIFY(!wrong);
    QCOMPARE(wrong.error().message, "'" + dir.filePath("other").toStdString() + "' is not a saved prior cost model");
    auto made = tune::makeCostModel("prior", 1, 2);
    QVERIFY(made);
    QCOMPARE(std::string((*made)->name()), std::string("prior"));
    auto unknown = tune::makeCostModel("oracle", 1);
    QVERIFY(!unknown);
    QCOMPARE(unknown.error().message, std::string("unknown cost model 'oracle' (known: xgb, random, prior)"));
  }
};

QTEST_GUILESS_MAIN(TestPriorModel)
#include "tst_prior_model.moc"
