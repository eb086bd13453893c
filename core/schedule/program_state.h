// ProgramState: one program state as a value — the PrimFunc, its IrTree, and the analyses
// computed on it. A state never changes: a primitive makes a new one. Copies of a Schedule,
// the workbench's snapshots, the CLI, the verifier and the tuner hold states through
// `StatePtr` and share what was computed on them.
//
// Analyses are computed lazily, at most once per state, by whoever asks first (the others
// wait for it), and shared afterwards by every thread: `analysis<A>(compute)`. The slot is
// keyed by the analysis type, so each module defines its own types (core/poly its
// dependence analysis, the views their snapshots) and core/schedule names none of them.
// An analysis type must be safe to read from any thread: isl-free, or isl's objects in a
// serialised form that each thread re-reads into its own isl_ctx (core/poly does so).
// A failed computation is kept like a result (the same program fails the same way) unless
// it was cancelled (code "cancelled"): the next request computes again.
#pragma once

#include "core/ir/diagnostic.h"
#include "core/ir/prim_func.h"
#include "core/schedule/ir_tree.h"

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <typeindex>

namespace loopscape::schedule {

class ProgramState;
using StatePtr = std::shared_ptr<const ProgramState>;

class ProgramState : public std::enable_shared_from_this<ProgramState> {
public:
  /// The state of `func` (its IrTree is built here).
  static StatePtr make(ir::PrimFunc func);

  ProgramState(const ProgramState&) = delete;
  ProgramState& operator=(const ProgramState&) = delete;

  const ir::PrimFunc& func() const { return m_func; }
  const IrTree& tree() const { return m_tree; }

  /// The analysis of type A of this state: computed by `compute` on the first request,
  /// the same shared result (or error) afterwards.
  template <class A> Expected<std::shared_ptr<const A>> analysis(const std::function<Expected<A>()>& compute) const {
    auto r = slot(typeid(A), [&]() -> Expected<std::shared_ptr<const void>> {
      auto value = compute();
      if (!value) return std::unexpected(value.error());
      return std::shared_ptr<const void>(std::make_shared<const A>(std::move(*value)));
    });
    if (!r) return std::unexpected(r.error());
    return std::static_pointer_cast<const A>(*r);
  }

  /// The analysis of type A if it was computed already (null otherwise or on error).
  template <class A> std::shared_ptr<const A> cachedAnalysis() const {
    return std::static_pointer_cast<const A>(cached(typeid(A)));
  }

private:
  explicit ProgramState(ir::PrimFunc func);
  using Compute = std::function<Expected<std::shared_ptr<const void>>()>;
  Expected<std::shared_ptr<const void>> slot(std::type_index key, const Compute& compute) const;
  std::shared_ptr<const void> cached(std::type_index key) const;

  struct Slot {
    std::mutex computing; ///< held while the analysis is computed (the others wait)
    bool done = false;
    Expected<std::shared_ptr<const void>> value = std::shared_ptr<const void>();
  };

  ir::PrimFunc m_func;
  IrTree m_tree;
  mutable std::mutex m_slotsMutex; ///< guards the map (not the slots' values)
  mutable std::map<std::type_index, std::shared_ptr<Slot>> m_slots;
};

} // namespace loopscape::schedule
