#include "views/model_groups_model.h"

#include <QColor>

#include <QBrush>
#include <QFont>

namespace loopscape::views {

ModelGroupsModel::ModelGroupsModel(QObject* parent) : QAbstractTableModel(parent) {
  setObjectName(QStringLiteral("modelGroupsModel"));
}

void ModelGroupsModel::setRows(std::vector<ModelGroupRow> rows) {
  if (rows.size() == m_rows.size() && !rows.empty()) {
    m_rows = std::move(rows);
    Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
    return;
  }
  beginResetModel();
  m_rows = std::move(rows);
  endResetModel();
}

int ModelGroupsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ModelGroupsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant ModelGroupsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
  const ModelGroupRow& r = m_rows[std::size_t(index.row())];
  const auto s = [](const std::string& t) { return QString::fromStdString(t); };
  if (role == Qt::DisplayRole) {
    switch (Column(index.column())) {
    case NameColumn: {
      // TVM's common prefix says nothing; the tooltip has the whole name.
      QString name = s(r.name);
      if (name.startsWith(QStringLiteral("tvmgen_default_"))) name = name.mid(15);
      return QStringLiteral("%1  %2").arg(index.row()).arg(name);
    }
    case PatternColumn: return s(r.pattern);
    case SourceColumn: return s(r.source);
    // Three decimals, or two significant digits for the microsecond groups.
    case MsColumn: return r.ms ? QString::number(*r.ms, *r.ms >= 0.1 ? 'f' : 'g', *r.ms >= 0.1 ? 3 : 2) : QString();
    case ShareColumn: return r.ms ? QString::number(r.share * 100, 'f', 1) : QString();
    case GflopsColumn: return r.ms && *r.ms > 0 ? QString::number(double(r.flops) / (*r.ms * 1e6), 'f', 2) : QString();
    case VerifiedColumn: return s(r.verified);
    case ColumnCount: break;
    }
    return {};
  }
  if (role == Qt::ToolTipRole)
    return QStringLiteral("%1\nops: %2\npattern: %3\nschedule: %4%5")
        .arg(s(r.name), s(r.ops), s(r.pattern), s(r.source),
             r.edited ? QStringLiteral("\nedited in the workbench") : QString());
  if (role == Qt::TextAlignmentRole && index.column() >= MsColumn && index.column() <= GflopsColumn)
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::ForegroundRole && index.column() == VerifiedColumn && r.verified.starts_with("MISMATCH"))
    return QColor(QStringLiteral("#d03030"));
  if (role == Qt::FontRole && index.column() == SourceColumn && r.edited) {
    QFont f;
    f.setBold(true);
    return f;
  }
  return {};
}

QVariant ModelGroupsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (Column(section)) {
  case NameColumn: return QStringLiteral("Group");
  case PatternColumn: return QStringLiteral("Pattern");
  case SourceColumn: return QStringLiteral("Schedule");
  case MsColumn: return QStringLiteral("ms");
  case ShareColumn: return QStringLiteral("Share %");
  case GflopsColumn: return QStringLiteral("GFLOP/s");
  case VerifiedColumn: return QStringLiteral("Verified");
  case ColumnCount: break;
  }
  return {};
}

} // namespace loopscape::views
