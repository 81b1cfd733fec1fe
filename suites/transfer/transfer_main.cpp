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
#include "suites/common/cuda/pinning.hpp"
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
    if (c.engine == Engine::sm) preload_copy_kernels(suite::cuda::query_device(c.device).sm_count);
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
           "Copy bandwidth in decimal GB/s (1e9 bytes/s), sizes above 64 KiB (device-local: "
           "only copies that do not fit in L2); bidirectional copy-engine cases and SM peer "
           "cases: the sum of both directions' rates, each timed while the other runs; the "
           "bidirectional SM host case (one kernel) and staged peer cases: both directions' "
           "bytes over the time both took"},
          {"us_per_copy", "us", Direction::lower,
           "Sizes up to 64 KiB: sample time / copies, with up to 256 copies queued back to back: "
           "the pipelined cost of one more copy, not the latency of a lone copy"},
          {"GB_per_s_cached", "GB/s", Direction::higher,
           "Device-local copies whose source + destination are below 4x the L2 size: L2-resident "
           "(or partly) bandwidth, not device memory bandwidth"},
          {"pct_of_link", "%", Direction::higher,
           "GB_per_s as a percentage of the link's theoretical rate per direction (PCIe max gen x "
           "width, or NVLink links x per-link rate; x2 for bidirectional); absent when unknown",
           suite::Role::secondary},
          {"GB_per_s_h2d", "GB/s", Direction::higher,
           "Bidirectional host cases: the host-to-device direction, timed while device-to-host "
           "copies run (nvbandwidth's host_to_device_bidirectional_memcpy_ce)",
           suite::Role::secondary},
          {"GB_per_s_d2h", "GB/s", Direction::higher,
           "Bidirectional host cases: the device-to-host direction, timed while host-to-device "
           "copies run",
           suite::Role::secondary},
          {"GB_per_s_forward", "GB/s", Direction::higher,
           "Bidirectional peer cases: src -> dst (issued by src), timed while dst -> src runs "
           "(nvbandwidth's write2 at row src, column dst; its write1 at row dst, column src)",
           suite::Role::secondary},
          {"GB_per_s_reverse", "GB/s", Direction::higher,
           "Bidirectional peer cases: dst -> src (issued by dst), timed while src -> dst runs "
           "(nvbandwidth's write1 at row src, column dst; its write2 at row dst, column src)",
           suite::Role::secondary}};
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
  // Which GPUs read pageable host memory through the host's page tables (NVLink-C2C, e.g.
  // GH200): there pageable copies are not staged and run like pinned ones (gpu-check reads it).
  std::string table = "{";
  for (const auto& info : infos) {
    int uses_host_tables = 0;
    if (cudaDeviceGetAttribute(&uses_host_tables, cudaDevAttrPageableMemoryAccessUsesHostPageTables,
                               info.index) != cudaSuccess) {
      (void)cudaGetLastError();
      uses_host_tables = 0;
    }
    table += (table.size() > 1 ? ", \"" : "\"") + std::to_string(info.index) +
             "\": " + std::to_string(uses_host_tables);
  }
  benchmark::AddCustomContext("gpubench.transfer.host_page_tables", table + "}");
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
    return suite::report_error("gpubench-transfer", e);
  }
  // Before any CUDA context: each case then runs on one CPU of its GPU's NUMA node (numa:remote
  // host cases move to the remote node's CPUs for the case, transfer_runner.cpp).
  suite::cuda::pin_before_each_case(devices);
  suite::SuiteInfo info;
  info.name = "transfer";
  info.description =
      "Copy bandwidth and latency: host<->device (pageable, pinned, write-combined, mapped "
      "zero-copy; copy engine and SM), bidirectional, device-local and peer-to-peer, NUMA-local "
      "and remote, as % of the link's rate";
  info.metrics = metrics();
  info.availability = [] {
    const TransferEnvironment& env = transfer_environment();
    suite::Availability avail = suite::available_unless(env.unavailable_reason);
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
    const int device_count = transfer_environment().device_count;
    for (const TransferCase& c : all_cases(profile, numa, devices, device_count)) {
      suite::register_timed(case_name(c), k_samples,
                            [c](benchmark::State& state) { run_case(state, c); });
    }
  };
  return suite::suite_main(argc, argv, info);
}
