#include "views/trace_view.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QToolBar>
#include <QVBoxLayout>

namespace loopscape::views {

TraceView::TraceView(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("traceView"));
  m_model = new TraceModel(this);
  m_toolBar = new QToolBar(this);
  m_toolBar->setObjectName(QStringLiteral("traceToolBar"));
  m_toolBar->setToolButtonStyle(Qt::ToolButtonTextOnly);
  m_toolBar->setIconSize(QSize(14, 14));
  m_status = new QLabel(this);
  m_status->setObjectName(QStringLiteral("traceStatus"));
  m_status->setContentsMargins(4, 0, 4, 0);
  m_table = new QTableView(this);
  m_table->setObjectName(QStringLiteral("traceTable"));
  m_table->setModel(m_model);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::SingleSelection);
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->verticalHeader()->hide();
  m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 4);
  m_table->horizontalHeader()->setSectionResizeMode(TraceModel::StepColumn, QHeaderView::ResizeToContents);
  m_table->horizontalHeader()->setStretchLastSection(true);
  m_table->setWordWrap(false);
  m_table->setShowGrid(false);
  m_table->setAlternatingRowColors(true);
  connect(m_table, &QTableView::clicked, this, [this](const QModelIndex& index) { Q_EMIT rowClicked(index.row()); });
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  layout->addWidget(m_toolBar);
  layout->addWidget(m_status);
  layout->addWidget(m_table);
}

void TraceView::setStatus(const QString& text) { m_status->setText(text); }
QString TraceView::status() const { return m_status->text(); }

} // namespace loopscape::views
