// DiagnosticsView: the diagnostics table and, beside it, the full report of the selected
// diagnostic (the program with the offending loop/block underlined, or the source line
// with a caret). Clicking a diagnostic with a source location asks to jump there.
#pragma once

#include "views/diagnostics_model.h"

#include <QWidget>

class QTableView;
class QPlainTextEdit;

namespace loopscape::views {

class DiagnosticsView : public QWidget {
  Q_OBJECT
public:
  explicit DiagnosticsView(QWidget* parent = nullptr);
  DiagnosticsModel* model() const { return m_model; }
  QTableView* table() const { return m_table; }
  /// Replaces the list and shows the report of the first error.
  void setItems(std::vector<DiagnosticItem> items);
  QString detailText() const;

Q_SIGNALS:
  void jumpToSource(int line, int column);

private:
  void showDetail(int row);
  DiagnosticsModel* m_model;
  QTableView* m_table;
  QPlainTextEdit* m_detail;
};

} // namespace loopscape::views
