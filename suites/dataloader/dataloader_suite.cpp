// gpubench-dataloader: how fast this machine can feed its GPUs. Thin main over dataloader_core.
#include <cstdlib>
#include <string>
#include <vector>

#include "suites/common/device_flag.hpp"
#include "suites/common/suite_support.hpp"
#include "suites/dataloader/dataloader_cases.hpp"
#include "suites/dataloader/dataloader_cases_detail.hpp"
#include "suites/dataloader/dataloader_plan.hpp"
#include "suites/dataloader/device_staging.hpp"
#include "suites/dataloader/training_step.hpp"
#include "util/cpu_budget.hpp"
#include "util/error.hpp"

namespace {

using gpubench::suite::Direction;
using gpubench::suite::MetricSpec;

// MB_per_s (every case reports it) is the verdict; the rest explain it (issue 9 metric roles).
std::vector<MetricSpec> metrics() {
  std::vector<MetricSpec> all = {
      {"samples_per_s", "samples/s", Direction::higher,
       "samples delivered to the consumer per second"},
      {"MB_per_s", "MB/s", Direction::higher,
       "decoded sample bytes (pixels + label) delivered per second, 1e6 bytes"},
      {"input_MB_per_s", "MB/s", Direction::higher,
       "bytes of the dataset's files consumed per second (text formats: before parsing; parse "
       "cases: text parsed per second on one thread)"},
      {"input_MB_per_core_s", "MB/s", Direction::higher,
       "parse cases: input text bytes parsed per CPU-second of the parsing thread"},
      {"batch_p50_us", "us", Direction::lower,
       "median time a worker takes to read and decode one batch"},
      {"batch_p99_us", "us", Direction::lower, "99th percentile of the same"},
      {"stall_fraction", "fraction", Direction::lower,
       "share of the consumer's wall time spent waiting for a batch (0..1)"},
      {"gpu_idle_fraction", "fraction", Direction::lower,
       "GPU-busy train and image step cases: 1 - (sum of step times) / wall time, the share of the "
       "epoch the GPU (or, label consumer=emulated, the emulated step) waited for input (0..1)"},
      {"gpu_step_ms", "ms", Direction::lower,
       "GPU-busy train and image step cases: measured time of one training step (CUDA events; "
       "emulated: the sleep's steady-clock time)"},
      {"feed_limit_samples_per_s", "samples/s", Direction::higher,
       "GPU-busy train and image step cases: batch / step time, the input rate at which the GPU is "
       "saturated (fed more slowly, it waits)"},
      {"ceiling_MB_per_s", "MB/s", Direction::higher,
       "reference measured in the same benchmark run: memcpy of the dataset's files out of the "
       "page "
       "cache with as many threads as workers (warm), or one-thread sequential read after eviction "
       "(cold)"},
      {"fraction_of_ceiling", "fraction", Direction::higher, "input_MB_per_s / ceiling_MB_per_s"},
      {"resident_fraction", "fraction", Direction::lower,
       "cold cases: share of the dataset still in page cache after eviction (0 = evicted)"},
      {"images_per_s", "images/s", Direction::higher,
       "image cases: JPEG images read, decoded and augmented to bf16 per second"},
      {"cpu_cores_used", "cores", Direction::lower,
       "image cases: process CPU seconds per wall second over the timed epochs"},
      {"decode_fraction", "fraction", Direction::lower,
       "image cases: share of the workers' busy time spent in the JPEG decode (0..1)"},
      {"gpu_decode_fraction", "fraction", Direction::lower,
       "decode:nvjpeg cases: nvJPEG's batched decode time (CUDA events) / wall time (0..1)"},
      {"decoded_MB_per_s", "MB/s", Direction::higher,
       "decode:nvjpeg cases: RGB bytes nvJPEG decoded (+ 4 per label) per second, 1e6 bytes"},
      {"h2d_GB_per_s", "GB/s", Direction::higher,
       "GPU cases: host-to-device copy rate (CUDA events)"},
  };
  for (MetricSpec& m : all) {
    m.role =
        m.name == "MB_per_s" ? gpubench::suite::Role::primary : gpubench::suite::Role::secondary;
    // The GPU-busy step's size describes the case (it is calibrated to the target): not compared.
    if (m.name == "gpu_step_ms" || m.name == "feed_limit_samples_per_s")
      m.role = gpubench::suite::Role::parameter;
  }
  return all;
}

// Whether this run's --benchmark_filter / --benchmark_list_tests run a case with a GPU step,
// matched against the run names Google Benchmark gives register_timed's cases.
bool gemm_step_cases_selected(int argc, char** argv,
                              const gpubench::dataloader::SuiteConfig& config) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  return gpubench::dataloader::gemm_step_cases_run(
      gpubench::dataloader::benchmark_selection(args, std::getenv("BENCHMARK_FILTER"),
                                                std::getenv("BENCHMARK_LIST_TESTS")),
      gpubench::dataloader::detail::gpu_step_run_names(config));
}

}  // namespace

int main(int argc, char** argv) {
  gpubench::suite::SuiteInfo info;
  info.name = "dataloader";
  info.description =
      "input pipeline: formats, read paths (pread, mmap, io_uring), worker sweep, batching into "
      "staging buffers, H2D overlap; warm and cold page cache";
  info.metrics = metrics();
  info.availability = [] {
    gpubench::suite::Availability a;
    a.notes = gpubench::dataloader::availability_notes();
    return a;
  };
  const bool info_only = gpubench::suite::has_arg(argc, argv, "--gpubench_info");
  // --gpubench_plan: the configuration, no preflight, nothing generated
  const bool plan_only = gpubench::suite::has_arg(argc, argv, "--gpubench_plan");
  // --device N / GPUBENCH_DEVICE: the GPU the staging buffers (NUMA-local to it) and the H2D
  // copies are for. "all" or unset: device 0 (the pipeline feeds one GPU per process).
  try {
    const auto devices =
        gpubench::suite::take_devices(argc, argv, gpubench::dataloader::cuda_device_count);
    gpubench::dataloader::set_staging_device(devices.empty() ? 0 : devices.front());
  } catch (const gpubench::Error& e) {
    return gpubench::suite::report_error("gpubench", e);
  }
  benchmark::AddCustomContext("gpubench.devices", gpubench::dataloader::staging_devices_json());
  // The CPUs the worker sweep is sized by (affinity mask capped by the cgroup quota): report and
  // doctor state each pipeline's worker count at 95% of its best as a multiple of it (issue 41).
  benchmark::AddCustomContext("gpubench.usable_cpus", std::to_string(gpubench::usable_cpu_count()));
  gpubench::dataloader::SuiteConfig config;
  if (!info_only) {
    // Bad configuration stops the suite before any work, with the CLI's error format and exit 2.
    try {
      config = gpubench::dataloader::load_suite_config(gpubench::suite::profile_from_env());
      if (!plan_only) gpubench::dataloader::preflight(config);
    } catch (const gpubench::Error& e) {
      return gpubench::suite::report_error("gpubench", e);
    }
    // Where the GPU-busy step's cuBLAS came from. Loading cuBLAS and cuBLASLt takes time and
    // memory: only when a GPU-step case will run (not for a plan, a listing or a filter without
    // one).
    if (!plan_only && gemm_step_cases_selected(argc, argv, config)) {
      gpubench::dataloader::add_gemm_step_context();
    }
  }
  info.plan = [&config](const gpubench::suite::PlanRequest& request) {
    gpubench::dataloader::SuiteConfig planned = config;
    if (request.profile != config.profile) {
      planned = gpubench::dataloader::load_suite_config(request.profile);
    }
    return gpubench::dataloader::plan_dataloader(request, planned);
  };
  info.register_benchmarks = [&config, info_only] {
    if (!info_only) gpubench::dataloader::register_dataloader_benchmarks(config);
  };
  return gpubench::suite::suite_main(argc, argv, info);
}
