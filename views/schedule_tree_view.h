// ScheduleTreeView: the isl schedule tree of the shown program in two tabs, as a tree
// (ScheduleTreeModel) with expand/collapse and as a picture laid out by Graphviz
// (TreePicture), with the selected node's full isl text (domain, partial schedule,
// filter, mark) below. The tree's current row is the one selection: a click in the
// picture makes the clicked node or band member current, and the picture outlines the
// current row. Band members are linked to TensorIR loops by their program-order ordinal:
// selecting a member reports the loop, and selectLoop highlights the member.
#pragma once

#include "views/schedule_tree_model.h"

#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QTabWidget;
class QTreeView;

namespace loopscape::views {

class TreePicture;

class ScheduleTreeView : public QWidget {
  Q_OBJECT
public:
  explicit ScheduleTreeView(QWidget* parent = nullptr);
  ScheduleTreeModel* model() const { return m_model; }
  QTreeView* tree() const { return m_tree; }
  TreePicture* picture() const { return m_picture; }
  QTabWidget* tabs() const { return m_tabs; }
  enum Tab { TreeTab, PictureTab };
  void showTab(Tab tab);
  void setSnapshot(std::shared_ptr<const ProgramSnapshot> snapshot);
  /// Selects the member of the loop with program-order `ordinal` (clears for -1); emits nothing.
  void selectLoop(int ordinal);
  /// Ordinal of the loop whose member is selected, -1 otherwise.
  int selectedLoop() const;
  QString detailText() const;
  /// The row of the node or band member with this stable id (invalid if none).
  QModelIndex indexForId(const QString& id) const;

Q_SIGNALS:
  /// The user selected the band member of loop `ordinal`.
  void loopSelected(int ordinal);

private:
  void syncPicture();
  ScheduleTreeModel* m_model;
  QTreeView* m_tree;
  TreePicture* m_picture;
  QTabWidget* m_tabs;
  QLabel* m_status;
  QPlainTextEdit* m_detail;
  bool m_selecting = false;
};

} // namespace loopscape::views
