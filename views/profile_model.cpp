#include "views/profile_model.h"

#include <QBrush>
#include <QColor>

namespace loopscape::views {

std::string ProfileRow::label() const { return stepLabel + " / " + target; }

const char* statusName(ProfileRow::Status status) {
  switch (status) {
  case ProfileRow::Status::Verified: return "verified";
  case ProfileRow::Status::NotVerified: return "not verified";
  case ProfileRow::Status::Mismatch: return "mismatch";
  case ProfileRow::Status::Error: return "error";
  case ProfileRow::Status::Cancelled: return "cancelled";
  }
  return "?";
}

ProfileModel::ProfileModel(QObject* parent) : QAbstractTableModel(parent) {
  setObjectName(QStringLiteral("profileModel"));
}

void ProfileModel::addRow(ProfileRow row) {
  const int at = rowCount();
  beginInsertRows({}, at, at);
  m_rows.push_back(std::move(row));
  endInsertRows();
}

void ProfileModel::clear() {
  if (m_rows.empty()) return;
  beginResetModel();
  m_rows.clear();
  endResetModel();
}

int ProfileModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ProfileModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

namespace {

QString numberText(double value, int decimals) { return QString::number(value, 'f', decimals); }

QVariant display(const ProfileRow& row, int column) {
  switch (column) {
  case ProfileModel::StepColumn: return QString::fromStdString(row.stepLabel);
  case ProfileModel::TargetColumn: return QString::fromStdString(row.target);
  case ProfileModel::MedianColumn: return row.timed() ? numberText(row.medianMs, row.medianMs < 1 ? 4 : 3) : QString();
  case ProfileModel::GflopsColumn: return row.timed() ? numberText(row.gflops, 2) : QString();
  case ProfileModel::PeakColumn:
    return row.timed() && row.percentOfPeak ? numberText(*row.percentOfPeak, 1) : QString();
  case ProfileModel::ResultColumn: return QString::fromStdString(row.message);
  }
  return {};
}

} // namespace

QVariant ProfileModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
  const ProfileRow& row = m_rows[index.row()];
  switch (role) {
  case Qt::DisplayRole: return display(row, index.column());
  case Qt::ToolTipRole: {
    if (index.column() == MedianColumn && row.timed()) {
      QStringList repeats;
      for (double ms : row.perRepeatMs)
        repeats << numberText(ms, 4);
      return QStringLiteral("%1 repeat(s) of %2 call(s); ms per call: %3")
          .arg(row.perRepeatMs.size())
          .arg(row.number)
          .arg(repeats.join(QStringLiteral(", ")));
    }
    const std::string& text = row.details.empty() ? row.message : row.details;
    return QString::fromStdString(text);
  }
  case Qt::TextAlignmentRole:
    if (index.column() == MedianColumn || index.column() == GflopsColumn || index.column() == PeakColumn)
      return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    return {};
  case Qt::ForegroundRole:
    if (index.column() != ResultColumn) return {};
    switch (row.status) {
    case ProfileRow::Status::Verified: return QBrush(QColor(46, 160, 67));
    case ProfileRow::Status::Mismatch:
    case ProfileRow::Status::Error: return QBrush(QColor(215, 58, 73));
    case ProfileRow::Status::Cancelled: return QBrush(QColor(150, 150, 150));
    case ProfileRow::Status::NotVerified: return {};
    }
    return {};
  case StatusRole: return static_cast<int>(row.status);
  default: return {};
  }
}

QVariant ProfileModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
  case StepColumn: return QStringLiteral("Step");
  case TargetColumn: return QStringLiteral("Target");
  case MedianColumn: return QStringLiteral("Median ms");
  case GflopsColumn: return QStringLiteral("GFLOP/s");
  case PeakColumn: return QStringLiteral("% of peak");
  case ResultColumn: return QStringLiteral("Result");
  }
  return {};
}

} // namespace loopscape::views
