// The protocol between the isolated runner (runner.h) and `loopscape-worker`, kept in one
// place so both sides agree. The parent puts every argument buffer into one shared-memory
// file (memfd), each at a 64-byte-aligned offset, and starts the worker with
//
//   loopscape-worker --shm-bytes B
//                    (--library PATH --symbol NAME [--buffer OFFSET:BYTES]... [--size VALUE]...)...
//                    --warmup W --repeat R --number N --min-repeat-ms M [--counters]
//
// Each `--library` starts one call of the request; a request of several calls (a
// compiled model: one kernel per fused group over one arena of tensors) runs them in
// order, and that sequence is what is timed as one "kernel call".
// with the shared memory on descriptor kWorkerShmFd and the write end of the result pipe
// on kWorkerResultFd. The worker maps the memory, dlopens the library, calls
//   void NAME(void* buffer0, ..., int64_t size0, ...)
// (buffers in order, then sizes) as profile_timer.h describes, and writes its reply, one
// record per line, to the result pipe:
//   ok | number N | repeat <seconds, C99 hex float> (one per repeat) |
//   counters <cycles> <instructions> <cache misses or -> | nocounters <note>
// followed, for a request of several calls, by `call <i> <seconds>` (the median time of
// call i over every run of the sequence), or, when it cannot run the kernel at all (library, symbol, mapping), a single
// line
//   error <code> <message>
// and exits with status kWorkerExitError. A kernel crash is a signal the parent decodes.
// The last kWorkerProgressBytes of the shared memory hold a progress counter (a uint64
// at shmBytes - kWorkerProgressBytes) that the worker increments after every kernel
// call, so the parent can apply its time limit to each call rather than to the whole run.
#pragma once

#include "core/codegen/profile_timer.h"
#include "core/ir/diagnostic.h"

#include <cstdint>
#include <string>
#include <vector>

namespace loopscape::codegen {

inline constexpr int kWorkerShmFd = 3;
inline constexpr int kWorkerResultFd = 4;
inline constexpr int kWorkerExitError = 3;
/// The most arguments (buffers + sizes) a kernel may take through the worker.
inline constexpr int kWorkerMaxArgs = 48;
/// Bytes reserved at the end of the shared memory for the progress counter.
inline constexpr std::uint64_t kWorkerProgressBytes = 64;

struct WorkerBuffer {
  std::uint64_t offset = 0;
  std::uint64_t bytes = 0;
};

/// One function call of a request: `void symbol(buffer0, ..., size0, ...)` of `library`.
struct WorkerCall {
  std::string library;
  std::string symbol;
  std::vector<WorkerBuffer> buffers;
  std::vector<std::int64_t> sizes;
};

struct WorkerRequest {
  std::vector<WorkerCall> calls; ///< run in order; at least one
  std::uint64_t shmBytes = 0;
  TimingOptions timing;
};

/// The worker's argv (without argv[0]).
std::vector<std::string> encodeWorkerArgs(const WorkerRequest& request);
/// Parses the worker's argv (without argv[0]); code "worker.bad-arguments".
Expected<WorkerRequest> decodeWorkerArgs(const std::vector<std::string>& args);

/// The reply text for a successful run.
std::string encodeWorkerReply(const TimingResult& timing);
/// The reply text for a failure before or around the kernel (not a crash).
std::string encodeWorkerError(const Diagnostic& d);
/// Parses a reply: a TimingResult, or the worker's Diagnostic for an `error` line, or
/// "runner.bad-reply" when the text is truncated or malformed.
Expected<TimingResult> decodeWorkerReply(const std::string& text);

} // namespace loopscape::codegen
