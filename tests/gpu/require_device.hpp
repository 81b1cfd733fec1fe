// The GPU tests' guard (label `gpu`), in one place: skip the test with the probe's reason when no
// CUDA device is usable, else make device 0 current.
#pragma once

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "suites/common/cuda/device.hpp"

#define GPUBENCH_REQUIRE_DEVICE()                                 \
  do {                                                            \
    const auto probe_ = ::gpubench::suite::cuda::probe_devices(); \
    if (probe_.count == 0) GTEST_SKIP() << probe_.reason;         \
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);                     \
  } while (0)
