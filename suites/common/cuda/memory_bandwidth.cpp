#include "suites/common/cuda/memory_bandwidth.hpp"

#include <cuda_runtime_api.h>

namespace gpubench::suite::cuda {

double peak_dram_gb_per_s(int device) {
  int clock_khz = 0;
  int bus_bits = 0;
  if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0.0;
  }
  return 2.0 * static_cast<double>(clock_khz) * 1e3 * static_cast<double>(bus_bits) / 8.0 / 1e9;
}

}  // namespace gpubench::suite::cuda
