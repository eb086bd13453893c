// Reading a whole input file (a program, a trace, a session) with a size limit. The file
// is read in bounded chunks whatever it claims to be, so a device or a pipe that never
// ends (/dev/urandom, /dev/zero) costs at most the limit, never all memory; directories
// and devices are refused up front with the reason. Every failure is a Diagnostic
// "file.*" whose message starts with "cannot read 'PATH': ".
#pragma once

#include "core/ir/diagnostic.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace loopscape::ir {

/// The contents of `path`, at most `maxBytes` long. Codes: "file.cannot-read" (cannot be
/// opened or read: the system's reason), "file.not-regular" (a directory, a device or a
/// socket: says which; pipes are read), "file.too-large" (more than `maxBytes`: names the
/// limit; `what` says which limit it is, e.g. "program, trace and session files").
Expected<std::string> readFileBounded(const std::string& path, std::int64_t maxBytes, std::string_view what);

/// readFileBounded with resourceLimits().maxSourceFileBytes, for program, trace and session files.
Expected<std::string> readSourceFile(const std::string& path);

/// "16 MiB", "8 GiB", "1.5 KiB", "512 bytes": a byte count for messages.
std::string formatBytes(std::int64_t bytes);

} // namespace loopscape::ir
