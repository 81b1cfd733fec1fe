// What the suites need to know about the GPUs: whether any is usable (and the driver's own words
// when not), and the facts that go into peaks, names and the run fingerprint.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace gpubench::suite::cuda {

struct DeviceProbe {
  int count = 0;
  // Empty when count > 0; otherwise "no CUDA device (<driver message>)", ready for skip().
  std::string reason;
};

// Never throws: a machine without a driver or GPU is a value, not an error.
DeviceProbe probe_devices();

struct DeviceInfo {
  int index = 0;
  std::string name;        // e.g. "NVIDIA H200"
  std::string uuid;        // "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as nvidia-smi prints it
  std::string pci_bus_id;  // e.g. "0000:19:00.0"
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  int clock_khz = 0;  // peak (boost) SM clock, cudaDevAttrClockRate
  int l2_bytes = 0;   // cudaDevAttrL2CacheSize
  std::size_t total_memory_bytes = 0;
};

// Throws CudaError when the device cannot be queried.
DeviceInfo query_device(int index);

// JSON array describing the devices, stored in the benchmark context as "gpubench.devices" so each
// result can be tied to a UUID: [{"index":0,"uuid":"GPU-...","name":"...","cc":"9.0",...}].
std::string devices_json(const std::vector<DeviceInfo>& devices);

// Free and total device memory of the current device, in bytes (cudaMemGetInfo).
struct MemoryInfo {
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
};
MemoryInfo memory_info();

}  // namespace gpubench::suite::cuda
