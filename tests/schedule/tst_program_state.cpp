// ProgramState: one state per program, shared by copies of a Schedule; analyses computed
// once per state whichever thread asks (the others wait), errors kept except a
// cancellation; a refused step keeps the state it had; steps that do not change the
// program keep their state (and its analyses).
#include "schedule_test_helpers.h"

#include "core/schedule/program_state.h"
#include "core/schedule/schedule.h"

#include <QtTest>

#include <atomic>
#include <thread>

using namespace loopscape;
using namespace loopscape::schedule;
using loopscape::testing::kSmallMatmul;
using loopscape::testing::parseProgram;

namespace {
struct Count {
  int value = 0;
};
struct Other {
  int value = 0;
};
} // namespace

class TestProgramState : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void analysisComputedOncePerStateAcrossThreads() {
    StatePtr state = ProgramState::make(parseProgram(kSmallMatmul));
    std::atomic<int> computed = 0;
    auto compute = [&]() -> Expected<Count> {
      ++computed;
      std::this_thread::sleep_for(std::chrono::milliseconds(50)); // the others must wait, not compute
      return Count{42};
    };
    std::vector<std::shared_ptr<const Count>> seen(4);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&, t] { seen[t] = *state->analysis<Count>(compute); });
    for (auto& t : threads)
      t.join();
    QCOMPARE(computed.load(), 1);
    for (const auto& s : seen) {
      QCOMPARE(s.get(), seen[0].get()); // one shared result
      QCOMPARE(s->value, 42);
    }
    QCOMPARE(state->cachedAnalysis<Count>().get(), seen[0].get());
    QVERIFY(!state->cachedAnalysis<Other>()); // another type, another slot: not computed
  }

  void errorsAreKeptCancellationsAreNot() {
    StatePtr state = ProgramState::make(parseProgram(kSmallMatmul));
    int calls = 0;
    auto failing = [&]() -> Expected<Count> {
      ++calls;
      return Unexpected(Diagnostic::error("poly.isl", "failed"));
    };
    QCOMPARE(state->analysis<Count>(failing).error().code, std::string("poly.isl"));
    QCOMPARE(state->analysis<Count>(failing).error().code, std::string("poly.isl"));
    QCOMPARE(calls, 1);
    QVERIFY(!state->cachedAnalysis<Count>());

    auto cancelled = [&]() -> Expected<Other> {
      ++calls;
      return Unexpected(Diagnostic::error("cancelled", "stopped"));
    };
    QVERIFY(!state->analysis<Other>(cancelled));
    auto again = state->analysis<Other>([&]() -> Expected<Other> { return Other{7}; });
    QVERIFY(again.has_value());
    QCOMPARE((*again)->value, 7);
  }

  void schedulesShareStates() {
    Schedule sch(parseProgram(kSmallMatmul));
    QCOMPARE(sch.state().get(), sch.originalState().get());
    QVERIFY(sch.func().body.sameAs(sch.original().body));
    const StatePtr original = sch.state();
    auto b = sch.apply("get_block", {}, {"C"});
    auto loops = sch.apply("get_loops", {(*b)[0]});
    QCOMPARE(sch.state().get(), original.get()); // lookups do not change the program

    Schedule copy = sch;
    QCOMPARE(copy.state().get(), sch.state().get());
    QCOMPARE(copy.originalState().get(), sch.originalState().get());

    QVERIFY(sch.apply("split", {(*loops)[0], TraceList{nullptr, 4}}).has_value());
    QVERIFY(sch.state().get() != original.get());
    QCOMPARE(sch.originalState().get(), original.get());
    QCOMPARE(copy.state().get(), original.get()); // the copy did not move
    QCOMPARE(&sch.tree(), &sch.state()->tree());

    const StatePtr before = sch.state();
    auto refused = sch.apply("split", {(*loops)[0], TraceList{nullptr, 4}}); // loop i is gone
    QVERIFY(!refused.has_value());
    QCOMPARE(sch.state().get(), before.get()); // a refused step keeps the state
  }

  void verifierSeesOriginalAndNewStateAndMayAddANote() {
    Schedule sch(parseProgram(kSmallMatmul));
    const ProgramState* originalSeen = nullptr;
    const ProgramState* afterSeen = nullptr;
    bool refuse = false;
    sch.setVerifier(
        [&](const ProgramState& original, const ProgramState& after,
            const Instruction&) -> Expected<std::optional<Diagnostic>> {
          originalSeen = &original;
          afterSeen = &after;
          if (refuse) return Unexpected(Diagnostic::error("schedule.split.illegal", "no"));
          Diagnostic note = Diagnostic::error("legality.undecided", "not checked");
          note.severity = Severity::Note;
          return std::optional<Diagnostic>(note);
        },
        LegalityPolicy::Exact);
    QCOMPARE(sch.legalityPolicy(), LegalityPolicy::Exact);
    auto b = sch.apply("get_block", {}, {"C"});
    auto loops = sch.apply("get_loops", {(*b)[0]});
    QVERIFY(sch.apply("split", {(*loops)[0], TraceList{nullptr, 4}}).has_value());
    QCOMPARE(originalSeen, sch.originalState().get());
    QCOMPARE(afterSeen, sch.state().get());
    QCOMPARE(sch.notes().size(), std::size_t(1));
    QCOMPARE(sch.notes()[0].instruction, std::size_t(2)); // get_block, get_loops, split
    QCOMPARE(sch.notes()[0].note.code, std::string("legality.undecided"));

    refuse = true;
    const StatePtr before = sch.state();
    auto r = sch.apply("split", {(*loops)[1], TraceList{nullptr, 4}});
    QVERIFY(!r.has_value());
    QCOMPARE(r.error().code, std::string("schedule.split.illegal"));
    QCOMPARE(sch.state().get(), before.get());
    QCOMPARE(sch.notes().size(), std::size_t(1)); // no note for a refused step

    sch.setVerifier(nullptr, LegalityPolicy::Exact);
    QCOMPARE(sch.legalityPolicy(), LegalityPolicy::Unverified); // no verifier, no claim
  }
};

QTEST_GUILESS_MAIN(TestProgramState)
#include "tst_program_state.moc"
