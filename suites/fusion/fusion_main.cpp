// gpubench-fusion: fused versus unfused kernels (DESIGN.md "Suites"): bias + GELU, residual add +
// LayerNorm, row softmax and GEMM + bias + GELU, each as v1 (unfused) against fused versions, a
// CUDA Graph of v1, and cuBLASLt's epilogue; plus host variants of the three elementwise families
// measured on the CPU. See suites/fusion/README.md for names, byte counts and sweeps.
//
// Flags besides Google Benchmark's: --device N | all (or GPUBENCH_DEVICE), --gpubench_info.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "suites/common/l2_placement.hpp"
#include "suites/common/sampling.hpp"
#include "suites/common/suite_support.hpp"
#include "suites/fusion/fusion_plan.hpp"
#include "suites/fusion/host_fusion.hpp"
#include "suites/memory/thread_pool.hpp"
#include "util/error.hpp"

#if GPUBENCH_FUSION_DEVICE
#include "suites/common/cuda/device.hpp"
#include "suites/common/cuda/libraries.hpp"
#include "suites/common/cuda/pinning.hpp"
#include "suites/common/device_flag.hpp"
#include "suites/fusion/device_fusion.hpp"
#endif

namespace gpubench::fusion {
namespace {

std::vector<suite::MetricSpec> metrics() {
  using suite::Direction;
  std::vector<suite::MetricSpec> out = {
      {"time_per_call_us", "us", Direction::lower,
       "median time of one call of the variant (device: the median of the samples on the steady "
       "SM clock, each CUDA events over a batch of calls queued behind a spin kernel; host: "
       "steady_clock)",
       suite::Role::secondary},
      {"GB_per_s", "GB/s", Direction::higher,
       "effective bandwidth: the bytes a perfect fused kernel must move per call (per family, see "
       "the suite README) / time per call, decimal GB/s"},
      {"pct_of_peak", "%", Direction::higher,
       "device cases: GB_per_s as a percentage of the GPU's theoretical DRAM bandwidth (2 x memory "
       "clock x bus width, as the memory suite computes it), only where the tensors one call "
       "touches are at least 4x the L2 size (the calls stream from DRAM); not reported for "
       "gemm_bias_gelu, which is compute-bound (see TFLOP_per_s)",
       suite::Role::secondary},
      {"speedup_over_v1", "x", Direction::higher,
       "v1's median time per call (the unfused baseline: same family, dtype, size, device and "
       "threads; the same repetition) / this variant's; 1 for v1 itself",
       suite::Role::secondary},
      {"launches_per_call", "launches", Direction::lower,
       "device cases: kernel launches (cuBLASLt calls count as one) the host issues per call; a "
       "CUDA Graph replay is one launch",
       suite::Role::parameter},
      {"passes_per_call", "passes", Direction::lower,
       "host cases: passes over the whole matrix per call (v1: one per unfused step; v2: one)",
       suite::Role::parameter},
      {"TFLOP_per_s", "TFLOP/s", Direction::higher,
       "gemm_bias_gelu only: 2 x tokens x in x out per call / time per call",
       suite::Role::secondary},
      {k_time_at_max_clock_counter, "us", Direction::lower,
       "device cases of launch-bound shapes (modelled call under 20 us): time_per_call_us scaled "
       "to the GPU's maximum SM clock (x steady clock of the samples / maximum clock), so runs at "
       "different clocks compare",
       suite::Role::secondary},
      {suite::k_l2_resident_counter, "flag", Direction::lower,
       "device cases: 1 when the tensors one call touches fit in half the GPU's L2 (GB_per_s is "
       "then served from L2 and pct_of_peak is not reported), else 0",
       suite::Role::parameter},
  };
  // Device cases: how the samples were taken (samples kept, off the steady clock, noise).
  for (suite::MetricSpec& m : suite::sampling_metrics()) out.push_back(std::move(m));
  return out;
}

int fusion_main(int argc, char** argv) {
#if GPUBENCH_FUSION_DEVICE
  std::vector<int> devices;
  std::string device_reason;
  try {
    devices = suite::take_devices(argc, argv, [&] {
      const auto probe = suite::cuda::probe_devices();
      device_reason = probe.reason;
      return probe.count;
    });
  } catch (const gpubench::Error& e) {
    return suite::report_error("gpubench-fusion", e);
  }
  // Before any CUDA context: device cases run on one CPU of their GPU's NUMA node; host cases
  // keep every allowed CPU (suites/common/pinning.hpp).
  suite::cuda::pin_before_each_case(devices);
  add_device_context(devices, device_reason);
  suite::cuda::add_libraries_context({suite::cuda::Library::cublasLt});
#endif
  benchmark::AddCustomContext(
      "gpubench.fusion.inputs",
      "seeded normal(0,1) activations, bias, residual, gamma and beta (splitmix64 + Box-Muller; "
      "device inputs generated on the device, host inputs on the host); gemm_bias_gelu operands "
      "normal(0, k^-1/4) so outputs are about normal(0,1)");
  suite::SuiteInfo info;
  info.name = "fusion";
  info.description =
      "Fused versus unfused kernels: bias+GELU, residual+LayerNorm, softmax, GEMM+bias+GELU "
      "(cuBLASLt epilogue), CUDA Graph replay of the unfused chain; host variants on the CPU";
  info.metrics = metrics();
  info.availability = [&] {
    suite::Availability a;
    const int cpus = suites::memory::usable_cpu_count();
    a.notes.push_back("host cases: " + std::to_string(cpus) + " usable CPUs, threads up to " +
                      std::to_string(std::max(cpus - 1, 1)) + " (one left to the harness)");
#if GPUBENCH_FUSION_DEVICE
    a.notes.push_back(suite::device_cases_note(device_reason));
    a.notes.push_back("gemm_bias_gelu cases: " +
                      suite::cuda::library_note(suite::cuda::Library::cublasLt));
#else
    a.notes.push_back(suite::k_device_cases_not_built);
#endif
    return a;
  };
  info.plan = [](const suite::PlanRequest& request) {
    return plan_fusion(request, GPUBENCH_FUSION_DEVICE != 0);
  };
  info.register_benchmarks = [&] {
    const suite::Profile profile = suite::profile_from_env();
    register_host_benchmarks(profile);
#if GPUBENCH_FUSION_DEVICE
    register_device_benchmarks(profile, devices, device_reason);
#endif
  };
  return suite::suite_main(argc, argv, info);
}

}  // namespace
}  // namespace gpubench::fusion

int main(int argc, char** argv) {
  return gpubench::fusion::fusion_main(argc, argv);
}
