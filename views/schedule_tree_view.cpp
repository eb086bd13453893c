#include "views/schedule_tree_view.h"

#include "views/tree_picture.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QTabWidget>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

#include <functional>

namespace loopscape::views {

namespace {

/// The picture with its zoom buttons above it.
QWidget* pictureTab(TreePicture* picture, QWidget* parent) {
  auto* page = new QWidget(parent);
  auto* buttons = new QHBoxLayout();
  buttons->setContentsMargins(4, 2, 4, 0);
  auto button = [page, buttons](const QString& name, const QString& text, const QString& tip) {
    auto* b = new QToolButton(page);
    b->setObjectName(name);
    b->setText(text);
    b->setToolTip(tip);
    b->setAutoRaise(true);
    buttons->addWidget(b);
    return b;
  };
  QObject::connect(button(QStringLiteral("pictureZoomOut"), QStringLiteral("\u2212"), QStringLiteral("Zoom out (-)")),
                   &QToolButton::clicked, picture, [picture] { picture->zoomBy(0.8); });
  QObject::connect(button(QStringLiteral("pictureZoomIn"), QStringLiteral("+"), QStringLiteral("Zoom in (+)")),
                   &QToolButton::clicked, picture, [picture] { picture->zoomBy(1.25); });
  QObject::connect(button(QStringLiteral("pictureFit"), QStringLiteral("Fit"), QStringLiteral("Fit to the view (0)")),
                   &QToolButton::clicked, picture, &TreePicture::fitToView);
  auto* hint = new QLabel(QStringLiteral("drag to pan, Ctrl+wheel to zoom"), page);
  hint->setEnabled(false);
  buttons->addStretch(1);
  buttons->addWidget(hint);
  auto* layout = new QVBoxLayout(page);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addLayout(buttons);
  layout->addWidget(picture, 1);
  return page;
}

} // namespace

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
  m_picture = new TreePicture(this);
  m_tabs = new QTabWidget(this);
  m_tabs->setObjectName(QStringLiteral("scheduleTreeTabs"));
  m_tabs->setDocumentMode(true);
  m_tabs->addTab(m_tree, QStringLiteral("Tree"));
  m_tabs->addTab(pictureTab(m_picture, this), QStringLiteral("Picture"));
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
  split->addWidget(m_tabs);
  split->addWidget(m_detail);
  split->setStretchFactor(0, 4);
  split->setStretchFactor(1, 1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_status);
  layout->addWidget(split, 1);
  showTab(PictureTab); // the picture first: the tree's shape at a glance; the rows one click away
  connect(m_tree->selectionModel(), &QItemSelectionModel::currentChanged, this, [this](const QModelIndex& current) {
    m_detail->setPlainText(current.data(ScheduleTreeModel::FullTextRole).toString());
    syncPicture();
    if (m_selecting) return;
    const int ordinal = current.data(ScheduleTreeModel::LoopOrdinalRole).toInt();
    if (current.isValid() && ordinal >= 0) Q_EMIT loopSelected(ordinal);
  });
  connect(m_tree->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] { syncPicture(); });
  // A click in the picture selects the same row in the tree (and through it the loop).
  connect(m_picture, &TreePicture::elementClicked, this, [this](const QString& id) {
    const QModelIndex index = indexForId(id);
    if (!index.isValid()) return;
    m_tree->setCurrentIndex(index);
    m_tree->scrollTo(index);
  });
}

void ScheduleTreeView::showTab(Tab tab) { m_tabs->setCurrentIndex(tab == TreeTab ? 0 : 1); }

void ScheduleTreeView::syncPicture() {
  const QModelIndex current = m_tree->currentIndex();
  const bool selected = current.isValid() && m_tree->selectionModel()->isSelected(current);
  m_picture->setSelectedId(selected ? current.data(ScheduleTreeModel::NodeIdRole).toString() : QString());
}

void ScheduleTreeView::setSnapshot(std::shared_ptr<const ProgramSnapshot> snapshot) {
  const bool failed = snapshot && !snapshot->tree;
  const QString error =
      failed ? QStringLiteral("No schedule tree: %1").arg(QString::fromStdString(snapshot->treeError)) : QString();
  m_status->setText(error);
  m_status->setVisible(failed);
  m_picture->setTree(snapshot ? snapshot->tree : nullptr, error);
  m_model->setSnapshot(std::move(snapshot));
  m_tree->expandAll();
  m_detail->clear();
  syncPicture();
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

QModelIndex ScheduleTreeView::indexForId(const QString& id) const {
  std::function<QModelIndex(const QModelIndex&)> search = [&](const QModelIndex& parent) -> QModelIndex {
    for (int r = 0; r < m_model->rowCount(parent); ++r) {
      const QModelIndex i = m_model->index(r, 0, parent);
      if (i.data(ScheduleTreeModel::NodeIdRole).toString() == id) return i;
      if (QModelIndex found = search(i); found.isValid()) return found;
    }
    return {};
  };
  return id.isEmpty() ? QModelIndex() : search({});
}

} // namespace loopscape::views
