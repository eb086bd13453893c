// TuneModel: the candidates a tuning search measured, for the Tune view's table, fastest
// first (the successful ones by time, so by GFLOP/s, then the failed ones by trial). A row is a plain
// copy of a tuning record (core/tune/records.h) with the cost model's prediction; it keeps
// the candidate's trace, which is what applying the candidate installs.
#pragma once

#include "core/schedule/trace.h"

#include <QAbstractTableModel>

#include <vector>

namespace loopscape::views {

struct TuneRow {
  int trial = 0;
  double rate = 0; ///< GFLOP/s, or GB/s for a program without floating-point work (TuneModel::rateUnit)
  double ms = 0;   ///< median time of one call; 0 for a failed candidate
  QString family; ///< "tir" or "poly"
  QString sketch; ///< "tir(C: tile write@1)", "poly(fusion=smart)"
  bool verified = false;
  QString error;              ///< "" or "<kind>: <message>"
  double predicted = 0;       ///< the cost model's score before measuring (its own scale)
  bool hasPrediction = false; ///< false for records read from a log and for those the prior ranked
  bool byPrior = false;       ///< ranked by the prior (the warm start), which has no score of the model's
  schedule::Trace trace;
  bool ok() const { return error.isEmpty() && ms > 0; }
};

class TuneModel : public QAbstractTableModel {
  Q_OBJECT
public:
  enum Column {
    TrialColumn,
    RateColumn,
    MsColumn,
    VerifiedColumn,
    FamilyColumn,
    SketchColumn,
    ErrorColumn,
    ColumnCount
  };
  explicit TuneModel(QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

  void clear();
  /// Inserts `row` at its place in the order; returns that place.
  int addRow(TuneRow row);
  const std::vector<TuneRow>& rows() const { return m_rows; }
  const TuneRow& row(int i) const { return m_rows.at(static_cast<std::size_t>(i)); }
  /// The fastest verified candidate's row, -1 when there is none.
  int bestRow() const { return m_best; }
  /// "GFLOP/s" (the default) or "GB/s": the unit of the rows' `rate`, the rate column's title.
  void setRateUnit(const QString& unit);
  QString rateUnit() const { return m_unit; }

private:
  std::vector<TuneRow> m_rows;
  QString m_unit = QStringLiteral("GFLOP/s");
  int m_best = -1;
};

/// "TIR", "poly": how the table names a family.
QString familyLabel(const QString& family);

} // namespace loopscape::views
