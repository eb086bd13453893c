#include "views/samples_model.h"

#include <QDir>
#include <QFile>
#include <QTextStream>

namespace loopscape::views {

std::vector<SampleInfo> scanSamples(const QString& dir) {
  std::vector<SampleInfo> out;
  const QFileInfoList files = QDir(dir).entryInfoList({QStringLiteral("*.te")}, QDir::Files, QDir::Name);
  for (const QFileInfo& fi : files) {
    SampleInfo s;
    s.name = fi.completeBaseName();
    s.path = fi.absoluteFilePath();
    QFile f(s.path);
    if (f.open(QIODevice::ReadOnly | QIODevice::Text)) {
      QTextStream in(&f);
      QStringList comment;
      while (!in.atEnd()) {
        const QString line = in.readLine();
        if (!line.startsWith(u'#')) break;
        comment << line.mid(1).trimmed();
      }
      if (!comment.isEmpty()) s.summary = comment.front();
      s.description = comment.join(u'\n');
    }
    out.push_back(std::move(s));
  }
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
