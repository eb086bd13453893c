// DiagnosticsModel: the diagnostics of the session (parse errors, refused primitives,
// trace steps that no longer apply), adapted from an immutable list of DiagnosticItems.
// Each item keeps its location (for jumping to the editor) and the full rendered report
// (renderDiagnostic / renderScheduleError text) shown in the detail pane. Earlier
// diagnostics stay below the current ones, greyed, until the history is cleared.
#pragma once

#include <QAbstractTableModel>

#include <string>
#include <vector>

namespace loopscape::views {

struct DiagnosticItem {
  enum class Origin { Source, Schedule, Trace };
  Origin origin = Origin::Source;
  bool isError = true;
  std::string code;
  std::string message;
  std::string file;
  int line = 0, column = 0, length = 1; ///< in the source when origin == Source
  std::string detail;                   ///< rendered report (monospace)
  /// Where in the program, when there is no source location: the blocks and loops the
  /// diagnostic names ("block heat_update, loop i").
  std::string place;
  /// Set by the view: a diagnostic of an earlier action, kept as history below the
  /// current ones.
  bool earlier = false;
};

class DiagnosticsModel : public QAbstractTableModel {
  Q_OBJECT
public:
  enum Column { CodeColumn, LocationColumn, MessageColumn, ColumnCount };
  explicit DiagnosticsModel(QObject* parent = nullptr);

  void setItems(std::vector<DiagnosticItem> items);
  const std::vector<DiagnosticItem>& items() const { return m_items; }
  const DiagnosticItem* item(int row) const;
  /// Rows that are current (the earlier ones follow them).
  int currentCount() const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
  std::vector<DiagnosticItem> m_items;
};

} // namespace loopscape::views
