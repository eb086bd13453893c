#include "views/samples_model.h"

#include <QDir>
#include <QFile>
#include <QTextStream>

namespace loopscape::views {

namespace {

/// The sample's leading comment: `#` lines of a .te file; `//` lines of a .relay file
/// (after its `#[version]` line).
SampleInfo readSample(const QFileInfo& fi, const QString& name) {
  SampleInfo s;
  s.name = name;
  s.path = fi.absoluteFilePath();
  const bool relay = fi.suffix() == QStringLiteral("relay");
  QFile f(s.path);
  if (f.open(QIODevice::ReadOnly | QIODevice::Text)) {
    QTextStream in(&f);
    QStringList comment;
    while (!in.atEnd()) {
      const QString line = in.readLine();
      if (relay && line.startsWith(QStringLiteral("#["))) continue;
      if (relay ? !line.startsWith(QStringLiteral("//")) : !line.startsWith(u'#')) break;
      comment << line.mid(relay ? 2 : 1).trimmed();
    }
    if (!comment.isEmpty()) s.summary = comment.front();
    s.description = comment.join(u'\n');
  }
  return s;
}

} // namespace

std::vector<SampleInfo> scanSamples(const QString& dir) {
  std::vector<SampleInfo> out;
  for (const QFileInfo& fi : QDir(dir).entryInfoList({QStringLiteral("*.te")}, QDir::Files, QDir::Name))
    out.push_back(readSample(fi, fi.completeBaseName()));
  // Relay models (opened in the Model view) live in relay/.
  for (const QFileInfo& fi :
       QDir(dir + QStringLiteral("/relay")).entryInfoList({QStringLiteral("*.relay")}, QDir::Files, QDir::Name))
    out.push_back(readSample(fi, QStringLiteral("relay/") + fi.completeBaseName()));
  return out;
}

SamplesModel::SamplesModel(QObject* parent) : QAbstractListModel(parent) {
  setObjectName(QStringLiteral("samplesModel"));
}

void SamplesModel::setSamples(std::vector<SampleInfo> samples) {
  beginResetModel();
  m_samples = std::move(samples);
  endResetModel();
}

int SamplesModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_samples.size());
}

QVariant SamplesModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const SampleInfo& s = m_samples[index.row()];
  switch (role) {
  case Qt::DisplayRole:
    return QStringLiteral("%1 — %2").arg(s.name, s.summary);
  case Qt::ToolTipRole:
  case DescriptionRole:
    return s.description;
  case PathRole:
    return s.path;
  case SummaryRole:
    return s.summary;
  default:
    return {};
  }
}

} // namespace loopscape::views
