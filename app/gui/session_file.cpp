#include "app/gui/session_file.h"

#include <QJsonDocument>

namespace loopscape::gui {

QByteArray writeSessionFile(const SessionFile& file) {
  QJsonObject o;
  o[QStringLiteral("format")] = QStringLiteral("loopscape-session");
  o[QStringLiteral("version")] = SessionFile::kVersion;
  o[QStringLiteral("source")] = file.source;
  o[QStringLiteral("sourcePath")] = file.sourcePath;
  if (!file.function.isEmpty()) o[QStringLiteral("function")] = file.function;
  if (!file.projectPath.isEmpty()) o[QStringLiteral("projectPath")] = file.projectPath;
  o[QStringLiteral("trace")] = file.traceJson;
  o[QStringLiteral("target")] = file.target;
  o[QStringLiteral("view")] = file.view;
  if (!file.modelPath.isEmpty()) {
    o[QStringLiteral("modelPath")] = file.modelPath;
    o[QStringLiteral("modelSchedule")] = file.modelScheduleJson;
    o[QStringLiteral("group")] = file.group;
  }
  return QJsonDocument(o).toJson(QJsonDocument::Indented);
}

std::variant<SessionFile, QString> readSessionFile(const QByteArray& bytes) {
  QJsonParseError err;
  const QJsonDocument doc = QJsonDocument::fromJson(bytes, &err);
  if (err.error != QJsonParseError::NoError)
    return QStringLiteral("not a session file: %1 at offset %2").arg(err.errorString()).arg(err.offset);
  if (!doc.isObject()) return QStringLiteral("not a session file: the document is not a JSON object");
  const QJsonObject o = doc.object();
  if (o.value(QStringLiteral("format")).toString() != QStringLiteral("loopscape-session"))
    return QStringLiteral("not a Loopscape session file (missing \"format\": \"loopscape-session\")");
  const int version = o.value(QStringLiteral("version")).toInt(0);
  if (version < 1 || version > SessionFile::kVersion)
    return QStringLiteral("session file version %1 is not supported (this build reads version %2)")
        .arg(version)
        .arg(SessionFile::kVersion);
  if (!o.value(QStringLiteral("source")).isString()) return QStringLiteral("the session file has no source text");
  SessionFile f;
  f.source = o.value(QStringLiteral("source")).toString();
  f.sourcePath = o.value(QStringLiteral("sourcePath")).toString();
  f.projectPath = o.value(QStringLiteral("projectPath")).toString();
  const QJsonValue function = o.value(QStringLiteral("function"));
  if (!function.isString() && !function.isUndefined())
    return QStringLiteral("the session's \"function\" must be a function name");
  f.function = function.toString();
  const QJsonValue trace = o.value(QStringLiteral("trace"));
  if (!trace.isString() && !trace.isUndefined() && !trace.isNull())
    return QStringLiteral("the session's \"trace\" must be the trace JSON text");
  f.traceJson = trace.toString();
  f.target = o.value(QStringLiteral("target")).toString();
  f.view = o.value(QStringLiteral("view")).toObject();
  for (const char* key : {"modelPath", "modelSchedule", "group"}) {
    const QJsonValue v = o.value(QLatin1String(key));
    if (!v.isString() && !v.isUndefined()) return QStringLiteral("the session's \"%1\" must be a string").arg(key);
  }
  f.modelPath = o.value(QStringLiteral("modelPath")).toString();
  f.modelScheduleJson = o.value(QStringLiteral("modelSchedule")).toString();
  f.group = o.value(QStringLiteral("group")).toString();
  return f;
}

} // namespace loopscape::gui
