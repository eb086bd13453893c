#include "views/diagnostics_view.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QPushButton>
#include <QRegularExpression>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextEdit>
#include <QVBoxLayout>

#include <QSplitter>
#include <QTableView>
#include <algorithm>

namespace loopscape::views {

namespace {

bool sameDiagnostic(const DiagnosticItem& a, const DiagnosticItem& b) {
  return a.code == b.code && a.message == b.message && a.file == b.file && a.line == b.line && a.column == b.column;
}

/// Fills `doc` with `text`, one block per line: the lines of the printed program (between
/// "The IR with diagnostic is:" and "Error message:"), a source line under a
/// `file:line:col:` header and caret lines keep their layout; the rest wraps.
void setReport(QTextDocument* doc, const QString& text) {
  static const QRegularExpression header(QStringLiteral("^\\S+:\\d+:\\d+: "));
  static const QRegularExpression caret(QStringLiteral("^[ ^~]*\\^[ ^~]*$"));
  doc->clear();
  QTextCursor cursor(doc);
  bool inProgram = false, afterHeader = false, first = true;
  for (const QString& line : text.split(u'\n')) {
    if (line.startsWith(QStringLiteral("Error message:"))) inProgram = false;
    const bool code = inProgram || afterHeader || (caret.match(line).hasMatch() && !line.trimmed().isEmpty());
    afterHeader = header.match(line).hasMatch();
    if (line == QStringLiteral("The IR with diagnostic is:")) inProgram = true;
    QTextBlockFormat format;
    format.setNonBreakableLines(code);
    if (first)
      cursor.setBlockFormat(format);
    else
      cursor.insertBlock(format);
    first = false;
    cursor.insertText(line);
  }
}

} // namespace

DiagnosticsView::DiagnosticsView(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("diagnosticsView"));
  m_model = new DiagnosticsModel(this);
  m_table = new QTableView(this);
  m_table->setObjectName(QStringLiteral("diagnosticsTable"));
  m_table->setModel(m_model);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::SingleSelection);
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->verticalHeader()->hide();
  m_table->horizontalHeader()->setStretchLastSection(true);
  m_table->horizontalHeader()->setSectionResizeMode(DiagnosticsModel::CodeColumn, QHeaderView::ResizeToContents);
  m_table->horizontalHeader()->setSectionResizeMode(DiagnosticsModel::LocationColumn,
                                                    QHeaderView::ResizeToContents);
  m_table->setWordWrap(false);
  m_detail = new QTextEdit(this);
  m_detail->setObjectName(QStringLiteral("diagnosticDetail"));
  m_detail->setReadOnly(true);
  m_detail->setAcceptRichText(false);
  m_detail->setLineWrapMode(QTextEdit::WidgetWidth);
  m_detail->setWordWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
  QFont mono(QStringLiteral("DejaVu Sans Mono"));
  mono.setStyleHint(QFont::Monospace);
  mono.setPointSize(9);
  m_detail->setFont(mono);
  m_detail->document()->setDefaultFont(mono);
  m_detail->setPlaceholderText(QStringLiteral("No diagnostics."));
  auto* clear = new QPushButton(QStringLiteral("Clear history"), this);
  clear->setObjectName(QStringLiteral("clearDiagnosticHistory"));
  clear->setToolTip(QStringLiteral("Forget the earlier (greyed) diagnostics"));
  connect(clear, &QPushButton::clicked, this, &DiagnosticsView::clearHistory);
  auto* left = new QWidget(this);
  auto* leftLayout = new QVBoxLayout(left);
  leftLayout->setContentsMargins(0, 0, 0, 0);
  leftLayout->addWidget(m_table);
  leftLayout->addWidget(clear, 0, Qt::AlignLeft);
  auto* splitter = new QSplitter(Qt::Horizontal, this);
  splitter->addWidget(left);
  splitter->addWidget(m_detail);
  splitter->setStretchFactor(0, 2);
  splitter->setStretchFactor(1, 3);
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(splitter);
  connect(m_table, &QTableView::clicked, this, [this](const QModelIndex& index) {
    showDetail(index.row());
    const DiagnosticItem* d = m_model->item(index.row());
    if (d != nullptr && d->origin == DiagnosticItem::Origin::Source && d->line > 0)
      Q_EMIT jumpToSource(d->line, d->column);
  });
  connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) { showDetail(current.row()); });
}

void DiagnosticsView::setItems(std::vector<DiagnosticItem> items) {
  auto isIn = [](const DiagnosticItem& d, const std::vector<DiagnosticItem>& list) {
    return std::any_of(list.begin(), list.end(), [&](const DiagnosticItem& x) { return sameDiagnostic(d, x); });
  };
  std::vector<DiagnosticItem> history;
  for (const DiagnosticItem& d : m_current)
    if (!isIn(d, items)) history.push_back(d);
  for (const DiagnosticItem& d : m_history)
    if (!isIn(d, items) && !isIn(d, history)) history.push_back(d);
  if (history.size() > static_cast<std::size_t>(kHistory)) history.resize(kHistory);
  for (DiagnosticItem& d : history)
    d.earlier = true;
  m_history = std::move(history);
  m_current = std::move(items);
  refresh();
}

void DiagnosticsView::clearHistory() {
  m_history.clear();
  refresh();
}

void DiagnosticsView::refresh() {
  std::vector<DiagnosticItem> rows = m_current;
  rows.insert(rows.end(), m_history.begin(), m_history.end());
  m_model->setItems(std::move(rows));
  if (m_model->rowCount() > 0) {
    m_table->selectRow(0);
    showDetail(0);
  } else {
    m_detail->clear();
  }
}

void DiagnosticsView::showDetail(int row) {
  const DiagnosticItem* d = m_model->item(row);
  if (d == nullptr) return;
  setReport(m_detail->document(), QString::fromStdString(d->detail.empty() ? d->message : d->detail));
}

QString DiagnosticsView::detailText() const { return m_detail->toPlainText(); }

} // namespace loopscape::views
