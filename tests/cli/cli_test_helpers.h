// Shared helpers of the loopscape-cli tests: run the real executable (LS_CLI_PATH, set per
// test target) from the repository root and capture its exit status, stdout and stderr.
#pragma once

#include <QString>
#include <QStringList>

#include <string>

namespace loopscape::testing {

struct CliRun {
  int exitCode = -1; ///< -1 when the process crashed or did not finish
  QString out;
  QString err;
};

/// Runs `loopscape-cli args...` in LS_SOURCE_DIR and waits up to two minutes.
CliRun runCli(const QStringList& args);

/// Writes `text` to `path` (replacing it).
void writeFile(const QString& path, const std::string& text);

} // namespace loopscape::testing
