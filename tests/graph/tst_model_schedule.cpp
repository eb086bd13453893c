// The model schedule file (core/graph/model_schedule.h): round trip, the CLI's
// --schedule spellings, and located errors for malformed files.
#include "core/graph/model_schedule.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace loopscape;
using namespace loopscape::graph;

class TstModelSchedule : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void roundTrip() {
    ModelSchedule s;
    s.model = "resnet18.relay";
    s.fallback.source = ScheduleSource::Poly;
    s.fallback.fusion = "max";
    s.groups["a"] = GroupChoice{.source = ScheduleSource::Tuned, .log = "r.log"};
    s.groups["b"] = GroupChoice{.source = ScheduleSource::Trace, .traceFile = "b.py"};
    s.groups["c"] = GroupChoice{.source = ScheduleSource::Trace, .traceJson = R"([{"kind":"get_block"}])"};
    s.groups["d"] = GroupChoice{};
    const std::string text = modelScheduleToJson(s);
    auto back = parseModelSchedule(text, "s.json");
    QVERIFY(back.has_value());
    QCOMPARE(back->model, s.model);
    QVERIFY(back->fallback == s.fallback);
    QCOMPARE(back->groups.size(), std::size_t(4));
    for (const auto& [name, c] : s.groups)
      QVERIFY2(back->groups.at(name) == c, name.c_str());
    QCOMPARE(modelScheduleToJson(*back), text);
    QCOMPARE(back->choiceFor("a").describe(), std::string("tuned:r.log"));
    QCOMPARE(back->choiceFor("b").describe(), std::string("trace b.py"));
    QCOMPARE(back->choiceFor("c").describe(), std::string("trace (inline)"));
    QCOMPARE(back->choiceFor("not listed").describe(), std::string("poly(fusion=max)"));

    QTemporaryDir dir;
    const std::string path = dir.filePath("m.json").toStdString();
    QVERIFY(writeModelSchedule(path, s).has_value());
    auto read = readModelSchedule(path);
    QVERIFY(read.has_value());
    QCOMPARE(read->baseDir, dir.path().toStdString());
    QCOMPARE(modelScheduleToJson(*read), text);

    // alter_layout: written only when set, read back.
    QVERIFY(text.find("alter_layout") == std::string::npos);
    QVERIFY(!back->alterLayout);
    s.alterLayout = true;
    const std::string blocked = modelScheduleToJson(s);
    QVERIFY(blocked.find("\"alter_layout\": true") != std::string::npos);
    auto blockedBack = parseModelSchedule(blocked, "s.json");
    QVERIFY(blockedBack && blockedBack->alterLayout);
  }

  void options() {
    QCOMPARE(scheduleFromOption("default")->fallback.describe(), std::string("default"));
    QCOMPARE(scheduleFromOption("poly")->fallback.describe(), std::string("poly(fusion=smart)"));
    QCOMPARE(scheduleFromOption("poly:min")->fallback.describe(), std::string("poly(fusion=min)"));
    QCOMPARE(scheduleFromOption("tuned:x.log")->fallback.describe(), std::string("tuned:x.log"));
    QCOMPARE(scheduleFromOption("poly:best").error().message,
             std::string("--schedule poly:best: the fusion must be max, smart or min"));
    QCOMPARE(
        scheduleFromOption("fast").error().message,
        std::string("--schedule 'fast': give default, poly, poly:FUSION, tuned:LOG or a model schedule FILE.json"));
  }

  void malformed_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("message");
    QTest::newRow("not json") << "{"
                              << "s.json: not a JSON object (a model schedule is {\"version\": 1, ...})";
    QTest::newRow("version") << R"({"version": 2})"
                             << "s.json: \"version\" must be 1";
    QTest::newRow("source") << R"({"version": 1, "groups": {"g": {"source": "fast"}}})"
                            << "s.json: groups.g.source is 'fast'; it must be default, poly, tuned or trace";
    QTest::newRow("fusion") << R"({"version": 1, "default": {"source": "poly", "fusion": "all"}})"
                            << "s.json: default.fusion is 'all'; it must be max, smart or min";
    QTest::newRow("no log") << R"({"version": 1, "groups": {"g": {"source": "tuned"}}})"
                            << "s.json: groups.g is tuned but names no log";
    QTest::newRow("trace both")
        << R"({"version": 1, "groups": {"g": {"source": "trace", "file": "a.py", "trace": []}}})"
        << "s.json: groups.g is a trace: give either \"file\" or an inline \"trace\"";
    QTest::newRow("alter_layout") << R"({"version": 1, "alter_layout": "yes"})"
                                  << "s.json: \"alter_layout\" must be true or false";
    QTest::newRow("file type") << R"({"version": 1, "groups": {"g": {"source": "trace", "file": 3}}})"
                               << "s.json: groups.g.file must be a string";
  }
  void malformed() {
    QFETCH(QString, text);
    QFETCH(QString, message);
    auto s = parseModelSchedule(text.toStdString(), "s.json");
    QVERIFY(!s.has_value());
    QCOMPARE(s.error().code, std::string("graph.schedule-malformed"));
    QCOMPARE(QString::fromStdString(s.error().message), message);
  }
};

QTEST_GUILESS_MAIN(TstModelSchedule)
#include "tst_model_schedule.moc"
