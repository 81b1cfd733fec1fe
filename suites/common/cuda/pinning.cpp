#include "suites/common/cuda/pinning.hpp"

#include <cuda_runtime_api.h>

#include <memory>
#include <string>

#include "suites/common/cuda/device.hpp"
#include "suites/common/pinning.hpp"

namespace gpubench::suite::cuda {

void pin_before_each_case(const std::vector<int>& devices) {
  const DeviceProbe probe = probe_devices();
  auto bus_id_of = [&probe](int device) -> BusId {
    if (!probe.reason.empty()) return {"", probe.reason};
    char bus[32] = {};
    const cudaError_t status = cudaDeviceGetPCIBusId(bus, sizeof bus, device);
    if (status != cudaSuccess) {
      (void)cudaGetLastError();
      return {"", std::string("cudaDeviceGetPCIBusId: ") + cudaGetErrorString(status)};
    }
    return {bus, ""};
  };
  install_device_pinning(std::make_unique<DevicePinning>(devices, bus_id_of));
}

}  // namespace gpubench::suite::cuda
