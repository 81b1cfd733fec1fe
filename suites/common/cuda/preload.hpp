// Kernel launches noted in the process's launch ledger (suites/common/launch_ledger.hpp), on the
// current device: a kernel whose first launch would fall inside a spin-gated batch or a stream
// capture throws FirstLaunchInScope with its name instead of stalling until the spin timeout.
// Every kernel a suite times goes through launch_noted (or LaunchLedger::note once per batch where
// the launch call itself is timed), and each suite preloads its kernels before timing them.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>
#include <string_view>

#include "suites/common/cuda/check.hpp"
#include "suites/common/launch_ledger.hpp"

namespace gpubench::suite::cuda {

inline int current_device() {
  int device = 0;
  GPUBENCH_CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

// `launch` queues the kernel and returns its cudaError_t as an int (the kernels/ launchers).
// Throws FirstLaunchInScope (see above) or CudaError when the launch failed.
template <class Launch>
void launch_noted(std::string_view kernel, Launch&& launch) {
  const int status = LaunchLedger::process().launch(current_device(), kernel, launch);
  if (status != 0) {
    const std::string what = "launch of " + std::string(kernel);
    throw_cuda_error(static_cast<cudaError_t>(status), what.c_str(), __FILE__, __LINE__);
  }
}

// The preload step: one launch outside any gated batch or capture, then waits for `stream`, so
// the kernel's module is loaded before any timed batch queues it. Throws std::logic_error when
// called inside a gated or capturing scope (a preload there would be the very deadlock it avoids).
template <class Launch>
void preload_kernel(std::string_view kernel, cudaStream_t stream, Launch&& launch) {
  if (LaunchLedger::current_scope() != LaunchScope::open) {
    throw std::logic_error("preload of " + std::string(kernel) + " inside " +
                           to_string(LaunchLedger::current_scope()));
  }
  launch_noted(kernel, launch);
  GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
}

}  // namespace gpubench::suite::cuda
