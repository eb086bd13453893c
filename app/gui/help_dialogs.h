// The Help menu's windows: the user guide (help/user_guide.md, compiled into the app as the
// Qt resource :/loopscape/help/user_guide.md and shown as rich text) and the keyboard
// shortcuts, listed from the window's own QActions so the list cannot go stale.
#pragma once

#include <QDialog>
#include <QList>
#include <QString>

#include <vector>

class QAction;
class QMenuBar;
class QTableWidget;
class QTextBrowser;

namespace loopscape::gui {

/// The user guide's Markdown text ("" if the resource is missing).
QString userGuideMarkdown();

struct ShortcutRow {
  QString menu;    ///< the menu it is in ("File", "View"), or "Window" when in none
  QString command; ///< the action's text without '&' and '…'
  QString keys;    ///< every shortcut of the action, as the platform shows it, ", " between
  QString objectName;
};

/// Every action of `actions` that has a shortcut, once each, in menu order: the actions of
/// `menuBar`'s menus (submenus included) first, then the others.
std::vector<ShortcutRow> shortcutRows(const QMenuBar* menuBar, const QList<QAction*>& actions);

/// The user guide in a rich-text browser (objectName "helpGuideDialog"; the browser is
/// "helpGuideText"). Not modal.
class UserGuideDialog : public QDialog {
  Q_OBJECT
public:
  explicit UserGuideDialog(QWidget* parent = nullptr);
  QTextBrowser* browser() const { return m_browser; }

private:
  QTextBrowser* m_browser;
};

/// The shortcuts table (objectName "helpShortcutsDialog"; the table is "shortcutsTable",
/// columns Menu, Command, Shortcut). Not modal.
class ShortcutsDialog : public QDialog {
  Q_OBJECT
public:
  ShortcutsDialog(const std::vector<ShortcutRow>& rows, QWidget* parent = nullptr);
  QTableWidget* table() const { return m_table; }

private:
  QTableWidget* m_table;
};

} // namespace loopscape::gui
