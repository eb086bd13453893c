// ScheduleTreeView: the isl schedule tree of the shown program (ScheduleTreeModel) with
// expand/collapse, and the selected node's full isl text (domain, partial schedule,
// filter, mark) below. Band members are linked to TensorIR loops by their program-order
// ordinal: selecting a member reports the loop, and selectLoop highlights the member.
#pragma once

#include "views/schedule_tree_model.h"

#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QTreeView;

namespace loopscape::views {

class ScheduleTreeView : public QWidget {
  Q_OBJECT
public:
  explicit ScheduleTreeView(QWidget* parent = nullptr);
  ScheduleTreeModel* model() const { return m_model; }
  QTreeView* tree() const { return m_tree; }
  void setSnapshot(std::shared_ptr<const ProgramSnapshot> snapshot);
  /// Selects the member of the loop with program-order `ordinal` (clears for -1); emits nothing.
  void selectLoop(int ordinal);
  /// Ordinal of the loop whose member is selected, -1 otherwise.
  int selectedLoop() const;
  QString detailText() const;

Q_SIGNALS:
  /// The user selected the band member of loop `ordinal`.
  void loopSelected(int ordinal);

private:
  ScheduleTreeModel* m_model;
  QTreeView* m_tree;
  QLabel* m_status;
  QPlainTextEdit* m_detail;
  bool m_selecting = false;
};

} // namespace loopscape::views
