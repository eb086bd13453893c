// Ctrl-C for long commands (tune, relay run): while an InterruptGuard is alive, SIGINT
// only sets a flag; a watcher thread turns it into a stop request on token() (stop
// callbacks kill workers and compilers: not work for a signal handler).
#pragma once

#include <atomic>
#include <stop_token>
#include <thread>

namespace loopscape::cli {

class InterruptGuard {
public:
  InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
  ~InterruptGuard();
  std::stop_token token() const { return m_source.get_token(); }
  bool interrupted() const;

private:
  std::stop_source m_source;
  std::atomic<bool> m_done{false};
  std::thread m_watcher;
  void (*m_previous)(int) = nullptr;
};

} // namespace loopscape::cli
