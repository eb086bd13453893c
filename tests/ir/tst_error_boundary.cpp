// The top-level error boundary of the programs: an escaped exception becomes
// "PROGRAM: internal error: WHAT" plus a line asking to report it, with exit status 1,
// also when it reaches std::terminate (checked in a forked child: no abort, no core).
#include "core/ir/error_boundary.h"

#include <QtTest>

#include <new>
#include <stdexcept>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace loopscape::ir;

namespace {
const QString kReport = QStringLiteral("t: this is a bug in Loopscape; please report it with the command line and the "
                                       "input files that caused it\n");

QString report(std::exception_ptr e) { return QString::fromStdString(internalErrorReport("t", e)); }
} // namespace

class TestErrorBoundary : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void reportsSayWhatEscaped() {
    QCOMPARE(report(std::make_exception_ptr(std::runtime_error("boom\nagain"))),
             "t: internal error: boom\\nagain\n" + kReport);
    QCOMPARE(report(std::make_exception_ptr(std::bad_alloc())),
             "t: internal error: out of memory (std::bad_alloc): the input needs more memory than this machine "
             "gives; use smaller sizes or a lower --max-memory\n" +
                 kReport);
    QCOMPARE(report(std::make_exception_ptr(42)), "t: internal error: an exception of unknown type\n" + kReport);
    QCOMPARE(report(nullptr),
             "t: internal error: the program ended without an exception to report (std::terminate)\n" + kReport);
  }

  void boundaryReturnsTheExitStatus() {
    QCOMPARE(runWithErrorBoundary("t", [] { return 7; }), 7);
    QCOMPARE(runWithErrorBoundary("t", []() -> int { throw std::logic_error("escaped"); }), kInternalErrorExit);
  }

  void terminateReportsAndExitsWithOne() {
    int fds[2];
    QCOMPARE(::pipe(fds), 0);
    const pid_t pid = ::fork();
    QVERIFY(pid >= 0);
    if (pid == 0) {
      ::dup2(fds[1], 2);
      installTerminateHandler("child");
      // An exception escaping a thread calls std::terminate.
      std::thread([] { throw std::runtime_error("from a thread"); }).join();
      ::_exit(0);
    }
    ::close(fds[1]);
    QByteArray err;
    char buf[512];
    for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;)
      err.append(buf, n);
    ::close(fds[0]);
    int status = 0;
    QCOMPARE(::waitpid(pid, &status, 0), pid);
    QVERIFY2(WIFEXITED(status), "the child was killed by a signal (an abort)");
    QCOMPARE(WEXITSTATUS(status), 1);
    QCOMPARE(QString::fromUtf8(err), QString("child: internal error: from a thread\n"
                                             "child: this is a bug in Loopscape; please report it with the command "
                                             "line and the input files that caused it\n"));
  }
};

QTEST_GUILESS_MAIN(TestErrorBoundary)
#include "tst_error_boundary.moc"
