// The data the results store keeps, as plain structs shared by the harness (which fills them),
// the store (which persists them) and compare (which reads them). No SQLite here.
//
// Unknown environment facts are the string "unknown" (or nullopt for numbers), never a guess.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "util/sample_state.hpp"

namespace gpubench::results {

inline constexpr const char* k_unknown = "unknown";

// Most bytes a benchmark name may have (Google Benchmark's are a few dozen): names are keys held
// in memory while a file is imported and printed in every report, so a file of 10 KB names
// would cost memory and screens in proportion. Refused with exit 2 at ingest and import.
inline constexpr std::size_t k_max_benchmark_name_bytes = 4096;
// Most bytes a tag (key=value), a note or an annotation may have, from the command line
// (harness/cli/cli_common.hpp) or an imported export alike: they are shown in every listing.
inline constexpr std::size_t k_max_text_bytes = 4096;
// The tag key of a `run --until-decided` rerun (value: the id of the invocation's first run). A
// rerun holds only the benchmarks that were inconclusive: selections of "the latest results"
// (`latest`, tag:, host:, gpu:) skip runs carrying it, so they resolve to the whole first run.
inline constexpr const char* k_rerun_tag_key = "until_decided";
// The tag `gpubench import` gives a run it makes from a Google Benchmark file (value: the file's
// name): the run was measured elsewhere, so `latest` (while the database has runs of its own) and
// baseline:previous-good skip it; tag:imported selects such runs, an id always does.
inline constexpr const char* k_imported_tag_key = "imported";
// The tag `gpubench accept` adds to the run it accepted (issue 38; value: "PASS|FAIL against
// <reference> at <ISO 8601 UTC>", one tag per verdict, the newest, highest position, counts):
// a run whose newest verdict is FAIL is left out of run-to-run noise and `history`
// (results/history_exclusions.hpp) until a later PASS or `history include RUN`, which adds
// k_history_included_tag_key after it.
inline constexpr const char* k_accept_tag_key = "gpubench.accept";
inline constexpr const char* k_history_included_tag_key = "gpubench.history";

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

// A GPU as NVML saw it when the run started. It is identified by `uuid` (PCI bus id as a
// fallback), never by an index: `nvml_index` is NVML's enumeration order, which NVML documents
// may differ from the CUDA device ordinal a suite's `device:N` names (CUDA orders by speed unless
// CUDA_DEVICE_ORDER=PCI_BUS_ID, and renumbers under CUDA_VISIBLE_DEVICES; NVML does neither).
struct GpuInfo {
  int nvml_index = 0;  // NVML device index at the time of the run (not a CUDA ordinal)
  std::string uuid = k_unknown;
  std::string name = k_unknown;  // "NVIDIA H200"
  std::string pci_bus_id = k_unknown;
  std::optional<int64_t> memory_bytes;
  std::optional<int> sm_count;
  std::string compute_capability = k_unknown;  // "9.0"
  std::optional<int> max_sm_clock_mhz;
  std::optional<int> max_mem_clock_mhz;
  std::optional<int> default_sm_clock_mhz;  // NVML default applications clock (SM)
  // NVML's current applications clock (what `nvidia-smi -ac` sets; a deprecated query that
  // current drivers may not answer). Away from default_sm_clock_mhz it is a lock, and the clock
  // samples are expected at (results/sample_states.hpp expected_sm_clock_mhz); else they are
  // expected at max_sm_clock_mhz.
  std::optional<int> app_sm_clock_mhz;
  // The enforced limit (nvmlDeviceGetEnforcedPowerLimit: after out-of-band caps), W.
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

// abandoned: the gpubench that ran it died without closing it (found by a later writer).
// incomplete: every suite finished, but the server missed the hardware the run expected
// (`run --expect-gpus N`: a GPU gone): its results are not the server's (schema v7, issue 38).
enum class RunStatus { running, complete, interrupted, failed, abandoned, incomplete };
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

// How busy the machine was with other work while a suite ran (harness/run/machine_load.hpp),
// kept in the suite run's context JSON under "gpubench.machine_load".
struct MachineLoad {
  double loadavg_1m_start = 0;  // /proc/loadavg's 1-minute average (runnable tasks) at the start
  double loadavg_1m_end = 0;    // ... and at the end
  // CPU seconds other processes used meanwhile: the busy time of /proc/stat's "cpu" line minus
  // the CPU time of gpubench and of the suite's processes (their rusage).
  double other_cpu_s = 0;
  double wall_s = 0;  // seconds the suite ran
  // CPUs busy elsewhere on average: other_cpu_s / wall_s (0 without a duration).
  double other_cpus_busy() const { return wall_s > 0 ? other_cpu_s / wall_s : 0; }
};

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
  std::string stdout_tail;  // last 8 KiB of stdout, kept when the suite did not end ok
  // Unset: not recorded (imported files, runs stored before issue 38, no /proc).
  std::optional<MachineLoad> load;
};

// NVML clocks-event reason groups (util/sample_state.hpp `reasons::`): the power cap (0x4), board
// limit (0x200) and reliability policy (0x400) mark samples power_limited (normal for data-centre
// parts under load, informational); HW slowdown 0x8, SW thermal 0x20, HW thermal 0x40 and HW power
// brake 0x80 mark them thermal_or_hw_slowdown (invalid). GPU idle (0x1) and the application
// clocks setting (0x2) are neither.
inline constexpr int64_t k_reasons_power_limited = sample_state::reasons::power_limited;
inline constexpr int64_t k_reasons_slowdown = sample_state::reasons::thermal_or_hw_slowdown;

// One NVML telemetry sample of one GPU, taken while a suite ran (harness/probe/telemetry.hpp).
// Unknown readings (not supported, no permission, no ECC) are nullopt. Counters are as NVML reports
// them at that moment (cumulative), so an increase during a suite run is max - min.
struct TelemetrySample {
  int nvml_index = 0;  // NVML index, the same as GpuInfo::nvml_index of the run
  double t_s = 0;      // seconds since the run started (steady clock)
  std::optional<double> sm_clock_mhz;
  std::optional<double> mem_clock_mhz;
  std::optional<double> temperature_c;      // GPU die
  std::optional<double> power_w;            // board power draw, NVML's 1-second average
  std::optional<double> power_instant_w;    // board power now (NVML_FI_DEV_POWER_INSTANT)
  std::optional<double> util_gpu_pct;       // % of the last sample period a kernel was running
  std::optional<double> util_mem_pct;       // % of the last sample period device memory was busy
  std::optional<int64_t> throttle_reasons;  // NVML clocks-event reason bit mask
  std::optional<int64_t> ecc_sbe;           // volatile corrected (single-bit) ECC errors
  std::optional<int64_t> ecc_dbe;           // volatile uncorrected (double-bit) ECC errors
  std::optional<int64_t> retired_pages;     // retired pages (before Ampere; nullopt after)
  // Row remapping (Ampere and newer): rows remapped (correctable + uncorrectable), a remap
  // waiting for the next GPU reset, and a remap that failed. A failure means the GPU cannot
  // take more memory errors out of service: send it for service (`accept` fails on it).
  std::optional<int64_t> remapped_rows;
  std::optional<bool> remap_pending;
  std::optional<bool> remap_failure;
  std::optional<int64_t> pcie_replay_counter;
};

// True when the reason mask holds a thermal or hardware slowdown reason (the sample is invalid).
inline bool is_slowdown(int64_t throttle_reasons) {
  return (throttle_reasons & k_reasons_slowdown) != 0;
}
// True when the power cap held the clock (informational).
inline bool is_power_limited(int64_t throttle_reasons) {
  return (throttle_reasons & k_reasons_power_limited) != 0;
}

// What the telemetry of one GPU in one run says, for `gpubench show`.
struct TelemetrySummary {
  int nvml_index = 0;
  std::string gpu_uuid;  // empty when the run did not record this GPU
  int64_t samples = 0;
  std::optional<double> max_temperature_c;
  std::optional<double> max_power_w;
  std::optional<double> min_sm_clock_mhz;
  std::optional<double> max_sm_clock_mhz;
  int64_t throttled_samples = 0;            // samples with a thermal or HW slowdown reason set
  int64_t power_limited_samples = 0;        // samples with the power cap reason set
  int64_t throttle_known = 0;               // samples whose reason mask was readable
  std::optional<int64_t> ecc_sbe_increase;  // max - min over the run (volatile counters)
  std::optional<int64_t> ecc_dbe_increase;
  std::optional<int64_t> retired_pages_increase;
  std::optional<int64_t> pcie_replay_increase;
  std::optional<int64_t> remapped_rows_increase;
  bool remap_pending = false;  // a sample saw a remap waiting for a GPU reset
  bool remap_failure = false;  // a sample saw a failed row remap: send the GPU for service
  std::vector<std::string> throttled_suites;  // suites with thermal/HW slowdown, in run order
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
  std::string text;              // as written
  std::optional<double> number;  // when the text is a number
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
