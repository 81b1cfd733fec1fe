// Which GPUs a suite runs on (CUDA-free, so it is unit-tested everywhere).
//   --device N | --device=N    one device (removed from argv before Google Benchmark sees it)
//   GPUBENCH_DEVICE=N          the same through the environment (the flag wins)
//   --device all / unset       every device, one at a time
// Each benchmark name carries `device:N`, so acceptance runs cover every GPU of a server.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace gpubench::suite {

struct DeviceRequest {
  std::optional<int> index;  // empty: all devices
  std::string source;        // "--device", "GPUBENCH_DEVICE" or "" (default: all)
};

// Removes --device from argv (adjusting argc) and combines it with `env_value` (may be null).
// Throws gpubench::Error (bad_input) when the value is not a non-negative integer or "all".
DeviceRequest take_device_request(int& argc, char** argv, const char* env_value);

// The device indices to run on. With no device at all (device_count == 0) returns the requested
// index or 0, so the cases still appear, each skipped with the reason. Throws gpubench::Error
// (bad_input) when the requested index is out of range, naming the device count.
std::vector<int> resolve_devices(const DeviceRequest& request, int device_count);

}  // namespace gpubench::suite
