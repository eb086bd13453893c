// The `.lsproj` session file: a JSON document (QJsonDocument) with the source text, the
// trace (the text of trace_json.h, kept as a string: QJsonDocument would print a float
// attribute 1.0 as the integer 1), the target name and the view settings. Versioned by "format" and "version"; readers
// refuse other formats and newer versions with a message.
//
//   {"format": "loopscape-session", "version": 1, "source": "...", "sourcePath": "...",
//    "function": "main", "trace": "[[...instructions...], [...decisions...]]",
//    "target": "cpu-c", "view": {...}}
// A Relay model's session has "modelPath" (the .relay file), "modelSchedule" (the model
// schedule's JSON text, graph/model_schedule.h, with every group's trace inline) and
// "group" (the group open); its "source" is not used.
// The source's language follows sourcePath's extension (.py, .tvmscript: TVMScript, whose
// module function "function" names; absent or "": main, or the only one).
#pragma once

#include <QJsonObject>
#include <QString>

#include <variant>

namespace loopscape::gui {

struct SessionFile {
  static constexpr int kVersion = 1;
  QString source;
  QString sourcePath;   ///< the program file the source came from ("" if none)
  QString function;     ///< TVMScript: the module's function ("" : main or the only one)
  QString projectPath;  ///< recovery files only: the .lsproj the session was saved as
  QString traceJson;    ///< trace_json.h text ("" for an empty trace)
  QString target;
  QJsonObject view;
  QString modelPath;         ///< a Relay model's .relay file ("" for a program session)
  QString modelScheduleJson; ///< its model schedule (graph::modelScheduleToJson)
  QString group;             ///< the model's group open in the workbench
};

QByteArray writeSessionFile(const SessionFile& file);
std::variant<SessionFile, QString> readSessionFile(const QByteArray& bytes);

} // namespace loopscape::gui
