// Hardware performance counters (cycles, retired instructions, last-level cache misses)
// read through Linux perf_event_open around a measured region. Counters are optional:
// many VMs expose no PMU and many systems forbid perf events, so opening them never fails
// hard; it yields `available == false` and a one-line note saying exactly why, e.g.
// "hardware counters unavailable: perf_event_open failed with ENOENT (no PMU in this VM)".
// Counters count the calling thread and every thread it creates while they are enabled
// (inherit), user space only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace loopscape::codegen {

struct CounterValues {
  std::uint64_t cycles = 0;
  std::uint64_t instructions = 0;
  std::optional<std::uint64_t> cacheMisses; ///< absent when only that event could not be opened
};

/// The outcome of a counted region: values when the counters could be opened, else a note.
struct CounterReport {
  bool available = false;
  CounterValues values;
  std::string note; ///< why they are unavailable (empty when available)
};

/// "hardware counters unavailable: perf_event_open failed with <ERRNO NAME> (<reason>)",
/// the reason chosen from the errno value (ENOENT/ENODEV/EOPNOTSUPP: no PMU in this VM;
/// EACCES/EPERM: perf_event_paranoid; ENOSYS: kernel without perf events).
std::string countersUnavailableNote(int errnoValue);

/// A group of counters on the calling thread (and threads it spawns while enabled).
/// Not copyable; closes its descriptors on destruction.
class HardwareCounters {
public:
  HardwareCounters();
  ~HardwareCounters();
  HardwareCounters(const HardwareCounters&) = delete;
  HardwareCounters& operator=(const HardwareCounters&) = delete;

  bool available() const { return m_cyclesFd >= 0; }
  /// Empty when available.
  const std::string& note() const { return m_note; }
  /// Resets and enables the counters (no-op when unavailable).
  void start();
  /// Disables the counters and returns the report for the region since start().
  CounterReport stop();

private:
  int m_cyclesFd = -1;
  int m_instructionsFd = -1;
  int m_cacheMissesFd = -1;
  std::string m_note;
};

} // namespace loopscape::codegen
