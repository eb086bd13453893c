// `relay run MODEL --target T`: the compiled model (core/graph), shared by cmd_relay.cpp.
#pragma once

#include <cstdint>
#include <string>

namespace loopscape::cli {

struct RelayRunOptions {
  std::string file;
  std::string params, inputs, save, saveParams;
  std::uint64_t seed = 0;
  std::string target;
  std::string schedule = "default";
  std::string writeSchedule;
  int threads = 0;
  int repeat = 10;
  bool verify = false;
  bool fastMath = false;
  bool noCache = false;
  bool inProcess = false;
  double timeout = 60;
  bool verbose = false;
  bool alterLayout = false; ///< AlterOpLayout (NCHW[x]c convolutions)
};

/// Compiles, runs (and verifies) the model; the exit status.
int runCompiledModel(const RelayRunOptions& options);

} // namespace loopscape::cli
