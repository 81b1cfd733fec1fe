// The NVML C ABI pieces that both NVML readers declare (harness/probe/nvml.cpp, the transfer
// suite's suites/transfer/link_probe.cpp), written from the NVML API reference so neither needs
// nvml.h or the driver to build. Each reader loads libnvidia-ml.so.1 itself (dlopen) and keeps its
// own function signatures and the constants only it uses; the layouts here must match nvml.h member
// for member, so they live in one place.
#pragma once

#include <cstddef>

namespace gpubench::nvml_abi {

using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;
inline constexpr nvmlReturn_t k_success = 0;  // NVML_SUCCESS

// nvmlPciInfo_t (nvmlDeviceGetPciInfo_v3, nvmlDeviceGetNvLinkRemotePciInfo_v2).
struct nvmlPciInfo_t {
  char busIdLegacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char busId[32];
};
// nvml.h: NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE 16, five unsigned ints, then
// NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE 32: 68 bytes, busId at 36.
static_assert(sizeof(nvmlPciInfo_t) == 68 && offsetof(nvmlPciInfo_t, busId) == 36);

}  // namespace gpubench::nvml_abi
