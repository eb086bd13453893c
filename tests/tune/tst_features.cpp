// Per-store features (core/tune/features.h) on small programs whose values are worked out
// by hand from the definitions there: a 16x16 elementwise add (plain, then parallel and
// vectorised), a 16x16x16 matmul (plain, split + vectorised + parallel with its guarded
// init, reduction partly unrolled), a symbolic size, a partial tile, an intermediate buffer, the feature
// table and the log scaling. Raw values (logScale off) unless a test says otherwise.
#include "core/codegen/lower.h"
#include "core/frontend/te_frontend.h"
#include "core/poly/poly_schedule.h"
#include "core/schedule/schedule.h"
#include "core/schedule/trace_script.h"
#include "core/tune/features.h"

#include <QtTest>

#include <algorithm>
#include <cmath>

using namespace loopscape;
using tune::feature::bufferFeature;

namespace {

const char* const kAdd = R"(A = placeholder((16, 16), "float32", name="A")
B = placeholder((16, 16), "float32", name="B")
C = compute((16, 16), lambda i, j: A[i, j] + B[i, j], name="C")
)";

const char* const kMatmul = R"(from tvm import te
A = te.placeholder((16, 16), dtype="float32", name="A")
B = te.placeholder((16, 16), dtype="float32", name="B")
k = te.reduce_axis((0, 16), name="k")
C = te.compute((16, 16), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
)";

ir::PrimFunc parse(const char* text) {
  auto f = frontend::parseTe(text, "test.te");
  if (!f) qFatal("%s", renderDiagnostic(f.error(), text).c_str());
  return *f;
}

ir::PrimFunc scheduled(const char* program, const char* script) {
  schedule::Schedule sch(parse(program));
  auto ok = schedule::applyScript(sch, script, "test.py");
  if (!ok) qFatal("%s", renderDiagnostic(ok.error(), script).c_str());
  return sch.func();
}

std::vector<std::vector<float>> rowsOf(const ir::PrimFunc& f, tune::FeatureOptions options = {}, bool raw = true) {
  auto l = codegen::lower(f);
  if (!l) qFatal("%s", renderDiagnostic(l.error()).c_str());
  if (raw) options.logScale = false;
  auto rows = tune::extractFeatures(*l, options);
  for (const auto& r : rows)
    if (r.size() != static_cast<std::size_t>(tune::kFeatureCount)) qFatal("row of %zu features", r.size());
  return rows;
}

/// The feature called `name` in `row`.
double at(const std::vector<float>& row, const std::string& name) {
  const auto& names = tune::featureNames();
  auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end()) qFatal("no feature '%s'", name.c_str());
  return row[static_cast<std::size_t>(it - names.begin())];
}

/// Every named feature of `row` has its value (to a relative 1e-4).
using Expect = std::vector<std::pair<std::string, double>>;
void check(const std::vector<float>& row, const Expect& expect) {
  for (const auto& [name, value] : expect) {
    const double got = at(row, name);
    if (std::abs(got - value) > 1e-4 * std::max(1.0, std::abs(value)))
      QFAIL(qPrintable(QString("%1 = %2, expected %3").arg(QString::fromStdString(name)).arg(got).arg(value)));
  }
}

} // namespace

class TestFeatures : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void table();
  void elementwise_data();
  void elementwise();
  void elementwiseVectorParallel();
  void matmul_data();
  void matmul();
  void matmulInit();
  void matmulVectorizedParallel();
  void unrolledCopies();
  void symbolicSizes();
  void partialTiles();
  void allocation();
  void logScale();
};

void TestFeatures::table() {
  namespace f = tune::feature;
  const auto& names = tune::featureNames();
  QCOMPARE(tune::kFeatureCount, 129);
  QCOMPARE(names.size(), std::size_t(tune::kFeatureCount));
  QCOMPARE(QString::fromStdString(names[f::kFloatMad]), QString("float_mad"));
  QCOMPARE(QString::fromStdString(names[f::kVecLanes]), QString("vec_lanes"));
  QCOMPARE(QString::fromStdString(names[f::kParallelPosNone]), QString("parallel_pos_none"));
  QCOMPARE(f::kBufferBase, 24);
  QCOMPARE(QString::fromStdString(names[bufferFeature(0, f::kAccRead)]), QString("buf0.acc_read"));
  QCOMPARE(QString::fromStdString(names[bufferFeature(4, f::kStride)]), QString("buf4.stride"));
  QCOMPARE(QString::fromStdString(names[f::kArithIntensityBase]), QString("arith_intensity_0"));
  QCOMPARE(QString::fromStdString(names[f::kAllocSize]), QString("alloc_size"));
  QCOMPARE(QString::fromStdString(names[f::kNumLoops]), QString("num_loops"));
  // Names are unique.
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  QVERIFY(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
}

// C[i*16+j] = A[i*16+j] + B[i*16+j] over 16x16: 256 float adds; each of the three indices
// is one integer mad (i*16 + j). Every buffer: 1 KiB, 16 lines, unit stride, no reuse.
void TestFeatures::elementwise_data() {
  QTest::addColumn<int>("slot");
  QTest::addColumn<QString>("access");
  QTest::newRow("C (written)") << 0 << "acc_write";
  QTest::newRow("A (read)") << 1 << "acc_read";
  QTest::newRow("B (read)") << 2 << "acc_read";
}
void TestFeatures::elementwise() {
  QFETCH(int, slot);
  QFETCH(QString, access);
  auto rows = rowsOf(parse(kAdd));
  QCOMPARE(rows.size(), std::size_t(1));
  check(rows[0], {{"float_addsub", 256},
                  {"float_mul", 0},
                  {"int_mad", 768},
                  {"int_addsub", 0},
                  {"vec_lanes", 1},
                  {"unroll_copies", 1},
                  {"parallel_pos_none", 1},
                  {"parallel_num", 0},
                  {"outer_prod", 256},
                  {"num_loops", 2},
                  // 1 flop per 12 bytes at every loop level.
                  {"arith_intensity_0", 1.0 / 12},
                  {"arith_intensity_9", 1.0 / 12}});
  auto name = [&](const std::string& field) { return "buf" + std::to_string(slot) + "." + field; };
  QCOMPARE(at(rows[0], name(access.toStdString())), 1.0);
  check(rows[0], {{name("bytes"), 1024},
                  {name("unique_bytes"), 1024},
                  {name("lines"), 16},
                  {name("unique_lines"), 16},
                  {name("reuse_none"), 1},
                  {name("reuse_ct"), 0},
                  {name("stride"), 1}});
  QCOMPARE(at(rows[0], "buf3.bytes"), 0.0); // unused slot
}

// i parallel, j split 2 x 8 with the 8 vectorised: one 8-lane store over 16 x 2
// iterations; each index base i*16 + j_0*8 is one integer mad and one mul.
void TestFeatures::elementwiseVectorParallel() {
  auto rows = rowsOf(scheduled(kAdd, R"(b = sch.get_block("C")
i, j = sch.get_loops(b)
j0, j1 = sch.split(j, factors=[None, 8])
sch.vectorize(j1)
sch.parallel(i)
)"));
  QCOMPARE(rows.size(), std::size_t(1));
  check(rows[0], {{"float_addsub", 256},
                  {"int_mad", 96},
                  {"int_mul", 96},
                  {"vec_lanes", 8},
                  {"parallel_num", 1},
                  {"parallel_prod", 16},
                  {"parallel_len", 16},
                  {"parallel_pos_outer", 1},
                  {"parallel_pos_none", 0},
                  {"outer_prod", 32},
                  {"num_loops", 2},
                  {"buf0.acc_write", 1},
                  {"buf0.bytes", 1024},
                  {"buf0.unique_bytes", 1024},
                  {"buf0.lines", 16},
                  {"buf0.unique_lines", 16},
                  {"buf0.stride", 1},
                  {"buf1.stride", 1},
                  {"buf2.bytes", 1024}});
}

// The update C[i*16+j] = C[i*16+j] + A[i*16+k] * B[k*16+j] over i, j, k (16 each):
// 4096 float mads, four index mads per iteration. C is read and written (2 x 16 KiB),
// k does not move it (loop-multiple-read, 16 reuses, 1 iteration apart, 12 bytes per k
// iteration). A moves along k with stride 1 (4096 accesses / 16 per line = 256 lines) and
// is reused across j (16 k-iterations apart; one j iteration touches a row of A, a column
// of B and one C element: 64 + 64 + 4 bytes). B moves along k with stride 16, a new line
// each time (4096 lines), and is reused across i (256 iterations apart; one i iteration
// touches a row of C, a row of A and all of B: 64 + 64 + 1024 bytes).
void TestFeatures::matmul_data() {
  QTest::addColumn<QString>("name");
  QTest::addColumn<double>("value");
  const Expect expect = {
      {"float_mad", 4096},
      {"float_addsub", 0},
      {"float_mul", 0},
      {"int_mad", 16384},
      {"vec_lanes", 1},
      {"outer_prod", 4096},
      {"num_loops", 3},
      {"buf0.acc_readwrite", 1},
      {"buf0.bytes", 32768},
      {"buf0.unique_bytes", 1024},
      {"buf0.lines", 16},
      {"buf0.unique_lines", 16},
      {"buf0.reuse_loop_read", 1},
      {"buf0.reuse_ct", 16},
      {"buf0.reuse_dis_iter", 1},
      {"buf0.reuse_dis_bytes", 12},
      {"buf0.bytes_d_reuse_ct", 2048},
      {"buf0.stride", 0},
      {"buf1.acc_read", 1},
      {"buf1.bytes", 16384},
      {"buf1.unique_bytes", 1024},
      {"buf1.lines", 256},
      {"buf1.unique_lines", 16},
      {"buf1.reuse_loop_read", 1},
      {"buf1.reuse_ct", 16},
      {"buf1.reuse_dis_iter", 16},
      {"buf1.reuse_dis_bytes", 132},
      {"buf1.stride", 1},
      {"buf2.acc_read", 1},
      {"buf2.bytes", 16384},
      {"buf2.unique_bytes", 1024},
      {"buf2.lines", 4096},
      {"buf2.unique_lines", 16},
      {"buf2.reuse_ct", 16},
      {"buf2.reuse_dis_iter", 256},
      {"buf2.reuse_dis_bytes", 1152},
      {"buf2.stride", 16},
      // Levels k, j, i: 32 flops / 132 B, 512 / 1152, 8192 / 3072; the first sample is
      // at 819.2 flops, between the j and i levels.
      {"arith_intensity_0", 512.0 / 1152 + (8192.0 / 3072 - 512.0 / 1152) * (819.2 - 512) / (8192 - 512)},
      {"arith_intensity_9", 8192.0 / 3072},
  };
  for (const auto& [name, value] : expect)
    QTest::newRow(name.c_str()) << QString::fromStdString(name) << value;
}
void TestFeatures::matmul() {
  QFETCH(QString, name);
  QFETCH(double, value);
  auto rows = rowsOf(parse(kMatmul));
  QCOMPARE(rows.size(), std::size_t(2)); // init, update
  QCOMPARE(static_cast<float>(at(rows[1], name.toStdString())), static_cast<float>(value));
}

// The init C[i*16+j] = 0 over i, j: only the index mad. C is touched by the init and by
// the update inside j: serial read-write reuse, 1 other statement, one j iteration apart
// (132 bytes, as above).
void TestFeatures::matmulInit() {
  auto rows = rowsOf(parse(kMatmul));
  check(rows[0], {{"float_mad", 0},
                  {"int_mad", 256},
                  {"outer_prod", 256},
                  {"num_loops", 2},
                  {"buf0.acc_write", 1},
                  {"buf0.bytes", 1024},
                  {"buf0.unique_bytes", 1024},
                  {"buf0.lines", 16},
                  {"buf0.reuse_serial_rw", 1},
                  {"buf0.reuse_ct", 1},
                  {"buf0.reuse_dis_iter", 1},
                  {"buf0.reuse_dis_bytes", 132},
                  {"buf1.bytes", 0},
                  {"arith_intensity_0", 0}});
}

// i parallel, j split 2 x 8, reorder i, j_0, k, j_1, j_1 vectorised. The init stays inside
// k under `if k == 0`: it counts once per (i, j_0). The update is an 8-lane store: C and B
// are Ramp accesses (stride 1 over the lanes), A a broadcast scalar (stride 0, 512 loads,
// reused across j_0: 2 times, 16 iterations apart; one j_0 iteration touches 8 floats of
// C, 16 of A and 16 x 8 of B: 608 bytes).
void TestFeatures::matmulVectorizedParallel() {
  auto rows = rowsOf(scheduled(kMatmul, R"(b = sch.get_block("C")
i, j, k = sch.get_loops(b)
j0, j1 = sch.split(j, factors=[None, 8])
sch.reorder(i, j0, k, j1)
sch.vectorize(j1)
sch.parallel(i)
)"));
  QCOMPARE(rows.size(), std::size_t(2));
  check(rows[0], {{"outer_prod", 32},
                  {"int_mad", 32},
                  {"int_mul", 32},
                  {"vec_lanes", 8},
                  {"guarded", 0},
                  {"parallel_pos_outer", 1},
                  {"buf0.bytes", 1024},
                  {"buf0.lines", 16},
                  {"buf0.reuse_serial_rw", 1},
                  {"buf0.reuse_dis_bytes", 608}});
  check(rows[1], {{"float_mad", 4096},         {"int_mad", 2048},
                  {"int_mul", 1536},           {"vec_lanes", 8},
                  {"parallel_num", 1},         {"parallel_prod", 16},
                  {"parallel_len", 16},        {"parallel_pos_outer", 1},
                  {"parallel_pos_none", 0},    {"outer_prod", 512},
                  {"buf0.acc_readwrite", 1},   {"buf0.bytes", 32768},
                  {"buf0.unique_bytes", 1024}, {"buf0.lines", 256},
                  {"buf0.stride", 1},          {"buf1.acc_read", 1},
                  {"buf1.bytes", 16384},       {"buf1.lines", 256},
                  {"buf1.unique_lines", 16},   {"buf1.stride", 1},
                  {"buf2.bytes", 2048},        {"buf2.unique_bytes", 1024},
                  {"buf2.lines", 32},          {"buf2.stride", 0},
                  {"buf2.reuse_loop_read", 1}, {"buf2.reuse_ct", 2},
                  {"buf2.reuse_dis_iter", 16}, {"buf2.reuse_dis_bytes", 608}});
}

// k split 4 x 4 with the inner unrolled: four copies of the update, each a quarter of the
// work (1024 mads); the first copy (no constant offset) is recognised with the others.
void TestFeatures::unrolledCopies() {
  auto rows = rowsOf(scheduled(kMatmul, R"(b = sch.get_block("C")
i, j, k = sch.get_loops(b)
k0, k1 = sch.split(k, factors=[None, 4])
sch.unroll(k1)
)"));
  QCOMPARE(rows.size(), std::size_t(5));
  check(rows[0], {{"unroll_copies", 1}, {"buf0.reuse_serial_rw", 1}, {"buf0.reuse_ct", 4}});
  for (std::size_t r = 1; r < rows.size(); ++r)
    check(rows[r], {{"unroll_copies", 4}, {"float_mad", 1024}, {"outer_prod", 1024}, {"buf1.stride", 4}});
}

// B = A * 2 over (n, 16): n takes the default 128, or the given size.
void TestFeatures::symbolicSizes() {
  const char* dyn = R"(n = var("n")
A = placeholder((n, 16), "float32", name="A")
B = compute((n, 16), lambda i, j: A[i, j] * 2.0, name="B")
)";
  auto rows = rowsOf(parse(dyn));
  QCOMPARE(rows.size(), std::size_t(1));
  check(rows[0], {{"outer_prod", 2048}, {"float_mul", 2048}, {"buf0.bytes", 8192}, {"buf0.unique_lines", 128}});
  tune::FeatureOptions sized;
  sized.sizes["n"] = 4;
  check(rowsOf(parse(dyn), sized)[0], {{"outer_prod", 64}, {"buf0.bytes", 256}, {"buf1.unique_bytes", 256}});
  tune::FeatureOptions other;
  other.defaultSize = 2;
  check(rowsOf(parse(dyn), other)[0], {{"outer_prod", 32}});
}

// poly_tile by 6 rows: `for i_1 in range(T.min(5, 15 - i_0 * 6) + 1)` under i_0 (3
// iterations) counts at i_0's midpoint, 1: 6 rows, 3 * 6 * 16 stores (the partial tile as
// a whole one).
void TestFeatures::partialTiles() {
  poly::registerPolyInstructionKinds();
  auto rows = rowsOf(scheduled(kAdd, "sch.poly_tile(band=\"i\", sizes=[6, 16])\n"));
  QCOMPARE(rows.size(), std::size_t(1));
  check(rows[0], {{"outer_prod", 288}, {"float_addsub", 288}});
}

// B is an intermediate (an Allocate of 256 floats at the top, global scope).
void TestFeatures::allocation() {
  auto rows = rowsOf(parse(R"(A = placeholder((16, 16), "float32", name="A")
B = compute((16, 16), lambda i, j: A[i, j] * 2.0, name="B")
C = compute((16, 16), lambda i, j: B[i, j] + 1.0, name="C")
)"));
  QCOMPARE(rows.size(), std::size_t(2));
  check(rows[0], {{"alloc_size", 1024}, {"alloc_outer_prod", 1}, {"alloc_local", 0}, {"float_mul", 256}});
  check(rows[1], {{"alloc_size", 0}, {"alloc_outer_prod", 0}, {"float_addsub", 256}});
}

// By default values are log2(1 + x); flags stay 0 / 1.
void TestFeatures::logScale() {
  auto raw = rowsOf(parse(kMatmul));
  auto scaled = rowsOf(parse(kMatmul), {}, false);
  QCOMPARE(scaled.size(), raw.size());
  QCOMPARE(at(scaled[1], "float_mad"), double(std::log2(1.0F + 4096.0F)));
  QCOMPARE(at(scaled[1], "buf0.bytes"), double(std::log2(1.0F + 32768.0F)));
  QCOMPARE(at(scaled[1], "vec_lanes"), 1.0); // log2(1 + 1)
  QCOMPARE(at(scaled[1], "buf0.acc_readwrite"), 1.0);
  QCOMPARE(at(scaled[1], "buf0.reuse_loop_read"), 1.0);
  QCOMPARE(at(scaled[1], "parallel_pos_none"), 1.0);
  QCOMPARE(at(scaled[1], "buf0.stride"), 0.0);
}

QTEST_GUILESS_MAIN(TestFeatures)
#include "tst_features.moc"
