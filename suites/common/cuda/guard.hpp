// Turns whatever a benchmark body throws into Google Benchmark data instead of a crash:
//   SkipCase                    -> skipped: <reason>            (the GPU cannot run this case)
//   CudaError, out of memory    -> skipped: out of memory (<case sizes>): <error>
//   CudaError, no kernel image  -> skipped: unsupported GPU architecture ...: <error>
//   any other exception         -> error: <message>             (a failure)
// Use it around the whole body, including the timed loop: Google Benchmark 1.7 stops the loop
// cleanly once SkipWithError was called.
#pragma once

#include <benchmark/benchmark.h>

#include <exception>
#include <stdexcept>
#include <string>

#include "suites/common/cuda/check.hpp"
#include "suites/common/suite_support.hpp"

namespace gpubench::suite {

// Thrown by a benchmark body when this GPU cannot run the case (reason names the cause).
class SkipCase : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// sizes: what the case allocates, e.g. "m=16384 n=16384 k=16384 bf16 (1.5 GiB)".
template <class Body>
void run_guarded(benchmark::State& state, const std::string& sizes, Body&& body) {
  try {
    body();
  } catch (const SkipCase& e) {
    skip(state, e.what());
  } catch (const CudaError& e) {
    if (e.out_of_memory()) {
      skip(state, "out of memory (" + sizes + "): " + e.what());
    } else if (e.unsupported_architecture()) {
      skip(state, std::string("unsupported GPU architecture: this build has no kernels for this "
                              "GPU (add its sm_XY to CMAKE_CUDA_ARCHITECTURES): ") +
                      e.what());
    } else {
      fail(state, e.what());
    }
  } catch (const std::exception& e) {
    fail(state, e.what());
  }
}

}  // namespace gpubench::suite
