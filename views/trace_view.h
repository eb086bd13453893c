// TraceView: the schedule trace, one row per instruction (TraceModel), with a small tool
// bar the main window fills with its trace actions (undo, redo, copy as TVM Python, load
// trace). Clicking a row asks to show the program after that instruction; the view only
// reports the click, the session replays the prefix.
#pragma once

#include "views/trace_model.h"

#include <QWidget>

class QTableView;
class QToolBar;
class QLabel;

namespace loopscape::views {

class TraceView : public QWidget {
  Q_OBJECT
public:
  explicit TraceView(QWidget* parent = nullptr);
  TraceModel* model() const { return m_model; }
  QTableView* table() const { return m_table; }
  QToolBar* toolBar() const { return m_toolBar; }
  /// The status line under the tool bar ("3 steps", "showing step 2 of 3").
  void setStatus(const QString& text);
  QString status() const;

Q_SIGNALS:
  /// The user clicked instruction row `row`.
  void rowClicked(int row);

private:
  TraceModel* m_model;
  QTableView* m_table;
  QToolBar* m_toolBar;
  QLabel* m_status;
};

} // namespace loopscape::views
