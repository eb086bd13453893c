// The OpenCL device the opencl plugin builds for, found without loading OpenCL into the
// host process: a small probe program (C, compiled once by the system compiler against
// the ICD loader, -lOpenCL, cached) lists the first device of the first platform that has
// a GPU, else the first device found, and its limits; the plugin runs it as a child
// process, so that a broken or missing platform can only fail that process.
#pragma once

#include "core/codegen/target.h"

#include <string>

namespace loopscape::codegen::opencl {

struct DeviceInfo {
  bool usable = false;
  std::string why;      ///< why not usable ("no OpenCL platform found ...")
  std::string platform; ///< "Portable Computing Language (OpenCL 3.0 PoCL 3.1 ...)"
  std::string device;   ///< "pthread-skylake-avx512-AMD EPYC"
  std::string type;     ///< "gpu", "cpu", "accelerator"
  GpuLimits limits;     ///< from CL_DEVICE_MAX_WORK_GROUP_SIZE, _WORK_ITEM_SIZES, _LOCAL_MEM_SIZE
};

/// The device, probed once per process (thread-safe).
const DeviceInfo& device();

/// The C source that a kernel's host library and the probe share: the device choice.
const char* deviceChoiceSource();

} // namespace loopscape::codegen::opencl
