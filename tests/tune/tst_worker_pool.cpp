// The search's worker pool (core/tune/worker_pool.h): every iteration of a loop runs
// exactly once, on the caller and the pool's threads, loop after loop (the wake-up of one
// loop never runs an iteration of the next or of a finished one); the threads stay the
// same from one loop to the next (their thread_local caches survive); one thread in all
// runs everything on the caller.
#include "core/tune/worker_pool.h"

#include <QtTest>

#include <atomic>
#include <mutex>
#include <set>

using namespace loopscape;

class TstWorkerPool : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void everyIterationOnce() {
    tune::WorkerPool pool(3);
    QCOMPARE(pool.threads(), 3);
    std::mutex mutex;
    std::set<std::thread::id> seen;
    for (std::size_t n : {0, 1, 2, 7, 64, 1000, 3, 0, 5}) {
      for (int loop = 0; loop < 50; ++loop) {
        std::vector<std::atomic<int>> runs(n);
        pool.run(n, [&](std::size_t i) {
          runs[i].fetch_add(1);
          std::lock_guard lock(mutex);
          seen.insert(std::this_thread::get_id());
        });
        for (std::size_t i = 0; i < n; ++i)
          QCOMPARE(runs[i].load(), 1);
      }
    }
    // The caller and at most the two pool threads, the same ones throughout.
    QVERIFY(seen.contains(std::this_thread::get_id()));
    QVERIFY(seen.size() <= 3);
  }

  void oneThreadRunsOnTheCaller() {
    tune::WorkerPool pool(1);
    QCOMPARE(pool.threads(), 1);
    std::vector<std::size_t> order;
    pool.run(5, [&](std::size_t i) {
      QCOMPARE(std::this_thread::get_id(), mainThread);
      order.push_back(i);
    });
    QCOMPARE(order, (std::vector<std::size_t>{0, 1, 2, 3, 4}));
  }

private:
  std::thread::id mainThread = std::this_thread::get_id();
};

QTEST_GUILESS_MAIN(TstWorkerPool)
#include "tst_worker_pool.moc"
