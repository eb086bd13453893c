#include "plugins/opencl/cl_device.h"

#include "plugins/common/toolchain.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

namespace loopscape::codegen::opencl {

namespace {

constexpr const char* kProbeMain = R"(
#include <unistd.h>
int main(void) {
  alarm(30);
  cl_platform_id platform;
  cl_device_id device;
  char why[512];
  if (!ls_choose_device(&platform, &device, why, sizeof why)) {
    printf("error=%s\n", why);
    return 2;
  }
  char text[1024];
  clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof text, text, NULL);
  printf("platform=%s", text);
  clGetPlatformInfo(platform, CL_PLATFORM_VERSION, sizeof text, text, NULL);
  printf(" (%s)\n", text);
  clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof text, text, NULL);
  printf("device=%s\n", text);
  cl_device_type type = 0;
  clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof type, &type, NULL);
  printf("type=%s\n", (type & CL_DEVICE_TYPE_GPU) ? "gpu" : (type & CL_DEVICE_TYPE_CPU) ? "cpu" : "accelerator");
  size_t group = 0, items[3] = {0, 0, 0};
  cl_ulong local = 0;
  clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof group, &group, NULL);
  clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof items, items, NULL);
  clGetDeviceInfo(device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local, &local, NULL);
  printf("max_work_group=%zu\nmax_items=%zu %zu %zu\nlocal_mem=%llu\n", group, items[0], items[1], items[2],
         (unsigned long long)local);
  return 0;
}
)";

bool writeText(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  return static_cast<bool>(out);
}

std::string firstLines(const std::string& text, int n) {
  std::stringstream in(text);
  std::string line, out;
  for (int i = 0; i < n && std::getline(in, line); ++i)
    out += (i ? "; " : "") + line;
  return out;
}

/// The probe executable, built once into the plugin's cache.
Expected<std::string> probeProgram() {
  auto dir = toolchain::cacheDir(BuildOptions{}, "opencl");
  if (!dir) return Unexpected(dir.error());
  const std::string source = std::string(deviceChoiceSource()) + kProbeMain;
  const toolchain::Compiler& cc = toolchain::systemCompiler();
  const std::string base =
      (std::filesystem::path(*dir) / ("probe-" + toolchain::contentHash({cc.path, cc.version, source}))).string();
  return toolchain::cachedOutput("opencl", base, [&](const std::string& temporary) -> Expected<void> {
    if (!writeText(base + ".c", source))
      return Unexpected(Diagnostic::error("opencl.write-failed", "cannot write " + base + ".c"));
    auto ran = toolchain::runCompiler("opencl", {"-std=gnu11", "-O1", "-o", temporary, base + ".c", "-lOpenCL"}, {});
    if (!ran) return Unexpected(ran.error());
    if (ran->exitStatus != 0)
      return Unexpected(Diagnostic::error("opencl.no-loader",
                                          "cannot build against the OpenCL ICD loader (install ocl-icd-opencl-dev): " +
                                              firstLines(ran->output, 2)));
    return {};
  });
}

DeviceInfo probe() {
  DeviceInfo info;
  if (!toolchain::systemCompiler().usable()) {
    info.why = toolchain::compilerStatus().message;
    return info;
  }
  auto program = probeProgram();
  if (!program) {
    info.why = program.error().message;
    return info;
  }
  auto ran = toolchain::runProgram("opencl", {*program}, {});
  if (!ran) {
    info.why = ran.error().message;
    return info;
  }
  std::map<std::string, std::string> fields;
  std::stringstream in(ran->output);
  for (std::string line; std::getline(in, line);)
    if (auto eq = line.find('='); eq != std::string::npos) fields[line.substr(0, eq)] = line.substr(eq + 1);
  if (ran->exitStatus != 0 || !fields.contains("device")) {
    info.why = fields.contains("error") ? fields["error"]
                                        : "the OpenCL probe failed (exit status " + std::to_string(ran->exitStatus) +
                                              "): " + firstLines(ran->output, 3);
    return info;
  }
  info.usable = true;
  info.platform = fields["platform"];
  info.device = fields["device"];
  info.type = fields["type"];
  info.limits.maxThreadsPerBlock = std::stoll(fields["max_work_group"]);
  std::stringstream items(fields["max_items"]);
  for (auto& d : info.limits.maxThreadDim)
    items >> d;
  info.limits.maxSharedBytesPerBlock = std::stoll(fields["local_mem"]);
  // OpenCL has no grid limit below size_t; a kernel's private memory is not queried.
  for (auto& g : info.limits.maxGridDim)
    g = 0;
  return info;
}

} // namespace

const char* deviceChoiceSource() {
  return R"(#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The first device of the first platform that has a GPU, else the first device found. */
static int ls_choose_device(cl_platform_id* platform, cl_device_id* device, char* why, size_t whyLen) {
  cl_platform_id ps[16];
  cl_uint np = 0;
  cl_int e = clGetPlatformIDs(16, ps, &np);
  if (e != CL_SUCCESS || np == 0) {
    snprintf(why, whyLen, "no OpenCL platform found (clGetPlatformIDs: %d); install an OpenCL driver, e.g. Debian's pocl-opencl-icd", (int)e);
    return 0;
  }
  for (int pass = 0; pass < 2; ++pass)
    for (cl_uint i = 0; i < np && i < 16; ++i) {
      cl_device_id d;
      cl_uint nd = 0;
      if (clGetDeviceIDs(ps[i], pass == 0 ? CL_DEVICE_TYPE_GPU : CL_DEVICE_TYPE_ALL, 1, &d, &nd) == CL_SUCCESS && nd > 0) {
        *platform = ps[i];
        *device = d;
        return 1;
      }
    }
  snprintf(why, whyLen, "the OpenCL platforms have no device");
  return 0;
}
)";
}

const DeviceInfo& device() {
  static std::once_flag once;
  static DeviceInfo info;
  std::call_once(once, [] { info = probe(); });
  return info;
}

} // namespace loopscape::codegen::opencl
