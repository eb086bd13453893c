// Limits of the trace readers: trace scripts (core/syntax through trace_script.h) and
// JSON traces (trace_json.h). Nesting far past ir::resourceLimits().maxNestingDepth, long
// operator chains and numbers beyond a double's range are refused with located
// diagnostics instead of overflowing the stack or escaping as an nlohmann exception (each
// of these crashed the CLI or the workbench before). Also the two workbench session files
// in tests/gui/data whose traces crashed the workbench: their trace text is refused.
#include "core/schedule/instruction.h"
#include "core/schedule/schedule.h"
#include "core/schedule/trace_json.h"
#include "core/schedule/trace_script.h"
#include "schedule_test_helpers.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <string>

using namespace loopscape;
using namespace loopscape::schedule;
using loopscape::testing::kSmallMatmul;
using loopscape::testing::parseProgram;

namespace {

std::string repeat(std::string_view s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i)
    out += s;
  return out;
}

/// "code line:column message".
QString describe(const Diagnostic& d) {
  return QString::fromStdString(d.code + " " + std::to_string(d.location.line) + ":" +
                                std::to_string(d.location.column) + " " + d.message);
}

QString scriptOutcome(const std::string& script) {
  Schedule sch(parseProgram(kSmallMatmul));
  auto r = applyScript(sch, script, "t.py");
  if (r) return QStringLiteral("applied");
  if (!sch.trace().instructions.empty()) return QStringLiteral("the schedule changed");
  return describe(r.error());
}

QString jsonOutcome(const std::string& json) {
  auto t = traceFromJson(json, "t.json");
  if (t) return QStringLiteral("read");
  return describe(t.error());
}

/// The trace text of a session file in tests/gui/data.
std::string sessionTrace(const char* name) {
  QFile f(QStringLiteral(LS_SOURCE_DIR "/tests/gui/data/") + QLatin1String(name));
  if (!f.open(QIODevice::ReadOnly)) qFatal("cannot open %s", name);
  const QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
  return o.value(QStringLiteral("trace")).toString().toStdString();
}

const QString kNumberMessage =
    QStringLiteral("number 1e400 is out of range: trace numbers are 64-bit integers or doubles (at most about 1.8e308 "
                   "in magnitude)");
const QString kJsonTooDeep =
    QStringLiteral("arrays and objects nested more than 200 levels deep; a trace needs a handful of levels");

} // namespace

class TstTraceLimits : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void scriptNestingIsBounded() {
    QCOMPARE(scriptOutcome("b0 = sch.get_block(name=" + repeat("(", 2500) + "\"C\"" + repeat(")", 2500) + ")\n"),
             QStringLiteral("trace.syntax 1:224 expression nested more than 200 levels deep"));
    QCOMPARE(scriptOutcome("x = " + repeat("[", 10'000) + repeat("]", 10'000) + "\n"),
             QStringLiteral("trace.syntax 1:205 expression nested more than 200 levels deep"));
    QCOMPARE(scriptOutcome("x = " + repeat("-", 10'000) + "1\n"),
             QStringLiteral("trace.syntax 1:205 expression nested more than 200 levels deep"));
    // Nesting within the limit still reads.
    QCOMPARE(scriptOutcome("b0 = sch.get_block(name=" + repeat("(", 150) + "\"C\"" + repeat(")", 150) + ")\n"),
             QStringLiteral("applied"));
  }

  void scriptChainsAreBounded() {
    // Trace scripts are read and run by recursive walks, so their chains are bounded by
    // the nesting limit (200), not by maxExpressionHeight().
    QCOMPARE(scriptOutcome("x = 1" + repeat("+1", 99'999) + "\n"),
             QStringLiteral("trace.syntax 1:5 expression nested more than 200 levels deep"));
    QCOMPARE(scriptOutcome("x = [1]" + repeat("[0]", 99'999) + "\n"),
             QStringLiteral("trace.syntax 1:5 expression nested more than 200 levels deep"));
    QCOMPARE(scriptOutcome("x = 1" + repeat("+1", 199) + "\n"), QStringLiteral("applied"));
    // Within the limit, read and run (the second subscript fails on the int).
    QCOMPARE(scriptOutcome("x = [1]" + repeat("[0]", 198) + "\n"),
             QStringLiteral("trace.bad-subscript 1:5 cannot subscript an int"));
    auto map = parseIndexMap("lambda i: " + repeat("(", 2500) + "i" + repeat(")", 2500), "m.py");
    QVERIFY(!map);
    QCOMPARE(QString::fromStdString(map.error().code), QStringLiteral("trace.syntax"));
  }

  void jsonNestingIsBounded() {
    QCOMPARE(jsonOutcome(repeat("[", 10'000) + repeat("]", 10'000)), "trace.json-too-deep 1:201 " + kJsonTooDeep);
    QCOMPARE(jsonOutcome(repeat("{\"a\": ", 10'000) + "1" + repeat("}", 10'000)),
             "trace.json-too-deep 1:" + QString::number(1 + 6 * 200) + " " + kJsonTooDeep);
    // Unbalanced and deep: still the depth error, not a crash.
    QCOMPARE(jsonOutcome(repeat("[", 10'000)), "trace.json-too-deep 1:201 " + kJsonTooDeep);
    // Brackets inside strings do not count.
    QCOMPARE(jsonOutcome("[[[\"GetBlock\", [], [\"" + repeat("[", 1000) + "\", \"main\"], [\"b0\"]]], []]"),
             QStringLiteral("read"));
    // Deep inside an instruction's inputs.
    const std::string deepInput = "[[[\"GetBlock\", [], [\"C\", \"main\"], [\"b0\"]],\n  [\"GetLoops\", [" +
                                  repeat("[", 10'000) + "\"b0\"" + repeat("]", 10'000) +
                                  "], [], [\"l1\", \"l2\", \"l3\"]]], []]";
    QCOMPARE(jsonOutcome(deepInput), "trace.json-too-deep 2:" + QString::number(16 + 197) + " " + kJsonTooDeep);
  }

  void jsonNumbersOutOfRange() {
    QCOMPARE(jsonOutcome("[1e400]"), "trace.json-number 1:2 " + kNumberMessage);
    QCOMPARE(jsonOutcome("[[], [-1e400]]"),
             QStringLiteral("trace.json-number 1:7 number -1e400 is out of range: trace numbers are 64-bit integers "
                            "or doubles (at most about 1.8e308 in magnitude)"));
    QCOMPARE(
        jsonOutcome("[[[\"GetBlock\", [], [\"C\", \"main\"], [\"b0\"]],\n [\"GetLoops\", [\"b0\"], [1E+999], []]], []]")
            .section(' ', 0, 1),
        QStringLiteral("trace.json-number 2:24"));
    // Underflow reads as zero, as in every JSON reader; large but finite numbers read.
    QCOMPARE(jsonOutcome("[[], []]"), QStringLiteral("read"));
    QVERIFY(!jsonOutcome("[[], [[0, 1e-400]]]").startsWith(QStringLiteral("trace.json-number")));
    QVERIFY(!jsonOutcome("[[], [[0, 1e308]]]").startsWith(QStringLiteral("trace.json-number")));
  }

  void nothingFromTheJsonLibraryEscapes() {
    // Invalid UTF-8 in a string, a bare number, trailing garbage: located JSON errors.
    QCOMPARE(jsonOutcome("[[\"\xff\"], []]").section(' ', 0, 0), QStringLiteral("trace.json-syntax"));
    QCOMPARE(jsonOutcome("1e5").section(' ', 0, 0), QStringLiteral("trace.json-malformed"));
    QCOMPARE(jsonOutcome("[[], []] x").section(' ', 0, 0), QStringLiteral("trace.json-syntax"));
    // Writing a string that is not UTF-8 does not throw either.
    Schedule sch(parseProgram(kSmallMatmul));
    auto ok =
        applyScript(sch, "b0 = sch.get_block(name=\"C\")\nsch.annotate(b0, ann_key=\"k\xff\", ann_val=1)\n", "t.py");
    QVERIFY2(ok, ok ? "" : ok.error().message.c_str());
    const std::string json = traceToJson(sch.trace());
    QVERIFY(json.find("k\xef\xbf\xbd") != std::string::npos); // U+FFFD
    QVERIFY(traceFromJson(json, "t.json"));
  }

  void sessionFilesThatCrashedTheWorkbench() {
    const std::string nested = sessionTrace("nested_trace.lsproj");
    QVERIFY(nested.size() > 20'000);
    QCOMPARE(jsonOutcome(nested), "trace.json-too-deep 5:215 " + kJsonTooDeep);
    const std::string big = sessionTrace("number_1e400.lsproj");
    QCOMPARE(jsonOutcome(big), "trace.json-number 5:29 " + kNumberMessage);
    // Applied to a schedule: refused, the schedule untouched.
    for (const std::string& text : {nested, big}) {
      Schedule sch(parseProgram(kSmallMatmul));
      auto r = applyJsonTrace(sch, text, "session.lsproj");
      QVERIFY(!r);
      QVERIFY(sch.trace().instructions.empty());
    }
  }
};

QTEST_GUILESS_MAIN(TstTraceLimits)
#include "tst_trace_limits.moc"
