// The search space (core/tune/space.h): the sketches of the samples, candidates that replay
// as traces and compute what the unscheduled program computes, decisions that regenerate
// the same program, and mutations that change it.
#include "core/ir/printer.h"
#include "core/ir/structural_equal.h"
#include "core/poly/checked_schedule.h"
#include "core/poly/legality.h"
#include "core/schedule/instruction.h"
#include "core/schedule/trace_python.h"
#include "core/tune/space.h"

#include "poly/poly_codegen_test_util.h"

#include <QtTest>

using namespace loopscape;
using polytest::kSmallSamples;

namespace {

ir::PrimFunc smallProgram(const polytest::Small& s) {
  std::string text = polytest::smallSample(s.file, s.from, s.to);
  if (s.from2) {
    const auto pos = text.find(s.from2);
    text.replace(pos, std::string(s.from2).size(), s.to2);
  }
  return polytest::parseTe(text);
}

ir::PrimFunc matmul(int m, int n, int k) {
  return polytest::parseTe(fmt::format(R"(from tvm import te
A = te.placeholder(({0}, {2}), dtype="float32", name="A")
B = te.placeholder(({2}, {1}), dtype="float32", name="B")
k = te.reduce_axis((0, {2}), name="k")
C = te.compute(({0}, {1}), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
)",
                                       m, n, k));
}

std::vector<std::string> names(const std::vector<tune::Sketch>& sketches) {
  std::vector<std::string> out;
  for (const auto& s : sketches)
    out.push_back(s.name);
  return out;
}

} // namespace

class TestSpace : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void matmulSketches() {
    tune::SpaceOptions options;
    options.cores = 2;
    const auto sketches = tune::generateSketches(matmul(64, 64, 64), options);
    const std::vector<std::string> expected{"tir(C: tile)",
                                            "tir(C: tile write@1)",
                                            "tir(C: tile write@2)",
                                            "tir(C: tile pack B)",
                                            "tir(C: tile write@1 pack B)",
                                            "tir(C: tile write@2 pack B)",
                                            "poly(fusion=smart)",
                                            "poly(fusion=max)",
                                            "poly(fusion=min)"};
    QCOMPARE(names(sketches), expected);
    // No panels where j is under two vectors wide, nor for an input whose last index is
    // not j (an NT dense's W[j, k]).
    QCOMPARE(names(tune::generateSketches(matmul(64, 8, 64), options)).size(), std::size_t{6});
    const auto dense = tune::generateSketches(polytest::parseTe(R"(from tvm import te
A = te.placeholder((16, 32), dtype="float32", name="A")
W = te.placeholder((64, 32), dtype="float32", name="W")
k = te.reduce_axis((0, 32), name="k")
C = te.compute((16, 64), lambda i, j: te.sum(A[i, k] * W[j, k], axis=k), name="C")
)"),
                                              options);
    QCOMPARE(dense.size(), std::size_t{6});
  }

  // The packing sketch copies B into panels as wide as j's register tile: the copy, its
  // layout and loops exactly, then legal and equal to the original; a tile of one column
  // packs nothing.
  void packSketchPanelsB() {
    const ir::PrimFunc func = matmul(16, 64, 32);
    tune::SpaceOptions options;
    options.cores = 2;
    options.poly = false;
    const auto sketches = tune::generateSketches(func, options);
    const auto pack = std::find_if(sketches.begin(), sketches.end(),
                                   [](const tune::Sketch& s) { return s.name == "tir(C: tile pack B)"; });
    QVERIFY(pack != sketches.end());
    using schedule::TraceList;
    const auto tile = [](std::vector<std::int64_t> f) {
      TraceList l;
      for (auto x : f)
        l.emplace_back(x);
      return schedule::TraceValue(l);
    };
    // i, j, k decisions, then the parallel jobs (none) and the unroll depth (none).
    const tune::Decisions decisions{tile({2, 1, 1, 8}), tile({1, 2, 2, 16}), tile({4, 8}), std::int64_t{0},
                                    std::int64_t{0}};
    auto sch = tune::generate(func, *pack, options, decisions, 1);
    QVERIFY2(sch, sch ? "" : sch.error().message.c_str());
    const std::string trace = schedule::traceToPython(sch->trace());
    QVERIFY2(trace.find(R"(sch.cache_read(block=b0, read_buffer_index=1, storage_scope="global")") != std::string::npos,
             trace.c_str());
    QVERIFY2(trace.find("index_map=lambda d0, d1: (d1 // 16, d0, d1 % 16)") != std::string::npos, trace.c_str());
    const std::string program = ir::printPrimFunc(sch->func());
    QVERIFY2(program.find("B_global = T.alloc_buffer((4, 32, 16))") != std::string::npos, program.c_str());
    auto legal = poly::checkLegality(func, sch->func());
    QVERIFY(legal && legal->legal);
    QCOMPARE(polytest::compareRuns(func, sch->func(), 1e-4), std::string());
    // A one-column register tile: no copy.
    const tune::Decisions narrow{tile({2, 1, 1, 8}), tile({4, 4, 4, 1}), tile({4, 8}), std::int64_t{0},
                                 std::int64_t{0}};
    auto plain = tune::generate(func, *pack, options, narrow, 1);
    QVERIFY(plain);
    QVERIFY(schedule::traceToPython(plain->trace()).find("cache_read") == std::string::npos);
  }

  void softmaxSketches() {
    // Reductions without data reuse are not tiled; the small row sums may be rfactored;
    // the elementwise producers are inlined or placed by a sampled compute location.
    tune::SpaceOptions options;
    options.cores = 2;
    options.poly = false;
    const auto sketches = tune::generateSketches(smallProgram(kSmallSamples[7]), options);
    QVERIFY(!sketches.empty());
    bool rfactor = false, inlined = false;
    for (const auto& s : sketches) {
      rfactor |= s.name.find("rfactor") != std::string::npos;
      inlined |= s.name.find("inline") != std::string::npos;
    }
    QVERIFY2(rfactor && inlined, fmt::format("{}", fmt::join(names(sketches), " | ")).c_str());
  }

  void paddingIsNeverInlined() {
    // A padding computes T.if_then_else: inlined it would put the condition in the
    // convolution's innermost loop, so (as MetaSchedule's disallow_if_then_else) it only
    // gets a compute location; the convolution is tiled.
    tune::SpaceOptions options;
    options.cores = 2;
    options.poly = false;
    const auto sketches = tune::generateSketches(polytest::parseTe(R"(from tvm import te
X = te.placeholder((1, 4, 8, 8), dtype="float32", name="X")
W = te.placeholder((4, 4, 3, 3), dtype="float32", name="W")
P = te.compute((1, 4, 10, 10), lambda n, c, h, w: te.if_then_else(te.all(h >= 1, h < 9, w >= 1, w < 9), X[n, c, h - 1, w - 1], 0.0), name="P")
rc = te.reduce_axis((0, 4), name="rc")
ry = te.reduce_axis((0, 3), name="ry")
rx = te.reduce_axis((0, 3), name="rx")
Y = te.compute((1, 4, 8, 8), lambda n, f, y, x: te.sum(P[n, rc, y + ry, x + rx] * W[f, rc, ry, rx], axis=[rc, ry, rx]), name="Y")
)"),
                                                 options);
    const std::vector<std::string> expected{"tir(Y: tile, P: compute_at)", "tir(Y: tile write@1, P: compute_at)",
                                            "tir(Y: tile write@2, P: compute_at)"};
    QCOMPARE(names(sketches), expected);
  }

  void candidatesReplayAndCompute_data() {
    QTest::addColumn<int>("sample");
    for (int i = 0; i < static_cast<int>(std::size(kSmallSamples)); ++i)
      QTest::newRow(kSmallSamples[i].file) << i;
  }

  // Every sketch of every sample, under a few seeds: the candidate's trace replays to the
  // same program, the exact legality check accepts it, and it computes the original's
  // outputs (within float rounding: tiling reorders reductions).
  void candidatesReplayAndCompute() {
    QFETCH(int, sample);
    const ir::PrimFunc func = smallProgram(kSmallSamples[sample]);
    tune::SpaceOptions options;
    options.cores = 2;
    options.maxVectorizeExtent = 8;
    const auto sketches = tune::generateSketches(func, options);
    QVERIFY(!sketches.empty());
    int generated = 0;
    for (const auto& sketch : sketches) {
      // A fresh polyhedral candidate is the cost model's choice whatever the seed.
      const std::uint64_t seeds = sketch.family == tune::Family::Poly ? 1 : 3;
      for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
        auto sch = tune::generate(func, sketch, options, {}, seed);
        if (!sch) {
          // A polyhedral sketch of a program isl cannot model is refused, never wrong.
          if (sketch.family != tune::Family::Poly) QFAIL((sketch.name + ": " + sch.error().message).c_str());
          continue;
        }
        ++generated;
        const std::string where =
            fmt::format("{} seed {}:\n{}", sketch.name, seed, schedule::traceToPython(sch->trace()));
        auto replayed = poly::replaySchedule(func, sch->trace(), schedule::LegalityPolicy::Unverified);
        if (!replayed) QFAIL((where + replayed.error().message).c_str());
        QVERIFY2(ir::structuralEqual(replayed->func(), sch->func()), where.c_str());
        // The exact check takes up to a second on a tiled conv2d: one seed per sketch.
        auto legal = seed == 1 ? poly::checkLegality(func, sch->func()) : Expected<poly::LegalityReport>{};
        if (legal && !legal->legal) QFAIL((where + poly::counterexampleMessage(*legal->counterexample)).c_str());
        const std::string diff = polytest::compareRuns(func, sch->func(), kSmallSamples[sample].integer ? 0 : 1e-4);
        QVERIFY2(diff.empty(), (where + diff).c_str());
        // The decisions alone regenerate the program, whatever the seed.
        auto again = tune::generate(func, sketch, options, tune::decisionsOf(sch->trace()), seed + 100);
        QVERIFY2(again && ir::structuralEqual(again->func(), sch->func()), where.c_str());
      }
    }
    QVERIFY(generated > 0);
  }

  // Mutations change one decision; the regenerated program is different and still right.
  void mutationsChangeTheProgram() {
    const ir::PrimFunc func = matmul(16, 32, 8);
    tune::SpaceOptions options;
    options.cores = 2;
    options.poly = false;
    const auto sketches = tune::generateSketches(func, options);
    auto sch = tune::generate(func, sketches.front(), options, {}, 7);
    QVERIFY(sch);
    std::mt19937_64 rng(3);
    int different = 0;
    for (int i = 0; i < 20; ++i) {
      auto decisions = tune::mutate(sch->trace(), options, rng);
      QVERIFY(decisions);
      const auto before = tune::decisionsOf(sch->trace());
      QCOMPARE(decisions->size(), before.size());
      int changed = 0;
      for (std::size_t d = 0; d < before.size(); ++d)
        changed += schedule::pythonValue((*decisions)[d]) != schedule::pythonValue(before[d]);
      QCOMPARE(changed, 1);
      auto child = tune::generate(func, sketches.front(), options, *decisions, 7);
      QVERIFY(child);
      different += !ir::structuralEqual(child->func(), sch->func());
      QCOMPARE(polytest::compareRuns(func, child->func(), 1e-4), std::string());
    }
    QVERIFY(different >= 15);
  }

  // Mutators are drawn as MetaSchedule draws them, then one of their sites: a conv's one
  // compute location (pad_temp's, at the root) changes in about 5 % of the mutations
  // (times the 4 in 5 of its moves that change it), whatever its four tile decisions
  // (drawn per site, it changed in about 1 %).
  void everyMutatorKeepsItsShareHoweverManySites() {
    const ir::PrimFunc func = smallProgram(kSmallSamples[2]);
    tune::SpaceOptions options;
    options.poly = false;
    const auto sketches = tune::generateSketches(func, options);
    QVERIFY(!sketches.empty());
    QCOMPARE(sketches.front().name, std::string("tir(conv2d_nchw: tile, pad_temp: compute_at)"));
    auto sch = tune::generate(func, sketches.front(), options, {}, 1);
    QVERIFY(sch);
    schedule::Trace trace = sch->trace();
    std::size_t location = 0, index = 0;
    int tiles = 0;
    for (auto& inst : trace.instructions) {
      if (!inst.kind || !inst.kind->isSampling) continue;
      if (inst.kind->name == "sample_compute_location") {
        inst.decision = schedule::TraceValue(std::int64_t{-1});
        location = index;
      }
      tiles += inst.kind->name == "sample_perfect_tile";
      ++index;
    }
    QCOMPARE(tiles, 4);
    std::mt19937_64 rng(17);
    const int n = 4000;
    int moved = 0;
    for (int i = 0; i < n; ++i) {
      auto decisions = tune::mutate(trace, options, rng);
      QVERIFY(decisions);
      moved += schedule::pythonValue((*decisions)[location]) != "-1";
    }
    QVERIFY2(moved > n * 3 / 100 && moved < n * 5 / 100, std::to_string(moved).c_str());
  }

  // A poly decision's register tile stays within its cache tile; rows that are not a power
  // of two need not divide it: rows of 6 in a tile of 64 become 12 or 3 (when the tile had
  // to stay a multiple, they could not change). Powers of two (vector widths) still divide.
  void polyMutationKeepsRegisterTilesInTheirTiles() {
    const ir::PrimFunc func = matmul(64, 64, 64);
    tune::SpaceOptions options;
    options.tir = false;
    const auto sketches = tune::generateSketches(func, options);
    QVERIFY(!sketches.empty());
    auto sch = tune::generate(func, sketches.front(), options, {}, 1);
    QVERIFY(sch);
    schedule::Trace trace = sch->trace();
    bool found = false;
    for (auto& inst : trace.instructions)
      if (inst.kind && inst.kind->name == "poly_optimize") {
        inst.decision = schedule::TraceValue(schedule::TraceList{
            schedule::TraceValue(schedule::TraceList{std::int64_t{64}, std::int64_t{64}, std::int64_t{64},
                                                     std::int64_t{6}, std::int64_t{16}, std::int64_t{64}})});
        found = true;
      }
    QVERIFY(found);
    std::mt19937_64 rng(5);
    bool rowsChanged = false;
    for (int i = 0; i < 100; ++i) {
      auto decisions = tune::mutate(trace, options, rng);
      QVERIFY(decisions);
      for (const auto& d : *decisions) {
        const auto* bands = d.get<schedule::TraceList>();
        if (!bands) continue;
        const auto* band = bands->front().get<schedule::TraceList>();
        QVERIFY(band && band->size() == 6);
        for (std::size_t m = 0; m < 3; ++m) {
          const std::int64_t tile = *(*band)[m].get<std::int64_t>(), reg = *(*band)[m + 3].get<std::int64_t>();
          QVERIFY(reg >= 1 && reg <= tile);
          if ((reg & (reg - 1)) == 0) QCOMPARE(tile % reg, std::int64_t{0}); // widths still divide
          rowsChanged = rowsChanged || (m == 0 && reg != 6);
        }
      }
    }
    QVERIFY(rowsChanged);
  }

  // A tile decision keeps the product of its factors and the innermost bound.
  void tileMutationKeepsTheExtent() {
    const ir::PrimFunc func = matmul(64, 64, 64);
    tune::SpaceOptions options;
    options.poly = false;
    options.maxInnermostFactor = 4;
    const auto sketches = tune::generateSketches(func, options);
    auto sch = tune::generate(func, sketches.front(), options, {}, 1);
    QVERIFY(sch);
    std::mt19937_64 rng(11);
    for (int i = 0; i < 50; ++i) {
      auto decisions = tune::mutate(sch->trace(), options, rng);
      QVERIFY(decisions);
      for (const auto& d : *decisions) {
        const auto* list = d.get<schedule::TraceList>();
        if (!list) continue;
        std::int64_t product = 1;
        for (const auto& x : *list)
          product *= *x.get<std::int64_t>();
        QCOMPARE(product, std::int64_t{64});
        QVERIFY(*list->back().get<std::int64_t>() <= 4);
      }
    }
  }
};

QTEST_GUILESS_MAIN(TestSpace)
#include "tst_space.moc"
