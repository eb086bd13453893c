// ScheduleTreeModel: the isl schedule tree of a program state (core/poly's
// TreeDescription) as a tree model. Each schedule-tree node is a row (domain, band,
// sequence, filter, mark, ...) with its payload as isl text; a band's members are rows
// under the band, before its child node, so that a member can be selected and linked to
// the TensorIR loop of the same name (BandMemberView::loopIndex = the loop's ordinal in
// program order). Built once from an immutable snapshot.
#pragma once

#include "views/program_snapshot.h"

#include <QAbstractItemModel>

#include <memory>

namespace loopscape::views {

class ScheduleTreeModel : public QAbstractItemModel {
  Q_OBJECT
public:
  enum Column { NodeColumn, DetailColumn, ColumnCount };
  enum Role { LoopOrdinalRole = Qt::UserRole + 1, NodeIdRole, FullTextRole };
  explicit ScheduleTreeModel(QObject* parent = nullptr);
  ~ScheduleTreeModel() override;

  void setSnapshot(std::shared_ptr<const ProgramSnapshot> snapshot);
  const std::shared_ptr<const ProgramSnapshot>& snapshot() const { return m_snapshot; }
  /// The row of the band member for the loop with program-order `ordinal` (invalid if none).
  QModelIndex indexForLoop(int ordinal) const;

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
  struct Item {
    QString label, detail, full, id;
    int loopOrdinal = -1;
    Item* parent = nullptr;
    int row = 0;
    std::vector<std::unique_ptr<Item>> children;
  };
  Item* itemFor(const QModelIndex& index) const;
  std::shared_ptr<const ProgramSnapshot> m_snapshot;
  std::unique_ptr<Item> m_root; ///< invisible root
};

} // namespace loopscape::views
