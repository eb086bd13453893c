#include "views/trace_model.h"

#include "core/schedule/instruction.h"
#include "core/schedule/trace_python.h"

#include <QFont>

namespace loopscape::views {

std::vector<int> stepEnds(const schedule::Trace& trace) {
  std::vector<int> ends;
  for (std::size_t i = 0; i < trace.instructions.size(); ++i)
    if (trace.instructions[i].kind->isStep) ends.push_back(static_cast<int>(i) + 1);
  // Lookups after the last primitive form a last step of their own.
  const int size = static_cast<int>(trace.instructions.size());
  if (size > 0 && (ends.empty() || ends.back() != size)) ends.push_back(size);
  return ends;
}

std::shared_ptr<const TraceSnapshot> makeTraceSnapshot(const schedule::Trace& trace) {
  auto snap = std::make_shared<TraceSnapshot>();
  int step = 1;
  for (const schedule::Instruction& inst : trace.instructions) {
    snap->rows.push_back({step, std::string(inst.kind->name), schedule::instructionToPython(inst), inst.kind->isStep});
    if (inst.kind->isStep) ++step;
  }
  snap->stepCount = static_cast<int>(stepEnds(trace).size());
  return snap;
}

TraceModel::TraceModel(QObject* parent) : QAbstractTableModel(parent) {
  setObjectName(QStringLiteral("traceModel"));
}

void TraceModel::setSnapshot(std::shared_ptr<const TraceSnapshot> snapshot) {
  beginResetModel();
  m_snapshot = std::move(snapshot);
  m_preview = -1;
  endResetModel();
}

void TraceModel::setPreviewRow(int row) {
  if (row == m_preview) return;
  const int old = m_preview;
  m_preview = row;
  for (int r : {old, row})
    if (r >= 0 && r < rowCount()) Q_EMIT dataChanged(index(r, 0), index(r, ColumnCount - 1), {Qt::FontRole});
}

int TraceModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid() || !m_snapshot) return 0;
  return static_cast<int>(m_snapshot->rows.size());
}

int TraceModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant TraceModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || !m_snapshot || index.row() >= rowCount()) return {};
  const TraceRow& row = m_snapshot->rows[index.row()];
  const bool firstOfStep = index.row() == 0 || m_snapshot->rows[index.row() - 1].step != row.step;
  switch (role) {
  case Qt::DisplayRole:
    if (index.column() == StepColumn) return firstOfStep ? QVariant(row.step) : QVariant();
    return QString::fromStdString(row.python);
  case Qt::ToolTipRole:
    return QStringLiteral("step %1: %2").arg(row.step).arg(QString::fromStdString(row.python));
  case Qt::FontRole: {
    QFont f(QStringLiteral("DejaVu Sans Mono"));
    f.setStyleHint(QFont::Monospace);
    f.setBold(index.row() == m_preview);
    f.setItalic(!row.isStep);
    return f;
  }
  case Qt::TextAlignmentRole:
    return index.column() == StepColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
  case Qt::UserRole:
    return row.step;
  default:
    return {};
  }
}

QVariant TraceModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  return section == StepColumn ? QStringLiteral("Step") : QStringLiteral("Instruction (TVM Python)");
}

} // namespace loopscape::views
