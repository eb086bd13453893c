// The PolyBench samples (samples/polybench/*.te and seidel-2d.py) against plain C: each
// sample, resized to its MINI sizes (the "# sizes:" line; a resized copy in a temporary
// directory), runs in the reference interpreter (`loopscape-cli check --inputs --save`) on
// the inputs that bench/polybench/<kernel>.c, built at the same sizes by the system C
// compiler (cc), wrote; the C program's outputs must match the interpreter's, so a wrong
// formula in a .te (or in the C) fails. `poly --auto --check` and `poly --optimize --check`
// must also pass on the copy.
// The size rewriting is the one bench/polybench.py does.
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include "cli_test_helpers.h"
#include "core/ir/ndarray.h"
#include "core/ir/npy.h"

#include <map>
#include <string>

using loopscape::testing::runCli;
using loopscape::testing::writeFile;

namespace {

QString readText(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QString::fromUtf8(f.readAll());
}

/// The sizes of `dataset` on the "# sizes:" line ("MINI" -> {"N": 40, ...}).
std::map<QString, int> datasetSizes(const QString& text, const QString& dataset) {
  std::map<QString, int> sizes;
  auto m = QRegularExpression("^# sizes: (.*)$", QRegularExpression::MultilineOption).match(text);
  if (!m.hasMatch()) return sizes;
  for (const QString& part : m.captured(1).split(';')) {
    QStringList words = part.split(' ', Qt::SkipEmptyParts);
    if (words.isEmpty() || words[0] != dataset) continue;
    for (qsizetype i = 1; i < words.size(); ++i) {
      QStringList kv = words[i].split('=');
      sizes[kv[0]] = kv[1].toInt();
    }
  }
  return sizes;
}

/// `NAME` or `NAME-c` of a "# literals:" entry, evaluated with `sizes` (-1 if unknown).
int evalSize(const QString& expr, const std::map<QString, int>& sizes) {
  QStringList parts = expr.split('-');
  auto it = sizes.find(parts[0]);
  if (it == sizes.end()) return -1;
  return parts.size() == 2 ? it->second - parts[1].toInt() : it->second;
}

/// The program with its size constants set to `sizes`: a .te's constant lines
/// (`NI, NJ = 200, 220`), or the literals a TVMScript file lists ("# literals: 100=TSTEPS
/// 398=N-2") outside comments. Empty if a size is not found.
QString resize(const QString& text, const std::map<QString, int>& sizes) {
  QStringList lines = text.split('\n');
  auto lit = QRegularExpression("^# literals: (.*)$", QRegularExpression::MultilineOption).match(text);
  if (lit.hasMatch()) {
    std::map<QString, QString> table;
    QStringList alternatives;
    for (const QString& w : lit.captured(1).split(' ', Qt::SkipEmptyParts)) {
      QStringList kv = w.split('=');
      int value = evalSize(kv[1], sizes);
      if (value < 0) return {};
      table[kv[0]] = QString::number(value);
      alternatives << QRegularExpression::escape(kv[0]);
    }
    QRegularExpression number("\\b(" + alternatives.join('|') + ")\\b");
    for (QString& line : lines) {
      if (line.trimmed().startsWith('#')) continue;
      QString out;
      qsizetype last = 0;
      for (auto it = number.globalMatch(line); it.hasNext();) {
        auto m = it.next();
        out += line.mid(last, m.capturedStart() - last) + table[m.captured(1)];
        last = m.capturedEnd();
      }
      line = out + line.mid(last);
    }
    return lines.join('\n');
  }
  QRegularExpression constants("^([A-Z_][A-Z0-9_]*(?:, *[A-Z_][A-Z0-9_]*)*) = (\\d+(?:, *\\d+)*)$");
  std::size_t done = 0;
  for (QString& line : lines) {
    auto m = constants.match(line);
    if (!m.hasMatch()) continue;
    QStringList names = m.captured(1).split(',');
    QStringList values;
    for (QString& n : names) {
      n = n.trimmed();
      auto it = sizes.find(n);
      if (it == sizes.end()) break;
      values << QString::number(it->second);
    }
    if (values.size() != names.size()) continue;
    line = m.captured(1) + " = " + values.join(", ");
    done += static_cast<std::size_t>(names.size());
  }
  return done == sizes.size() ? lines.join('\n') : QString();
}

struct Proc {
  int exitCode = -1;
  QString output;
};

Proc runProcess(const QString& program, const QStringList& args) {
  QProcess p;
  p.setProcessChannelMode(QProcess::MergedChannels);
  p.start(program, args);
  p.waitForFinished(120000);
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAll())};
}

} // namespace

class TestPolybenchSamples : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void initTestCase() { QVERIFY(m_dir.isValid()); }

  void matchesC_data() {
    QTest::addColumn<QString>("kernel");
    QDir samples(QStringLiteral(LS_SOURCE_DIR) + "/samples/polybench");
    QStringList files = samples.entryList({"*.te", "*.py"}, QDir::Files, QDir::Name);
    QVERIFY2(files.size() >= 14, qPrintable(files.join(", ")));
    for (const QString& f : files) {
      QString kernel = f.section('.', 0, 0);
      QTest::newRow(qPrintable(kernel)) << kernel;
    }
  }

  void matchesC() {
    QFETCH(QString, kernel);
    const QString root = QStringLiteral(LS_SOURCE_DIR);
    QString sample = root + "/samples/polybench/" + kernel +
                     (QFile::exists(root + "/samples/polybench/" + kernel + ".te") ? ".te" : ".py");
    QString text = readText(sample);
    auto sizes = datasetSizes(text, "MINI");
    QVERIFY2(!sizes.empty(), "no MINI entry on the '# sizes:' line");
    QString resized = resize(text, sizes);
    QVERIFY2(!resized.isEmpty(), "a MINI size is not among the program's constants");
    QVERIFY2(resized != text, "resizing changed nothing");

    QDir work(m_dir.filePath(kernel));
    QVERIFY(work.mkpath("in") && work.mkpath("c_out") && work.mkpath("ref"));
    QString program = work.filePath(QFileInfo(sample).fileName());
    writeFile(program, resized.toStdString());

    // The C loop nest at the same sizes: its inputs and outputs.
    QString exe = work.filePath("kernel");
    QStringList cc = {"-std=c11", "-O1", "-ffp-contract=off", "-o", exe, root + "/bench/polybench/" + kernel + ".c"};
    for (const auto& [name, value] : sizes)
      cc << QString("-D%1=%2").arg(name).arg(value);
    Proc build = runProcess("cc", cc);
    QVERIFY2(build.exitCode == 0, qPrintable(build.output));
    Proc c = runProcess(exe, {"--dump-inputs", work.filePath("in"), "--save", work.filePath("c_out"), "--warmup", "0",
                              "--repeat", "1"});
    QVERIFY2(c.exitCode == 0, qPrintable(c.output));

    // The reference interpreter on the same inputs.
    auto check = runCli({"check", program, "--inputs", work.filePath("in"), "--save", work.filePath("ref")});
    QVERIFY2(check.exitCode == 0, qPrintable(check.out + check.err));
    QStringList outputs = QDir(work.filePath("ref")).entryList({"*.npy"}, QDir::Files, QDir::Name);
    QVERIFY(!outputs.isEmpty());
    for (const QString& name : outputs) {
      auto ref = loopscape::ir::loadNpy(work.filePath("ref/" + name).toStdString());
      QVERIFY2(ref, ref ? "" : ref.error().message.c_str());
      auto got = loopscape::ir::loadNpy(work.filePath("c_out/" + name).toStdString());
      QVERIFY2(got, qPrintable("the C program wrote no " + name));
      QCOMPARE(got->shape(), ref->shape());
      double scale = 0;
      for (std::int64_t i = 0; i < ref->numel(); ++i)
        scale = std::max(scale, std::abs(ref->getDouble(i)));
      auto bad = loopscape::ir::firstMismatch(*got, *ref, 1e-5 * scale, 1e-4);
      QVERIFY2(!bad, qPrintable(QString("%1[%2]: C %3, interpreter %4")
                                    .arg(name)
                                    .arg(bad ? bad->index : 0)
                                    .arg(bad ? bad->actual : 0)
                                    .arg(bad ? bad->expected : 0)));
    }

    // The isl scheduler's program computes the same.
    auto poly = runCli({"poly", program, "--auto", "--check"});
    QVERIFY2(poly.exitCode == 0, qPrintable(poly.out.right(2000) + poly.err));
    // And poly_optimize's, under a small machine model (so that MINI sizes are tiled, with
    // register tiles and vector loops).
    auto optimized = runCli({"poly", program, "--optimize", "--machine",
                             "l1=1K,l2=8K,vector=16,registers=16", "--check"});
    QVERIFY2(optimized.exitCode == 0, qPrintable(optimized.out.right(2000) + optimized.err));
  }

private:
  QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(TestPolybenchSamples)
#include "tst_polybench_samples.moc"
