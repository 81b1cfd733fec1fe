// gpubench-memory: host and device memory bandwidth (STREAM copy/scale/add/triad, plus a host
// memcpy ceiling). See host_stream.hpp and device_stream.hpp for names, sweeps and byte counting.
#include "suites/common/l2_placement.hpp"
#include "suites/common/sampling.hpp"
#include "suites/common/suite_support.hpp"
#include "suites/memory/host_stream.hpp"
#include "suites/memory/memory_plan.hpp"
#include "suites/memory/thread_pool.hpp"

#if GPUBENCH_MEMORY_DEVICE
#include "suites/common/cuda/device.hpp"
#include "suites/common/cuda/pinning.hpp"
#include "suites/common/device_flag.hpp"
#include "suites/memory/device_stream.hpp"
#endif

#include <string>
#include <utility>
#include <vector>

#include "util/error.hpp"

int main(int argc, char** argv) {
  using namespace gpubench::suite;
#if GPUBENCH_MEMORY_DEVICE
  // --device N / GPUBENCH_DEVICE (device_flag.hpp): which GPUs the device cases run on.
  std::vector<int> devices;
  try {
    devices = take_devices(argc, argv, [] { return cuda::probe_devices().count; });
  } catch (const gpubench::Error& e) {
    return report_error("gpubench-memory", e);
  }
  // Before any CUDA context: device cases run on one CPU of their GPU's NUMA node; host cases
  // keep every allowed CPU (suites/common/pinning.hpp).
  cuda::pin_before_each_case(devices);
#endif
  SuiteInfo info;
  info.name = "memory";
  info.description =
      "Host and device memory bandwidth: STREAM copy/scale/add/triad on doubles over array size "
      "and (host) thread count, plus a host memcpy ceiling";
  info.metrics = {
      {"GB_per_s", "GB/s", Direction::higher,
       "Bandwidth in decimal GB/s (1e9 bytes/s) with STREAM's byte counting: copy, scale and "
       "memcpy move 2 arrays per pass, add and triad 3; write-allocate traffic is not counted"},
      {"pct_of_peak", "%", Direction::higher,
       "Device cases only: GB_per_s as a percentage of the GPU's theoretical DRAM bandwidth "
       "(2 x memory clock x bus width, from the driver's device attributes); only where the "
       "arrays a pass touches are at least 4x the L2 size (the passes stream from DRAM)",
       Role::secondary}};
  // Device cases: how the samples were taken (sampling.hpp) and where the arrays lived.
  for (MetricSpec& m : sampling_metrics()) info.metrics.push_back(std::move(m));
  info.metrics.push_back(
      {gpubench::suite::k_l2_resident_counter, "flag", Direction::lower,
       "device cases: 1 when the arrays a pass touches fit in half the GPU's L2 (GB_per_s is then "
       "an L2 bandwidth, never a DRAM one), else 0",
       Role::parameter});
  info.availability = [] {
    Availability avail;
    avail.notes.push_back(
        "host cases: " + std::to_string(gpubench::suites::memory::usable_cpu_count()) +
        " usable CPUs");
#if GPUBENCH_MEMORY_DEVICE
    avail.notes.push_back(device_cases_note(gpubench::suites::memory::device_unavailable_reason()));
#else
    avail.notes.push_back(k_device_cases_not_built);
#endif
    return avail;
  };
  info.plan = gpubench::suites::memory::plan_memory;
  info.register_benchmarks = [&] {
    const Profile profile = profile_from_env();
    gpubench::suites::memory::register_host_benchmarks(profile);
#if GPUBENCH_MEMORY_DEVICE
    gpubench::suites::memory::register_device_benchmarks(profile, devices);
#endif
  };
  return suite_main(argc, argv, info);
}
