// gpubench-transfer: host<->device, device-local and peer-to-peer copy bandwidth and latency
// (METHODOLOGY rule 10). Case list and names: transfer_cases.hpp; measurement: transfer_runner.cpp
// and p2p_runner.cpp; NUMA placement: numa.hpp; link rates: link_rates.hpp.
//
// Flags besides Google Benchmark's: --device N | all (or GPUBENCH_DEVICE), --numa local | remote
// | both (or GPUBENCH_NUMA; default local in quick, both otherwise), --gpubench_info.
#include <cuda_runtime_api.h>

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "suites/common/cuda/check.hpp"
#include "suites/common/cuda/device.hpp"
#include "suites/common/cuda/guard.hpp"
#include "suites/common/device_selection.hpp"
#include "suites/common/suite_support.hpp"
#include "suites/transfer/transfer_cases.hpp"
#include "suites/transfer/transfer_cuda.hpp"
#include "suites/transfer/transfer_plan.hpp"
#include "util/error.hpp"

namespace gpubench::transfer {
namespace {

void run_case(benchmark::State& state, const TransferCase& c) {
  const TransferEnvironment& env = transfer_environment();
  if (!env.unavailable_reason.empty()) {
    suite::skip(state, env.unavailable_reason);
    return;
  }
  const std::string sizes = std::to_string(c.bytes) + " bytes " + to_string(c.dir) + " on GPU " +
                            std::to_string(c.device) + " (" + to_string(c.memory) + ")";
  suite::run_guarded(state, sizes, [&] {
    GPUBENCH_CUDA_CHECK(cudaSetDevice(c.device));
    switch (c.dir) {
      case Dir::h2d:
      case Dir::d2h:
      case Dir::bidir:
        run_host_case(state, c);
        break;
      case Dir::d2d:
        run_device_local_case(state, c);
        break;
      case Dir::p2p:
        run_p2p_case(state, c);
        break;
    }
  });
}

std::vector<suite::MetricSpec> metrics() {
  using suite::Direction;
  return {{"GB_per_s", "GB/s", Direction::higher,
           "Copy bandwidth in decimal GB/s (1e9 bytes/s), sizes above 64 KiB; bidirectional cases: "
           "both directions' bytes over the time both took"},
          {"latency_us", "us", Direction::lower,
           "Time per copy in microseconds, back to back, sizes up to 64 KiB"},
          {"pct_of_link", "%", Direction::higher,
           "GB_per_s as a percentage of the link's theoretical rate per direction (PCIe max gen x "
           "width, or NVLink links x per-link rate; x2 for bidirectional); absent when unknown",
           suite::Role::secondary},
          {"GB_per_s_h2d", "GB/s", Direction::higher,
           "Bidirectional host cases: the host-to-device direction alone (nvbandwidth's "
           "host_to_device_bidirectional_memcpy_ce)",
           suite::Role::secondary},
          {"GB_per_s_d2h", "GB/s", Direction::higher,
           "Bidirectional host cases: the device-to-host direction alone", suite::Role::secondary},
          {"GB_per_s_forward", "GB/s", Direction::higher,
           "Bidirectional peer cases: src -> dst alone", suite::Role::secondary},
          {"GB_per_s_reverse", "GB/s", Direction::higher,
           "Bidirectional peer cases: dst -> src alone", suite::Role::secondary}};
}

// "gpubench.devices" in the context (as the gemm suite does), so each result ties to a UUID and
// checks can tell data-centre parts.
void add_devices_context() {
  const TransferEnvironment& env = transfer_environment();
  if (!env.unavailable_reason.empty()) return;
  std::vector<suite::cuda::DeviceInfo> infos;
  try {
    for (int d = 0; d < env.device_count; ++d) infos.push_back(suite::cuda::query_device(d));
  } catch (const suite::CudaError& e) {
    std::cerr << "gpubench-transfer: warning: cannot describe the devices: " << e.what() << "\n";
    return;
  }
  benchmark::AddCustomContext("gpubench.devices", suite::cuda::devices_json(infos));
}

}  // namespace
}  // namespace gpubench::transfer

int main(int argc, char** argv) {
  using namespace gpubench;
  using namespace gpubench::transfer;
  std::vector<int> devices;
  NumaRequest numa = NumaRequest::local;
  const suite::Profile profile = suite::profile_from_env();
  try {
    const suite::DeviceRequest request =
        suite::take_device_request(argc, argv, std::getenv("GPUBENCH_DEVICE"));
    numa = take_numa_request(argc, argv, std::getenv("GPUBENCH_NUMA"), profile);
    devices = suite::resolve_devices(request, transfer_environment().device_count);
  } catch (const gpubench::Error& e) {
    std::cerr << "gpubench-transfer: error: " << e.what() << "\n";
    return static_cast<int>(e.code());
  }
  suite::SuiteInfo info;
  info.name = "transfer";
  info.description =
      "Copy bandwidth and latency: host<->device (pageable, pinned, write-combined, mapped "
      "zero-copy; copy engine and SM), bidirectional, device-local and peer-to-peer, NUMA-local "
      "and remote, as % of the link's rate";
  info.metrics = metrics();
  info.availability = [] {
    suite::Availability avail;
    const TransferEnvironment& env = transfer_environment();
    if (!env.unavailable_reason.empty()) {
      avail.runnable = false;
      avail.reason = env.unavailable_reason;
    }
    if (env.device_count == 1) {
      avail.notes.push_back(
          "peer-to-peer cases: skipped: peer-to-peer needs two GPUs; this host has 1");
    }
    if (!env.links->nvml_reason().empty()) {
      avail.notes.push_back("link rates: NVML unavailable (" + env.links->nvml_reason() +
                            "); PCIe from sysfs, NVLink unknown");
    }
    return avail;
  };
  info.plan = [numa](const suite::PlanRequest& r) { return plan_transfer(r, numa); };
  info.register_benchmarks = [&] {
    add_devices_context();
    for (const TransferCase& c : all_cases(profile, numa, devices)) {
      benchmark::RegisterBenchmark(case_name(c).c_str(),
                                   [c](benchmark::State& state) { run_case(state, c); })
          ->UseManualTime()
          ->Iterations(k_samples)
          ->Unit(benchmark::kMicrosecond);
    }
  };
  return suite::suite_main(argc, argv, info);
}
