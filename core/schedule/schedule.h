// Schedule: owns one program state (the current PrimFunc, changed only through replace),
// the original program it started from, the random variables (block, loop and sampled
// integer handles) and the Trace of every instruction applied.
//
// Every primitive goes through `apply`, which looks the instruction kind up in the one
// registry table (instruction.h), runs it, and on success records it in the trace. A
// refused primitive returns its Diagnostic and leaves the program, the RVs and the trace
// exactly as they were.
//
// Handles stay valid across steps where TVM's do: a block RV follows its block (by name,
// unique in a function), a loop RV follows its loop (by loop variable); an RV whose block
// or loop a primitive removed (split, fuse, compute_inline ...) resolves to an error.
#pragma once

#include "core/ir/prim_func.h"
#include "core/ir/diagnostic.h"
#include "core/schedule/ir_tree.h"
#include "core/schedule/trace.h"

#include <functional>
#include <memory>
#include <random>

namespace loopscape::schedule {

struct InstructionKind;

/// The two special locations sample_compute_location can choose instead of a loop (TVM's
/// StmtSRef::RootMark / InlineMark): a loop RV may stand for one of them. Such an RV is
/// not a loop: `Schedule::loop` refuses it; compute_at-style primitives ask `loopMark`.
enum class LoopMark : std::uint8_t { None, Root, Inline };

/// Called after every successful primitive with the program before and after it; an
/// error refuses the step (the exact legality verifier of core/poly is installed here).
using StepVerifier = std::function<Expected<void>(const ir::PrimFunc& before, const ir::PrimFunc& after,
                                                  const Instruction& instruction)>;

class Schedule {
public:
  explicit Schedule(ir::PrimFunc func, std::uint64_t seed = 1);
  Schedule(const Schedule& other);
  Schedule& operator=(const Schedule& other);

  const ir::PrimFunc& func() const { return m_func; }
  const ir::PrimFunc& original() const { return m_original; }
  const Trace& trace() const { return m_trace; }
  const IrTree& tree() const { return *m_tree; }
  void setVerifier(StepVerifier verifier) { m_verifier = std::move(verifier); }

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
  struct Binding {
    RVKind kind;
    std::string blockName;
    ir::Expr loopVar;
    std::int64_t value = 0;
    LoopMark mark = LoopMark::None;
  };

  ir::PrimFunc m_original;
  ir::PrimFunc m_func;
  std::unique_ptr<IrTree> m_tree;
  Trace m_trace;
  std::vector<Binding> m_bindings;
  std::mt19937_64 m_rng;
  StepVerifier m_verifier;
  std::optional<TraceValue> m_pendingDecision;
  std::optional<TraceValue> m_madeDecision;
  const Instruction* m_current = nullptr;
};

/// Replays `trace` on a fresh schedule of `original`, reusing recorded decisions.
Expected<Schedule> replayTrace(const ir::PrimFunc& original, const Trace& trace, std::uint64_t seed = 1);

} // namespace loopscape::schedule
