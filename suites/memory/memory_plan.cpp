#include "suites/memory/memory_plan.hpp"

#include <algorithm>

#include "kernels/memory/stream.hpp"
#include "suites/common/sampled_batches.hpp"
#include "suites/common/sampling.hpp"
#include "suites/memory/host_stream.hpp"
#include "suites/memory/thread_pool.hpp"
#if GPUBENCH_MEMORY_DEVICE
#include "suites/memory/device_stream.hpp"
#endif

namespace gpubench::suites::memory {

namespace km = gpubench::kernels::memory;

suite::SuitePlan plan_memory(const suite::PlanRequest& request) {
  const suite::ModelRates& r = suite::reference_rates();
  const int repetitions = suite::repetitions_of(request);
  const int cpus = usable_cpu_count();
  [[maybe_unused]] const suite::SamplingPolicy policy = suite::sampling_policy(request.profile);
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
          // One pass: its bytes at HBM rate and its launch; the sampled measurement around it,
          // cold (flushed pairs) where the arrays straddle the reference L2, as device_stream.cpp
          // measures them.
          const std::uint64_t pass_bytes = km::stream_bytes_per_pass(op, bytes);
          const double pass_s =
              suite::transfer_seconds(static_cast<double>(pass_bytes), r.hbm_bytes_per_s) +
              r.kernel_launch_s;
          suite::CaseCost cost =
              suite::planned_cache_mode(pass_bytes, r) == suite::CacheMode::cold
                  ? suite::planned_flushed_cost(pass_s, 1, k_max_passes_per_batch, request.profile,
                                                r)
                  : suite::planned_sampling_cost(pass_s, k_max_passes_per_batch, policy, r);
          cost.setup_s =
              3 * r.per_allocation_s +
              suite::transfer_seconds(3.0 * static_cast<double>(bytes), r.hbm_bytes_per_s);
          cost.validation_s = r.validation_s;
          seconds = suite::case_seconds(cost, repetitions, r);
        }
        plan.cases.push_back({device_benchmark_name(op, bytes, device), seconds});
      }
    }
  }
  device_part =
      "device: per repetition a 1-pass probe, " + std::to_string(policy.steady_readings) +
      " warm-up batches and at most " + std::to_string(policy.max_samples) +
      " samples of >= " + std::to_string(static_cast<int>(policy.batch_target_s * 1e3 + 0.5)) +
      " ms of passes at HBM rate (the noise stop may end earlier); working sets straddling a " +
      std::to_string(r.l2_bytes >> 20) +
      " MiB L2 cold: " + std::to_string(suite::cold_pairs_per_repetition(request.profile)) +
      " (L2 flush, pass) pairs in batches of " +
      std::to_string(suite::cold_pairs_per_batch(1, k_max_passes_per_batch));
#endif
  plan.assumptions = "host: the sweep of this machine's " + std::to_string(cpus) +
                     " usable CPUs, ~512 MiB per repetition; " + device_part + "; " +
                     suite::rates_summary(r);
  return plan;
}

}  // namespace gpubench::suites::memory
