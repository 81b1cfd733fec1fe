// The run fingerprint (METHODOLOGY rule 14): host, GPUs, software versions, configuration.
//
// Parsers take text so tests can feed fixture copies of /proc and /etc files; probe_* read the
// live system. Nothing here throws for a missing fact: it stays "unknown" / nullopt.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "results/model.hpp"

namespace gpubench::harness {

struct CpuInfo {
  std::string model = results::k_unknown;
  std::optional<int> sockets;  // distinct "physical id"
  std::optional<int> cores;    // distinct (physical id, core id); else "cpu cores" x sockets
  std::optional<int> threads;  // "processor" entries
};

CpuInfo parse_cpuinfo(std::string_view text);                             // /proc/cpuinfo
std::optional<int64_t> parse_meminfo_total_bytes(std::string_view text);  // /proc/meminfo
std::string parse_os_release_pretty_name(std::string_view text);          // /etc/os-release
// "00000000:17:00.0" (NVML) -> "0000:17:00.0" (sysfs), lower case; a domain above 0xffff keeps
// every digit ("00010000:01:00.0" -> "10000:01:00.0").
std::string sysfs_pci_address(const std::string& nvml_bus_id);

// The variables worth recording: CUDA_*, NCCL_*, OMP_*, GPUBENCH_*, CUBLAS_*, CUBLASLT_* and
// NVIDIA_TF32_OVERRIDE (from "KEY=value" entries).
std::map<std::string, std::string> relevant_env(const std::vector<std::string>& entries);
std::map<std::string, std::string> relevant_env_live();

// Suites run with CUDA_DEVICE_ORDER=PCI_BUS_ID, so CUDA ordinals follow PCI bus order (CUDA's
// default, FASTEST_FIRST, reorders GPUs of mixed models). The run's configuration records it.
inline constexpr const char* k_cuda_device_order = "PCI_BUS_ID";

// CUDA_MODULE_LOADING for a suite child. Since CUDA 12.2 modules load lazily at a kernel's first
// launch, and such a load can wait for the device to go idle, which never happens while the
// timing spin kernel holds the stream (METHODOLOGY rule 2). So suites run EAGER, except those that
// load a large library's modules and preload every kernel they time themselves: gemm (cuBLASLt
// runs every candidate algorithm once before any batch) and allreduce (NCCL; each series loads the
// spin kernel and runs a device barrier before any held stream). EAGER would load all of
// cuBLASLt's or NCCL's kernels into every GPU context (memory and start time no plan counts), so
// they run LAZY: the path gpu-check and the GPU tests exercise. A suite not named here runs EAGER,
// the safe choice for a spin-gated timer. The user's CUDA_MODULE_LOADING is kept for every suite.
inline constexpr const char* k_cuda_module_loading = "EAGER";
inline constexpr const char* k_cuda_module_loading_lazy = "LAZY";
// Whether `suite` ("gemm", "launch", ...) starts with eager module loading by default.
bool suite_loads_modules_eagerly(const std::string& suite);
// The value a suite runs with: `user_value` (the user's CUDA_MODULE_LOADING; nullptr or empty
// counts as unset) when set, else EAGER or LAZY for `suite` as above.
std::string suite_module_loading(const char* user_value, const std::string& suite);

// The variables `gpubench run` sets for a suite child, on top of its own environment:
// GPUBENCH_PROFILE, CUDA_DEVICE_ORDER and CUDA_MODULE_LOADING (see above; read from this
// process's environment). The run's configuration records CUDA_MODULE_LOADING per suite
// (run_module_loading).
std::vector<std::pair<std::string, std::string>> suite_child_env(const std::string& profile,
                                                                 const std::string& suite);
// The run-level record of CUDA_MODULE_LOADING for `suites`: the one value when every suite runs
// with the same, else "EAGER (launch, memory); LAZY (gemm)" in the order given.
std::string run_module_loading(const std::vector<std::string>& suites);

// "21804" (NCCL code) -> "2.18.4"; major*10000+minor*100+patch, or the pre-2.9 major*1000 form.
std::string nccl_version_text(int code);
// 13000 -> "13.0" (CUDA's 1000*major + 10*minor).
std::string cuda_version_text(int code);

results::HostInfo probe_host();
// GPUs through NVML, SM counts through the CUDA driver API (matched by PCI bus id); fills the
// driver versions in `software`. Empty without NVML or devices. `clocks_locked` (optional): set to
// Configuration::clocks_locked's value for these GPUs (clock_lock.hpp clocks_locked_value).
std::vector<results::GpuInfo> probe_gpus(results::SoftwareEnv& software,
                                         std::string* clocks_locked = nullptr);
// Everything except the GPU-derived fields (see probe_gpus).
results::SoftwareEnv probe_software();

struct Environment {
  results::HostInfo host;
  std::vector<results::GpuInfo> gpus;
  results::SoftwareEnv software;
  results::Configuration config;
};
// The whole fingerprint; config.profile = `profile`, config.clocks_locked from NVML ("true" when
// it shows a lock on a GPU, else "unknown": clock_lock.hpp).
Environment probe_environment(const std::string& profile);

}  // namespace gpubench::harness
