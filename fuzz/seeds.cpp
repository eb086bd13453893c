// loopscape-fuzz-seeds SOURCE_DIR OUT_DIR: writes the seed corpora of the harnesses to
// OUT_DIR/<format>/ from the repository's own files, so that no copy is committed:
//   te            samples/*.te
//   trace_script  samples/traces/*.py and fuzz/seeds/trace_script/*.py, each with a first
//                 line `# program: NAME` naming the sample it applies to (fuzz_support.h)
//   trace_json    each trace script applied to its sample and printed as a JSON trace
//                 (a script named *_illegal* is refused by design and has none)
//   lsproj        a session file per sample, and per trace (source + JSON trace)
//   npy           arrays of every dtype and a few shapes, as format 1.0, 2.0 and 3.0
//   relay         samples/relay/*.relay
//   tvmscript     the samples as printed (tests/frontend/golden/samples/*.py) and the
//                 scheduled goldens of tests/schedule/golden and tests/poly/golden
//   records       a tuning log per trace (one measured record, one failed), and one log
//                 of every trace
// Exits 1 when a repository file cannot be read or a seed cannot be written.
#include "app/gui/session_file.h"
#include "core/frontend/te_frontend.h"
#include "core/ir/npy.h"
#include "core/poly/checked_schedule.h"
#include "core/schedule/trace_json.h"
#include "core/schedule/trace_script.h"
#include "core/tune/records.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace loopscape;

namespace {

std::string readText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "loopscape-fuzz-seeds: cannot read %s\n", path.c_str());
    std::exit(1);
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void writeBytes(const fs::path& path, const void* data, std::size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!out) {
    std::fprintf(stderr, "loopscape-fuzz-seeds: cannot write %s\n", path.c_str());
    std::exit(1);
  }
}

void writeText(const fs::path& path, const std::string& text) { writeBytes(path, text.data(), text.size()); }

std::vector<fs::path> filesIn(const fs::path& dir, const std::string& ext) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.is_regular_file() && entry.path().extension() == ext) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

/// The sample a trace named `<sample>_<what>.py` applies to: the longest sample name
/// that prefixes the file name ("" when none does).
std::string sampleOf(const std::string& traceStem, const std::map<std::string, std::string>& samples) {
  std::string best;
  for (const auto& [name, source] : samples)
    if (traceStem.starts_with(name + "_") && name.size() > best.size()) best = name;
  return best;
}

/// The .npy bytes of `array` with the header rewritten as format `major`.0 (2.0 and 3.0
/// have a 4-byte header length).
std::vector<std::byte> withVersion(const ir::NDArray& array, int major) {
  std::vector<std::byte> v1 = ir::encodeNpy(array);
  if (major == 1) return v1;
  const std::size_t headerLength = std::to_integer<std::size_t>(v1[8]) | std::to_integer<std::size_t>(v1[9]) << 8;
  std::vector<std::byte> out(v1.begin(), v1.begin() + 6);
  out.push_back(std::byte(major));
  out.push_back(std::byte(0));
  for (int i = 0; i < 4; ++i)
    out.push_back(std::byte((headerLength >> (8 * i)) & 0xff));
  out.insert(out.end(), v1.begin() + 10, v1.end());
  return out;
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: loopscape-fuzz-seeds SOURCE_DIR OUT_DIR\n");
    return 2;
  }
  const fs::path source(argv[1]);
  const fs::path out(argv[2]);
  for (const char* format : {"te", "trace_script", "trace_json", "lsproj", "npy", "relay", "tvmscript", "records"}) {
    fs::remove_all(out / format);
    fs::create_directories(out / format);
  }

  std::map<std::string, std::string> samples;
  for (const auto& path : filesIn(source / "samples", ".te")) {
    samples[path.stem().string()] = readText(path);
    fs::copy_file(path, out / "te" / path.filename());
    gui::SessionFile session;
    session.source = QString::fromStdString(samples[path.stem().string()]);
    session.sourcePath = QString::fromStdString(path.string());
    session.target = QStringLiteral("cpu-c");
    writeText(out / "lsproj" / (path.stem().string() + ".lsproj"), gui::writeSessionFile(session).toStdString());
  }

  for (const auto& path : filesIn(source / "samples" / "relay", ".relay"))
    fs::copy_file(path, out / "relay" / path.filename());
  for (const char* dir : {"frontend/golden/samples", "schedule/golden", "poly/golden"})
    for (const auto& path : filesIn(source / "tests" / dir, ".py"))
      fs::copy_file(path,
                    out / "tvmscript" /
                        (std::string(dir).substr(0, std::string(dir).find('/')) + "_" + path.filename().string()));

  std::string allRecords;
  std::vector<fs::path> traces = filesIn(source / "samples" / "traces", ".py");
  for (const auto& path : filesIn(source / "fuzz" / "seeds" / "trace_script", ".py"))
    traces.push_back(path);
  for (const auto& path : traces) {
    const std::string stem = path.stem().string();
    const std::string sample = sampleOf(stem, samples);
    if (sample.empty()) {
      std::fprintf(stderr, "loopscape-fuzz-seeds: %s names no sample (expected SAMPLE_what.py)\n", path.c_str());
      return 1;
    }
    const std::string script = readText(path);
    writeText(out / "trace_script" / (stem + ".py"), "# program: " + sample + "\n" + script);
    auto func = frontend::parseTe(samples[sample], sample + ".te");
    if (!func) {
      std::fprintf(stderr, "loopscape-fuzz-seeds: samples/%s.te does not parse\n", sample.c_str());
      return 1;
    }
    schedule::Schedule sch = poly::makeSchedule(*func);
    if (auto applied = schedule::applyScript(sch, script, path.string()); !applied) {
      if (stem.find("_illegal") != std::string::npos) continue; // refused by design
      std::fprintf(stderr, "loopscape-fuzz-seeds: %s does not apply to samples/%s.te (%s); no JSON seed\n",
                   path.c_str(), sample.c_str(), applied.error().message.c_str());
      continue;
    }
    const std::string json = schedule::traceToJson(sch.trace());
    writeText(out / "trace_json" / (stem + ".json"), "# program: " + sample + "\n" + json);
    tune::Record record;
    record.workload = tune::workloadKey(*func);
    record.func = func->name;
    record.target = "cpu-llvm";
    record.threads = 2;
    record.family = "tir";
    record.sketch = "tir(" + stem + ")";
    record.trace = sch.trace();
    record.seconds = {0.0021, 0.002, 0.0022};
    record.gflops = 12.5;
    record.verified = true;
    record.trial = 1;
    record.time = "2026-11-27T10:00:00Z";
    tune::Record failed = record;
    failed.seconds.clear();
    failed.gflops = 0;
    failed.verified = false;
    failed.error = "crash: the kernel crashed with SIGSEGV (segmentation fault)";
    failed.trial = 2;
    const std::string lines = tune::recordToJson(record) + "\n" + tune::recordToJson(failed) + "\n";
    writeText(out / "records" / (stem + ".log"), lines);
    allRecords += lines;
    gui::SessionFile session;
    session.source = QString::fromStdString(samples[sample]);
    session.traceJson = QString::fromStdString(json);
    session.target = QStringLiteral("cpu-c");
    writeText(out / "lsproj" / (stem + ".lsproj"), gui::writeSessionFile(session).toStdString());
  }

  writeText(out / "records" / "all.log", allRecords);

  const std::vector<std::pair<const char*, ir::DataType>> dtypes = {
      {"f2", ir::DataType::float16()}, {"f4", ir::DataType::float32()}, {"f8", ir::DataType::float64()},
      {"i1", ir::DataType::int8()},    {"i2", ir::DataType::int16()},   {"i4", ir::DataType::int32()},
      {"i8", ir::DataType::int64()},   {"u1", ir::DataType::uint8()},   {"b1", ir::DataType::boolean()}};
  const std::vector<std::pair<const char*, std::vector<std::int64_t>>> shapes = {
      {"scalar", {}}, {"empty", {0}}, {"vec3", {3}}, {"mat2x3", {2, 3}}, {"t2x1x2", {2, 1, 2}}};
  for (const auto& [descr, dtype] : dtypes)
    for (const auto& [shapeName, shape] : shapes) {
      ir::NDArray array(shape, dtype);
      array.fillRandom(7);
      const int major = shape.size() == 2 ? 2 : shape.size() == 3 ? 3 : 1;
      const auto bytes = withVersion(array, major);
      writeBytes(out / "npy" / (std::string(descr) + "_" + shapeName + ".npy"), bytes.data(), bytes.size());
    }
  std::printf("loopscape-fuzz-seeds: corpora written to %s\n", out.c_str());
  return 0;
}
