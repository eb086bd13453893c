// TraceModel: a table model over an immutable TraceSnapshot, one row per trace
// instruction: the step it belongs to (a step is one user action: a primitive together
// with the get_block/get_loops lookups it needed), and the instruction as TVM Python
// (`l4, l5 = sch.split(loop=l1, factors=[None, 32], ...)`). The row being previewed is
// shown in bold.
#pragma once

#include <QAbstractTableModel>

#include <memory>
#include <string>
#include <vector>

namespace loopscape::schedule {
struct Trace;
}

namespace loopscape::views {

struct TraceRow {
  int step = 0; ///< 1-based step number
  std::string kind;
  std::string python;
  /// False for a lookup or a sample (InstructionKind::isStep), which joins the next step.
  bool isStep = true;
};

struct TraceSnapshot {
  std::vector<TraceRow> rows;
  int stepCount = 0;
};

/// The rows of `trace`, grouped into steps.
std::shared_ptr<const TraceSnapshot> makeTraceSnapshot(const schedule::Trace& trace);
/// Instruction counts at the end of each step of `trace` (ascending; the last one is the
/// trace length: lookups after the last primitive form a step of their own).
std::vector<int> stepEnds(const schedule::Trace& trace);

class TraceModel : public QAbstractTableModel {
  Q_OBJECT
public:
  enum Column { StepColumn, InstructionColumn, ColumnCount };
  explicit TraceModel(QObject* parent = nullptr);

  void setSnapshot(std::shared_ptr<const TraceSnapshot> snapshot);
  const std::shared_ptr<const TraceSnapshot>& snapshot() const { return m_snapshot; }
  /// Marks the row whose program is shown (-1: the current state, no row marked).
  void setPreviewRow(int row);
  int previewRow() const { return m_preview; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
  std::shared_ptr<const TraceSnapshot> m_snapshot;
  int m_preview = -1;
};

} // namespace loopscape::views
