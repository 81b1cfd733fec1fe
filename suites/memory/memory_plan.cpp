#include "suites/memory/memory_plan.hpp"

#include <algorithm>

#include "kernels/memory/stream.hpp"
#include "suites/memory/host_stream.hpp"
#include "suites/memory/thread_pool.hpp"
#if GPUBENCH_MEMORY_DEVICE
#include "suites/memory/device_stream.hpp"
#endif

namespace gpubench::suites::memory {

namespace km = gpubench::kernels::memory;

namespace {
// As device_stream.cpp: samples per repetition of a device case.
constexpr int k_device_samples = 10;
}  // namespace

suite::SuitePlan plan_memory(const suite::PlanRequest& request) {
  const suite::ModelRates& r = suite::reference_rates();
  const int repetitions = suite::repetitions_of(request);
  const int cpus = usable_cpu_count();
  suite::SuitePlan plan;
  plan.fixed_s = suite::startup_seconds(request.gpus, r);
  for (const HostCaseOutline& c : host_case_outlines(request.profile, cpus)) {
    const double rate = std::min(c.threads * r.host_thread_bytes_per_s, r.host_memory_bytes_per_s);
    suite::CaseCost cost;
    // Three arrays allocated and initialised per repetition (first touch on the worker threads).
    cost.setup_s = suite::transfer_seconds(3.0 * static_cast<double>(c.array_bytes), rate);
    cost.sample_s = suite::transfer_seconds(
        static_cast<double>(c.arrays_moved) * static_cast<double>(c.array_bytes), rate);
    cost.samples = static_cast<std::int64_t>(c.passes);
    cost.validation_s = r.validation_s;
    plan.cases.push_back({c.name, suite::case_seconds(cost, repetitions, r)});
  }
  std::string device_part = "device cases not built (no CUDA)";
#if GPUBENCH_MEMORY_DEVICE
  for (int device : suite::plan_devices(request.gpus)) {
    for (km::StreamOp op : km::k_stream_ops) {
      for (std::uint64_t bytes : device_sweep(request.profile)) {
        double seconds = suite::skipped_case_seconds(repetitions, r);
        if (request.gpus > 0) {
          suite::CaseCost cost;
          const double passes = static_cast<double>(device_passes_per_sample(bytes));
          cost.setup_s =
              3 * r.per_allocation_s +
              suite::transfer_seconds(3.0 * static_cast<double>(bytes), r.hbm_bytes_per_s);
          cost.sample_s = passes * (suite::transfer_seconds(
                                        static_cast<double>(km::stream_bytes_per_pass(op, bytes)),
                                        r.hbm_bytes_per_s) +
                                    r.kernel_launch_s) +
                          r.sync_s;
          cost.warmup_s = cost.sample_s;
          cost.samples = k_device_samples;
          cost.validation_s = r.validation_s;
          seconds = suite::case_seconds(cost, repetitions, r);
        }
        plan.cases.push_back({device_benchmark_name(op, bytes, device), seconds});
      }
    }
  }
  device_part = "device: " + std::to_string(k_device_samples) +
                " samples of ~2 GiB of one-array traffic per repetition at HBM rate";
#endif
  plan.assumptions = "host: the sweep of this machine's " + std::to_string(cpus) +
                     " usable CPUs, ~512 MiB per repetition; " + device_part + "; " +
                     suite::rates_summary(r);
  return plan;
}

}  // namespace gpubench::suites::memory
