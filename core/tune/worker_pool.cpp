#include "core/tune/worker_pool.h"

namespace loopscape::tune {

WorkerPool::WorkerPool(int threads) {
  for (int t = 1; t < threads; ++t)
    m_threads.emplace_back([this] { work(); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(m_mutex);
    m_stopping = true;
  }
  m_wake.notify_all();
  for (auto& t : m_threads)
    t.join();
}

void WorkerPool::drain(const std::function<void(std::size_t)>& body, std::size_t n) {
  for (std::size_t i = m_next++; i < n; i = m_next++)
    body(i);
}

void WorkerPool::run(std::size_t n, const std::function<void(std::size_t)>& body) {
  if (n == 0) return;
  if (m_threads.empty() || n == 1) {
    for (std::size_t i = 0; i < n; ++i)
      body(i);
    return;
  }
  {
    std::lock_guard lock(m_mutex);
    m_body = &body;
    m_count = n;
    m_next = 0;
    ++m_generation;
  }
  m_wake.notify_all();
  drain(body, n);
  std::unique_lock lock(m_mutex);
  // A thread that wakes after this is cleared finds no loop and goes back to sleep.
  m_body = nullptr;
  m_count = 0;
  m_done.wait(lock, [&] { return m_busy == 0; });
}

void WorkerPool::work() {
  std::uint64_t seen = 0;
  std::unique_lock lock(m_mutex);
  for (;;) {
    m_wake.wait(lock, [&] { return m_stopping || m_generation != seen; });
    if (m_stopping) return;
    seen = m_generation;
    if (!m_body) continue;
    const auto* body = m_body;
    const std::size_t n = m_count;
    ++m_busy;
    lock.unlock();
    drain(*body, n);
    lock.lock();
    if (--m_busy == 0) m_done.notify_all();
  }
}

} // namespace loopscape::tune
