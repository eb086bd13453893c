// SamplesModel: the sample programs (samples/*.te) and Relay models (samples/relay/*.relay) with the first line of
// their header comment as summary and the whole comment (what to try) as description. The list is read once from a
// directory into an immutable vector.
#pragma once

#include <QAbstractListModel>

namespace loopscape::views {

struct SampleInfo {
  QString name;        ///< file name without extension ("matmul", "relay/mnist")
  QString path;        ///< absolute path
  QString summary;     ///< first comment line, without '#'
  QString description; ///< the whole leading comment
};

/// The .te files of `dir`, sorted by name, then the .relay files of `dir`/relay ("relay/mnist").
std::vector<SampleInfo> scanSamples(const QString& dir);

class SamplesModel : public QAbstractListModel {
  Q_OBJECT
public:
  enum Role { PathRole = Qt::UserRole + 1, SummaryRole, DescriptionRole };
  explicit SamplesModel(QObject* parent = nullptr);
  void setSamples(std::vector<SampleInfo> samples);
  const std::vector<SampleInfo>& samples() const { return m_samples; }
  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

private:
  std::vector<SampleInfo> m_samples;
};

} // namespace loopscape::views
