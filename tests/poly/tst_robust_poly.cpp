// Robustness of the polyhedral steps (issue 13): the isl AST's integer conditions become
// bools (a scan tiled then computed at a tile aborted on "Or operands have different
// types"), and integers that would wrap in the regenerated loops (tile sizes, skew
// factors, shifts, and the schedule values they produce) are refused with a message that
// names them; an accepted step computes what the original computes.
#include "poly_codegen_test_util.h"

#include "core/poly/checked_schedule.h"
#include "core/poly/poly_schedule.h"
#include "core/schedule/schedule.h"
#include "core/schedule/trace_script.h"

#include <QtTest>

using namespace loopscape;

namespace {

/// The stencil1d sample at T, N = 8, 32 (the size at which isl writes `c <= 341 || 1`).
ir::PrimFunc smallStencil() {
  return polytest::parseTe(polytest::smallSample("stencil1d.te", "T, N = 64, 1024", "T, N = 8, 32"));
}

/// Applies `script` under the exact legality check; the error message, or "" when applied.
std::string applyError(schedule::Schedule& sch, const std::string& script) {
  auto ok = schedule::applyScript(sch, script, "t.py");
  return ok ? std::string() : ok.error().message;
}

} // namespace

class TestRobustPoly : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void initTestCase() { poly::registerPolyInstructionKinds(); }

  void tileThenComputeAtTileOfAScan() {
    auto sch = poly::makeSchedule(smallStencil());
    const std::string error = applyError(sch, "sch.poly_tile(band=\"_\", sizes=[7, 3])\n"
                                              "sch.poly_compute_at_tile(block=\"heat_init\", loop=\"i\")\n");
    QVERIFY2(error.empty(), error.c_str());
    QCOMPARE(sch.trace().instructions.size(), std::size_t(2));
    QCOMPARE(polytest::compareRuns(sch.original(), sch.func()), std::string());
  }

  void skewFactorThatDoesNotFitIsRefused() {
    auto sch = poly::makeSchedule(smallStencil());
    const ir::Stmt before = sch.func().body;
    QCOMPARE(applyError(sch, "sch.poly_skew(band=\"t\", member=1, by_member=0, factor=4611686018427387904)\n"),
             std::string("poly_skew factor 4611686018427387904 does not fit int32 (the type of the program's "
                         "loops); use a value between -2147483648 and 2147483647"));
    QVERIFY(sch.func().body.sameAs(before));
    QVERIFY(sch.trace().instructions.empty());
  }

  void skewWhoseScheduleWrapsIsRefused() {
    // 2^30 fits int32, but t * 2^30 over 7 time steps does not.
    auto sch = poly::makeSchedule(smallStencil());
    auto ok =
        schedule::applyScript(sch, "sch.poly_skew(band=\"t\", member=1, by_member=0, factor=1073741824)\n", "t.py");
    QVERIFY(!ok);
    QCOMPARE(ok.error().code, std::string("schedule.poly_skew.too-large"));
    QCOMPARE(ok.error().message,
             std::string("poly_skew: the transformed loops would reach the value 7516192799, which does not fit int32 "
                         "(the type of the program's loops); use smaller skew factors, shifts or tile sizes"));
  }

  void smallSkewStillApplies() {
    auto sch = poly::makeSchedule(smallStencil());
    const std::string error = applyError(sch, "sch.poly_skew(band=\"t\", member=1, by_member=0, factor=3)\n");
    QVERIFY2(error.empty(), error.c_str());
    QCOMPARE(polytest::compareRuns(sch.original(), sch.func()), std::string());
  }

  void tileSizeThatDoesNotFitIsRefused() {
    auto sch = poly::makeSchedule(smallStencil());
    QCOMPARE(applyError(sch, "sch.poly_tile(band=\"_\", sizes=[7, 4294967296])\n"),
             std::string("poly_tile size 4294967296 does not fit int32 (the type of the program's loops); use a "
                         "value between -2147483648 and 2147483647"));
  }

  void shiftThatDoesNotFitIsRefused() {
    auto sch = poly::makeSchedule(smallStencil());
    QCOMPARE(applyError(sch, "sch.poly_shift(statement=\"heat_update\", member=\"i\", offset=1099511627776)\n"),
             std::string("poly_shift offset 1099511627776 does not fit int32 (the type of the program's loops); use "
                         "a value between -2147483648 and 2147483647"));
  }
};

QTEST_GUILESS_MAIN(TestRobustPoly)
#include "tst_robust_poly.moc"
