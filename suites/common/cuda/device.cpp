#include "suites/common/cuda/device.hpp"

#include <cuda_runtime_api.h>

#include <dlfcn.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "suites/common/cuda/check.hpp"

namespace gpubench::suite::cuda {

namespace {
std::string cuda_version_text(int v) {
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}
}  // namespace

// The skip reason names the actual cause (issue 9): the runtime reports "CUDA driver version is
// insufficient for CUDA runtime version" both when there is no driver at all and when it is too
// old, which reads as "upgrade the driver" on a machine that simply has none.
DeviceProbe probe_devices() {
  DeviceProbe probe;
  if (void* libcuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL); libcuda == nullptr) {
    probe.reason = "no NVIDIA driver (libcuda.so.1 not found)";
    return probe;
  } else {
    dlclose(libcuda);
  }
  int driver = 0;
  int runtime = 0;
  (void)cudaDriverGetVersion(&driver);
  (void)cudaRuntimeGetVersion(&runtime);
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    (void)cudaGetLastError();
    if (status == cudaErrorInsufficientDriver && driver > 0) {
      probe.reason = "NVIDIA driver older than the CUDA runtime (the driver supports CUDA " +
                     cuda_version_text(driver) + ", this build uses runtime " +
                     cuda_version_text(runtime) + "; upgrade the driver)";
    } else if (status == cudaErrorInsufficientDriver || driver == 0) {
      probe.reason = "no usable NVIDIA driver (libcuda.so.1 loads but reports no CUDA version)";
    } else if (status == cudaErrorNoDevice) {
      probe.reason = "no CUDA device (driver for CUDA " + cuda_version_text(driver) +
                     " present; none visible: check CUDA_VISIBLE_DEVICES and nvidia-smi)";
    } else {
      probe.reason = std::string("no CUDA device (") + cudaGetErrorString(status) + ")";
    }
    return probe;
  }
  if (count == 0) {
    probe.reason = "no CUDA device (cudaGetDeviceCount found 0 devices)";
    return probe;
  }
  probe.count = count;
  return probe;
}

namespace {
std::string format_uuid(const cudaUUID_t& uuid) {
  const auto* b = reinterpret_cast<const unsigned char*>(uuid.bytes);
  char text[64];
  std::snprintf(text, sizeof text,
                "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
                b[14], b[15]);
  return text;
}

int attribute(cudaDeviceAttr attr, int device) {
  int value = 0;
  GPUBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&value, attr, device));
  return value;
}
}  // namespace

DeviceInfo query_device(int index) {
  cudaDeviceProp prop{};
  GPUBENCH_CUDA_CHECK(cudaGetDeviceProperties(&prop, index));
  DeviceInfo info;
  info.index = index;
  info.name = prop.name;
  info.uuid = format_uuid(prop.uuid);
  char bus[32] = {};
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, index) == cudaSuccess) {
    info.pci_bus_id = bus;
  } else {
    (void)cudaGetLastError();
    info.pci_bus_id = "unknown";
  }
  info.cc_major = prop.major;
  info.cc_minor = prop.minor;
  info.sm_count = prop.multiProcessorCount;
  // cudaDeviceProp::clockRate is gone in CUDA 13; the attribute remains.
  info.clock_khz = attribute(cudaDevAttrClockRate, index);
  info.l2_bytes = attribute(cudaDevAttrL2CacheSize, index);
  info.total_memory_bytes = prop.totalGlobalMem;
  return info;
}

std::string devices_json(const std::vector<DeviceInfo>& devices) {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& d : devices) {
    arr.push_back({{"index", d.index},
                   {"uuid", d.uuid},
                   {"name", d.name},
                   {"pci_bus_id", d.pci_bus_id},
                   {"cc", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor)},
                   {"sm_count", d.sm_count},
                   {"clock_khz", d.clock_khz},
                   {"l2_bytes", d.l2_bytes},
                   {"memory_bytes", d.total_memory_bytes}});
  }
  return arr.dump();
}

MemoryInfo memory_info() {
  MemoryInfo info;
  GPUBENCH_CUDA_CHECK(cudaMemGetInfo(&info.free_bytes, &info.total_bytes));
  return info;
}

}  // namespace gpubench::suite::cuda
