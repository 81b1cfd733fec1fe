// Doctor checks on the driver and the GPUs: driver vs runtime, toolkit on PATH, persistence, ECC,
// retired memory, PCIe links, clocks and power, NUMA affinity, GPU visibility. Pure functions of
// the facts probed in doctor_nvml.cpp. A check over several GPUs lists every GPU in its value and
// takes the worst status (fail > warn > unknown > pass), so one bad GPU in eight is named.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <set>

#include "harness/doctor.hpp"
#include "harness/doctor_detail.hpp"
#include "util/strings.hpp"

namespace gpubench::harness {

using namespace doctor_detail;

namespace {

struct GpuVerdict {
  CheckStatus status = CheckStatus::pass;
  std::string text;
};

// One check over every GPU: `judge` gives each GPU's verdict.
DoctorCheck per_gpu(const std::string& name, const char* area, const std::vector<GpuFacts>& gpus,
                    const GpuCount& count, const std::string& expected, const std::string& fix,
                    const std::function<GpuVerdict(const GpuFacts&)>& judge) {
  if (!count.unknown_reason.empty())
    return unknown_check(name, area, count.unknown_reason, expected, fix);
  if (gpus.empty()) return unknown_check(name, area, "NVML lists no GPUs", expected, fix);
  CheckStatus status = CheckStatus::pass;
  std::vector<std::string> parts;
  for (const GpuFacts& g : gpus) {
    const GpuVerdict v = judge(g);
    status = worse(status, v.status);
    parts.push_back("gpu" + std::to_string(g.index) + " " + v.text);
  }
  // All GPUs unknown: the value starts with "unknown:" like every other unknown check.
  std::string value = join(parts, "; ");
  if (status == CheckStatus::unknown) value = "unknown: " + value;
  return make_check(name, area, status, value, expected, fix);
}

std::string opt_count(const std::optional<int64_t>& v) {
  return v ? std::to_string(*v) : std::string("unknown");
}

// Whole numbers without a fraction ("700 W"), others to 4 significant digits.
std::string plain_number(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<int64_t>(v));
  return format_significant(v, 4);
}

std::string watts(double w) {
  return plain_number(w) + " W";
}

}  // namespace

std::optional<std::pair<int, int>> major_minor(const std::string& version) {
  const auto parts = split(version, '.');
  if (parts.size() < 2) return std::nullopt;
  const auto major = parse_int(parts[0]), minor = parse_int(parts[1]);
  if (!major || !minor) return std::nullopt;
  return std::pair<int, int>(static_cast<int>(*major), static_cast<int>(*minor));
}

std::optional<std::string> parse_nvcc_release(const std::string& text) {
  const auto pos = text.find("release ");
  if (pos == std::string::npos) return std::nullopt;
  std::string rest = text.substr(pos + 8);
  const auto end = rest.find_first_of(", \n");
  rest = rest.substr(0, end);
  if (!major_minor(rest)) return std::nullopt;
  return rest;
}

DoctorCheck check_driver_cuda(const DriverFacts& d, const GpuCount& count) {
  const std::string name = "driver.cuda_version";
  const std::string expected =
      "the driver's CUDA version at least the runtime's (" +
      (d.runtime_version.empty() ? std::string("built without CUDA") : d.runtime_version) + ")";
  const std::string fix = "install a driver that supports CUDA " + d.runtime_version +
                          " (or rebuild gpubench with an older toolkit)";
  if (d.runtime_version.empty()) {
    return unknown_check(name, k_area_driver,
                         "gpubench was built without the CUDA toolkit (no runtime to match)",
                         expected, fix);
  }
  if (!d.driver_cuda_version) {
    return unknown_check(
        name, k_area_driver,
        count.unknown_reason.empty() ? "the driver reports no CUDA version" : count.unknown_reason,
        expected, fix);
  }
  const auto drv = major_minor(*d.driver_cuda_version), rt = major_minor(d.runtime_version);
  const std::string value =
      "driver " + (d.driver_version.empty() ? std::string("unknown") : d.driver_version) +
      " supports CUDA " + *d.driver_cuda_version + ", runtime " + d.runtime_version;
  if (!drv || !rt)
    return unknown_check(name, k_area_driver, "unparsable versions: " + value, expected, fix);
  return make_check(name, k_area_driver, *drv >= *rt ? CheckStatus::pass : CheckStatus::fail, value,
                    expected, fix);
}

DoctorCheck check_toolkit(const DriverFacts& d) {
  const std::string name = "driver.toolkit_on_path";
  const std::string expected =
      "nvcc on PATH of the runtime's release (" +
      (d.runtime_version.empty() ? std::string("built without CUDA") : d.runtime_version) + ")";
  const std::string fix =
      "put the matching toolkit's bin first on PATH (e.g. /usr/local/cuda-<version>/bin)";
  if (d.runtime_version.empty()) {
    return unknown_check(name, k_area_driver, "gpubench was built without the CUDA toolkit",
                         expected, fix);
  }
  if (!d.toolkit_version)
    return unknown_check(name, k_area_driver, d.toolkit_reason, expected, fix);
  const auto tk = major_minor(*d.toolkit_version), rt = major_minor(d.runtime_version);
  const bool same = tk && rt && *tk == *rt;
  return make_check(
      name, k_area_driver, same ? CheckStatus::pass : CheckStatus::warn,
      "nvcc release " + *d.toolkit_version + ", suites built with " + d.runtime_version, expected,
      fix);
}

DoctorCheck check_persistence(const std::vector<GpuFacts>& gpus, const GpuCount& count) {
  return per_gpu("gpu.persistence_mode", k_area_gpu, gpus, count,
                 "persistence mode on (no driver re-initialisation between jobs)",
                 "nvidia-smi -pm 1, or enable nvidia-persistenced", [](const GpuFacts& g) {
                   if (!g.persistence) return GpuVerdict{CheckStatus::unknown, "unknown"};
                   return *g.persistence ? GpuVerdict{CheckStatus::pass, "on"}
                                         : GpuVerdict{CheckStatus::warn, "off"};
                 });
}

DoctorCheck check_ecc_mode(const std::vector<GpuFacts>& gpus, const GpuCount& count) {
  return per_gpu(
      "gpu.ecc_mode", k_area_gpu, gpus, count, "ECC on (where the GPU has it)",
      "nvidia-smi -e 1, then reset the GPU or reboot", [](const GpuFacts& g) {
        if (!g.ecc_enabled)
          return GpuVerdict{CheckStatus::unknown, "unknown (not supported or no permission)"};
        return *g.ecc_enabled ? GpuVerdict{CheckStatus::pass, "on"}
                              : GpuVerdict{CheckStatus::warn, "off"};
      });
}

DoctorCheck check_ecc_errors(const std::vector<GpuFacts>& gpus, const GpuCount& count) {
  return per_gpu(
      "gpu.ecc_errors", k_area_gpu, gpus, count,
      "no uncorrected ECC errors (volatile or aggregate); corrected ones are counted",
      "drain the GPU and run DCGM diagnostics (dcgmi diag -r 3); uncorrected errors mean RMA",
      [](const GpuFacts& g) {
        if (g.ecc_enabled == false) return GpuVerdict{CheckStatus::pass, "ECC off, no counters"};
        if (!g.ecc_volatile_uncorrected && !g.ecc_aggregate_uncorrected) {
          return GpuVerdict{CheckStatus::unknown, "unknown (counters not readable)"};
        }
        const std::string text = "volatile " + opt_count(g.ecc_volatile_corrected) + " corrected/" +
                                 opt_count(g.ecc_volatile_uncorrected) +
                                 " uncorrected, aggregate " + opt_count(g.ecc_aggregate_corrected) +
                                 "/" + opt_count(g.ecc_aggregate_uncorrected);
        if (g.ecc_volatile_uncorrected.value_or(0) > 0 ||
            g.ecc_aggregate_uncorrected.value_or(0) > 0) {
          return GpuVerdict{CheckStatus::fail, text};
        }
        if (g.ecc_volatile_corrected.value_or(0) > 0 || g.ecc_aggregate_corrected.value_or(0) > 0) {
          return GpuVerdict{CheckStatus::warn, text};
        }
        return GpuVerdict{CheckStatus::pass, text};
      });
}

DoctorCheck check_retired_memory(const std::vector<GpuFacts>& gpus, const GpuCount& count) {
  return per_gpu(
      "gpu.retired_memory", k_area_gpu, gpus, count,
      "no pending page retirement or row remapping, no remapping failure",
      "pending: reset the GPU (nvidia-smi -r) to apply it; a remapping failure: drain and RMA",
      [](const GpuFacts& g) {
        std::vector<std::string> parts;
        CheckStatus s = CheckStatus::pass;
        if (g.remapped_rows) {
          const RemappedRows& r = *g.remapped_rows;
          parts.push_back("remapped rows " + std::to_string(r.corrected) + " correctable/" +
                          std::to_string(r.uncorrected) + " uncorrectable");
          if (r.pending) parts.push_back("remapping pending"), s = worse(s, CheckStatus::warn);
          if (r.failure) parts.push_back("remapping FAILED"), s = worse(s, CheckStatus::fail);
        }
        if (g.retired_pages) {
          parts.push_back("retired pages " + std::to_string(*g.retired_pages));
          if (g.retired_pages_pending == true) {
            parts.push_back("retirement pending");
            s = worse(s, CheckStatus::warn);
          }
        }
        if (parts.empty())
          return GpuVerdict{CheckStatus::unknown,
                            "unknown (neither retired pages nor remapped rows readable)"};
        return GpuVerdict{s, join(parts, ", ")};
      });
}

DoctorCheck check_pcie(const std::vector<GpuFacts>& gpus, const GpuCount& count) {
  return per_gpu("pcie.link", k_area_pcie, gpus, count,
                 "link width at its maximum, the slot as fast as the GPU, generation at its "
                 "maximum under load",
                 "reseat the GPU or riser, check the slot's BIOS link settings; a narrow link "
                 "halves host copies",
                 [](const GpuFacts& g) {
                   if (!g.pcie_gen || !g.pcie_width || !g.pcie_max_gen || !g.pcie_max_width) {
                     return GpuVerdict{CheckStatus::unknown, "unknown (link not readable)"};
                   }
                   std::string text = "gen " + std::to_string(*g.pcie_gen) + "/" +
                                      std::to_string(*g.pcie_max_gen) + " x" +
                                      std::to_string(*g.pcie_width) + "/" +
                                      std::to_string(*g.pcie_max_width);
                   CheckStatus s = CheckStatus::pass;
                   if (*g.pcie_width < *g.pcie_max_width) {
                     text += ", down-trained width";
                     s = CheckStatus::warn;
                   }
                   if (g.pcie_gpu_max_gen && *g.pcie_max_gen < *g.pcie_gpu_max_gen) {
                     text += ", slot limits the GPU's gen " + std::to_string(*g.pcie_gpu_max_gen);
                     s = CheckStatus::warn;
                   }
                   if (*g.pcie_gen < *g.pcie_max_gen) {
                     if (g.idle == true) {
                       text += " (idle: the link trains down to save power; gen not judged)";
                     } else {
                       text += ", below its maximum generation while not idle";
                       s = CheckStatus::warn;
                     }
                   }
                   return GpuVerdict{s, text};
                 });
}

DoctorCheck check_app_clocks(const std::vector<GpuFacts>& gpus, const GpuCount& count) {
  return per_gpu(
      "clocks.application", k_area_clocks, gpus, count,
      "application SM clock at its default and no user clock limit (or as configured; value shown)",
      "nvidia-smi -rac and -rgc to reset, or record the setting as intended",
      [](const GpuFacts& g) {
        std::vector<std::string> parts;
        CheckStatus s = CheckStatus::pass;
        if (g.app_sm_clock_mhz && g.default_app_sm_clock_mhz) {
          parts.push_back("application SM clock " + std::to_string(*g.app_sm_clock_mhz) +
                          " MHz (default " + std::to_string(*g.default_app_sm_clock_mhz) + ")");
          if (*g.app_sm_clock_mhz != *g.default_app_sm_clock_mhz) s = CheckStatus::warn;
        }
        if (g.clocks_user_limited == true) {
          parts.push_back("clocks limited by an application/locked clock setting");
          s = CheckStatus::warn;
        }
        if (parts.empty()) {
          if (g.clocks_user_limited == false)
            return GpuVerdict{CheckStatus::pass, "no clock setting limits the GPU"};
          return GpuVerdict{CheckStatus::unknown, "unknown (application clocks not readable)"};
        }
        return GpuVerdict{s, join(parts, ", ")};
      });
}

DoctorCheck check_power_limit(const std::vector<GpuFacts>& gpus, const GpuCount& count) {
  return per_gpu("clocks.power_limit", k_area_clocks, gpus, count,
                 "power limit at its default (or as configured; value shown)",
                 "nvidia-smi -pl <default watts>, or record the setting as intended",
                 [](const GpuFacts& g) {
                   if (!g.power_limit_w || !g.default_power_limit_w) {
                     return GpuVerdict{CheckStatus::unknown, "unknown (power limit not readable)"};
                   }
                   const std::string text = watts(*g.power_limit_w) + " (default " +
                                            watts(*g.default_power_limit_w) + ")";
                   const bool same = std::fabs(*g.power_limit_w - *g.default_power_limit_w) < 0.5;
                   return GpuVerdict{same ? CheckStatus::pass : CheckStatus::warn, text};
                 });
}

DoctorCheck check_numa_affinity(const std::vector<GpuFacts>& gpus, const GpuCount& count,
                                const std::optional<std::vector<int>>& allowed,
                                const std::vector<std::optional<std::vector<int>>>& node_cpus) {
  const std::string expected = "the CPUs this process may use include each GPU's NUMA node";
  const std::string fix =
      "pin with numactl --cpunodebind=<GPU's node> or taskset to that node's CPUs";
  if (!allowed) {
    return unknown_check("topology.numa_affinity", k_area_topology, "sched_getaffinity failed",
                         expected, fix);
  }
  const std::set<int> mine(allowed->begin(), allowed->end());
  return per_gpu(
      "topology.numa_affinity", k_area_topology, gpus, count, expected, fix,
      [&](const GpuFacts& g) {
        if (!g.numa_node)
          return GpuVerdict{CheckStatus::unknown, "unknown (no NUMA node in sysfs)"};
        const int node = *g.numa_node;
        if (node >= static_cast<int>(node_cpus.size()) || !node_cpus[node]) {
          return GpuVerdict{CheckStatus::unknown,
                            "node " + std::to_string(node) + " (its CPU list is not readable)"};
        }
        const auto& cpus = *node_cpus[node];
        const auto local =
            std::count_if(cpus.begin(), cpus.end(), [&](int c) { return mine.count(c) > 0; });
        const std::string text = "node " + std::to_string(node) + ", " + std::to_string(local) +
                                 " of its " + std::to_string(cpus.size()) + " CPUs allowed";
        return GpuVerdict{local > 0 ? CheckStatus::pass : CheckStatus::warn, text};
      });
}

DoctorCheck check_gpu_visibility(const DriverFacts& d, const GpuCount& count,
                                 const ContainerFacts& container) {
  const std::string name = "container.gpu_visibility";
  const std::string expected = "this process sees every GPU the driver manages (NVML and CUDA)";
  const std::string fix =
      "docker run --gpus all (or NVIDIA_VISIBLE_DEVICES=all); unset CUDA_VISIBLE_DEVICES";
  if (!count.unknown_reason.empty()) {
    return unknown_check(name, k_area_container, count.unknown_reason, expected, fix);
  }
  if (!d.cuda_device_count) {
    return unknown_check(name, k_area_container, d.cuda_reason, expected, fix);
  }
  std::string value;
  bool hidden = *d.cuda_device_count < count.count;
  if (d.driver_gpu_count) {
    value = "driver manages " + std::to_string(*d.driver_gpu_count) + ", ";
    hidden = hidden || count.count < *d.driver_gpu_count;
  }
  value += "NVML lists " + std::to_string(count.count) + ", CUDA sees " +
           std::to_string(*d.cuda_device_count);
  if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES")) {
    value += std::string(" (CUDA_VISIBLE_DEVICES=") + visible + ")";
  }
  if (!container.runtime.empty()) value += ", in " + container.runtime;
  return make_check(name, k_area_container, hidden ? CheckStatus::warn : CheckStatus::pass, value,
                    expected, fix);
}

}  // namespace gpubench::harness
