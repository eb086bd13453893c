// WorkerPool: a few threads that live as long as the pool and run the iterations of a
// loop together with the caller. The search makes its candidates on them: each one is a
// replay of its sketch, a polyhedral one a run of poly_optimize, and the isl analyses a
// thread caches (program_analysis.h) stay with the thread from one round to the next.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace loopscape::tune {

class WorkerPool {
public:
  /// `threads` in all, the caller's included (at least 1: then everything runs on the caller).
  explicit WorkerPool(int threads);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  /// body(0) ... body(n - 1), each once, on the pool's threads and the caller's; returns
  /// when all have returned. `body` must not throw.
  void run(std::size_t n, const std::function<void(std::size_t)>& body);

  int threads() const { return static_cast<int>(m_threads.size()) + 1; }

private:
  void work();
  void drain(const std::function<void(std::size_t)>& body, std::size_t n);

  std::mutex m_mutex;
  std::condition_variable m_wake;
  std::condition_variable m_done;
  const std::function<void(std::size_t)>* m_body = nullptr; ///< the running loop's (null between loops)
  std::size_t m_count = 0;
  std::atomic<std::size_t> m_next{0};
  int m_busy = 0;                 ///< pool threads inside the running loop
  std::uint64_t m_generation = 0; ///< loops started
  bool m_stopping = false;
  std::vector<std::thread> m_threads;
};

} // namespace loopscape::tune
