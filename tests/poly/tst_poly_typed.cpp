// The typed entry points of the poly primitives (poly_schedule.h) against applying the
// same instructions by name: the same program, the same trace (TVM Python and JSON), the
// same refusal with the state untouched.
#include "poly_test_helpers.h"

#include "core/ir/printer.h"
#include "core/poly/checked_schedule.h"
#include "core/poly/poly_schedule.h"
#include "core/schedule/schedule.h"
#include "core/schedule/trace_json.h"
#include "core/schedule/trace_python.h"
#include "core/schedule/trace_script.h"

#include <QtTest>

#include <functional>

using namespace loopscape;
using schedule::Schedule;
using schedule::TraceList;

namespace {
const char* const kMatmul = "A = placeholder((8, 5), \"float32\", name=\"A\")\n"
                            "B = placeholder((5, 6), \"float32\", name=\"B\")\n"
                            "k = reduce_axis((0, 5), name=\"k\")\n"
                            "C = compute((8, 6), lambda i, j: sum(A[i, k] * B[k, j], axis=k), name=\"C\")\n";
const char* const kBlur = "A = placeholder((10,), \"float32\", name=\"A\")\n"
                          "B = compute((9,), lambda i: A[i] + A[i + 1], name=\"B\")\n"
                          "C = compute((8,), lambda i: B[i] + B[i + 1], name=\"C\")\n";

using Steps = std::function<Expected<void>(Schedule&)>;

Expected<void> named(Schedule& sch, std::string_view kind, std::vector<schedule::TraceValue> inputs,
                     std::vector<schedule::TraceValue> attrs) {
  auto r = sch.apply(kind, std::move(inputs), std::move(attrs));
  if (!r) return Unexpected(r.error());
  return {};
}

TraceList ints(std::initializer_list<std::int64_t> v) { return TraceList(v.begin(), v.end()); }

struct Outcome {
  std::string code, program, python, json;
};

Outcome run(const char* source, const Steps& steps) {
  Schedule sch = poly::makeSchedule(polytest::parseProgram(source));
  auto r = steps(sch);
  return {r ? std::string() : r.error().code, ir::printPrimFunc(sch.func()), schedule::traceToPython(sch.trace()),
          schedule::traceToJson(sch.trace())};
}
} // namespace

Q_DECLARE_METATYPE(Steps)

class TestPolyTyped : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void typedEqualsByName_data() {
    QTest::addColumn<QString>("source");
    QTest::addColumn<Steps>("typed");
    QTest::addColumn<Steps>("byName");
    QTest::addColumn<QString>("code"); // empty: applied
    const std::int64_t z = 0, o = 1;
    QTest::newRow("auto") << kMatmul << Steps([](Schedule& s) {
      poly::PolyAutoOptions opt;
      opt.fusion = "smart";
      opt.tile = {4};
      opt.simplifyDependences = false;
      return poly::polyAuto(s, opt);
    }) << Steps([](Schedule& s) {
      return named(s, "poly_auto", {}, {"smart", false, true, "isl", ints({4}), false});
    }) << "";
    QTest::newRow("tile interchange skew mark") << kMatmul << Steps([](Schedule& s) -> Expected<void> {
      if (auto r = poly::polyTile(s, "i", {4, 2}); !r) return r;
      if (auto r = poly::polyInterchange(s, "i_0", {1, 0}); !r) return r;
      if (auto r = poly::polySkew(s, "j_0", 1, 0, 1); !r) return r;
      return poly::polyMark(s, "i_1", 0, "unroll");
    }) << Steps([=](Schedule& s) -> Expected<void> {
      if (auto r = named(s, "poly_tile", {}, {"i", ints({4, 2})}); !r) return r;
      if (auto r = named(s, "poly_interchange", {}, {"i_0", ints({1, 0})}); !r) return r;
      if (auto r = named(s, "poly_skew", {}, {"j_0", o, z, o}); !r) return r;
      return named(s, "poly_mark", {}, {"i_1", z, "unroll"});
    }) << "";
    QTest::newRow("shift fuse distribute") << kBlur << Steps([](Schedule& s) -> Expected<void> {
      if (auto r = poly::polyShift(s, "C", "i@C", 1); !r) return r;
      if (auto r = poly::polyFuse(s, {"i@B", "i@C"}); !r) return r;
      return poly::polyDistribute(s, "i");
    }) << Steps([=](Schedule& s) -> Expected<void> {
      if (auto r = named(s, "poly_shift", {}, {"C", "i@C", o}); !r) return r;
      if (auto r = named(s, "poly_fuse", {"i@B", "i@C"}, {}); !r) return r;
      return named(s, "poly_distribute", {}, {"i"});
    }) << "";
    QTest::newRow("compute_at_tile") << kBlur << Steps([](Schedule& s) -> Expected<void> {
      if (auto r = poly::polyTile(s, "i@C", {4}); !r) return r;
      return poly::polyComputeAtTile(s, "B", "i_0");
    }) << Steps([](Schedule& s) -> Expected<void> {
      if (auto r = named(s, "poly_tile", {}, {"i@C", ints({4})}); !r) return r;
      return named(s, "poly_compute_at_tile", {}, {"B", "i_0"});
    }) << "";
    QTest::newRow("refused") << kMatmul << Steps([](Schedule& s) {
      return poly::polyTile(s, "i", {0, 4});
    }) << Steps([](Schedule& s) {
      return named(s, "poly_tile", {}, {"i", ints({0, 4})});
    }) << "schedule.poly_tile.bad-size";
  }

  void typedEqualsByName() {
    QFETCH(QString, source);
    QFETCH(Steps, typed);
    QFETCH(Steps, byName);
    QFETCH(QString, code);
    const std::string text = source.toStdString();
    const Outcome a = run(text.c_str(), typed);
    const Outcome b = run(text.c_str(), byName);
    QCOMPARE(QString::fromStdString(a.code), code);
    QCOMPARE(b.code, a.code);
    QCOMPARE(a.program, b.program);
    QCOMPARE(a.python, b.python);
    QCOMPARE(a.json, b.json);
    if (code.isEmpty()) QVERIFY(a.python.find("sch.poly_") != std::string::npos);
  }

  void tvmReplayablePart() {
    // TVM replays what comes before the first poly_* step; the rest is named in a comment.
    Schedule sch = poly::makeSchedule(polytest::parseProgram(kMatmul));
    QVERIFY(schedule::applyScript(sch,
                                  "b0 = sch.get_block(\"C\")\n"
                                  "i, j, k = sch.get_loops(b0)\n"
                                  "i0, i1 = sch.split(i, factors=[None, 4])\n",
                                  "t.py"));
    QCOMPARE(schedule::firstNonTvmInstruction(sch.trace()), std::nullopt);
    QCOMPARE(schedule::tvmReplayablePython(sch.trace()), schedule::traceToPython(sch.trace()));
    const std::string tirOnly = schedule::traceToPython(sch.trace());
    QVERIFY(schedule::applyScript(sch,
                                  "sch.poly_tile(band=\"j\", sizes=[2])\n"
                                  "b1 = sch.get_block(\"C\")\n",
                                  "t.py"));
    QCOMPARE(schedule::firstNonTvmInstruction(sch.trace()), std::optional<std::size_t>(3));
    const std::string cut = schedule::tvmReplayablePython(sch.trace());
    QVERIFY2(cut.starts_with(tirOnly), cut.c_str());
    QCOMPARE(cut.substr(tirOnly.size()),
             std::string("# left out: 2 instructions from sch.poly_tile(band=\"j\", sizes=[2]) on: Loopscape's "
                         "polyhedral primitives (poly_*) are not tir.Schedule methods\n"));
  }
};

QTEST_GUILESS_MAIN(TestPolyTyped)
#include "tst_poly_typed.moc"
