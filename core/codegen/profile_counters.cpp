#include "core/codegen/profile_counters.h"

#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace loopscape::codegen {

namespace {

const char* errnoName(int e) {
  switch (e) {
  case ENOENT: return "ENOENT";
  case ENODEV: return "ENODEV";
  case EOPNOTSUPP: return "EOPNOTSUPP";
  case EACCES: return "EACCES";
  case EPERM: return "EPERM";
  case ENOSYS: return "ENOSYS";
  case EINVAL: return "EINVAL";
  case EMFILE: return "EMFILE";
  case EBUSY: return "EBUSY";
  default: return nullptr;
  }
}

std::string paranoidLevel() {
  FILE* f = std::fopen("/proc/sys/kernel/perf_event_paranoid", "r");
  if (!f) return "unknown";
  int level = 0;
  const bool ok = std::fscanf(f, "%d", &level) == 1;
  std::fclose(f);
  return ok ? std::to_string(level) : "unknown";
}

int openCounter(std::uint64_t type, std::uint64_t config, int groupFd) {
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.type = static_cast<std::uint32_t>(type);
  attr.size = sizeof attr;
  attr.config = config;
  attr.disabled = groupFd < 0 ? 1 : 0;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  attr.inherit = 1;
  attr.read_format = 0;
  return static_cast<int>(syscall(SYS_perf_event_open, &attr, 0, -1, groupFd, PERF_FLAG_FD_CLOEXEC));
}

std::uint64_t readCounter(int fd) {
  std::uint64_t value = 0;
  if (fd < 0 || ::read(fd, &value, sizeof value) != static_cast<ssize_t>(sizeof value)) return 0;
  return value;
}

} // namespace

std::string countersUnavailableNote(int e) {
  const char* name = errnoName(e);
  const std::string errText = name ? std::string(name) : fmt::format("errno {}", e);
  std::string reason;
  switch (e) {
  case ENOENT:
  case ENODEV:
  case EOPNOTSUPP: reason = "no PMU in this VM"; break;
  case EACCES:
  case EPERM: reason = fmt::format("not permitted: /proc/sys/kernel/perf_event_paranoid is {}", paranoidLevel()); break;
  case ENOSYS: reason = "the kernel has no perf events"; break;
  default: reason = std::strerror(e); break;
  }
  return fmt::format("hardware counters unavailable: perf_event_open failed with {} ({})", errText, reason);
}

HardwareCounters::HardwareCounters() {
  // Inherited counters cannot be read as a group, so each counter is its own leader.
  m_cyclesFd = openCounter(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, -1);
  if (m_cyclesFd < 0) {
    m_note = countersUnavailableNote(errno);
    return;
  }
  m_instructionsFd = openCounter(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, -1);
  if (m_instructionsFd < 0) {
    m_note = countersUnavailableNote(errno);
    ::close(m_cyclesFd);
    m_cyclesFd = -1;
    return;
  }
  m_cacheMissesFd = openCounter(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, -1);
}

HardwareCounters::~HardwareCounters() {
  for (int fd : {m_cyclesFd, m_instructionsFd, m_cacheMissesFd})
    if (fd >= 0) ::close(fd);
}

void HardwareCounters::start() {
  for (int fd : {m_cyclesFd, m_instructionsFd, m_cacheMissesFd}) {
    if (fd < 0) continue;
    ioctl(fd, PERF_EVENT_IOC_RESET, 0);
    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
  }
}

CounterReport HardwareCounters::stop() {
  CounterReport report;
  if (!available()) {
    report.note = m_note;
    return report;
  }
  for (int fd : {m_cyclesFd, m_instructionsFd, m_cacheMissesFd})
    if (fd >= 0) ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
  report.available = true;
  report.values.cycles = readCounter(m_cyclesFd);
  report.values.instructions = readCounter(m_instructionsFd);
  if (m_cacheMissesFd >= 0) report.values.cacheMisses = readCounter(m_cacheMissesFd);
  return report;
}

} // namespace loopscape::codegen
