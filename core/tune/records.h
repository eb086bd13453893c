// Tuning records: one JSON object per line, one line per measured candidate, appended as
// the search measures them (a log that a later search resumes and that `--trace
// best:LOG` queries). A line (written without spaces, here wrapped):
//
//   {"workload":"matmul:3f2a9c1e7b5d0a44","func":"matmul","target":"cpu-llvm",
//    "options":{"threads":2,"fast_math":false},"family":"tir",
//    "sketch":"tir(C: tile write@1)","trace":[[...instructions...],[...decisions...]],
//    "seconds":[0.00141,0.00139,0.0014],"gflops":1523.1,"gbps":8.9,"error":"",
//    "verified":true,"trial":17,"time":"2026-11-27T10:12:31Z","version":"0.1.0"}
//
// `trace` is the trace's JSON form (trace_json.h); `seconds` the per-call time of each
// repeat (empty for a failed candidate); `gflops` the program's floating-point work and
// `gbps` its compulsory bytes (every parameter once, codegen::compulsoryBytes) over the
// median time (0 for a failure; a line without `gbps` reads as 0); `error` is empty on
// success, otherwise "<kind>: <message>" with kind build, run, timeout, crash, wrong or
// illegal; `verified` says the result was compared with the reference (the search
// verifies each new best).
#pragma once

#include "core/ir/diagnostic.h"
#include "core/ir/interpreter.h"
#include "core/ir/prim_func.h"
#include "core/schedule/trace.h"

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace loopscape::tune {

/// A speed as the tools print it: GFLOP/s, or GB/s of the compulsory traffic for a program
/// without floating-point work (a copy, a pad, integer arithmetic), whose GFLOP/s is 0.
struct Rate {
  double value = 0;
  const char* unit = "GFLOP/s";
};

/// GFLOP/s unless it is 0 and `gbps` is not, else GB/s.
inline Rate rateOf(double gflops, double gbps) {
  return gflops <= 0 && gbps > 0 ? Rate{gbps, "GB/s"} : Rate{gflops, "GFLOP/s"};
}

/// The workload key: the function's name and the structural hash of the PrimFunc (shapes
/// and dtypes included), plus the bound sizes of a dynamic-shape program:
/// "matmul:3f2a9c1e7b5d0a44" or "dense:11aa...[n=64]".
std::string workloadKey(const ir::PrimFunc& func, const ir::SizeBindings& sizes = {});

struct Record {
  std::string workload;
  std::string func;
  std::string target;
  int threads = 0;
  bool fastMath = false;
  std::string family; ///< "tir" or "poly"
  std::string sketch; ///< the sketch's name (space.h)
  schedule::Trace trace;
  std::vector<double> seconds; ///< per-call time of each repeat (a verified new best: of two runs)
  double gflops = 0;
  double gbps = 0; ///< compulsory bytes per second, in GB/s
  std::string error;
  bool verified = false;
  int trial = 0;
  std::string time;
  std::string version;

  bool ok() const { return error.empty() && !seconds.empty(); }
  /// The median of `seconds` (infinity for a failed record).
  double medianSeconds() const;
  /// What a cost model learns from the record: GFLOP/s, or for a program without
  /// floating-point work (a pad, a copy) calls per nanosecond, so that faster is always
  /// more; 0 for a failure.
  double throughput() const;
  /// Its speed as people read it (rateOf).
  Rate rate() const { return rateOf(gflops, gbps); }
  /// A record of `workload` measured on `target` with `threads` threads.
  bool isFor(const std::string& workload, const std::string& target, int threads) const {
    return this->workload == workload && this->target == target && this->threads == threads;
  }
};

/// One line of JSON (no newline).
std::string recordToJson(const Record& record);
/// Parses a line; errors "tune.record-malformed" name `file`:`line`.
Expected<Record> recordFromJson(std::string_view text, const std::string& file, int line);

/// Every record of the log at `path` (a missing file has none). A malformed line is an
/// error naming its line, unless it is the last line and incomplete (a search stopped
/// while writing), which is skipped.
Expected<std::vector<Record>> readRecords(const std::string& path);

/// The fastest successful record of `workload` on `target` (any target when empty).
std::optional<Record> bestRecord(const std::vector<Record>& records, const std::string& workload,
                                 const std::string& target = {});

/// Appends records to a log, one flushed line each.
class RecordWriter {
public:
  RecordWriter() = default;
  RecordWriter(const RecordWriter&) = delete;
  RecordWriter& operator=(const RecordWriter&) = delete;
  ~RecordWriter();
  /// Opens `path` for appending ("tune.records-unwritable" when it cannot).
  Expected<void> open(const std::string& path);
  bool isOpen() const { return m_file != nullptr; }
  Expected<void> append(const Record& record);

private:
  std::FILE* m_file = nullptr;
  std::string m_path;
};

/// "2026-11-27T10:12:31Z" for now.
std::string utcTimestamp();

} // namespace loopscape::tune
