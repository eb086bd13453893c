#include "views/schedule_tree_model.h"

#include "core/poly/tree_description.h"
#include "views/qt_text.h"

#include <functional>

namespace loopscape::views {

namespace {

QString oneLine(const std::string& text) {
  QString s = qs(text).simplified();
  return s.size() > 120 ? s.left(117) + QStringLiteral("...") : s;
}

} // namespace

ScheduleTreeModel::ScheduleTreeModel(QObject* parent) : QAbstractItemModel(parent), m_root(std::make_unique<Item>()) {
  setObjectName(QStringLiteral("scheduleTreeModel"));
}

ScheduleTreeModel::~ScheduleTreeModel() = default;

void ScheduleTreeModel::setSnapshot(std::shared_ptr<const ProgramSnapshot> snapshot) {
  beginResetModel();
  m_snapshot = std::move(snapshot);
  m_root = std::make_unique<Item>();
  auto add = [](Item* parent, std::unique_ptr<Item> item) {
    item->parent = parent;
    item->row = static_cast<int>(parent->children.size());
    Item* raw = item.get();
    parent->children.push_back(std::move(item));
    return raw;
  };
  std::function<void(Item*, const poly::TreeNodeView&)> build = [&](Item* parent, const poly::TreeNodeView& n) {
    auto item = std::make_unique<Item>();
    item->id = qs(n.id);
    item->label = QString::fromLatin1(poly::treeNodeKindName(n.kind));
    if (n.kind == poly::TreeNodeKind::Band) {
      QStringList names;
      for (const auto& m : n.members) names << qs(m.name);
      item->label += QStringLiteral(" [%1]").arg(names.join(QStringLiteral(", ")));
      if (n.permutable) item->label += QStringLiteral(" permutable");
    }
    if (n.kind == poly::TreeNodeKind::Mark) item->label += QStringLiteral(" \"%1\"").arg(qs(n.mark));
    item->detail = oneLine(n.text);
    item->full = qs(n.text);
    Item* raw = add(parent, std::move(item));
    for (std::size_t i = 0; i < n.members.size(); ++i) {
      const poly::BandMemberView& m = n.members[i];
      auto member = std::make_unique<Item>();
      member->id = raw->id + QStringLiteral("/m%1").arg(i);
      member->label = QStringLiteral("member %1").arg(qs(m.name));
      QStringList flags;
      if (m.coincident) flags << QStringLiteral("coincident");
      if (m_snapshot->tree->dependencesKnown)
        flags << (m.parallel ? QStringLiteral("parallel") : QStringLiteral("carries dependences"));
      if (!flags.isEmpty()) member->label += QStringLiteral(" (%1)").arg(flags.join(QStringLiteral(", ")));
      member->detail = oneLine(m.schedule);
      member->full = qs(m.schedule);
      member->loopOrdinal = m.loopIndex;
      add(raw, std::move(member));
    }
    for (const poly::TreeNodeView& c : n.children) build(raw, c);
  };
  if (m_snapshot && m_snapshot->tree) build(m_root.get(), m_snapshot->tree->root);
  endResetModel();
}

ScheduleTreeModel::Item* ScheduleTreeModel::itemFor(const QModelIndex& index) const {
  return index.isValid() ? static_cast<Item*>(index.internalPointer()) : m_root.get();
}

QModelIndex ScheduleTreeModel::index(int row, int column, const QModelIndex& parent) const {
  if (column < 0 || column >= ColumnCount || (parent.isValid() && parent.column() != 0)) return {};
  Item* p = itemFor(parent);
  if (row < 0 || row >= static_cast<int>(p->children.size())) return {};
  return createIndex(row, column, p->children[row].get());
}

QModelIndex ScheduleTreeModel::parent(const QModelIndex& child) const {
  if (!child.isValid()) return {};
  Item* p = itemFor(child)->parent;
  if (p == nullptr || p == m_root.get()) return {};
  return createIndex(p->row, 0, p);
}

int ScheduleTreeModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid() && parent.column() != 0) return 0;
  return static_cast<int>(itemFor(parent)->children.size());
}

int ScheduleTreeModel::columnCount(const QModelIndex&) const { return ColumnCount; }

QVariant ScheduleTreeModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid()) return {};
  const Item* item = itemFor(index);
  switch (role) {
  case Qt::DisplayRole:
    return index.column() == NodeColumn ? item->label : item->detail;
  case Qt::ToolTipRole:
  case FullTextRole:
    return item->full;
  case LoopOrdinalRole:
    return item->loopOrdinal;
  case NodeIdRole:
    return item->id;
  default:
    return {};
  }
}

QVariant ScheduleTreeModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  return section == NodeColumn ? QStringLiteral("Node") : QStringLiteral("isl");
}

QModelIndex ScheduleTreeModel::indexForLoop(int ordinal) const {
  if (ordinal < 0) return {};
  std::function<QModelIndex(const QModelIndex&)> search = [&](const QModelIndex& parent) -> QModelIndex {
    for (int r = 0; r < rowCount(parent); ++r) {
      const QModelIndex i = index(r, 0, parent);
      if (itemFor(i)->loopOrdinal == ordinal) return i;
      if (QModelIndex found = search(i); found.isValid()) return found;
    }
    return {};
  };
  return search({});
}

} // namespace loopscape::views
