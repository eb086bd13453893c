#include "app/gui/help_dialogs.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QFile>
#include <QHeaderView>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QTableWidget>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <functional>
#include <set>

namespace loopscape::gui {

namespace {

QString plainText(QString text) {
  text.remove(u'&');
  if (text.endsWith(u'…')) text.chop(1);
  return text;
}

} // namespace

QString userGuideMarkdown() {
  QFile f(QStringLiteral(":/loopscape/help/user_guide.md"));
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QString::fromUtf8(f.readAll());
}

std::vector<ShortcutRow> shortcutRows(const QMenuBar* menuBar, const QList<QAction*>& actions) {
  std::vector<ShortcutRow> rows;
  std::set<const QAction*> listed;
  auto add = [&](QAction* a, const QString& menu) {
    if (!a || a->isSeparator() || a->shortcuts().isEmpty() || !listed.insert(a).second) return;
    QStringList keys;
    for (const QKeySequence& k : a->shortcuts())
      keys << k.toString(QKeySequence::NativeText);
    rows.push_back({menu, plainText(a->text()), keys.join(QStringLiteral(", ")), a->objectName()});
  };
  std::function<void(const QMenu*, const QString&)> walk = [&](const QMenu* menu, const QString& path) {
    for (QAction* a : menu->actions()) {
      if (a->menu())
        walk(a->menu(), path + QStringLiteral(" › ") + plainText(a->text()));
      else
        add(a, path);
    }
  };
  if (menuBar)
    for (QAction* a : menuBar->actions())
      if (a->menu()) walk(a->menu(), plainText(a->text()));
  for (QAction* a : actions)
    add(a, QStringLiteral("Window"));
  return rows;
}

UserGuideDialog::UserGuideDialog(QWidget* parent) : QDialog(parent), m_browser(new QTextBrowser(this)) {
  setObjectName(QStringLiteral("helpGuideDialog"));
  setWindowTitle(QStringLiteral("Loopscape user guide"));
  m_browser->setObjectName(QStringLiteral("helpGuideText"));
  m_browser->setOpenExternalLinks(true);
  m_browser->document()->setDocumentMargin(16);
  const QString text = userGuideMarkdown();
  if (text.isEmpty())
    m_browser->setPlainText(QStringLiteral("The user guide is missing from this build."));
  else
    m_browser->setMarkdown(text);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(m_browser);
  layout->addWidget(buttons);
  resize(760, 680);
}

ShortcutsDialog::ShortcutsDialog(const std::vector<ShortcutRow>& rows, QWidget* parent)
    : QDialog(parent), m_table(new QTableWidget(static_cast<int>(rows.size()), 3, this)) {
  setObjectName(QStringLiteral("helpShortcutsDialog"));
  setWindowTitle(QStringLiteral("Keyboard shortcuts"));
  m_table->setObjectName(QStringLiteral("shortcutsTable"));
  m_table->setHorizontalHeaderLabels({QStringLiteral("Menu"), QStringLiteral("Command"), QStringLiteral("Shortcut")});
  m_table->verticalHeader()->hide();
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->setSelectionMode(QAbstractItemView::NoSelection);
  m_table->setFocusPolicy(Qt::NoFocus);
  m_table->setAlternatingRowColors(true);
  m_table->setShowGrid(false);
  m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);
  for (int r = 0; r < static_cast<int>(rows.size()); ++r) {
    const ShortcutRow& row = rows[static_cast<std::size_t>(r)];
    // The menu's name heads its group; the rows below it leave it out (kept as data).
    const bool first = r == 0 || rows[static_cast<std::size_t>(r - 1)].menu != row.menu;
    auto* menu = new QTableWidgetItem(first ? row.menu : QString());
    menu->setData(Qt::UserRole, row.menu);
    if (first) {
      QFont bold = menu->font();
      bold.setBold(true);
      menu->setFont(bold);
    }
    m_table->setItem(r, 0, menu);
    m_table->setItem(r, 1, new QTableWidgetItem(row.command));
    m_table->setItem(r, 2, new QTableWidgetItem(row.keys));
    m_table->item(r, 1)->setData(Qt::UserRole, row.objectName);
  }
  m_table->resizeColumnsToContents();
  m_table->horizontalHeader()->setStretchLastSection(true);
  auto* filter = new QLineEdit(this);
  filter->setObjectName(QStringLiteral("shortcutsFilter"));
  filter->setPlaceholderText(QStringLiteral("Filter by command or key…"));
  filter->setClearButtonEnabled(true);
  connect(filter, &QLineEdit::textChanged, this, [this](const QString& text) {
    for (int r = 0; r < m_table->rowCount(); ++r)
      m_table->setRowHidden(
          r, !text.isEmpty() && !m_table->item(r, 1)->text().contains(text, Qt::CaseInsensitive) &&
                 !m_table->item(r, 2)->text().contains(text, Qt::CaseInsensitive) &&
                 !m_table->item(r, 0)->data(Qt::UserRole).toString().contains(text, Qt::CaseInsensitive));
  });
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(filter);
  layout->addWidget(m_table);
  layout->addWidget(buttons);
  resize(640, 720);
}

} // namespace loopscape::gui
