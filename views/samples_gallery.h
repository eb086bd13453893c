// SamplesGallery: the File → Open sample dialog. Lists the samples with their summary,
// shows the full header comment of the highlighted one, and returns the chosen path.
#pragma once

#include "views/samples_model.h"

#include <QDialog>

class QListView;
class QPlainTextEdit;

namespace loopscape::views {

class SamplesGallery : public QDialog {
  Q_OBJECT
public:
  SamplesGallery(const QString& samplesDir, QWidget* parent = nullptr);
  SamplesModel* model() const { return m_model; }
  QListView* list() const { return m_list; }
  /// The highlighted sample's path ("" when none).
  QString selectedPath() const;

private:
  SamplesModel* m_model;
  QListView* m_list;
  QPlainTextEdit* m_description;
};

} // namespace loopscape::views
