#include "views/tune_model.h"

#include <QFont>

#include <algorithm>

namespace loopscape::views {

namespace {

/// Whether `a` goes above `b`: successful candidates fastest first (by time, as the search
/// compares them: the same order as by rate, also for a program without floating-point
/// work), ties by trial, then the failed ones by trial.
bool before(const TuneRow& a, const TuneRow& b) {
  if (a.ok() != b.ok()) return a.ok();
  if (a.ok() && a.ms != b.ms) return a.ms < b.ms;
  return a.trial < b.trial;
}

} // namespace

QString familyLabel(const QString& family) {
  if (family == QStringLiteral("tir")) return QStringLiteral("TIR");
  if (family.isEmpty()) return QStringLiteral("?");
  return family;
}

TuneModel::TuneModel(QObject* parent) : QAbstractTableModel(parent) { setObjectName(QStringLiteral("tuneModel")); }

int TuneModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int TuneModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant TuneModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
  const TuneRow& r = m_rows[static_cast<std::size_t>(index.row())];
  switch (role) {
  case Qt::DisplayRole:
    switch (static_cast<Column>(index.column())) {
    case TrialColumn: return r.trial;
    case RateColumn: return r.ok() ? QString::number(r.rate, 'f', r.rate >= 100 ? 1 : 2) : QString();
    case MsColumn: return r.ok() ? QString::number(r.ms, 'g', 4) : QString();
    case FamilyColumn: return familyLabel(r.family);
    case SketchColumn: return r.sketch;
    case VerifiedColumn: return r.ok() && r.verified ? QStringLiteral("verified") : QString();
    case ErrorColumn: return r.error.section(u'\n', 0, 0);
    case ColumnCount: break;
    }
    return {};
  case Qt::ToolTipRole: {
    QString tip =
        QStringLiteral("Trial %1 · %2 · %3 instruction(s)").arg(r.trial).arg(r.sketch).arg(r.trace.instructions.size());
    if (r.ok())
      tip += QStringLiteral("\n%1 %2, %3 ms per call").arg(r.rate, 0, 'f', 2).arg(m_unit).arg(r.ms, 0, 'g', 4);
    if (r.hasPrediction) tip += QStringLiteral("\ncost model's score before measuring: %1").arg(r.predicted, 0, 'g', 4);
    if (r.byPrior) tip += QStringLiteral("\nranked by the prior (the cost model had not learnt yet)");
    if (r.ok())
      tip += r.verified ? QStringLiteral("\noutputs verified against the reference")
                        : QStringLiteral("\nnot verified (the search verifies each new best)");
    if (!r.error.isEmpty()) tip += QStringLiteral("\n") + r.error;
    return tip + QStringLiteral("\nDouble-click to make its trace the workbench trace.");
  }
  case Qt::TextAlignmentRole:
    if (index.column() == TrialColumn || index.column() == RateColumn || index.column() == MsColumn)
      return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    return QVariant(Qt::AlignLeft | Qt::AlignVCenter);
  case Qt::FontRole:
    if (index.row() == m_best) {
      QFont bold;
      bold.setBold(true);
      return bold;
    }
    return {};
  case Qt::UserRole: return r.rate;
  default: return {};
  }
}

QVariant TuneModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (role == Qt::DisplayRole) {
    switch (static_cast<Column>(section)) {
    case TrialColumn: return QStringLiteral("Trial");
    case RateColumn: return m_unit;
    case MsColumn: return QStringLiteral("ms");
    case FamilyColumn: return QStringLiteral("Family");
    case SketchColumn: return QStringLiteral("Sketch");
    case VerifiedColumn: return QStringLiteral("Verified");
    case ErrorColumn: return QStringLiteral("Error");
    case ColumnCount: break;
    }
    return {};
  }
  if (role == Qt::ToolTipRole && section == RateColumn && m_unit == QStringLiteral("GB/s"))
    return QStringLiteral("The program does no floating-point work: its compulsory bytes (every parameter read or "
                          "written once) per second");
  if (role == Qt::ToolTipRole && section == VerifiedColumn)
    return QStringLiteral(
        "Outputs compared with the reference: the search verifies every candidate that beats the best");
  if (role == Qt::ToolTipRole && section == FamilyColumn)
    return QStringLiteral("TIR: MetaSchedule-style sketch rules; poly: the polyhedral scheduler (poly_optimize)");
  return {};
}

void TuneModel::clear() {
  if (m_rows.empty()) return;
  beginResetModel();
  m_rows.clear();
  m_best = -1;
  endResetModel();
}

void TuneModel::setRateUnit(const QString& unit) {
  if (unit == m_unit) return;
  m_unit = unit;
  Q_EMIT headerDataChanged(Qt::Horizontal, RateColumn, RateColumn);
}

int TuneModel::addRow(TuneRow row) {
  const int oldBest = m_best;
  const auto at = std::upper_bound(m_rows.begin(), m_rows.end(), row, before);
  const int i = static_cast<int>(at - m_rows.begin());
  beginInsertRows({}, i, i);
  m_rows.insert(at, std::move(row));
  endInsertRows();
  // The bold row moves when the new row is the best.
  m_best = -1;
  for (std::size_t k = 0; k < m_rows.size() && m_best < 0; ++k)
    if (m_rows[k].ok() && m_rows[k].verified) m_best = static_cast<int>(k);
  const int shifted = oldBest >= i ? oldBest + 1 : oldBest;
  if (oldBest >= 0 && m_best != shifted)
    Q_EMIT dataChanged(index(shifted, 0), index(shifted, ColumnCount - 1), {Qt::FontRole});
  return i;
}

} // namespace loopscape::views
