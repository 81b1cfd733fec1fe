// The measuring thread's pin (suites/common/pinning.hpp) for the GPUs of a CUDA suite.
#pragma once

#include <vector>

namespace gpubench::suite::cuda {

// Pins the measuring thread before every case to one CPU of its GPU's NUMA node, and records the
// choice per device in the context ("gpubench.pinning"). Call in a suite's main once `devices`
// (CUDA ordinals) are known, before any CUDA context exists.
//
// Which CUDA runtime calls create a device's primary context (CUDA 13 runtime API reference):
// cudaSetDevice ("will also immediately initialize the runtime state on the primary context",
// since CUDA 12.0), cudaInitDevice, cudaSetDeviceFlags on a device not yet initialised, and any
// call that needs a context (allocations, streams, events, launches). cudaGetDeviceCount,
// cudaGetDeviceProperties, cudaDeviceGetAttribute and cudaDeviceGetPCIBusId, the calls mains make
// before the cases run, initialise the runtime but create no context. The bus id used here comes
// from cudaDeviceGetPCIBusId for the CUDA ordinal, so it names the right GPU under any
// CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER.
void pin_before_each_case(const std::vector<int>& devices);

}  // namespace gpubench::suite::cuda
