// Undo commands: one QUndoCommand per user step (a primitive with its lookups, a loaded
// trace). A command keeps the whole program state before and after the step (immutable,
// shared), so undo restores exactly the previous program, trace and views, instantly.
#pragma once

#include "app/gui/session.h"

#include <QUndoCommand>

namespace loopscape::gui {

class StepCommand : public QUndoCommand {
public:
  StepCommand(Session* session, StatePtr before, StatePtr after, const QString& text);
  void redo() override;
  void undo() override;
  const StatePtr& before() const { return m_before; }
  const StatePtr& after() const { return m_after; }

private:
  Session* m_session;
  StatePtr m_before, m_after;
};

/// The undo text of the step ending with `inst`: "split l1", "reorder l4, l2, l5".
QString stepText(const schedule::Instruction& inst);

} // namespace loopscape::gui
