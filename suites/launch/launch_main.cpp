// gpubench-launch: kernel launch latency and throughput, synchronisation costs, and a chain of
// small kernels launched one by one versus replayed as a CUDA Graph (launch_cases.hpp lists the
// cases, launch_runner.cpp measures them).
//
// Flags besides Google Benchmark's: --device N | all (or GPUBENCH_DEVICE), --gpubench_info.
// Every case runs with the thread pinned to one CPU of its GPU's NUMA node and the context
// spinning while it waits (sched:spin in the names); README.md "Scheduling mode and pinning".
#include <vector>

#include "suites/common/cuda/pinning.hpp"
#include "suites/common/device_flag.hpp"
#include "suites/common/suite_support.hpp"
#include "suites/launch/launch_cases.hpp"
#include "suites/launch/launch_plan.hpp"
#include "suites/launch/launch_runner.hpp"
#include "util/error.hpp"

int main(int argc, char** argv) {
  using namespace gpubench;
  using namespace gpubench::launch;
  std::vector<int> devices;
  try {
    devices = suite::take_devices(argc, argv, device_count);
  } catch (const gpubench::Error& e) {
    return suite::report_error("gpubench-launch", e);
  }
  // Before any CUDA context: each case then runs on one CPU of its GPU's NUMA node.
  suite::cuda::pin_before_each_case(devices);
  using suite::Direction;
  suite::SuiteInfo info;
  info.name = "launch";
  info.description =
      "Kernel launch cost: host enqueue, launch-to-start (%globaltimer), back-to-back throughput, "
      "synchronisation and 4-byte copy round trips, and kernel chains one by one vs CUDA Graph";
  info.metrics = {
      {"enqueue_us", "us", Direction::lower,
       "Host time of one launch call (cudaLaunchKernel of an empty kernel), queue held",
       suite::Role::secondary},
      {"us_per_kernel", "us", Direction::lower,
       "GPU time per empty kernel launched back to back (events; the launch throughput limit)"},
      {"launch_to_start_us", "us", Direction::lower,
       "From the host's launch call to the kernel's first instruction on an idle GPU"},
      {"us_per_call", "us", Direction::lower,
       "Host time of one synchronisation round trip (stream sync, launch + sync, event record + "
       "sync, 4-byte cudaMemcpyAsync + sync)"},
      {"us_per_kernel_stream", "us", Direction::lower,
       "Kernel chain launched one by one: host time per kernel, launch to completion"},
      {"us_per_kernel_graph", "us", Direction::lower,
       "The same chain replayed from a CUDA Graph: host time per kernel, launch to completion"},
      {"graph_speedup", "x", Direction::higher,
       "us_per_kernel_stream / us_per_kernel_graph (measured in the same samples)",
       suite::Role::secondary}};
  info.availability = [] { return suite::available_unless(device_unavailable_reason()); };
  info.plan = plan_launch;
  info.register_benchmarks = [&] {
    for (const LaunchCase& c : all_cases(suite::profile_from_env(), devices)) {
      suite::register_timed(case_name(c), k_samples,
                            [c](benchmark::State& state) { run_case(state, c); });
    }
  };
  return suite::suite_main(argc, argv, info);
}
