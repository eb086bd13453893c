#include "core/ir/file_read.h"

#include "core/ir/resource_limits.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

namespace loopscape::ir {

namespace {
Unexpected cannotRead(std::string code, const std::string& path, std::string_view why) {
  return Unexpected(Diagnostic::error(std::move(code), fmt::format("cannot read '{}': {}", path, why)));
}

/// Closes the descriptor on every path out.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

const char* nonRegularKind(mode_t mode) {
  if (S_ISDIR(mode)) return "it is a directory";
  if (S_ISCHR(mode)) return "it is a character device, not a regular file";
  if (S_ISBLK(mode)) return "it is a block device, not a regular file";
  if (S_ISSOCK(mode)) return "it is a socket, not a regular file";
  return nullptr; // regular files and pipes are read
}
} // namespace

std::string formatBytes(std::int64_t bytes) {
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return fmt::format("{} bytes", bytes);
  double v = static_cast<double>(bytes);
  int unit = -1;
  while (v >= 1024 && unit < 5) {
    v /= 1024;
    ++unit;
  }
  return fmt::format("{:.4g} {}", v, kUnits[unit]);
}

Expected<std::string> readFileBounded(const std::string& path, std::int64_t maxBytes, std::string_view what) {
  // The type is looked at before opening: opening a FIFO with no writer would block.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return cannotRead("file.cannot-read", path, std::strerror(errno));
  if (const char* kind = nonRegularKind(st.st_mode)) return cannotRead("file.not-regular", path, kind);
  auto tooLarge = [&] {
    return cannotRead(
        "file.too-large", path,
        fmt::format("it is larger than {} ({} bytes), the limit for {}", formatBytes(maxBytes), maxBytes, what));
  };
  if (S_ISREG(st.st_mode) && st.st_size > maxBytes) return tooLarge();
  Fd in{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (in.fd < 0) return cannotRead("file.cannot-read", path, std::strerror(errno));
  // Files in /proc claim size 0 and pipes have none: read in chunks up to the limit.
  std::string text;
  char chunk[65536];
  while (true) {
    const ssize_t n = ::read(in.fd, chunk, sizeof chunk);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      return cannotRead("file.cannot-read", path, std::strerror(errno));
    }
    if (static_cast<std::int64_t>(text.size()) + n > maxBytes) return tooLarge();
    text.append(chunk, static_cast<std::size_t>(n));
  }
  return text;
}

Expected<std::string> readSourceFile(const std::string& path) {
  return readFileBounded(path, resourceLimits().maxSourceFileBytes, "program, trace and session files");
}

} // namespace loopscape::ir
