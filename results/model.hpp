// The data the results store keeps, as plain structs shared by the harness (which fills them),
// the store (which persists them) and compare (which reads them). No SQLite here.
//
// Unknown environment facts are the string "unknown" (or nullopt for numbers), never a guess.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace gpubench::results {

inline constexpr const char* k_unknown = "unknown";

struct HostInfo {
  std::string hostname = k_unknown;
  std::string cpu_model = k_unknown;
  std::optional<int> sockets;
  std::optional<int> cores;    // physical cores, all sockets
  std::optional<int> threads;  // logical CPUs
  std::optional<int64_t> memory_bytes;
  std::string kernel = k_unknown;    // uname -r
  std::string os = k_unknown;        // PRETTY_NAME from /etc/os-release
  std::string governor = k_unknown;  // cpufreq scaling governor of cpu0
  std::string arch = k_unknown;      // uname -m
};

struct GpuInfo {
  int index = 0;  // CUDA/NVML device index at the time of the run
  std::string uuid = k_unknown;
  std::string name = k_unknown;  // "NVIDIA H200"
  std::string pci_bus_id = k_unknown;
  std::optional<int64_t> memory_bytes;
  std::optional<int> sm_count;
  std::string compute_capability = k_unknown;  // "9.0"
  std::optional<int> max_sm_clock_mhz;
  std::optional<int> max_mem_clock_mhz;
  std::optional<int> default_sm_clock_mhz;  // application/default clock; the 75% rule uses it
  std::optional<double> power_limit_w;
  std::string ecc = k_unknown;  // "on", "off", "unknown"
  std::optional<int> pcie_gen;
  std::optional<int> pcie_width;
  std::optional<int> numa_node;
};

// Every field of a GpuInfo as JSON, unknown numbers as null. The store fingerprints GPUs with it
// and `gpubench export`/`show --format json` print it, so both always carry the same fields.
nlohmann::json to_json(const GpuInfo& gpu);

struct SoftwareEnv {
  std::string driver_version = k_unknown;        // NVIDIA driver, "560.35.03"
  std::string cuda_driver_version = k_unknown;   // CUDA version the driver supports, "12.6"
  std::string cuda_runtime_version = k_unknown;  // runtime the suites were built with
  std::string cublas_version = k_unknown;
  std::string nccl_version = k_unknown;
  std::string kernel = k_unknown;
  std::string compiler = k_unknown;
  std::string gpubench_version = k_unknown;
  std::string git_sha = k_unknown;
  std::string git_dirty = k_unknown;  // "true", "false", "unknown"
};

struct Configuration {
  std::string profile = "standard";
  std::map<std::string, std::string> env;  // CUDA_*, NCCL_*, OMP_*, GPUBENCH_* variables
  std::string clocks_locked = k_unknown;   // "true", "false", "unknown"
};

enum class RunStatus { running, complete, interrupted, failed };
const char* to_string(RunStatus status);
std::optional<RunStatus> run_status_from_string(const std::string& text);

struct RunInfo {
  std::string uuid;        // empty: the store makes one
  std::string started_at;  // ISO 8601 UTC; empty: now
  std::string user = k_unknown;
  std::vector<std::string> argv;
  std::vector<std::pair<std::string, std::string>> tags;  // k=v, in order given
  std::string note;
  HostInfo host;
  std::vector<GpuInfo> gpus;
  SoftwareEnv software;
  Configuration config;
};

enum class SuiteStatus { ok, failed, timeout, crashed, interrupted, skipped };
const char* to_string(SuiteStatus status);
std::optional<SuiteStatus> suite_status_from_string(const std::string& text);

// One suite executable's run inside a run.
struct SuiteRunInfo {
  std::string suite;       // "memory"
  std::string executable;  // path as run
  std::vector<std::string> argv;
  std::string started_at;
  std::string finished_at;
  double duration_s = 0;
  std::optional<int> exit_code;    // set when it exited
  std::optional<int> term_signal;  // set when a signal killed it
  SuiteStatus status = SuiteStatus::ok;
  std::string reason;       // why it failed / was skipped, for people
  std::string stderr_tail;  // last few KiB of stderr
};

// NVML clocks-event ("throttle") reason bits that mean the GPU ran slower than it could for power
// or thermal reasons (METHODOLOGY rule 5): SW power cap 0x4, HW slowdown 0x8, SW thermal 0x20,
// HW thermal 0x40, HW power brake 0x80. GPU idle (0x1) and the application clocks setting (0x2)
// are not throttling. The harness keeps the named bits (harness/nvml.hpp `throttle::`).
inline constexpr int64_t k_throttle_performance_limiting = 0x4 | 0x8 | 0x20 | 0x40 | 0x80;

// One NVML telemetry sample of one GPU, taken while a suite ran (harness/telemetry.hpp). Unknown
// readings (not supported, no permission, no ECC) are nullopt. Counters are as NVML reports them
// at that moment (cumulative), so an increase during a suite run is max - min.
struct TelemetrySample {
  int device_index = 0;  // NVML index, the same as GpuInfo::index of the run
  double t_s = 0;        // seconds since the run started (steady clock)
  std::optional<double> sm_clock_mhz;
  std::optional<double> mem_clock_mhz;
  std::optional<double> temperature_c;  // GPU die
  std::optional<double> power_w;        // board power draw
  std::optional<double> util_gpu_pct;   // % of the last sample period a kernel was running
  std::optional<double> util_mem_pct;   // % of the last sample period device memory was busy
  std::optional<int64_t> throttle_reasons;  // NVML clocks-event reason bit mask
  std::optional<int64_t> ecc_sbe;           // volatile corrected (single-bit) ECC errors
  std::optional<int64_t> ecc_dbe;           // volatile uncorrected (double-bit) ECC errors
  // Memory taken out of service: retired pages (before Ampere) or, on GPUs that remap rows
  // instead (Ampere and newer), remapped rows (correctable + uncorrectable).
  std::optional<int64_t> retired_pages;
  std::optional<int64_t> pcie_replay_counter;
};

// True when the reason mask holds a power or thermal throttle reason.
inline bool is_throttling(int64_t throttle_reasons) {
  return (throttle_reasons & k_throttle_performance_limiting) != 0;
}

// What the telemetry of one GPU in one run says, for `gpubench show`.
struct TelemetrySummary {
  int device_index = 0;
  int64_t samples = 0;
  std::optional<double> max_temperature_c;
  std::optional<double> max_power_w;
  std::optional<double> min_sm_clock_mhz;
  std::optional<double> max_sm_clock_mhz;
  int64_t throttled_samples = 0;   // samples with a power/thermal reason set
  int64_t throttle_known = 0;      // samples whose reason mask was readable
  std::optional<int64_t> ecc_sbe_increase;  // max - min over the run (volatile counters)
  std::optional<int64_t> ecc_dbe_increase;
  std::optional<int64_t> retired_pages_increase;
  std::optional<int64_t> pcie_replay_increase;
  std::vector<std::string> throttled_suites;  // suites during which it throttled, in run order
};

enum class Direction { higher, lower, unknown };
const char* to_string(Direction direction);
std::optional<Direction> direction_from_string(const std::string& text);

// What a metric is for in its suite (results/metric_roles.hpp). unknown: the suite declared no
// roles; such a metric counts like a primary one.
enum class MetricRole { primary, secondary, parameter, unknown };
const char* to_string(MetricRole role);
std::optional<MetricRole> metric_role_from_string(const std::string& text);

// Outcome of one benchmark in one suite run (Google Benchmark's error/skip are data).
enum class BenchmarkStatus { ok, skipped, error };
const char* to_string(BenchmarkStatus status);

// A typed parameter parsed from a benchmark name ("bytes:268435456" -> bytes = 268435456).
struct Param {
  std::string key;
  std::string text;                   // as written
  std::optional<double> number;       // when the text is a number
};

// "memory/triad/bytes:268435456/threads:2" -> suite "memory", case "triad", params
// [bytes=268435456, threads=2]. Google Benchmark's own suffixes ("/real_time", "/iterations:10",
// "/repeats:3", "/threads:2", "/min_time:0.5", "/manual_time") are params too. A name without the
// suite prefix gets `default_suite`. A path part without ':' after the case joins the case
// ("fusion/bias_gelu/v2" -> case "bias_gelu/v2").
struct ParsedName {
  std::string suite;
  std::string case_name;
  std::vector<Param> params;
};
ParsedName parse_benchmark_name(const std::string& name, const std::string& default_suite);

}  // namespace gpubench::results
