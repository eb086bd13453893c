#include "cli_test_helpers.h"

#include <QProcess>

#include <fstream>

namespace loopscape::testing {

CliRun runCli(const QStringList& args) {
  QProcess p;
  p.setWorkingDirectory(LS_SOURCE_DIR);
  p.start(LS_CLI_PATH, args);
  p.waitForFinished(120000);
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardOutput()),
          QString::fromUtf8(p.readAllStandardError())};
}

void writeFile(const QString& path, const std::string& text) {
  std::ofstream out(path.toStdString());
  out << text;
}

} // namespace loopscape::testing
