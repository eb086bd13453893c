#include "core/codegen/runner_protocol.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>
#include <sstream>

namespace loopscape::codegen {

namespace {

Diagnostic badArgs(const std::string& message) { return Diagnostic::error("worker.bad-arguments", message); }

template <typename T> bool parseNumber(const std::string& text, T& out) {
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && ptr == text.data() + text.size();
}

std::string hexFloat(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", v);
  return buf;
}

} // namespace

std::vector<std::string> encodeWorkerArgs(const WorkerRequest& r) {
  std::vector<std::string> args = {"--shm-bytes", std::to_string(r.shmBytes)};
  for (const auto& call : r.calls) {
    args.insert(args.end(), {"--library", call.library, "--symbol", call.symbol});
    for (const auto& b : call.buffers) {
      args.push_back("--buffer");
      args.push_back(fmt::format("{}:{}", b.offset, b.bytes));
    }
    for (auto s : call.sizes) {
      args.push_back("--size");
      args.push_back(std::to_string(s));
    }
  }
  args.insert(args.end(),
              {"--warmup", std::to_string(r.timing.warmup), "--repeat", std::to_string(r.timing.repeat), "--number",
               std::to_string(r.timing.number), "--min-repeat-ms", hexFloat(r.timing.minRepeatMs)});
  if (r.timing.slowCutoffSeconds > 0) args.insert(args.end(), {"--slow-cutoff", hexFloat(r.timing.slowCutoffSeconds)});
  if (r.timing.counters) args.push_back("--counters");
  return args;
}

Expected<WorkerRequest> decodeWorkerArgs(const std::vector<std::string>& args) {
  WorkerRequest r;
  r.timing.counters = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& key = args[i];
    if (key == "--counters") {
      r.timing.counters = true;
      continue;
    }
    if (i + 1 >= args.size()) return Unexpected(badArgs(fmt::format("option {} needs a value", key)));
    const std::string& value = args[++i];
    bool ok = true;
    if (key == "--library") {
      r.calls.push_back({.library = value});
    } else if ((key == "--symbol" || key == "--buffer" || key == "--size") && r.calls.empty()) {
      return Unexpected(badArgs(fmt::format("{} before the first --library", key)));
    } else if (key == "--symbol") {
      r.calls.back().symbol = value;
    } else if (key == "--shm-bytes") {
      ok = parseNumber(value, r.shmBytes);
    } else if (key == "--buffer") {
      const auto colon = value.find(':');
      WorkerBuffer b;
      ok = colon != std::string::npos && parseNumber(value.substr(0, colon), b.offset) &&
           parseNumber(value.substr(colon + 1), b.bytes);
      r.calls.back().buffers.push_back(b);
    } else if (key == "--size") {
      std::int64_t s = 0;
      ok = parseNumber(value, s);
      r.calls.back().sizes.push_back(s);
    } else if (key == "--warmup") {
      ok = parseNumber(value, r.timing.warmup) && r.timing.warmup >= 0;
    } else if (key == "--repeat") {
      ok = parseNumber(value, r.timing.repeat) && r.timing.repeat >= 1;
    } else if (key == "--number") {
      ok = parseNumber(value, r.timing.number) && r.timing.number >= 0;
    } else if (key == "--min-repeat-ms") {
      char* end = nullptr;
      r.timing.minRepeatMs = std::strtod(value.c_str(), &end);
      ok = end && *end == '\0' && r.timing.minRepeatMs >= 0;
    } else if (key == "--slow-cutoff") {
      char* end = nullptr;
      r.timing.slowCutoffSeconds = std::strtod(value.c_str(), &end);
      ok = end && *end == '\0' && r.timing.slowCutoffSeconds >= 0;
    } else {
      return Unexpected(badArgs(fmt::format("unknown option {}", key)));
    }
    if (!ok) return Unexpected(badArgs(fmt::format("bad value '{}' for {}", value, key)));
  }
  if (r.calls.empty()) return Unexpected(badArgs("--library and --symbol are required"));
  if (r.shmBytes < kWorkerProgressBytes)
    return Unexpected(badArgs(fmt::format("{} shared bytes leave no room for the progress counter", r.shmBytes)));
  for (const auto& call : r.calls) {
    if (call.library.empty() || call.symbol.empty()) return Unexpected(badArgs("--library and --symbol are required"));
    for (const auto& b : call.buffers)
      if (b.offset > r.shmBytes - kWorkerProgressBytes || b.bytes > r.shmBytes - kWorkerProgressBytes - b.offset)
        return Unexpected(badArgs(fmt::format("buffer {}:{} lies outside the {} shared argument bytes", b.offset,
                                              b.bytes, r.shmBytes - kWorkerProgressBytes)));
    if (call.buffers.size() + call.sizes.size() > static_cast<std::size_t>(kWorkerMaxArgs))
      return Unexpected(badArgs(fmt::format("{} kernel arguments; the worker passes at most {}",
                                            call.buffers.size() + call.sizes.size(), kWorkerMaxArgs)));
  }
  return r;
}

std::string encodeWorkerReply(const TimingResult& t) {
  std::string out = "ok\n";
  out += fmt::format("number {}\n", t.number);
  for (double s : t.perRepeat)
    out += fmt::format("repeat {}\n", hexFloat(s));
  if (t.countersRequested) {
    if (t.counters.available)
      out += fmt::format("counters {} {} {}\n", t.counters.values.cycles, t.counters.values.instructions,
                         t.counters.values.cacheMisses ? std::to_string(*t.counters.values.cacheMisses) : "-");
    else
      out += fmt::format("nocounters {}\n", t.counters.note);
  }
  for (std::size_t i = 0; i < t.callSeconds.size(); ++i)
    out += fmt::format("call {} {}\n", i, hexFloat(t.callSeconds[i]));
  out += "end\n";
  return out;
}

std::string encodeWorkerError(const Diagnostic& d) {
  std::string message = d.message;
  for (char& c : message)
    if (c == '\n') c = ' ';
  return fmt::format("error {} {}\n", d.code, message);
}

Expected<TimingResult> decodeWorkerReply(const std::string& text) {
  auto bad = [&](const std::string& why) {
    return Unexpected(Diagnostic::error("runner.bad-reply", fmt::format("the worker's reply is malformed: {}", why)));
  };
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line)) return bad("it is empty");
  if (line.starts_with("error ")) {
    const std::string rest = line.substr(6);
    const auto space = rest.find(' ');
    return Unexpected(
        Diagnostic::error(rest.substr(0, space), space == std::string::npos ? "" : rest.substr(space + 1)));
  }
  if (line != "ok") return bad(fmt::format("unexpected first line '{}'", line));
  TimingResult t;
  bool ended = false;
  while (std::getline(in, line)) {
    const auto space = line.find(' ');
    const std::string key = line.substr(0, space);
    const std::string value = space == std::string::npos ? "" : line.substr(space + 1);
    if (key == "number") {
      if (!parseNumber(value, t.number)) return bad(line);
    } else if (key == "repeat") {
      char* end = nullptr;
      const double s = std::strtod(value.c_str(), &end);
      if (!end || *end != '\0') return bad(line);
      t.perRepeat.push_back(s);
    } else if (key == "counters") {
      t.countersRequested = true;
      t.counters.available = true;
      std::istringstream fields(value);
      std::string misses;
      if (!(fields >> t.counters.values.cycles >> t.counters.values.instructions >> misses)) return bad(line);
      if (misses != "-") t.counters.values.cacheMisses = std::stoull(misses);
    } else if (key == "call") {
      std::istringstream fields(value);
      std::size_t index = 0;
      std::string seconds;
      char* end = nullptr;
      if (!(fields >> index >> seconds) || index != t.callSeconds.size()) return bad(line);
      t.callSeconds.push_back(std::strtod(seconds.c_str(), &end));
      if (!end || *end != '\0') return bad(line);
    } else if (key == "nocounters") {
      t.countersRequested = true;
      t.counters.note = value;
    } else if (key == "end") {
      ended = true;
      break;
    } else {
      return bad(fmt::format("unknown record '{}'", line));
    }
  }
  if (!ended) return bad("it is truncated");
  if (t.perRepeat.empty() || t.number < 1) return bad("no timed repeat");
  return t;
}

} // namespace loopscape::codegen
