// A session file (`.lsproj`, File → Open in the workbench): readSessionFile (QtCore JSON),
// the trace text through traceFromJson, the source through parseTe, and the trace
// replayed on a schedule made by poly::makeSchedule with the exact legality check, as
// Session::openProject and the load job do.
#include "fuzz/fuzz_support.h"

#include "app/gui/session_file.h"
#include "core/frontend/te_frontend.h"
#include "core/poly/checked_schedule.h"
#include "core/schedule/trace_json.h"

#include <QByteArray>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace loopscape;
  if (size > fuzz::kMaxInputBytes) return -1;
  auto parsed = gui::readSessionFile(QByteArray(reinterpret_cast<const char*>(data), static_cast<qsizetype>(size)));
  const auto* file = std::get_if<gui::SessionFile>(&parsed);
  if (!file) return 0;
  schedule::Trace trace;
  if (!file->traceJson.isEmpty()) {
    auto t = schedule::traceFromJson(file->traceJson.toStdString(), "fuzz.lsproj");
    if (!t) return 0;
    trace = std::move(*t);
  }
  auto func = frontend::parseTe(file->source.toStdString(), "fuzz.lsproj");
  if (!func) return 0;
  (void)poly::replaySchedule(*func, trace);
  return 0;
}
