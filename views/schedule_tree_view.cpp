#include "views/schedule_tree_view.h"

#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QTreeView>
#include <QVBoxLayout>

namespace loopscape::views {

ScheduleTreeView::ScheduleTreeView(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("scheduleTreeView"));
  m_model = new ScheduleTreeModel(this);
  m_tree = new QTreeView(this);
  m_tree->setObjectName(QStringLiteral("scheduleTree"));
  m_tree->setModel(m_model);
  m_tree->setUniformRowHeights(true);
  m_tree->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_tree->header()->setSectionResizeMode(ScheduleTreeModel::NodeColumn, QHeaderView::ResizeToContents);
  m_tree->header()->setStretchLastSection(true);
  m_status = new QLabel(this);
  m_status->setWordWrap(true);
  m_status->hide();
  m_detail = new QPlainTextEdit(this);
  m_detail->setObjectName(QStringLiteral("scheduleTreeDetail"));
  m_detail->setReadOnly(true);
  QFont mono(QStringLiteral("DejaVu Sans Mono"));
  mono.setStyleHint(QFont::Monospace);
  mono.setPointSize(9);
  m_detail->setFont(mono);
  m_detail->setPlaceholderText(QStringLiteral("Select a node to see its isl text."));
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(m_tree);
  split->addWidget(m_detail);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_status);
  layout->addWidget(split, 1);
  connect(m_tree->selectionModel(), &QItemSelectionModel::currentChanged, this, [this](const QModelIndex& current) {
    m_detail->setPlainText(current.data(ScheduleTreeModel::FullTextRole).toString());
    if (m_selecting) return;
    const int ordinal = current.data(ScheduleTreeModel::LoopOrdinalRole).toInt();
    if (current.isValid() && ordinal >= 0) Q_EMIT loopSelected(ordinal);
  });
}

void ScheduleTreeView::setSnapshot(std::shared_ptr<const ProgramSnapshot> snapshot) {
  const bool failed = snapshot && !snapshot->tree;
  m_status->setText(failed ? QStringLiteral("No schedule tree: %1").arg(QString::fromStdString(snapshot->treeError))
                           : QString());
  m_status->setVisible(failed);
  m_model->setSnapshot(std::move(snapshot));
  m_tree->expandAll();
  m_detail->clear();
}

void ScheduleTreeView::selectLoop(int ordinal) {
  m_selecting = true;
  const QModelIndex index = m_model->indexForLoop(ordinal);
  if (index.isValid()) {
    m_tree->setCurrentIndex(index);
    m_tree->scrollTo(index);
  } else {
    m_tree->selectionModel()->clearSelection();
  }
  m_selecting = false;
}

int ScheduleTreeView::selectedLoop() const {
  const QModelIndex current = m_tree->currentIndex();
  if (!current.isValid() || !m_tree->selectionModel()->isSelected(current)) return -1;
  return current.data(ScheduleTreeModel::LoopOrdinalRole).toInt();
}

QString ScheduleTreeView::detailText() const { return m_detail->toPlainText(); }

} // namespace loopscape::views
