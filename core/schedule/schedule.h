// Schedule: owns one program state (the current PrimFunc, changed only through replace),
// the original program it started from, the random variables (block, loop and sampled
// integer handles) and the Trace of every instruction applied.
//
// Every primitive goes through `apply`, which looks the instruction kind up in the one
// registry table (instruction.h), runs it, and on success records it in the trace. A
// refused primitive returns its Diagnostic and leaves the program, the RVs and the trace
// exactly as they were.
//
// The current program and the original are ProgramStates (program_state.h): copies of a
// Schedule share them, and with them every analysis computed on them.
//
// Handles stay valid across steps where TVM's do: a block RV follows its block (by name,
// unique in a function), a loop RV follows its loop (by loop variable); an RV whose block
// or loop a primitive removed (split, fuse, compute_inline ...) resolves to an error.
#pragma once

#include "core/ir/diagnostic.h"
#include "core/ir/prim_func.h"
#include "core/schedule/ir_tree.h"
#include "core/schedule/program_state.h"
#include "core/schedule/trace.h"

#include <functional>
#include <memory>
#include <random>
#include <stop_token>

namespace loopscape::schedule {

struct InstructionKind;

/// The two special locations sample_compute_location can choose instead of a loop (TVM's
/// StmtSRef::RootMark / InlineMark): a loop RV may stand for one of them. Such an RV is
/// not a loop: `Schedule::loop` refuses it; compute_at-style primitives ask `loopMark`.
enum class LoopMark : std::uint8_t { None, Root, Inline };

/// Called by `replace` with the original state and the state a primitive produced; an
/// error refuses the step. A success may carry a note (the check could not decide: the
/// step is accepted and the note kept with it). The exact legality verifier of core/poly
/// is installed here by poly::makeSchedule, the one factory every entry point uses.
using StepVerifier = std::function<Expected<std::optional<Diagnostic>>(
    const ProgramState& original, const ProgramState& after, const Instruction& instruction)>;

/// Which check a schedule's steps pass besides the primitives' own preconditions.
enum class LegalityPolicy : std::uint8_t {
  Unverified, ///< none (core/schedule alone, or the user's explicit --no-verify-legality)
  Exact,      ///< the exact dependence check against the original (core/poly)
};

/// A note the verifier attached to an accepted step (`instruction` indexes the trace).
struct StepNote {
  std::size_t instruction = 0;
  Diagnostic note;
};

class Schedule {
public:
  explicit Schedule(ir::PrimFunc func, std::uint64_t seed = 1);
  explicit Schedule(StatePtr state, std::uint64_t seed = 1);

  const ir::PrimFunc& func() const { return m_state->func(); }
  const ir::PrimFunc& original() const { return m_originalState->func(); }
  /// The current program state and the original's (shared with copies of the schedule).
  const StatePtr& state() const { return m_state; }
  const StatePtr& originalState() const { return m_originalState; }
  const Trace& trace() const { return m_trace; }
  const IrTree& tree() const { return m_state->tree(); }
  void setVerifier(StepVerifier verifier, LegalityPolicy policy) {
    m_verifier = std::move(verifier);
    m_policy = m_verifier ? policy : LegalityPolicy::Unverified;
  }
  LegalityPolicy legalityPolicy() const { return m_policy; }
  const StepVerifier& verifier() const { return m_verifier; }
  /// Notes of accepted steps (a legality check that could not decide), in trace order.
  const std::vector<StepNote>& notes() const { return m_notes; }
  /// A stop requested on `token` cancels the long computations of later steps (the isl
  /// scheduler, code regeneration) where they allow it: the step is refused with the
  /// Diagnostic "cancelled" and changes nothing.
  void setStopToken(std::stop_token token) { m_stop = std::move(token); }
  const std::stop_token& stopToken() const { return m_stop; }

  /// Applies one instruction: `inputs` and `attrs` as in the trace (RVs must be defined
  /// by this schedule). Returns the RVs it defines.
  Expected<std::vector<RV>> apply(const InstructionKind& kind, std::vector<TraceValue> inputs,
                                  std::vector<TraceValue> attrs, std::optional<TraceValue> decision = {});
  /// `apply` by the instruction's Python name ("split"); attrs missing at the end take
  /// their defaults.
  Expected<std::vector<RV>> apply(std::string_view kindName, std::vector<TraceValue> inputs,
                                  std::vector<TraceValue> attrs = {}, std::optional<TraceValue> decision = {});

  // ---- for primitive implementations (instruction.h apply functions) ----

  /// The block an RV refers to; error if the RV is not a block or the block is gone.
  Expected<const TreeNode*> block(const TraceValue& rv, std::string_view primitive) const;
  /// The loop an RV refers to; error if the RV is not a loop or the loop is gone.
  Expected<const TreeNode*> loop(const TraceValue& rv, std::string_view primitive) const;
  /// A block or a loop.
  Expected<const TreeNode*> blockOrLoop(const TraceValue& rv, std::string_view primitive) const;
  /// The value of an integer argument: a literal or a sampled ExprRV.
  Expected<std::int64_t> integer(const TraceValue& v, std::string_view primitive) const;

  /// Replaces the program (the one mutation point). Runs the verifier first; on error
  /// nothing changes.
  Expected<void> replace(ir::PrimFunc func);
  /// `replace` with a state already made of the new program (its analyses kept).
  Expected<void> replace(StatePtr state);
  /// Defines a new RV bound to a block (by name), a loop (by variable) or a value.
  RV defineBlock(std::string name);
  RV defineLoop(ir::Expr loopVar);
  RV defineExpr(std::int64_t value);
  /// Moves every block RV bound to `from` to `to`, for a primitive that renames a block it
  /// keeps (decompose_reduction: `C` -> `C_update`), as TVM's RVs follow the block. Call
  /// it only after the successful replace (a refused primitive must not rename).
  void renameBlock(const std::string& from, const std::string& to);
  /// Defines a loop RV that stands for the root or the inline mark.
  RV defineLoopMark(LoopMark mark);
  /// The mark a loop RV stands for; LoopMark::None for an ordinary loop RV or any other value.
  LoopMark loopMark(const TraceValue& rv) const;
  /// The random engine of sampling instructions (seeded at construction).
  std::mt19937_64& rng() { return m_rng; }
  /// The decision the instruction being applied carries, if any (sampling replays it).
  const std::optional<TraceValue>& pendingDecision() const { return m_pendingDecision; }
  /// Sampling instructions record their decision here.
  void setDecision(TraceValue decision) { m_madeDecision = std::move(decision); }
  /// The instruction being applied (for verifier and error messages).
  const Instruction* currentInstruction() const { return m_current; }

private:
  /// The loops (as IR nodes of the current state) that `inputs` name, lists included.
  std::vector<const ir::StmtNode*> inputLoops(const std::vector<TraceValue>& inputs) const;
  struct Binding {
    RVKind kind;
    std::string blockName;
    ir::Expr loopVar;
    std::int64_t value = 0;
    LoopMark mark = LoopMark::None;
  };

  StatePtr m_originalState;
  StatePtr m_state;
  Trace m_trace;
  std::vector<Binding> m_bindings;
  std::mt19937_64 m_rng;
  StepVerifier m_verifier;
  LegalityPolicy m_policy = LegalityPolicy::Unverified;
  std::vector<StepNote> m_notes;
  std::stop_token m_stop;
  std::optional<Diagnostic> m_pendingNote; ///< the verifier's note for the step being applied
  std::optional<TraceValue> m_pendingDecision;
  std::optional<TraceValue> m_madeDecision;
  const Instruction* m_current = nullptr;
};

/// Replays `trace` on a fresh schedule of `original`, reusing recorded decisions. The
/// schedule has no verifier: entry points replay through poly::replayTrace, which
/// installs the legality policy.
Expected<Schedule> replayTrace(const ir::PrimFunc& original, const Trace& trace, std::uint64_t seed = 1);
/// Replays `trace` on `fresh` (a schedule with no steps yet, with its verifier).
Expected<Schedule> replayTrace(Schedule fresh, const Trace& trace);

} // namespace loopscape::schedule
