#include "interrupt_guard.h"

#include <chrono>
#include <csignal>

namespace loopscape::cli {

namespace {
std::atomic<bool> g_interrupted{false};
extern "C" void onInterrupt(int) { g_interrupted.store(true); }
} // namespace

InterruptGuard::InterruptGuard() {
  g_interrupted.store(false);
  m_previous = std::signal(SIGINT, onInterrupt);
  m_watcher = std::thread([this] {
    while (!m_done.load()) {
      if (g_interrupted.load()) {
        m_source.request_stop();
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });
}

InterruptGuard::~InterruptGuard() {
  m_done.store(true);
  m_watcher.join();
  std::signal(SIGINT, m_previous == SIG_ERR ? SIG_DFL : m_previous);
}

bool InterruptGuard::interrupted() const { return g_interrupted.load(); }

} // namespace loopscape::cli
