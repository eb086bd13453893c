// DiagnosticsView: the diagnostics table and, beside it, the full report of the selected
// diagnostic (the program with the offending loop/block underlined, or the source line
// with a caret): the program and caret lines keep their layout, the prose (the message,
// notes, a counterexample) wraps at the pane's width. Clicking a diagnostic with a source
// location asks to jump there. Diagnostics that are replaced stay below the current ones
// as a greyed history (at most kHistory) until Clear history.
#pragma once

#include "views/diagnostics_model.h"

#include <QWidget>

class QTableView;
class QTextEdit;

namespace loopscape::views {

class DiagnosticsView : public QWidget {
  Q_OBJECT
public:
  explicit DiagnosticsView(QWidget* parent = nullptr);
  DiagnosticsModel* model() const { return m_model; }
  QTableView* table() const { return m_table; }
  static constexpr int kHistory = 50;
  /// Replaces the current list (the replaced items that are not current again go to the
  /// history) and shows the report of the first item.
  void setItems(std::vector<DiagnosticItem> items);
  /// Forgets the earlier diagnostics.
  void clearHistory();
  QString detailText() const;

Q_SIGNALS:
  void jumpToSource(int line, int column);

private:
  void showDetail(int row);
  void refresh();
  DiagnosticsModel* m_model;
  QTableView* m_table;
  QTextEdit* m_detail;
  std::vector<DiagnosticItem> m_current, m_history;
};

} // namespace loopscape::views
