#include "app/gui/undo_commands.h"

#include "core/schedule/instruction.h"
#include "core/schedule/trace_python.h"

namespace loopscape::gui {

StepCommand::StepCommand(Session* session, StatePtr before, StatePtr after, const QString& text)
    : m_session(session), m_before(std::move(before)), m_after(std::move(after)) {
  setText(text);
}

void StepCommand::redo() { m_session->install(m_after, /*afterStep=*/true); }
void StepCommand::undo() { m_session->install(m_before); }

QString stepText(const schedule::Instruction& inst) {
  QStringList args;
  for (const schedule::TraceValue& v : inst.inputs) {
    if (v.get<schedule::RV>() == nullptr) continue;
    args << QString::fromStdString(schedule::pythonValue(v));
  }
  QString text = QString::fromUtf8(inst.kind->name.data(), static_cast<qsizetype>(inst.kind->name.size()));
  if (!args.isEmpty()) text += u' ' + args.join(QStringLiteral(", "));
  return text;
}

} // namespace loopscape::gui
