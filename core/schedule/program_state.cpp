#include "core/schedule/program_state.h"

namespace loopscape::schedule {

ProgramState::ProgramState(ir::PrimFunc func) : m_func(std::move(func)), m_tree(m_func) {}

StatePtr ProgramState::make(ir::PrimFunc func) { return StatePtr(new ProgramState(std::move(func))); }

Expected<std::shared_ptr<const void>> ProgramState::slot(std::type_index key, const Compute& compute) const {
  std::shared_ptr<Slot> s;
  {
    std::lock_guard lock(m_slotsMutex);
    auto& entry = m_slots[key];
    if (!entry) entry = std::make_shared<Slot>();
    s = entry;
  }
  std::lock_guard computing(s->computing);
  if (s->done) return s->value;
  auto value = compute();
  if (!value && value.error().code == "cancelled") return value; // computed again next time
  s->value = std::move(value);
  s->done = true;
  return s->value;
}

std::shared_ptr<const void> ProgramState::cached(std::type_index key) const {
  std::shared_ptr<Slot> s;
  {
    std::lock_guard lock(m_slotsMutex);
    auto it = m_slots.find(key);
    if (it == m_slots.end()) return nullptr;
    s = it->second;
  }
  std::unique_lock computing(s->computing, std::try_to_lock);
  if (!computing.owns_lock() || !s->done || !s->value) return nullptr;
  return *s->value;
}

} // namespace loopscape::schedule
