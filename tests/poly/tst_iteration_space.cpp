// The iteration-space model (issue 19): the slice of a block's domain on two axes with
// its execution order, wavefronts, dependence arrows, tiles and instance cap, and the
// placement of a legality counterexample in a slice. Programs: the 1-D stencil over time
// (RAW distances (1,-1), (1,0), (1,1)), a small matmul, and their scheduled variants.
#include "poly_test_helpers.h"

#include "core/poly/checked_schedule.h"
#include "core/poly/isl_util.h"
#include "core/poly/iteration_space.h"
#include "core/poly/legality.h"
#include "core/poly/scop.h"
#include "core/schedule/schedule.h"
#include "core/schedule/trace_script.h"

#include <QtTest>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>
#include <stop_token>
#include <tuple>

using namespace loopscape;

namespace {

using Coords = std::vector<std::pair<std::int64_t, std::int64_t>>;
using Pairs = std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::string>>;

const char* const kMatmul = "A = placeholder((4, 2), \"float32\", name=\"A\")\n"
                            "B = placeholder((2, 3), \"float32\", name=\"B\")\n"
                            "k = reduce_axis((0, 2), name=\"k\")\n"
                            "C = compute((4, 3), lambda i, j: sum(A[i, k] * B[k, j], axis=k), name=\"C\")\n";
const char* const kMatmulWide = "A = placeholder((4, 2), \"float32\", name=\"A\")\n"
                                "B = placeholder((2, 6), \"float32\", name=\"B\")\n"
                                "k = reduce_axis((0, 2), name=\"k\")\n"
                                "C = compute((4, 6), lambda i, j: sum(A[i, k] * B[k, j], axis=k), name=\"C\")\n";

schedule::StatePtr stateOf(const ir::PrimFunc& f) { return schedule::ProgramState::make(f); }

schedule::StatePtr scheduled(const ir::PrimFunc& f, const std::string& script) {
  schedule::Schedule sch = poly::makeSchedule(f, schedule::LegalityPolicy::Unverified);
  auto r = schedule::applyScript(sch, script, "steps.py");
  if (!r) qFatal("script failed: %s", r.error().message.c_str());
  return sch.state();
}

poly::IterationSpace space(const schedule::ProgramState& s, poly::IterationSpaceRequest req,
                           const schedule::ProgramState* orderedBy = nullptr) {
  auto r = poly::iterationSpace(s, req, orderedBy);
  if (!r) qFatal("iterationSpace failed: %s: %s", r.error().code.c_str(), r.error().message.c_str());
  return *r;
}

poly::IterationSpaceRequest request(std::string block, std::string x, std::string y) {
  poly::IterationSpaceRequest req;
  req.block = std::move(block);
  req.dimX = std::move(x);
  req.dimY = std::move(y);
  return req;
}

/// (x, y) of every instance, in execution order.
Coords coords(const poly::IterationSpace& s) {
  Coords out;
  for (const auto& i : s.instances)
    out.emplace_back(i.x, i.y);
  return out;
}

/// (source x, y, sink x, y, kind) of every arrow, sorted.
Pairs arrows(const poly::IterationSpace& s) {
  Pairs out;
  for (const auto& a : s.arrows) {
    const auto& p = s.instances[a.source];
    const auto& q = s.instances[a.sink];
    out.emplace_back(p.x, p.y, q.x, q.y, a.kind);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::int64_t> field(const poly::IterationSpace& s, std::int64_t poly::SpaceInstance::*f) {
  std::vector<std::int64_t> out;
  for (const auto& i : s.instances)
    out.push_back(i.*f);
  return out;
}

template <class T> QString show(const T& v) { return QString::fromStdString(fmt::format("{}", v)); }

/// The stencil's RAW pairs (t, i) -> (t + 1, i + d), d in {-1, 0, 1}, inside t < steps, 1 <= i < n - 1.
Pairs stencilArrows(std::int64_t steps, std::int64_t n) {
  Pairs out;
  for (std::int64_t t = 0; t + 1 < steps; ++t)
    for (std::int64_t i = 1; i < n - 1; ++i)
      for (std::int64_t d = -1; d <= 1; ++d)
        if (i + d >= 1 && i + d < n - 1) out.emplace_back(t, i, t + 1, i + d, "RAW");
  std::sort(out.begin(), out.end());
  return out;
}

} // namespace

class TestIterationSpace : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void stencilSliceIsTheDomain() {
    auto f = polytest::stencil1d(3, 6);
    auto s = space(*stateOf(f), request("stencil", "t", "i"));
    const Coords expected = {{0, 1}, {0, 2}, {0, 3}, {0, 4}, {1, 1}, {1, 2},
                             {1, 3}, {1, 4}, {2, 1}, {2, 2}, {2, 3}, {2, 4}};
    QCOMPARE(show(coords(s)), show(expected));
    // The same instances as isl's enumeration of the block's domain.
    auto scop = poly::extractScop(f);
    QVERIFY(scop.has_value());
    Coords isl;
    isl_set_foreach_point(
        scop->findStatement("stencil")->domain.get(),
        [](isl_point* p, void* user) {
          auto c = poly::detail::pointCoordinates(isl::manage(p));
          static_cast<Coords*>(user)->emplace_back(c[0], c[1]);
          return isl_stat_ok;
        },
        &isl);
    std::sort(isl.begin(), isl.end());
    QCOMPARE(show(coords(s)), show(isl));
    QCOMPARE(show(s.loops), QString(R"(["t", "i"])"));
    QCOMPARE(show(s.iterators), QString(R"(["v_t", "v_i"])"));
    QCOMPARE(show(s.instances[5].loops), QString("[1, 2]"));
    QCOMPARE(show(s.instances[5].iterators), QString("[1, 2]"));
    // t-major execution order; the wavefront is t (each instance depends on the step before).
    QCOMPARE(show(field(s, &poly::SpaceInstance::order)), QString("[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]"));
    QCOMPARE(show(field(s, &poly::SpaceInstance::parallelStep)), QString("[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]"));
    QCOMPARE(show(field(s, &poly::SpaceInstance::wavefront)), QString("[0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]"));
    QCOMPARE(s.wavefronts, std::int64_t(3));
    // Arrows: exactly the distances (1, -1), (1, 0), (1, 1) inside the slice, all RAW on A.
    QCOMPARE(show(arrows(s)), show(stencilArrows(3, 6)));
    QCOMPARE(s.arrows.size(), std::size_t(20));
    for (const auto& a : s.arrows)
      QCOMPARE(a.buffer, std::string("A"));
    QVERIFY(s.tiles.empty());
    QVERIFY(!s.truncated);
    QCOMPARE(show(std::vector{s.xMin, s.xMax, s.yMin, s.yMax}), QString("[0, 2, 1, 4]"));
    // Axes by position and swapped.
    auto swapped = space(*stateOf(f), request("stencil", "1", "0"));
    QCOMPARE(swapped.xName, std::string("i"));
    QCOMPARE(swapped.instances[1].x, std::int64_t(2));
    QCOMPARE(swapped.instances[1].y, std::int64_t(0));
  }

  void symbolicSizesBound() {
    auto f = polytest::stencil1d(0, 0, /*symbolic=*/true);
    auto req = request("stencil", "t", "i");
    req.sizes = {{"T", 3}, {"N", 6}};
    auto s = space(*stateOf(f), req);
    QCOMPARE(show(coords(s)), show(coords(space(*stateOf(polytest::stencil1d(3, 6)), request("stencil", "t", "i")))));
    QCOMPARE(show(arrows(s)), show(stencilArrows(3, 6)));
  }

  void skewChangesTheOrder() {
    auto f = polytest::stencil1d(3, 6);
    // The skewed program's own loops (t, i + t): a parallelogram, still t-major.
    auto skewed = scheduled(f, "sch.poly_skew(band=\"t\", member=1, by_member=0, factor=1)\n");
    auto s = space(*skewed, request("stencil", "t", "i"));
    const Coords parallelogram = {{0, 1}, {0, 2}, {0, 3}, {0, 4}, {1, 2}, {1, 3},
                                  {1, 4}, {1, 5}, {2, 3}, {2, 4}, {2, 5}, {2, 6}};
    QCOMPARE(show(coords(s)), show(parallelogram));
    QCOMPARE(show(field(s, &poly::SpaceInstance::order)), QString("[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]"));
    // Skewed then interchanged (the wavefront schedule): in the original coordinates the
    // order is by i + t, then t; the dependences and their wavefronts are unchanged.
    auto wave = scheduled(f, "sch.poly_skew(band=\"t\", member=1, by_member=0, factor=1)\n"
                             "sch.poly_interchange(band=\"t\", permutation=[1, 0])\n");
    const Coords waveOrder = {{0, 1}, {0, 2}, {1, 1}, {0, 3}, {1, 2}, {2, 1},
                              {0, 4}, {1, 3}, {2, 2}, {1, 4}, {2, 3}, {2, 4}};
    auto w = space(*wave, request("stencil", "v_t", "v_i"));
    QCOMPARE(show(w.loops), QString(R"(["i", "t"])"));
    QCOMPARE(show(coords(w)), show(waveOrder));
    QCOMPARE(show(arrows(w)), show(stencilArrows(3, 6)));
    QCOMPARE(show(field(w, &poly::SpaceInstance::wavefront)), QString("[0, 0, 1, 0, 1, 2, 0, 1, 2, 1, 2, 2]"));
    // The preview: the original program's slice ordered by the step's result.
    auto original = stateOf(f);
    auto preview = space(*original, request("stencil", "t", "i"), wave.get());
    QCOMPARE(show(coords(preview)), show(waveOrder));
    QCOMPARE(show(preview.loops), QString(R"(["t", "i"])"));
  }

  void parallelMarksGiveSteps() {
    auto s = space(*stateOf(polytest::stencil1d(3, 6, false, 1, ir::ForKind::Parallel)), request("stencil", "t", "i"));
    QCOMPARE(show(field(s, &poly::SpaceInstance::parallelStep)), QString("[0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]"));
    QCOMPARE(s.parallelSteps, std::int64_t(3));
  }

  void matmulSlices() {
    auto state = stateOf(polytest::parseProgram(kMatmul));
    // (i, j) with k fixed at its lower bound: no dependence across (i, j).
    auto s = space(*state, request("C", "i", "j"));
    QCOMPARE(show(s.free), QString("[true, true, false]"));
    QCOMPARE(show(s.fixedValues), QString("[0, 0, 0]"));
    QCOMPARE(s.instances.size(), std::size_t(12));
    QVERIFY(s.arrows.empty());
    QCOMPARE(show(field(s, &poly::SpaceInstance::wavefront)), QString("[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]"));
    QCOMPARE(s.wavefronts, std::int64_t(1));
    auto req = request("C", "i", "j");
    req.fixed = {{"k", 1}};
    auto s1 = space(*state, req);
    QCOMPARE(show(s1.fixedValues), QString("[0, 0, 1]"));
    QCOMPARE(show(s1.instances[4].loops), QString("[1, 1, 1]"));
    // (i, k) with j fixed: the reduction's RAW, WAR and WAW along k.
    auto ik = space(*state, request("C", "i", "k"));
    Pairs expected;
    for (std::int64_t i = 0; i < 4; ++i)
      for (const char* kind : {"RAW", "WAR", "WAW"})
        expected.emplace_back(i, 0, i, 1, kind);
    QCOMPARE(show(arrows(ik)), show(expected));
    QCOMPARE(show(field(ik, &poly::SpaceInstance::wavefront)), QString("[0, 1, 0, 1, 0, 1, 0, 1]"));
    // The init statement: spatial iterators only.
    auto init = space(*state, request("C_init", "i", "j"));
    QCOMPARE(init.instances.size(), std::size_t(12));
    QCOMPARE(show(init.iterators), QString(R"(["v_i", "v_j"])"));
  }

  void blockNameAfterDecomposeReduction() {
    // decompose_reduction renames the update `C_update`: the block's name still finds it,
    // and a preview ordered by the decomposed program matches its instances.
    auto f = polytest::parseProgram(kMatmul);
    auto decomposed = scheduled(f, "b = sch.get_block(\"C\")\ni, j, k = sch.get_loops(b)\n"
                                   "sch.decompose_reduction(b, k)\n");
    auto s = space(*decomposed, request("C", "i", "k"));
    QCOMPARE(s.statement, std::string("C_update"));
    QCOMPARE(s.instances.size(), std::size_t(8));
    auto preview = space(*stateOf(f), request("C", "i", "k"), decomposed.get());
    QCOMPARE(show(field(preview, &poly::SpaceInstance::order)), QString("[0, 1, 2, 3, 4, 5, 6, 7]"));
    QCOMPARE(show(coords(preview)), show(Coords{{0, 0}, {0, 1}, {1, 0}, {1, 1}, {2, 0}, {2, 1}, {3, 0}, {3, 1}}));
  }

  void tilesOfSplitLoops() {
    auto tiled = scheduled(polytest::parseProgram(kMatmulWide), "b = sch.get_block(\"C\")\n"
                                                                "i, j, k = sch.get_loops(b)\n"
                                                                "i0, i1 = sch.split(i, factors=[2, 2])\n"
                                                                "j0, j1 = sch.split(j, factors=[2, 3])\n"
                                                                "sch.reorder(i0, j0, i1, j1)\n");
    auto s = space(*tiled, request("C", "v_i", "v_j"));
    QCOMPARE(show(s.loops), QString(R"(["i_0", "j_0", "i_1", "j_1", "k"])"));
    QCOMPARE(show(s.free), QString("[true, true, true, true, false]"));
    QCOMPARE(show(s.tileLoops), QString(R"(["i_0", "j_0"])"));
    QCOMPARE(s.instances.size(), std::size_t(24));
    std::vector<std::string> tiles;
    for (const auto& t : s.tiles)
      tiles.push_back(
          fmt::format("{}: [{}, {}] x [{}, {}] ({})", t.key, t.xMin, t.xMax, t.yMin, t.yMax, t.instances.size()));
    QCOMPARE(show(tiles), QString(R"x(["[0, 0]: [0, 1] x [0, 2] (6)", "[0, 1]: [0, 1] x [3, 5] (6)", )x"
                                  R"x("[1, 0]: [2, 3] x [0, 2] (6)", "[1, 1]: [2, 3] x [3, 5] (6)"])x"));
    // Execution order visits tile by tile: the first six instances are tile (0, 0).
    const Coords firstTile = {{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}};
    const Coords all = coords(s);
    QCOMPARE(show(Coords(all.begin(), all.begin() + 6)), show(firstTile));
    // Loop axes: no tiles.
    QVERIFY(space(*tiled, request("C", "i_1", "j_1")).tiles.empty());
  }

  void skewedTilesAndCapOverSeveralDisjuncts() {
    // Skew then tile the stencil band: the loop bounds are min/max expressions and the
    // slice has several disjuncts (isl's scan need not be lexicographic across them): the cap
    // keeps exactly the first instances in execution order. Tiles: (t_0, i_0), parallelograms.
    auto tiled = scheduled(polytest::stencil1d(5, 10), "sch.poly_skew(band=\"t\", member=1, by_member=0, factor=1)\n"
                                                       "sch.poly_tile(band=\"t\", sizes=[2, 4])\n");
    auto scop = poly::extractScop(tiled->func());
    QVERIFY(scop.has_value());
    QVERIFY(isl_set_n_basic_set(scop->findStatement("stencil")->domain.get()) > 1);
    auto all = space(*tiled, request("stencil", "v_t", "v_i"));
    QCOMPARE(show(all.loops), QString(R"(["t_0", "i_0", "t_1", "i_1"])"));
    QCOMPARE(show(all.tileLoops), QString(R"(["t_0", "i_0"])"));
    QCOMPARE(all.instances.size(), std::size_t(40));
    QCOMPARE(show(arrows(all)), show(stencilArrows(5, 10)));
    std::size_t inTiles = 0;
    for (const auto& t : all.tiles)
      inTiles += t.instances.size();
    QCOMPARE(inTiles, std::size_t(40));
    QCOMPARE(show(all.tiles.front().key), QString("[0, 0]"));
    for (std::size_t cap : {1, 7, 13, 29}) {
      auto req = request("stencil", "v_t", "v_i");
      req.maxInstances = cap;
      auto cut = space(*tiled, req);
      QVERIFY(cut.truncated);
      const Coords got = coords(cut), expected = coords(all);
      QCOMPARE(show(got), show(Coords(expected.begin(), expected.begin() + static_cast<std::ptrdiff_t>(cap))));
    }
  }

  void capTruncates() {
    auto req = request("stencil", "t", "i");
    req.maxInstances = 5;
    auto s = space(*stateOf(polytest::stencil1d(3, 6)), req);
    QVERIFY(s.truncated);
    QCOMPARE(show(coords(s)), show(Coords{{0, 1}, {0, 2}, {0, 3}, {0, 4}, {1, 1}}));
    QCOMPARE(show(arrows(s)), show(Pairs{{0, 1, 1, 1, "RAW"}, {0, 2, 1, 1, "RAW"}}));
    QCOMPARE(s.message, std::string("the slice of block 'stencil' has more than 5 instances: showing the first 5 in "
                                    "execution order (bind smaller sizes or fix more loops)"));
    // The arrows have their own cap.
    auto few = request("stencil", "t", "i");
    few.maxArrows = 5;
    auto f5 = space(*stateOf(polytest::stencil1d(3, 6)), few);
    QVERIFY(!f5.truncated);
    QVERIFY(f5.arrowsTruncated);
    QCOMPARE(f5.arrows.size(), std::size_t(5));
    QCOMPARE(f5.message, std::string("more than 5 dependences between the instances shown: showing 5"));
    QCOMPARE(f5.instances.size(), std::size_t(12));
    // A large symbolic program stays bounded by the default cap.
    auto big = request("stencil", "t", "i");
    big.sizes = {{"T", 1000}, {"N", 1000}};
    auto b = space(*stateOf(polytest::stencil1d(0, 0, true)), big);
    QVERIFY(b.truncated);
    QCOMPARE(b.instances.size(), std::size_t(4096));
    QCOMPARE(show(b.instances.back().loops), QString("[4, 104]")); // 4 rows of 998 (i = 1..998), then i = 1..104
  }

  void stopCancels() {
    auto state = stateOf(polytest::stencil1d(0, 0, true));
    auto req = request("stencil", "t", "i");
    req.sizes = {{"T", 100}, {"N", 100}};
    std::stop_source stop;
    stop.request_stop();
    auto r = poly::iterationSpace(*state, req, nullptr, stop.get_token());
    QVERIFY(!r.has_value());
    QCOMPARE(r.error().code, std::string("cancelled"));
    // The thread's isl context and the state's analysis are usable afterwards.
    auto again = poly::iterationSpace(*state, req);
    QVERIFY(again.has_value());
    QCOMPARE(again->instances.size(), std::size_t(4096));
  }

  void reorderCounterexamplePlaced() {
    auto f = polytest::stencil1d(3, 6);
    auto swapped = scheduled(f, "t, i = sch.get_loops(sch.get_block(\"stencil\"))\nsch.reorder(i, t)\n");
    auto report = poly::checkLegality(f, swapped->func());
    QVERIFY(report.has_value());
    QVERIFY(!report->legal);
    auto before = stateOf(f);
    auto s = space(*before, request("stencil", "t", "i"));
    auto placed = poly::placeCounterexample(*before, s, *report->counterexample);
    QVERIFY(placed.has_value());
    QVERIFY(placed->source.inSlice && placed->sink.inSlice);
    QCOMPARE(placed->source.index, 1); // stencil(v_t=0, v_i=2) at (0, 2)
    QCOMPARE(placed->sink.index, 4);   // stencil(v_t=1, v_i=1) at (1, 1)
    QVERIFY(placed->arrow >= 0);
    QCOMPARE(s.arrows[placed->arrow].source, 1);
    QCOMPARE(s.arrows[placed->arrow].sink, 4);
    QCOMPARE(s.arrows[placed->arrow].kind, std::string("RAW"));
    QCOMPARE(placed->message, std::string("the RAW dependence from stencil(v_t=0, v_i=2) at (0, 2) to "
                                          "stencil(v_t=1, v_i=1) at (1, 1) is violated"));
    // Cut by the cap.
    auto req = request("stencil", "t", "i");
    req.maxInstances = 3;
    auto cut = space(*before, req);
    auto p2 = poly::placeCounterexample(*before, cut, *report->counterexample);
    QVERIFY(p2.has_value());
    QVERIFY(p2->source.inSlice && !p2->sink.inSlice);
    QCOMPARE(p2->arrow, -1);
    QCOMPARE(p2->sink.hint, std::string("stencil(v_t=1, v_i=1) is cut from the slice by the instance cap"));
  }

  void counterexampleOutsideSliceSaysWhatToFix() {
    // t split into t_0 (extent 3) and t_1 (extent 1): the slice over (t_1, i) fixes t_0 at 0,
    // so it shows the source (t = 0), not the sink (t = 1).
    auto f = polytest::stencil1d(3, 6);
    auto swapped = scheduled(f, "t, i = sch.get_loops(sch.get_block(\"stencil\"))\nsch.reorder(i, t)\n");
    auto report = poly::checkLegality(f, swapped->func());
    QVERIFY(report.has_value() && report->counterexample);
    auto tiled =
        scheduled(f, "t, i = sch.get_loops(sch.get_block(\"stencil\"))\nt0, t1 = sch.split(t, factors=[3, 1])\n");
    auto s = space(*tiled, request("stencil", "t_1", "i"));
    QCOMPARE(show(s.loops), QString(R"(["t_0", "t_1", "i"])"));
    QCOMPARE(show(s.fixedValues), QString("[0, 0, 0]"));
    auto placed = poly::placeCounterexample(*tiled, s, *report->counterexample);
    QVERIFY(placed.has_value());
    QVERIFY(placed->source.inSlice);
    QVERIFY(!placed->sink.inSlice);
    QCOMPARE(show(placed->sink.loops), QString("[1, 0, 1]"));
    QCOMPARE(placed->sink.hint, std::string("fix t_0=1 to show stencil(v_t=1, v_i=1)"));
    QCOMPARE(placed->message, std::string("the RAW dependence from stencil(v_t=0, v_i=2) to stencil(v_t=1, v_i=1) is "
                                          "outside the slice: fix t_0=1 to show stencil(v_t=1, v_i=1)"));
  }

  void renderedAsText() {
    auto req = request("stencil", "t", "i");
    req.maxInstances = 7;
    auto s = space(*stateOf(polytest::stencil1d(3, 6)), req);
    QCOMPARE(QString::fromStdString(poly::renderIterationSpace(s)),
             QString("block 'stencil' (statement stencil): loops t, i; x = t, y = i; fixed: none\n"
                     "7 instances, 8 dependences, 2 wavefronts, 7 parallel steps\n"
                     "note: the slice of block 'stencil' has more than 7 instances: showing the first 7 in execution "
                     "order (bind smaller sizes or fix more loops)\n"
                     "execution order:\n"
                     "  i\\t 0 1\n"
                     "    1 0 4\n"
                     "    2 1 5\n"
                     "    3 2 6\n"
                     "    4 3 .\n"
                     "wavefront:\n"
                     "  i\\t 0 1\n"
                     "    1 0 1\n"
                     "    2 0 1\n"
                     "    3 0 1\n"
                     "    4 0 .\n"
                     "dependences:\n"
                     "  RAW A: (0, 1) -> (1, 1)\n"
                     "  RAW A: (0, 1) -> (1, 2)\n"
                     "  RAW A: (0, 2) -> (1, 1)\n"
                     "  RAW A: (0, 2) -> (1, 2)\n"
                     "  RAW A: (0, 2) -> (1, 3)\n"
                     "  RAW A: (0, 3) -> (1, 2)\n"
                     "  RAW A: (0, 3) -> (1, 3)\n"
                     "  RAW A: (0, 4) -> (1, 3)\n"));
    // Too wide for a text grid: the grids are left out, the lists stay.
    auto wide = request("stencil", "i", "t");
    wide.sizes = {{"T", 1}, {"N", 300}};
    QCOMPARE(QString::fromStdString(poly::renderIterationSpace(space(*stateOf(polytest::stencil1d(0, 0, true)), wide))),
             QString("block 'stencil' (statement stencil): loops t, i; x = i, y = t; fixed: none\n"
                     "298 instances, 0 dependences, 1 wavefronts, 298 parallel steps\n"
                     "grids omitted: 298 x 1 cells (at most 256 x 1024; fix more loops or lower the cap)\n"));
    // A parallel outer tile loop: instances of both tiles share steps; tiles outlined.
    auto tiled = scheduled(polytest::parseProgram(kMatmulWide), "b = sch.get_block(\"C\")\n"
                                                                "i, j, k = sch.get_loops(b)\n"
                                                                "i0, i1 = sch.split(i, factors=[2, 2])\n"
                                                                "sch.parallel(i0)\n");
    QCOMPARE(QString::fromStdString(poly::renderIterationSpace(space(*tiled, request("C", "v_j", "v_i")))),
             QString("block 'C' (statement C): loops i_0, i_1, j, k; x = v_j, y = v_i; fixed: k=0\n"
                     "24 instances, 0 dependences, 1 wavefronts, 12 parallel steps\n"
                     "execution order:\n"
                     "  v_i\\v_j  0  1  2  3  4  5\n"
                     "        0  0  1  2  3  4  5\n"
                     "        1  6  7  8  9 10 11\n"
                     "        2 12 13 14 15 16 17\n"
                     "        3 18 19 20 21 22 23\n"
                     "wavefront:\n"
                     "  v_i\\v_j 0 1 2 3 4 5\n"
                     "        0 0 0 0 0 0 0\n"
                     "        1 0 0 0 0 0 0\n"
                     "        2 0 0 0 0 0 0\n"
                     "        3 0 0 0 0 0 0\n"
                     "parallel step:\n"
                     "  v_i\\v_j  0  1  2  3  4  5\n"
                     "        0  0  1  2  3  4  5\n"
                     "        1  6  7  8  9 10 11\n"
                     "        2  0  1  2  3  4  5\n"
                     "        3  6  7  8  9 10 11\n"
                     "tiles (i_0):\n"
                     "  [0]: v_j 0..5, v_i 0..1 (12 instances)\n"
                     "  [1]: v_j 0..5, v_i 2..3 (12 instances)\n"));
  }

  void counterexampleSliceOrderedByTheStep() {
    // The slice that shows a refused step: the state before (t split into t_0, t_1), the
    // loops that are not axes fixed where the source runs, ordered by the refused result
    // (i-major): the sink runs before its source.
    auto f = polytest::stencil1d(3, 6);
    auto swapped = scheduled(f, "t, i = sch.get_loops(sch.get_block(\"stencil\"))\nsch.reorder(i, t)\n");
    auto report = poly::checkLegality(f, swapped->func());
    QVERIFY(report.has_value() && report->counterexample);
    auto before =
        scheduled(f, "t, i = sch.get_loops(sch.get_block(\"stencil\"))\nt0, t1 = sch.split(t, factors=[3, 1])\n");
    auto req = request("stencil", "t_0", "i");
    req.showInstance = report->counterexample->source;
    auto s = space(*before, req, swapped.get());
    auto placed = poly::placeCounterexample(*before, s, *report->counterexample);
    QVERIFY(placed.has_value());
    QVERIFY(placed->source.inSlice && placed->sink.inSlice);
    QVERIFY(s.instances[placed->sink.index].order < s.instances[placed->source.index].order);
    QCOMPARE(QString::fromStdString(poly::renderIterationSpace(s, &*placed)),
             QString("block 'stencil' (statement stencil): loops t_0, t_1, i; x = t_0, y = i; fixed: t_1=0\n"
                     "12 instances, 20 dependences, 3 wavefronts, 12 parallel steps\n"
                     "counterexample: the RAW dependence from stencil(v_t=0, v_i=2) at (0, 2) to stencil(v_t=1, "
                     "v_i=1) at (1, 1) is violated\n"
                     "execution order:\n"
                     "  i\\t_0  0  1  2\n"
                     "      1  0  1  2\n"
                     "      2  3  4  5\n"
                     "      3  6  7  8\n"
                     "      4  9 10 11\n"
                     "wavefront:\n"
                     "  i\\t_0 0 1 2\n"
                     "      1 0 1 2\n"
                     "      2 0 1 2\n"
                     "      3 0 1 2\n"
                     "      4 0 1 2\n"
                     "counterexample (S: source, T: sink):\n"
                     "  i\\t_0 0 1 2\n"
                     "      1 o T o\n"
                     "      2 S o o\n"
                     "      3 o o o\n"
                     "      4 o o o\n"
                     "dependences:\n"
                     "  RAW A: (0, 1) -> (1, 1)\n"
                     "  RAW A: (0, 1) -> (1, 2)\n"
                     "  RAW A: (1, 1) -> (2, 1)\n"
                     "  RAW A: (1, 1) -> (2, 2)\n"
                     "  RAW A: (0, 2) -> (1, 1) (violated)\n"
                     "  RAW A: (0, 2) -> (1, 2)\n"
                     "  RAW A: (0, 2) -> (1, 3)\n"
                     "  RAW A: (1, 2) -> (2, 1)\n"
                     "  RAW A: (1, 2) -> (2, 2)\n"
                     "  RAW A: (1, 2) -> (2, 3)\n"
                     "  RAW A: (0, 3) -> (1, 2)\n"
                     "  RAW A: (0, 3) -> (1, 3)\n"
                     "  RAW A: (0, 3) -> (1, 4)\n"
                     "  RAW A: (1, 3) -> (2, 2)\n"
                     "  RAW A: (1, 3) -> (2, 3)\n"
                     "  RAW A: (1, 3) -> (2, 4)\n"
                     "  RAW A: (0, 4) -> (1, 3)\n"
                     "  RAW A: (0, 4) -> (1, 4)\n"
                     "  RAW A: (1, 4) -> (2, 3)\n"
                     "  RAW A: (1, 4) -> (2, 4)\n"));
    // An instance of another statement cannot be shown.
    auto other = request("stencil", "t", "i");
    other.showInstance = StatementInstance{"C", {{"v_i", 0}}};
    auto r = poly::iterationSpace(*stateOf(f), other);
    QVERIFY(!r.has_value());
    QCOMPARE(r.error().code, std::string("space.other-statement"));
  }

  void renderedAsSvg() {
    auto count = [](const std::string& text, const std::string& what) {
      std::size_t n = 0;
      for (auto pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1))
        ++n;
      return n;
    };
    // The refused reorder's pair in the stencil: 12 dots, 20 RAW arrows, one violated, the
    // pair ringed red; dots coloured by wavefront (three colours for t = 0, 1, 2).
    auto f = polytest::stencil1d(3, 6);
    auto swapped = scheduled(f, "t, i = sch.get_loops(sch.get_block(\"stencil\"))\nsch.reorder(i, t)\n");
    auto report = poly::checkLegality(f, swapped->func());
    QVERIFY(report.has_value() && report->counterexample);
    auto before = stateOf(f);
    auto s = space(*before, request("stencil", "t", "i"), swapped.get());
    auto placed = poly::placeCounterexample(*before, s, *report->counterexample);
    QVERIFY(placed.has_value());
    const std::string svg = poly::renderIterationSpaceSvg(s, &*placed);
    QVERIFY(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"204\" height=\"240\""));
    QVERIFY(svg.ends_with("</svg>\n"));
    QCOMPARE(count(svg, "<circle"), std::size_t(12));
    QCOMPARE(count(svg, "<g class=\"RAW"), std::size_t(20));
    QCOMPARE(count(svg, "<g class=\"RAW violated\""), std::size_t(1));
    QCOMPARE(count(svg, "stroke=\"#d62728\" stroke-width=\"3\""), std::size_t(2));
    std::set<std::string> fills;
    for (auto pos = svg.find("<circle"); pos != std::string::npos; pos = svg.find("<circle", pos + 1))
      fills.insert(svg.substr(svg.find("fill=", pos), 14));
    QCOMPARE(fills.size(), std::size_t(3));
    // Tiles as dashed boxes.
    auto tiled = scheduled(polytest::parseProgram(kMatmulWide), "b = sch.get_block(\"C\")\n"
                                                                "i, j, k = sch.get_loops(b)\n"
                                                                "i0, i1 = sch.split(i, factors=[2, 2])\n"
                                                                "j0, j1 = sch.split(j, factors=[2, 3])\n"
                                                                "sch.reorder(i0, j0, i1, j1)\n");
    const std::string tiles = poly::renderIterationSpaceSvg(space(*tiled, request("C", "v_i", "v_j")));
    QCOMPARE(count(tiles, "<rect class=\"tile\""), std::size_t(4));
    QCOMPARE(count(tiles, "<circle"), std::size_t(24));
    // Too large to draw.
    auto wide = request("stencil", "i", "t");
    wide.sizes = {{"T", 1}, {"N", 300}};
    const std::string big = poly::renderIterationSpaceSvg(space(*stateOf(polytest::stencil1d(0, 0, true)), wide));
    QVERIFY(big.find("298 x 1 cells: too large to draw") != std::string::npos);
    QCOMPARE(count(big, "<circle"), std::size_t(0));
  }

  void errors_data() {
    QTest::addColumn<QString>("block");
    QTest::addColumn<QString>("x");
    QTest::addColumn<QString>("y");
    QTest::addColumn<QString>("fixed"); // "loop=value" or ""
    QTest::addColumn<bool>("symbolic");
    QTest::addColumn<QString>("code");
    QTest::addColumn<QString>("message");
    QTest::newRow("block") << "nope"
                           << "t"
                           << "i"
                           << "" << false << "space.unknown-block"
                           << "no block 'nope' in the program (statements: stencil)";
    QTest::newRow("dimension") << "stencil"
                               << "t"
                               << "z"
                               << "" << false << "space.unknown-dimension"
                               << "block 'stencil' has no loop or iterator 'z' (loops: t, i; iterators: v_t, v_i)";
    QTest::newRow("position") << "stencil"
                              << "t"
                              << "2"
                              << "" << false << "space.unknown-dimension"
                              << "block 'stencil' has no loop or iterator '2' (loops: t, i; iterators: v_t, v_i)";
    QTest::newRow("same") << "stencil"
                          << "t"
                          << "0"
                          << "" << false << "space.same-dimension"
                          << "both axes of the view of block 'stencil' are 't'";
    QTest::newRow("fixed unknown") << "stencil"
                                   << "t"
                                   << "i"
                                   << "k=1" << false << "space.unknown-loop"
                                   << "loop 'k' is not around block 'stencil' (loops: t, i)";
    QTest::newRow("fixed axis") << "stencil"
                                << "t"
                                << "i"
                                << "t=1" << false << "space.not-free"
                                << "loop 't' of block 'stencil' spans an axis of the view (t, i) and cannot be fixed";
    QTest::newRow("unbound") << "stencil"
                             << "t"
                             << "i"
                             << "" << true << "space.unbound-size"
                             << "block 'stencil' depends on the symbolic size 'T': bind it to a small value "
                                "(--shape T=8)";
  }
  void errors() {
    QFETCH(QString, block);
    QFETCH(QString, x);
    QFETCH(QString, y);
    QFETCH(QString, fixed);
    QFETCH(bool, symbolic);
    QFETCH(QString, code);
    QFETCH(QString, message);
    auto req = request(block.toStdString(), x.toStdString(), y.toStdString());
    if (!fixed.isEmpty()) req.fixed[fixed.section('=', 0, 0).toStdString()] = fixed.section('=', 1).toLongLong();
    auto r = poly::iterationSpace(*stateOf(polytest::stencil1d(3, 6, symbolic)), req);
    QVERIFY(!r.has_value());
    QCOMPARE(QString::fromStdString(r.error().code), code);
    QCOMPARE(QString::fromStdString(r.error().message), message);
    QCOMPARE(r.error().references.size(), std::size_t(1));
  }
};

QTEST_GUILESS_MAIN(TestIterationSpace)
#include "tst_iteration_space.moc"
