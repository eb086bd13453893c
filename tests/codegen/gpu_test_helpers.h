// Shared by the lowering, cpu-llvm, GPU lowering, OpenCL and CUDA tests: reading a source file of the
// repository, te and TVMScript programs parsed (the test stops on a parse error), a
// schedule script applied, loopscape-cli run with extra environment variables, and the
// programs more than one of them uses.
#pragma once

#include "core/frontend/te_frontend.h"
#include "core/frontend/tvmscript/tvmscript.h"
#include "core/schedule/schedule.h"
#include "core/schedule/trace_script.h"

#include <QtTest>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <sys/wait.h>

namespace loopscape::testing {

inline std::string readSource(const std::string& relative) {
  std::ifstream in(std::string(LS_SOURCE_DIR) + "/" + relative);
  std::stringstream ss;
  ss << in.rdbuf();
  if (ss.str().empty()) qFatal("cannot read %s", relative.c_str());
  return ss.str();
}

inline ir::PrimFunc parse(const std::string& text) {
  auto f = frontend::parseTe(text, "test.te");
  if (!f) qFatal("%s", renderDiagnostic(f.error(), text).c_str());
  return *f;
}

inline ir::PrimFunc parseScript(const std::string& text) {
  auto p = frontend::parseTvmScript(text, "test.py");
  if (!p) qFatal("%s", renderDiagnostic(p.error(), text).c_str());
  auto f = frontend::selectFunction(*p, "", "test.py");
  if (!f) qFatal("%s", renderDiagnostic(f.error(), text).c_str());
  return *f;
}

inline ir::PrimFunc scheduled(const ir::PrimFunc& original, const std::string& script) {
  schedule::Schedule sch(original);
  auto ok = schedule::applyScript(sch, script, "test.py");
  if (!ok) qFatal("%s", renderDiagnostic(ok.error(), script).c_str());
  return sch.func();
}

inline ir::PrimFunc scheduled(const std::string& teProgram, const std::string& script) {
  return scheduled(parse(teProgram), script);
}

/// samples/matmul.te with smaller sizes (the sample traces' tiles divide them).
inline constexpr const char* kGpuMatmul = R"(from tvm import te
M, N, K = 128, 128, 64
A = te.placeholder((M, K), dtype="float32", name="A")
B = te.placeholder((K, N), dtype="float32", name="B")
k = te.reduce_axis((0, K), name="k")
C = te.compute((M, N), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
)";

/// Two kernels: C reads B transposed, so the second kernel needs every block of the first
/// finished (a barrier cannot do that; a second launch does).
inline constexpr const char* kTwoKernels = R"(# from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    for i in T.thread_binding(64, thread="blockIdx.x"):
        for j in T.thread_binding(64, thread="threadIdx.x"):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] * T.float32(2)
    for i in T.thread_binding(32, thread="blockIdx.x"):
        for j in T.thread_binding(64, thread="threadIdx.x"):
            for r in range(2):
                with T.block("C"):
                    vi = T.axis.spatial(64, i * 2 + r)
                    vj = T.axis.spatial(64, j)
                    T.reads(B[63 - vj, vi])
                    T.writes(C[vi, vj])
                    C[vi, vj] = B[63 - vj, vi] + T.float32(1)
)";

#ifdef LS_CLI_PATH
struct Cli {
  int exitCode = -1;
  QString out;
};

/// loopscape-cli with `args` (simple words) in the source directory, stdout and stderr
/// together, with the environment variables `env` ("NAME=value"; "--unset=NAME" entries
/// first) set for it alone.
inline Cli runCli(const QStringList& args, const QStringList& env = {}) {
  std::string command = "cd '" LS_SOURCE_DIR "' && env";
  for (const QString& e : env)
    command += " '" + e.toStdString() + "'";
  command += " '" LS_CLI_PATH "'";
  for (const QString& a : args)
    command += " '" + a.toStdString() + "'";
  command += " 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) qFatal("cannot start loopscape-cli");
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;)
    out.append(buf, n);
  const int status = ::pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, QString::fromStdString(out)};
}
#endif

} // namespace loopscape::testing
