#include "views/diagnostics_model.h"

#include <QApplication>
#include <QColor>
#include <QPalette>
#include <QStyle>

#include <algorithm>

namespace loopscape::views {

DiagnosticsModel::DiagnosticsModel(QObject* parent) : QAbstractTableModel(parent) {
  setObjectName(QStringLiteral("diagnosticsModel"));
}

void DiagnosticsModel::setItems(std::vector<DiagnosticItem> items) {
  beginResetModel();
  m_items = std::move(items);
  endResetModel();
}

const DiagnosticItem* DiagnosticsModel::item(int row) const {
  return row >= 0 && row < static_cast<int>(m_items.size()) ? &m_items[row] : nullptr;
}

int DiagnosticsModel::currentCount() const {
  return static_cast<int>(
      std::count_if(m_items.begin(), m_items.end(), [](const DiagnosticItem& d) { return !d.earlier; }));
}

int DiagnosticsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_items.size());
}

int DiagnosticsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant DiagnosticsModel::data(const QModelIndex& index, int role) const {
  const DiagnosticItem* d = index.isValid() ? item(index.row()) : nullptr;
  if (d == nullptr) return {};
  switch (role) {
  case Qt::DisplayRole:
    switch (index.column()) {
    case CodeColumn:
      return QString::fromStdString(d->code);
    case LocationColumn:
      if (d->line <= 0) return QString::fromStdString(d->place);
      return QStringLiteral("%1:%2:%3").arg(QString::fromStdString(d->file)).arg(d->line).arg(d->column);
    case MessageColumn:
      return QString::fromStdString(d->message);
    default:
      return {};
    }
  case Qt::ToolTipRole:
    return (d->earlier ? QStringLiteral("Earlier (no longer current):\n") : QString()) +
           QString::fromStdString(d->detail.empty() ? d->message : d->detail);
  case Qt::ForegroundRole:
    if (!d->earlier) return {};
    return QApplication::palette().color(QPalette::Disabled, QPalette::Text);
  case Qt::DecorationRole:
    if (index.column() != CodeColumn) return {};
    return QApplication::style()->standardIcon(d->isError ? QStyle::SP_MessageBoxCritical
                                                          : QStyle::SP_MessageBoxWarning);
  default:
    return {};
  }
}

QVariant DiagnosticsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
  case CodeColumn:
    return QStringLiteral("Code");
  case LocationColumn:
    return QStringLiteral("Location");
  case MessageColumn:
    return QStringLiteral("Message");
  default:
    return {};
  }
}

} // namespace loopscape::views
