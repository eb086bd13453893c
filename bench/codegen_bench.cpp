// The code generation benchmark of issue 5 (bench/README.md has the measured table and
// how to build and run it). In one run:
//   * matmul 1024^3 fp32 (samples/matmul.te) against OpenBLAS cblas_sgemm;
//   * the ResNet-18 3x3 layer (samples/conv2d_nchw.te: 1x64x56x56, 64 filters, pad 1)
//     against oneDNN's direct convolution (f32, nchw data, oihw weights; oneDNN picks its
//     own layouts through format_tag::any, the reorders stay outside the timed region);
// each with the hand schedule (samples/traces/*_tuned.py) through cpu-c and cpu-llvm on 1
// and 2 threads, and the unscheduled ("naive") program for reference.
//
// Method:
//   * OPENBLAS_CORETYPE is removed from the environment before OpenBLAS initialises: the
//     library reads it in its load-time constructor, so the benchmark re-executes itself
//     without it (the core OpenBLAS then chose and its build config are printed);
//   * inputs are seeded uniform values in [0, 1) (positive, so every output is a sum of
//     positive terms and the element-wise relative error is meaningful);
//   * every measured kernel's output is first compared with the library's result (the
//     output is filled with NaN before the run, so an element it does not write fails):
//     max over elements of |x - ref| / |ref|; a kernel above 1e-4 is reported as FAILED
//     and not timed;
//   * timing uses codegen::timeCalls (TVM time_evaluator semantics): per candidate one
//     warm-up call and a calibration of the calls per repeat (>= 100 ms), then `repeat`
//     rounds in which the library and every kernel of the same thread count are timed one
//     repeat each in turn (150 ms pause before each, so that OpenBLAS's and OpenMP's
//     spinning threads are asleep): all of them see the same machine load. The table
//     shows the best repeat (the machine is shared and noisy: the minimum is the least
//     disturbed measurement) and the median. The naive 1024^3 matmul takes seconds per
//     call: it is timed as one single call (its verification run is a second one), on 1
//     thread only (the naive programs have no parallel loop);
//   * FLOPs are codegen::countFlops of the unscheduled program (useful work: 2*M*N*K for
//     matmul, 2*F*C*KH*KW*OH*OW for the convolution);
//   * tuned kernels are built with BuildOptions::fastMath = true (cpu-llvm: fast-math
//     flags on every float operation and FP-op fusion, which is what lets LLVM contract
//     a*b+c into FMA instructions; cpu-c: -ffast-math). One extra row shows the cpu-llvm
//     matmul without fast-math (separate vmulps + vaddps).
#include "core/codegen/flop_count.h"
#include "core/codegen/machine_peak.h"
#include "core/codegen/pipeline.h"
#include "core/codegen/profile_timer.h"
#include "core/frontend/te_frontend.h"
#include "core/schedule/schedule.h"
#include "core/schedule/trace_script.h"

#include <cblas.h>
#include <oneapi/dnnl/dnnl.hpp>
#include <omp.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <tuple>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace loopscape;

namespace {

constexpr double kTolerance = 1e-4;

struct Options {
  int repeat = 7;              ///< timed repeats per measurement
  std::vector<int> threads{1, 2};
  bool naive = true;           ///< also run the unscheduled programs
  std::string asmDir;          ///< write the tuned kernels' LLVM IR / asm / C here
  std::string only;            ///< "matmul" or "conv2d": run one workload
  bool remeasurePeak = false;  ///< measure the machine peak again (not the cached value)
};

[[noreturn]] void die(const std::string& message) {
  std::fprintf(stderr, "codegen-bench: %s\n", message.c_str());
  std::exit(1);
}

template <typename T> T orDie(Expected<T> e, const std::string& what) {
  if (!e) die(what + ": " + renderDiagnostic(e.error()));
  return std::move(*e);
}

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) die("cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// A float buffer with 64-byte alignment (what the libraries and our kernels like).
struct Buffer {
  std::vector<float, std::allocator<float>> storage;
  float* data = nullptr;
  std::size_t size = 0;
  explicit Buffer(std::size_t n) : storage(n + 16), size(n) {
    auto addr = reinterpret_cast<std::uintptr_t>(storage.data());
    data = storage.data() + ((64 - addr % 64) % 64) / sizeof(float);
  }
  void fillUniform(std::uint32_t seed) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(0.0f, 1.0f);
    for (std::size_t i = 0; i < size; ++i) data[i] = dist(gen);
  }
  void fill(float v) { std::fill(data, data + size, v); }
};

/// max_i |x_i - ref_i| / |ref_i| (infinite for NaN or a zero reference with x != ref).
double maxRelativeError(const Buffer& x, const Buffer& ref) {
  double worst = 0;
  for (std::size_t i = 0; i < ref.size; ++i) {
    double a = x.data[i], b = ref.data[i];
    if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::infinity();
    double err = std::abs(a - b);
    if (err == 0) continue;
    worst = std::max(worst, b == 0 ? std::numeric_limits<double>::infinity() : err / std::abs(b));
  }
  return worst;
}

/// One row of the result table.
struct Row {
  std::string workload, variant, target;
  int threads = 1;
  double bestMs = 0, medianMs = 0, gflops = 0, ratio = 0, relErr = 0;
  std::string note;
  bool failed = false;
};

/// A workload: its program, its schedule, its buffers (inputs, then the one output) and
/// the library that gives the reference result and the reference speed.
struct Workload {
  std::string name;       ///< "matmul", "conv2d"
  std::string program;    ///< samples/<x>.te
  std::string trace;      ///< samples/traces/<x>_tuned.py
  std::string library;    ///< "OpenBLAS sgemm", "oneDNN conv"
  ir::PrimFunc func;      ///< unscheduled
  ir::PrimFunc tuned;     ///< after the trace
  double flops = 0;
  std::vector<Buffer> inputs;
  Buffer reference{0};    ///< the library's output
  /// Prepares the library for `threads` threads and returns a call that writes `out`.
  std::function<std::function<void(float* out)>(int threads)> makeLibrary;
};

/// Every build and source of the benchmark goes through the one codegen pipeline.
const codegen::Pipeline& pipeline() {
  static const codegen::Pipeline p;
  return p;
}

codegen::Target& target(const std::string& name) { return *orDie(pipeline().findTarget(name), "target " + name); }

Expected<void> ok() { return {}; }

/// Lets the previous measurement's spinning worker threads (OpenBLAS, OpenMP) go to sleep.
void settle() { std::this_thread::sleep_for(std::chrono::milliseconds(150)); }

/// Something to time: the library or a verified kernel.
struct Candidate {
  Row row;
  std::function<void()> call;
  std::shared_ptr<codegen::Kernel> kernel; ///< keeps the kernel alive
  std::shared_ptr<Buffer> out;
  bool single = false;  ///< timed as one call (the naive 1024^3 matmul)
  int number = 1;       ///< calls per repeat (calibrated)
  std::vector<double> seconds; ///< per call, one entry per round
};

/// One repeat of `number` calls (0: calibrate to >= 100 ms, after one warm-up call);
/// returns seconds per call and the number used.
std::pair<double, int> timeRepeat(const std::function<void()>& call, int number, bool warmup) {
  codegen::TimingOptions t;
  t.warmup = warmup ? 1 : 0;
  t.repeat = 1;
  t.number = number;
  t.minRepeatMs = 100;
  t.counters = false;
  auto r = orDie(codegen::timeCalls(
                     [&]() -> Expected<void> {
                       call();
                       return ok();
                     },
                     t),
                 "timing");
  return {r.perRepeat.at(0), r.number};
}

/// Builds `func` with `targetName` and verifies it against the workload's reference: a
/// candidate ready to time, or a failed row.
Candidate prepareKernel(Workload& w, const ir::PrimFunc& func, const std::string& variant,
                        const std::string& targetName, int threads, bool fastMath, bool single) {
  Candidate c;
  c.row = Row{w.name, variant, targetName, threads};
  c.single = single;
  codegen::Target& t = target(targetName);
  auto lowered = orDie(pipeline().lower(t, func), w.name + " " + variant + ": lowering");
  if (lowered.params.size() != w.inputs.size() + 1) die(w.name + ": unexpected parameter count");
  codegen::BuildOptions bo;
  bo.fastMath = fastMath;
  bo.threads = threads;
  c.kernel =
      orDie(pipeline().build(t, std::move(lowered), bo), w.name + " " + variant + ": build with " + targetName).kernel;
  c.out = std::make_shared<Buffer>(w.reference.size);
  c.out->fill(std::numeric_limits<float>::quiet_NaN());
  std::vector<void*> pointers;
  for (auto& in : w.inputs) pointers.push_back(in.data);
  pointers.push_back(c.out->data);
  std::string what = w.name + " " + variant + " " + targetName;
  c.call = [kernel = c.kernel, pointers, what] {
    auto r = kernel->run(pointers, {});
    if (!r) die(what + ": run: " + renderDiagnostic(r.error()));
  };
  c.call();
  c.row.relErr = maxRelativeError(*c.out, w.reference);
  if (!(c.row.relErr <= kTolerance)) {
    c.row.failed = true;
    c.row.note = fmt::format("FAILED verification (max rel err {:.3g} > {:g}), not timed", c.row.relErr, kTolerance);
  }
  return c;
}

Workload loadWorkload(const std::string& name, const std::string& library) {
  Workload w;
  w.name = name;
  w.library = library;
  w.program = std::string(LS_SOURCE_DIR) + "/samples/" + (name == "matmul" ? "matmul.te" : "conv2d_nchw.te");
  w.trace = std::string(LS_SOURCE_DIR) + "/samples/traces/" + (name == "matmul" ? "matmul_tuned.py" : "conv2d_nchw_tuned.py");
  std::string text = readFile(w.program);
  w.func = orDie(frontend::parseTe(text, w.program), "parse " + w.program);
  schedule::Schedule sch(w.func);
  auto applied = schedule::applyScript(sch, readFile(w.trace), w.trace);
  if (!applied) die("applying " + w.trace + ": " + renderDiagnostic(applied.error()));
  w.tuned = sch.func();
  w.flops = orDie(codegen::countFlops(w.func, {}), "FLOP count").flops;
  return w;
}

// ---- the libraries ----------------------------------------------------------------------

constexpr int kM = 1024, kN = 1024, kK = 1024;

Workload matmulWorkload() {
  Workload w = loadWorkload("matmul", "OpenBLAS sgemm");
  w.inputs.emplace_back(std::size_t(kM) * kK);
  w.inputs.emplace_back(std::size_t(kK) * kN);
  w.inputs[0].fillUniform(1);
  w.inputs[1].fillUniform(2);
  w.reference = Buffer(std::size_t(kM) * kN);
  const float* a = w.inputs[0].data;
  const float* b = w.inputs[1].data;
  w.makeLibrary = [a, b](int threads) {
    openblas_set_num_threads(threads);
    auto scratch = std::make_shared<Buffer>(std::size_t(kM) * kN);
    return std::function<void(float*)>([a, b, scratch](float* c) {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, kM, kN, kK, 1.0f, a, kK, b, kN, 0.0f,
                  c ? c : scratch->data, kN);
    });
  };
  return w;
}

constexpr int kC = 64, kF = 64, kH = 56, kW = 56, kR = 3, kPad = 1;

/// oneDNN's state for one thread count: primitive, reordered inputs and output memory.
struct DnnlConv {
  dnnl::engine eng{dnnl::engine::kind::cpu, 0};
  dnnl::stream strm{eng};
  dnnl::convolution_forward conv;
  dnnl::memory src, wei, dst, userDst;
  std::string impl;
};

std::string g_dnnlImpl; // the implementation oneDNN chose (printed with the table)

Workload convWorkload() {
  Workload w = loadWorkload("conv2d", "oneDNN conv");
  w.inputs.emplace_back(std::size_t(kC) * kH * kW);
  w.inputs.emplace_back(std::size_t(kF) * kC * kR * kR);
  w.inputs[0].fillUniform(3);
  w.inputs[1].fillUniform(4);
  w.reference = Buffer(std::size_t(kF) * kH * kW);
  float* data = w.inputs[0].data;
  float* weight = w.inputs[1].data;
  w.makeLibrary = [data, weight](int threads) {
    using namespace dnnl;
    omp_set_num_threads(threads); // oneDNN (OpenMP runtime) sizes its work at creation
    auto state = std::make_shared<DnnlConv>();
    memory::dims srcDims{1, kC, kH, kW}, weiDims{kF, kC, kR, kR}, dstDims{1, kF, kH, kW};
    memory::dims strides{1, 1}, pad{kPad, kPad};
    auto f32 = memory::data_type::f32;
    convolution_forward::desc desc(prop_kind::forward_inference, algorithm::convolution_direct,
                                   memory::desc(srcDims, f32, memory::format_tag::any),
                                   memory::desc(weiDims, f32, memory::format_tag::any),
                                   memory::desc(dstDims, f32, memory::format_tag::any), strides, pad, pad);
    convolution_forward::primitive_desc pd(desc, state->eng);
    state->impl = pd.impl_info_str();
    g_dnnlImpl = state->impl;
    memory userSrc({srcDims, f32, memory::format_tag::nchw}, state->eng, data);
    memory userWei({weiDims, f32, memory::format_tag::oihw}, state->eng, weight);
    state->src = userSrc;
    if (pd.src_desc() != userSrc.get_desc()) {
      state->src = memory(pd.src_desc(), state->eng);
      reorder(userSrc, state->src).execute(state->strm, userSrc, state->src);
    }
    state->wei = userWei;
    if (pd.weights_desc() != userWei.get_desc()) {
      state->wei = memory(pd.weights_desc(), state->eng);
      reorder(userWei, state->wei).execute(state->strm, userWei, state->wei);
    }
    state->dst = memory(pd.dst_desc(), state->eng);
    state->conv = convolution_forward(pd);
    state->strm.wait();
    return std::function<void(float*)>([state, dstDims](float* out) {
      state->conv.execute(state->strm,
                          {{DNNL_ARG_SRC, state->src}, {DNNL_ARG_WEIGHTS, state->wei}, {DNNL_ARG_DST, state->dst}});
      state->strm.wait();
      if (out) { // the reorder back to nchw happens only when the result is wanted
        memory user({dstDims, memory::data_type::f32, memory::format_tag::nchw}, state->eng, out);
        if (state->dst.get_desc() != user.get_desc()) reorder(state->dst, user).execute(state->strm, state->dst, user);
        else std::copy_n(static_cast<float*>(state->dst.get_data_handle()), std::size_t(kF) * kH * kW, out);
        state->strm.wait();
      }
    });
  };
  return w;
}

// ---- driver ---------------------------------------------------------------------------

void dumpSources(const Workload& w, const Options& o) {
  if (o.asmDir.empty()) return;
  std::filesystem::create_directories(o.asmDir);
  codegen::BuildOptions bo;
  bo.fastMath = true;
  bo.threads = 1;
  for (auto [tgt, fmtName, ext] : {std::tuple{"cpu-llvm", "llvm", "ll"}, {"cpu-llvm", "asm", "llvm.s"},
                                   {"cpu-c", "c", "c"}, {"cpu-c", "asm", "c.s"}}) {
    auto lowered = orDie(pipeline().lower(target(tgt), w.tuned), "lower");
    auto text = orDie(pipeline().source(target(tgt), lowered, fmtName, bo), std::string("source ") + tgt);
    std::ofstream(o.asmDir + "/" + w.name + "_tuned." + ext) << text;
  }
}

std::vector<Row> runWorkload(Workload& w, const Options& o) {
  std::vector<Row> rows;
  dumpSources(w, o);
  for (int threads : o.threads) {
    // The reference result of the library on this many threads.
    auto library = w.makeLibrary(threads);
    w.reference.fill(std::numeric_limits<float>::quiet_NaN());
    library(w.reference.data);
    std::vector<Candidate> cands;
    Candidate lib;
    lib.row = Row{w.name, "library", w.library, threads};
    // Timed calls pass no output pointer: oneDNN then skips its reorder to nchw, sgemm
    // writes into a scratch matrix.
    lib.call = [library] { library(nullptr); };
    cands.push_back(lib);
    for (const char* tgt : {"cpu-c", "cpu-llvm"})
      cands.push_back(prepareKernel(w, w.tuned, "tuned", tgt, threads, true, false));
    if (threads == 1 && w.name == "matmul")
      cands.push_back(prepareKernel(w, w.tuned, "tuned, no fast-math", "cpu-llvm", threads, false, false));
    if (threads == 1 && o.naive)
      for (const char* tgt : {"cpu-c", "cpu-llvm"})
        cands.push_back(prepareKernel(w, w.func, "naive", tgt, threads, false, w.name == "matmul"));
    // Calibration (one warm-up call, calls per repeat for >= 100 ms), then `repeat`
    // rounds that time each candidate once in turn, so that the library and the kernels
    // see the same machine load; single-call candidates are timed once.
    for (auto& c : cands) {
      if (c.row.failed) continue;
      settle();
      if (c.single) {
        c.seconds.push_back(timeRepeat(c.call, 1, false).first);
        c.row.note = "one call";
      } else {
        c.number = timeRepeat(c.call, 0, true).second;
      }
    }
    for (int round = 0; round < o.repeat; ++round)
      for (auto& c : cands) {
        if (c.row.failed || c.single) continue;
        settle();
        c.seconds.push_back(timeRepeat(c.call, c.number, false).first);
      }
    double libGflops = 0;
    for (auto& c : cands) {
      if (c.row.failed) {
        rows.push_back(c.row);
        continue;
      }
      std::vector<double> sorted = c.seconds;
      std::sort(sorted.begin(), sorted.end());
      std::size_t n = sorted.size();
      double median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
      c.row.bestMs = sorted.front() * 1e3;
      c.row.medianMs = median * 1e3;
      c.row.gflops = w.flops / sorted.front() / 1e9;
      if (c.row.variant == "library") libGflops = c.row.gflops;
      c.row.ratio = libGflops > 0 ? c.row.gflops / libGflops : 0;
      rows.push_back(c.row);
    }
    openblas_set_num_threads(1);
  }
  return rows;
}

void printTable(const std::vector<Row>& rows) {
  fmt::print("\n{:<8} {:<21} {:<15} {:>3} {:>10} {:>10} {:>9} {:>9} {:>10}  {}\n", "workload", "schedule", "target",
             "thr", "best ms", "median ms", "GFLOP/s", "vs lib", "max rel", "note");
  for (const Row& r : rows) {
    if (r.failed) {
      fmt::print("{:<8} {:<21} {:<15} {:>3} {:>10} {:>10} {:>9} {:>9} {:>10.2g}  {}\n", r.workload, r.variant, r.target,
                 r.threads, "-", "-", "-", "-", r.relErr, r.note);
      continue;
    }
    fmt::print("{:<8} {:<21} {:<15} {:>3} {:>10.3f} {:>10.3f} {:>9.1f} {:>8.0f}% {:>10}  {}\n", r.workload, r.variant,
               r.target, r.threads, r.bestMs, r.medianMs, r.gflops, 100 * r.ratio,
               r.variant == "library" ? std::string("(ref)") : fmt::format("{:.2g}", r.relErr), r.note);
  }
}

Options parseArgs(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) die("missing value after " + a);
      return argv[++i];
    };
    if (a == "--repeat") o.repeat = std::max(1, std::atoi(value().c_str()));
    else if (a == "--threads") {
      o.threads.clear();
      std::stringstream ss(value());
      for (std::string t; std::getline(ss, t, ',');) o.threads.push_back(std::max(1, std::atoi(t.c_str())));
    } else if (a == "--no-naive") o.naive = false;
    else if (a == "--asm") o.asmDir = value();
    else if (a == "--only") o.only = value();
    else if (a == "--remeasure-peak") o.remeasurePeak = true;
    else if (a == "-h" || a == "--help") {
      fmt::print("usage: loopscape-codegen-bench [--repeat N] [--threads 1,2] [--no-naive] [--only matmul|conv2d]\n"
                 "                               [--remeasure-peak]\n"
                 "                               [--asm DIR]   (write the tuned kernels' IR/asm/C to DIR)\n");
      std::exit(0);
    } else die("unknown argument " + a);
  }
  return o;
}

} // namespace

int main(int argc, char** argv) {
  // OpenBLAS picks its kernels in a constructor that runs when the library is loaded,
  // before main: to drop OPENBLAS_CORETYPE, re-execute without it.
  if (const char* core = std::getenv("OPENBLAS_CORETYPE")) {
    setenv("LOOPSCAPE_BENCH_DROPPED_CORETYPE", core, 1);
    unsetenv("OPENBLAS_CORETYPE");
    execv("/proc/self/exe", argv);
    die(std::string("cannot re-execute without OPENBLAS_CORETYPE: ") + std::strerror(errno));
  }
  Options o = parseArgs(argc, argv);

  codegen::PeakOptions peakOptions;
  peakOptions.remeasure = o.remeasurePeak;
  auto peak = codegen::machinePeak(peakOptions);
  fmt::print("machine: {} ({} hardware threads), fp32 FMA peak measured {:.0f} GFLOP/s per core, {:.0f} on all "
             "cores ({}), copy bandwidth {:.1f} GB/s{}\n",
             peak.cpuModel, peak.cores, peak.gflopsPerCore, peak.gflopsAllCores, peak.isa, peak.bandwidthGBs,
             peak.fromCache ? " (cached measurement)" : "");
  if (const char* dropped = std::getenv("LOOPSCAPE_BENCH_DROPPED_CORETYPE"))
    fmt::print("OpenBLAS: OPENBLAS_CORETYPE={} was unset before loading OpenBLAS\n", dropped);
  fmt::print("OpenBLAS: core {}, config: {}\n", openblas_get_corename(), openblas_get_config());
  const dnnl_version_t* v = dnnl_version();
  fmt::print("oneDNN: {}.{}.{} (cpu runtime {})\n", v->major, v->minor, v->patch,
             v->cpu_runtime == DNNL_RUNTIME_OMP ? "OpenMP" : "other");
  for (const char* t : {"cpu-c", "cpu-llvm"}) fmt::print("{}: {}\n", t, target(t).toolchain().message);

  std::vector<Row> rows;
  if (o.only.empty() || o.only == "matmul") {
    Workload mm = matmulWorkload();
    fmt::print("matmul: {} x {} x {} fp32, {:.4g} GFLOP per call, schedule {}\n", kM, kN, kK, mm.flops / 1e9, mm.trace);
    auto r = runWorkload(mm, o);
    rows.insert(rows.end(), r.begin(), r.end());
  }
  if (o.only.empty() || o.only == "conv2d") {
    Workload cv = convWorkload();
    fmt::print("conv2d: 1x{}x{}x{} input, {} filters {}x{}, pad {}, {:.4g} GFLOP per call, schedule {}\n", kC, kH, kW,
               kF, kR, kR, kPad, cv.flops / 1e9, cv.trace);
    auto r = runWorkload(cv, o);
    rows.insert(rows.end(), r.begin(), r.end());
    fmt::print("oneDNN implementation: {}\n", g_dnnlImpl);
  }
  printTable(rows);
  fmt::print("\nbest = fastest of {} repeats (each >= 100 ms of back-to-back calls; the library and the kernels "
             "of one thread count are timed in interleaved rounds, after 1 warm-up call each); GFLOP/s from the "
             "best; vs lib = GFLOP/s / the library's on the same thread count; max rel = max |x - ref| / |ref| "
             "against the library's output. Tuned kernels: fastMath on.\n",
             o.repeat);
  bool failed = std::any_of(rows.begin(), rows.end(), [](const Row& r) { return r.failed; });
  return failed ? 2 : 0;
}
