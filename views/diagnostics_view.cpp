#include "views/diagnostics_view.h"

#include <QHeaderView>
#include <QHBoxLayout>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QTableView>

namespace loopscape::views {

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
  m_detail = new QPlainTextEdit(this);
  m_detail->setObjectName(QStringLiteral("diagnosticDetail"));
  m_detail->setReadOnly(true);
  m_detail->setLineWrapMode(QPlainTextEdit::NoWrap);
  QFont mono(QStringLiteral("DejaVu Sans Mono"));
  mono.setStyleHint(QFont::Monospace);
  mono.setPointSize(9);
  m_detail->setFont(mono);
  m_detail->setPlaceholderText(QStringLiteral("No diagnostics."));
  auto* splitter = new QSplitter(Qt::Horizontal, this);
  splitter->addWidget(m_table);
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
  m_model->setItems(std::move(items));
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
  m_detail->setPlainText(QString::fromStdString(d->detail.empty() ? d->message : d->detail));
}

QString DiagnosticsView::detailText() const { return m_detail->toPlainText(); }

} // namespace loopscape::views
