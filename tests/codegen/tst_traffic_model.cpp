// The traffic model (core/codegen/traffic_model.h) on programs small enough to count by
// hand: every expected number is derived in the comment above it (float32: 4 bytes, 16 a
// 64-byte line; a row of 64 floats is 4 lines).
#include "core/codegen/flop_count.h"
#include "core/codegen/lower.h"
#include "core/codegen/traffic_model.h"
#include "core/frontend/te_frontend.h"
#include "core/schedule/schedule.h"
#include "core/schedule/trace_script.h"

#include <QtTest>

#include <fstream>
#include <sstream>

using namespace loopscape;

namespace {

const char* kAdd = R"(from tvm import te
A = te.placeholder((1024,), dtype="float32", name="A")
B = te.placeholder((1024,), dtype="float32", name="B")
C = te.compute((1024,), lambda i: A[i] + B[i], name="C")
)";

const char* kMatmul64 = R"(from tvm import te
A = te.placeholder((64, 64), dtype="float32", name="A")
B = te.placeholder((64, 64), dtype="float32", name="B")
k = te.reduce_axis((0, 64), name="k")
C = te.compute((64, 64), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
)";

const char* kWindow = R"(from tvm import te
A = te.placeholder((66,), dtype="float32", name="A")
k = te.reduce_axis((0, 3), name="k")
B = te.compute((64,), lambda i: te.sum(A[i + k], axis=k), name="B")
)";

const char* kUnrolledWindow = R"(from tvm import te
A = te.placeholder((66,), dtype="float32", name="A")
B = te.compute((64,), lambda i: A[i] + A[i + 1] + A[i + 2], name="B")
)";

ir::PrimFunc parse(const std::string& text) {
  auto f = frontend::parseTe(text, "test.te");
  if (!f) qFatal("%s", renderDiagnostic(f.error(), text).c_str());
  return *f;
}

ir::PrimFunc scheduled(const ir::PrimFunc& original, const std::string& script) {
  schedule::Schedule sch(original);
  auto ok = schedule::applyScript(sch, script, "test.py");
  if (!ok) qFatal("%s", renderDiagnostic(ok.error(), script).c_str());
  return sch.func();
}

double traffic(const ir::PrimFunc& f, std::int64_t cacheBytes) {
  auto lowered = codegen::lower(f);
  if (!lowered) qFatal("%s", renderDiagnostic(lowered.error()).c_str());
  return codegen::estimateTraffic(*lowered, {}, codegen::TrafficOptions{cacheBytes, 64}).bytes;
}

std::string readAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

constexpr std::int64_t kMiB = 1 << 20;
constexpr std::int64_t kTiny = 4096; // 64 lines

} // namespace

class TestTrafficModel : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void elementwiseAddIsCompulsory() {
    const ir::PrimFunc f = parse(kAdd);
    // Three arrays of 1024 floats: 3 x 4096 bytes = 3 x 64 lines = 12288 bytes, which
    // fits a 1 MiB cache: every line once.
    QCOMPARE(traffic(f, kMiB), 12288.0);
    QCOMPARE(traffic(f, kMiB), *codegen::compulsoryBytes(f, {}));
    // In a 4 KiB cache the loop does not fit (192 lines > 64) but one iteration does (3
    // lines): the loop streams, each line still comes in once.
    QCOMPARE(traffic(f, kTiny), 12288.0);
  }

  void naiveMatmulInATinyCache() {
    // for i, j: C[i,j] = 0; for k: C[i,j] += A[i,k] * B[k,j]   (64^3, a 64-line cache)
    //  * k loop: A row i (4 lines) + B column j (64 rows, 1 line each) + C[i,j] (1 line)
    //    = 69 lines > 64, its body (3 lines) fits: it streams, 69 x 64 = 4416 bytes;
    //  * the body of j (init + k loop), 69 lines, does not fit: the sum of its parts,
    //    64 (the init's line of C) + 4416 = 4480 bytes;
    //  * j loop: A row (4) + all of B (256) + C row (4) = 264 lines, its body does not
    //    fit: 64 x 4480 = 286720 bytes;
    //  * i loop: 768 lines, its body (264) does not fit: 64 x 286720 = 18350080 bytes.
    QCOMPARE(traffic(parse(kMatmul64), kTiny), 18350080.0);
    // In a 1 MiB cache all of it fits: 3 x 64 x 4 lines x 64 bytes = 49152 (compulsory).
    QCOMPARE(traffic(parse(kMatmul64), kMiB), 49152.0);
  }

  void tiledMatmulMovesLess() {
    // Tiled 8 x 8: for i_0, j_0, k, i_1, j_1 (C's init is guarded by k == 0 inside).
    //  * i_1 loop (i_1, j_1 iterate): C 8 rows x 1 line (8 floats) + A 8 rows x 1 + B 1
    //    line = 17 lines: fits;
    //  * k loop: C 8 lines + A 8 rows x 4 lines (k spans the row) = 32 + B 64 rows x 1
    //    line = 64: 104 lines > 64, its body fits: it streams, 104 x 64 = 6656 bytes;
    //  * j_0 loop: C 8 rows x 4 + A 32 + all of B 256 = 320 lines; its body (104) does
    //    not fit: 8 x 6656 = 53248 bytes;
    //  * i_0 loop: 768 lines, body 320 does not fit: 8 x 53248 = 425984 bytes,
    //    against 18350080 untiled.
    const ir::PrimFunc tiled = scheduled(parse(kMatmul64), R"(b = sch.get_block("C")
i, j, k = sch.get_loops(b)
i_0, i_1 = sch.split(i, factors=[None, 8])
j_0, j_1 = sch.split(j, factors=[None, 8])
sch.reorder(i_0, j_0, k, i_1, j_1)
)");
    QCOMPARE(traffic(tiled, kTiny), 425984.0);
    QVERIFY(traffic(tiled, kTiny) < traffic(parse(kMatmul64), kTiny));
  }

  void stencilWindowCountsOnce() {
    // B[i] = sum over k < 3 of A[i + k]: A's index spans 63 + 2 + 1 = 66 floats = 264
    // bytes = 5 lines (not the 4 + 4 of two separate rows), B 64 floats = 4 lines:
    // 9 lines = 576 bytes.
    QCOMPARE(traffic(parse(kWindow), kMiB), 576.0);
    // A[i] + A[i + 1] + A[i + 2]: one box widened by the offsets' spread (2): again
    // 66 floats = 5 lines, plus B's 4: 576 bytes.
    QCOMPARE(traffic(parse(kUnrolledWindow), kMiB), 576.0);
  }

  void modelText() {
    auto lowered = codegen::lower(parse(kAdd));
    QVERIFY(lowered.has_value());
    const auto e = codegen::estimateTraffic(*lowered, {}, codegen::TrafficOptions{kMiB, 64});
    QCOMPARE(QString::fromStdString(e.model), QString("beyond a 1 MiB cache, 64-byte lines"));
    QCOMPARE(e.cacheBytes, kMiB);
    QCOMPARE(QString::fromStdString(codegen::cacheSizeText(48 * 1024)), QString("48 KiB"));
    QVERIFY(codegen::hostL2CacheBytes() > 0);
    const auto host = codegen::estimateTraffic(*lowered, {});
    QCOMPARE(host.cacheBytes, codegen::hostL2CacheBytes());
  }

  void sampleMatmulSchedules() {
    // The 1024^3 sample under its two traces, in a 1 MiB cache: tiling and packing move
    // less (the numbers are printed for README's roofline section).
    const std::string dir = std::string(LS_SOURCE_DIR) + "/samples/";
    const ir::PrimFunc original = parse(readAll(dir + "matmul.te"));
    const double untiled = traffic(original, kMiB);
    const double tile = traffic(scheduled(original, readAll(dir + "traces/matmul_tile.py")), kMiB);
    const double tuned = traffic(scheduled(original, readAll(dir + "traces/matmul_tuned.py")), kMiB);
    const double flops = 2.0 * 1024 * 1024 * 1024;
    qInfo("matmul 1024^3 modeled traffic (1 MiB cache): untiled %.0f B (%.3f FLOP/B), matmul_tile %.0f B (%.3f "
          "FLOP/B), matmul_tuned %.0f B (%.3f FLOP/B)",
          untiled, flops / untiled, tile, flops / tile, tuned, flops / tuned);
    // A row is 1024 floats = 64 lines; a 1 MiB cache holds 16384 lines.
    //  * untiled: the k loop (A row 64 + B column 1024 + C 1 = 1089 lines) fits; the j
    //    loop (A row, all of B 65536, C row: 65664 lines) does not but its body does, it
    //    streams: 65664 x 64 = 4202496 bytes per i, x 1024 = 4303355904;
    //  * matmul_tile (i_0, j_0, k, i_1, j_1 by 32): the k loop (C 32 rows x 2 lines + A 32
    //    rows x 64 + B 1024 rows x 2 = 4160 lines) fits; the j_0 loop (C 32 x 64 + A 2048
    //    + B 65536 = 69632 lines) streams: 4456448 bytes per i_0, x 32 = 142606336;
    //  * matmul_tuned: packing B into B_global streams both (2 x 65536 lines = 8388608
    //    bytes); then the i_1 loop (C 64 rows x 2 + A 64 rows x 64 + a 32-column panel of
    //    B_global 2048 = 6272 lines) fits, the j_0 loop (C 4096 + A 4096 + B_global 65536
    //    = 73728 lines) streams: 4718592 bytes per i_0, x 16 = 75497472; 83886080 in all.
    QCOMPARE(untiled, 4303355904.0);
    QCOMPARE(tile, 142606336.0);
    QCOMPARE(tuned, 83886080.0);
    QVERIFY(tile >= *codegen::compulsoryBytes(original, {}));

    // A GPU kernel (matmul_gpu.py: 64 x 64 tiles of C per block of 16 x 16 threads, A and B
    // copied through shared memory): the thread indices are loops around the body
    // (blockIdx.y, blockIdx.x, threadIdx.y, threadIdx.x), shared and local buffers do not
    // count, and the copies' floordiv/floormod indices are bounded terms. One block (the
    // threadIdx.y loop) touches A 64 rows x 64 lines + B 1024 rows x 4 lines (64 columns)
    // + C 64 rows x 4 lines = 8448 lines: fits; the blockIdx.x loop (A 4096 + all of B
    // 65536 + C 64 rows x 64 = 73728 lines) streams: 4718592 bytes per blockIdx.y, x 16 =
    // 75497472.
    codegen::LowerOptions gpu;
    gpu.deviceKind = "gpu";
    auto kernel = codegen::lower(scheduled(original, readAll(dir + "traces/matmul_gpu.py")), gpu);
    QVERIFY(kernel.has_value());
    QVERIFY(kernel->gpu.has_value());
    QCOMPARE(codegen::estimateTraffic(*kernel, {}, codegen::TrafficOptions{kMiB, 64}).bytes, 75497472.0);
  }
};

QTEST_GUILESS_MAIN(TestTrafficModel)
#include "tst_traffic_model.moc"
