#include "views/samples_gallery.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QListView>
#include <QPlainTextEdit>
#include <QVBoxLayout>

namespace loopscape::views {

SamplesGallery::SamplesGallery(const QString& samplesDir, QWidget* parent) : QDialog(parent) {
  setObjectName(QStringLiteral("samplesGallery"));
  setWindowTitle(QStringLiteral("Open sample"));
  resize(760, 460);
  m_model = new SamplesModel(this);
  m_model->setSamples(scanSamples(samplesDir));
  m_list = new QListView(this);
  m_list->setObjectName(QStringLiteral("samplesList"));
  m_list->setModel(m_model);
  m_list->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_description = new QPlainTextEdit(this);
  m_description->setReadOnly(true);
  m_description->setMaximumHeight(120);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel, this);
  auto* layout = new QVBoxLayout(this);
  auto* where = new QLabel(QStringLiteral("Samples in %1").arg(samplesDir), this);
  where->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(where);
  layout->addWidget(m_list, 1);
  layout->addWidget(m_description);
  layout->addWidget(buttons);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(m_list, &QListView::doubleClicked, this, &QDialog::accept);
  connect(m_list->selectionModel(), &QItemSelectionModel::currentChanged, this, [this](const QModelIndex& i) {
    m_description->setPlainText(i.data(SamplesModel::DescriptionRole).toString());
  });
  if (m_model->rowCount() > 0) m_list->setCurrentIndex(m_model->index(0));
}

QString SamplesGallery::selectedPath() const {
  return m_list->currentIndex().data(SamplesModel::PathRole).toString();
}

} // namespace loopscape::views
