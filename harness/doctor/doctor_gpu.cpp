// Doctor checks on the driver and the GPUs: driver vs runtime, toolkit on PATH, persistence, ECC,
// retired memory, PCIe links, clocks and power, NUMA affinity, GPU visibility. Pure functions of
// the facts probed in doctor_nvml.cpp. A check over several GPUs lists every GPU in its value and
// takes the worst status (fail > warn > unknown > pass), so one bad GPU in eight is named.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <set>

#include "harness/doctor/doctor.hpp"
#include "harness/doctor/doctor_detail.hpp"
#include "harness/probe/clock_lock.hpp"
#include "harness/probe/nvml.hpp"
#include "results/model.hpp"
#include "util/sample_state.hpp"
#include "util/strings.hpp"

namespace gpubench::harness {

using namespace doctor_detail;

namespace {

struct GpuVerdict {
  CheckStatus status = CheckStatus::pass;
  std::string text;
};

// One check over every GPU: `judge` gives each GPU's verdict. A GPU that fell off the bus is
// unknown here (its facts are not readable); gpu.reachable fails it.
DoctorCheck per_gpu(const std::string& name, const char* area, const std::vector<GpuFacts>& gpus,
                    const GpuCount& count, const std::string& expected, const std::string& fix,
                    const std::function<GpuVerdict(const GpuFacts&)>& judge) {
  if (!count.unknown_reason.empty())
    return unknown_check(name, area, count.unknown_reason, expected, fix);
  if (gpus.empty()) return unknown_check(name, area, "NVML lists no GPUs", expected, fix);
  CheckStatus status = CheckStatus::pass;
  std::vector<std::string> parts;
  for (const GpuFacts& g : gpus) {
    const GpuVerdict v =
        g.lost ? GpuVerdict{CheckStatus::unknown, "lost (fell off the bus; see gpu.reachable)"}
               : judge(g);
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

DoctorCheck check_gpu_reachable(const std::vector<GpuFacts>& gpus, const GpuCount& count) {
  const std::string name = "gpu.reachable";
  const std::string expected = "every GPU NVML lists answers (none fell off the bus)";
  const std::string fix =
      "drain the node; check dmesg for Xid 79 (GPU fell off the bus), reseat or RMA the GPU, "
      "then reset it (nvidia-smi -r) or reboot";
  if (!count.unknown_reason.empty())
    return unknown_check(name, k_area_gpu, count.unknown_reason, expected, fix);
  if (gpus.empty()) return unknown_check(name, k_area_gpu, "NVML lists no GPUs", expected, fix);
  std::vector<std::string> lost;
  for (const GpuFacts& g : gpus) {
    if (!g.lost) continue;
    std::string who = "gpu" + std::to_string(g.index);
    if (!g.bus_id.empty()) who += " (" + g.bus_id + ")";
    if (!g.name.empty() && g.name != results::k_unknown) who += " " + g.name;
    lost.push_back(who + " fell off the bus (NVML_ERROR_GPU_IS_LOST)");
  }
  if (lost.empty()) {
    return make_check(name, k_area_gpu, CheckStatus::pass,
                      "all " + std::to_string(gpus.size()) + " GPUs answer", expected, fix);
  }
  return make_check(name, k_area_gpu, CheckStatus::fail, join(lost, "; "), expected, fix);
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
      "no uncorrected ECC errors since the driver loaded; lifetime ones handled by row "
      "remapping or page retirement (gpu.retired_memory); corrected ones are counted",
      "uncorrected errors since the driver loaded: drain the GPU, reset it (nvidia-smi -r) and "
      "run DCGM diagnostics (dcgmi diag -r 3); lifetime errors: watch gpu.retired_memory",
      [](const GpuFacts& g) {
        if (g.ecc_enabled == false) return GpuVerdict{CheckStatus::pass, "ECC off, no counters"};
        if (!g.ecc_volatile_uncorrected && !g.ecc_aggregate_uncorrected) {
          return GpuVerdict{CheckStatus::unknown, "unknown (counters not readable)"};
        }
        const std::string text = "volatile " + opt_count(g.ecc_volatile_corrected) + " corrected/" +
                                 opt_count(g.ecc_volatile_uncorrected) +
                                 " uncorrected, aggregate " + opt_count(g.ecc_aggregate_corrected) +
                                 "/" + opt_count(g.ecc_aggregate_uncorrected);
        if (g.ecc_volatile_uncorrected.value_or(0) > 0) return GpuVerdict{CheckStatus::fail, text};
        // Lifetime counts include errors from long ago that the row remapper (Ampere+) or page
        // retirement already took out of service: shown, not a failure of a healthy GPU.
        if (g.ecc_aggregate_uncorrected.value_or(0) > 0) {
          return GpuVerdict{CheckStatus::warn,
                            text + " (lifetime uncorrected errors: handled by " +
                                (g.remapped_rows ? "row remapping" : "page retirement") +
                                " unless gpu.retired_memory says otherwise)"};
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
      "no row remapping failure; no pending remapping or retirement; no rows remapped for "
      "uncorrectable errors",
      "pending: reset the GPU (nvidia-smi -r) to apply it (work runs unaffected meanwhile); "
      "a remapping failure: drain and RMA",
      [](const GpuFacts& g) {
        std::vector<std::string> parts;
        CheckStatus s = CheckStatus::pass;
        if (g.remapped_rows) {
          const RemappedRows& r = *g.remapped_rows;
          parts.push_back("remapped rows " + std::to_string(r.corrected) + " correctable/" +
                          std::to_string(r.uncorrected) + " uncorrectable");
          // Rows remapped for uncorrectable errors did their job: shown as a warning (the
          // GPU is usable; many of them is a trend to watch), never a failure.
          if (r.uncorrected > 0) s = worse(s, CheckStatus::warn);
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

DoctorCheck check_mig(const std::vector<GpuFacts>& gpus, const GpuCount& count) {
  return per_gpu(
      "gpu.mig_mode", k_area_gpu, gpus, count,
      "MIG off: the suites measure whole GPUs, a MIG instance is a slice of one",
      "nvidia-smi -i <gpu> -mig 0 (destroy the instances first), then reset the GPU; or "
      "benchmark MIG instances knowingly, never against whole-GPU baselines",
      [](const GpuFacts& g) {
        if (!g.mig) return GpuVerdict{CheckStatus::unknown, "unknown (MIG mode not readable)"};
        const MigFacts& m = *g.mig;
        if (!m.supported) return GpuVerdict{CheckStatus::pass, "no MIG on this GPU"};
        if (m.enabled) {
          return GpuVerdict{CheckStatus::fail,
                            std::string("MIG on (a whole-GPU benchmark would measure one slice)") +
                                (m.pending_enabled ? "" : ", off after the next reset")};
        }
        if (m.pending_enabled) {
          return GpuVerdict{CheckStatus::warn, "MIG off, on after the next GPU reset (pending)"};
        }
        return GpuVerdict{CheckStatus::pass, "MIG off"};
      });
}

DoctorCheck check_app_clocks(const std::vector<GpuFacts>& gpus, const GpuCount& count) {
  return per_gpu(
      "clocks.application", k_area_clocks, gpus, count,
      "P0 reaches the boost limit, no clock offset, no application clock setting or clocks-event "
      "reason 0x2 (or as configured; value shown). Locked clocks (nvidia-smi -lgc) have no NVML "
      "getter: a run's clock_below_expected samples show them",
      "nvidia-smi -rgc, -rac and -rmc to reset, or record the setting as intended",
      [](const GpuFacts& g) {
        std::vector<std::string> parts;
        CheckStatus s = CheckStatus::pass;
        bool known = false;
        if (g.p0_max_sm_clock_mhz && g.max_sm_clock_mhz) {
          known = true;
          parts.push_back("P0 SM clock " + std::to_string(g.p0_min_sm_clock_mhz.value_or(0)) + "-" +
                          std::to_string(*g.p0_max_sm_clock_mhz) + " MHz of a " +
                          std::to_string(*g.max_sm_clock_mhz) + " MHz boost limit");
          if (*g.p0_max_sm_clock_mhz <
              *g.max_sm_clock_mhz * (1.0 - sample_state::k_clock_tolerance)) {
            parts.back() += " (capped)";
            s = CheckStatus::warn;
          }
        }
        // Deprecated in CUDA 13 (removed in 14): shown where a driver still answers, since a
        // target away from its default is a lock; silence proves nothing.
        if (g.app_sm_clock_mhz && g.default_app_sm_clock_mhz) {
          known = true;
          parts.push_back("application SM clock " + std::to_string(*g.app_sm_clock_mhz) +
                          " MHz (default " + std::to_string(*g.default_app_sm_clock_mhz) + ")");
          if (*g.app_sm_clock_mhz != *g.default_app_sm_clock_mhz) s = worse(s, CheckStatus::warn);
        }
        if (!known) {
          // The clocks-event bit that once showed a setting is no longer set by current drivers,
          // so without either reading there is no verdict.
          parts.push_back("neither P0's clock range nor the application clocks are readable");
          s = worse(s, CheckStatus::unknown);
        }
        if (g.graphics_clock_offset_mhz && *g.graphics_clock_offset_mhz != 0) {
          parts.push_back("clock offset " + std::to_string(*g.graphics_clock_offset_mhz) + " MHz");
          s = worse(s, CheckStatus::warn);
        }
        if (g.clocks_user_limited == true) {
          parts.push_back("clocks held by an application/locked clock setting (reason 0x2)");
          s = worse(s, CheckStatus::warn);
        }
        return GpuVerdict{s, join(parts, ", ")};
      });
}

DoctorCheck check_sm_clock_lock(const std::vector<GpuFacts>& gpus, const GpuCount& count) {
  CheckStatus worst = CheckStatus::pass;
  DoctorCheck c = per_gpu(
      "clocks.sm_lock", k_area_clocks, gpus, count,
      "not locked: the GPUs boost as they do in production. NVML shows a P0 clock range capped "
      "below the boost limit, a lock set through the application clocks (nvidia-smi -ac, drivers "
      "that still report them) and the clocks-event reason 0x2 of older drivers; nvidia-smi -lgc "
      "has no NVML getter, so a full P0 range does not rule such a lock out",
      "locked on purpose (CI): compare only with runs locked the same way (the run records "
      "clocks_locked; set GPUBENCH_CLOCKS to the lock, README \"Locked clocks for CI\"); otherwise "
      "unlock with nvidia-smi -rgc and -rac",
      [&](const GpuFacts& g) {
        ClockLockFacts f;
        f.max_sm_clock_mhz = g.max_sm_clock_mhz;
        f.app_sm_clock_mhz = g.app_sm_clock_mhz;
        f.default_app_sm_clock_mhz = g.default_app_sm_clock_mhz;
        if (g.clocks_user_limited == true) f.reasons = throttle::applications_clocks_setting;
        f.sm_clock_mhz = g.sm_clock_mhz;
        f.p0_max_sm_clock_mhz = g.p0_max_sm_clock_mhz;
        const ClockLockState lock = sm_clock_lock(f);
        const CheckStatus s = lock.lock == ClockLock::locked       ? CheckStatus::warn
                              : lock.lock == ClockLock::not_locked ? CheckStatus::pass
                                                                   : CheckStatus::unknown;
        worst = worse(worst, s);
        return GpuVerdict{s, lock.text};
      });
  if (c.value.rfind("unknown: ", 0) == 0 && gpus.empty()) return c;
  // The hint: what to do about the state shown, for people reading a passing check too.
  c.value += worst == CheckStatus::warn
                 ? " (hint: locked numbers are repeatable but below what the server gives in "
                   "production; never compare them with unlocked runs)"
                 : " (hint: for repeatable CI numbers lock with sudo nvidia-smi -pm 1 and "
                   "nvidia-smi -lgc <min>,<max>, README \"Locked clocks for CI\")";
  return c;
}

DoctorCheck check_power_limit(const std::vector<GpuFacts>& gpus, const GpuCount& count) {
  return per_gpu(
      "clocks.power_limit", k_area_clocks, gpus, count,
      "enforced power limit at its default (or as configured; value shown)",
      "nvidia-smi -pl <default watts>; an enforced limit below the configured one comes from "
      "outside the GPU (BMC / chassis power capping): check the server's power policy",
      [](const GpuFacts& g) {
        if (!g.power_limit_w || !g.default_power_limit_w) {
          return GpuVerdict{CheckStatus::unknown, "unknown (power limit not readable)"};
        }
        auto same = [](double a, double b) { return std::fabs(a - b) < 0.5; };
        std::string text = "enforced " + watts(*g.power_limit_w);
        if (g.configured_power_limit_w && !same(*g.configured_power_limit_w, *g.power_limit_w))
          text += ", configured " + watts(*g.configured_power_limit_w);
        text += " (default " + watts(*g.default_power_limit_w) + ")";
        return GpuVerdict{same(*g.power_limit_w, *g.default_power_limit_w) ? CheckStatus::pass
                                                                           : CheckStatus::warn,
                          text};
      });
}

namespace {

std::string link_list(const std::vector<int>& links) {
  std::vector<std::string> out;
  for (int l : links) out.push_back(std::to_string(l));
  return join(out, ",");
}

bool on_fabric(const GpuFacts& g) {
  return g.fabric && g.fabric->supported && g.fabric->state != k_fabric_state_not_supported;
}

}  // namespace

DoctorCheck check_nvlink(const std::vector<GpuFacts>& gpus, const GpuCount& count) {
  // Links up on the best GPU of each model: a bridge may wire fewer links than the GPU has, the
  // same on every GPU; a GPU with fewer than its siblings has a link down.
  std::map<std::string, std::size_t> most_up;
  for (const GpuFacts& g : gpus) {
    if (g.nvlink && !g.lost) most_up[g.name] = std::max(most_up[g.name], g.nvlink->up.size());
  }
  return per_gpu(
      "topology.nvlink", k_area_topology, gpus, count,
      "every NVLink link up on NVSwitch systems; elsewhere as many links up as the GPU's "
      "siblings",
      "check nvidia-smi nvlink -s and -e; reseat the NVLink bridge, or drain the node and "
      "reset the GPU; a link that stays down needs service",
      [&](const GpuFacts& g) {
        if (!g.nvlink)
          return GpuVerdict{CheckStatus::unknown, "unknown (NVLink state not readable)"};
        const NvlinkFacts& n = *g.nvlink;
        const std::size_t supported = n.up.size() + n.down.size();
        if (supported == 0) return GpuVerdict{CheckStatus::pass, "no NVLink"};
        std::string text = std::to_string(n.up.size()) + "/" + std::to_string(supported) + " up";
        if (n.down.empty()) return GpuVerdict{CheckStatus::pass, text};
        text += ", links " + link_list(n.down) + " down";
        if (on_fabric(g)) return GpuVerdict{CheckStatus::fail, text + " (NVSwitch system)"};
        const std::size_t best = most_up[g.name];
        if (n.up.size() < best) {
          return GpuVerdict{CheckStatus::fail,
                            text + " (a sibling has " + std::to_string(best) + " up)"};
        }
        if (n.up.empty()) {
          return GpuVerdict{CheckStatus::warn,
                            "no link up of " + std::to_string(supported) +
                                " (no NVLink bridge fitted, or every link down)"};
        }
        return GpuVerdict{CheckStatus::pass, text + " (as on its siblings: unwired by the bridge)"};
      });
}

DoctorCheck check_nvlink_fabric(const std::vector<GpuFacts>& gpus, const GpuCount& count) {
  return per_gpu(
      "topology.nvlink_fabric", k_area_topology, gpus, count,
      "on NVSwitch systems, every GPU registered with the fabric manager and its fabric healthy",
      "systemctl status nvidia-fabricmanager (same version as the driver); read its log "
      "(/var/log/fabricmanager.log), restart it, then reset the GPUs",
      [](const GpuFacts& g) {
        if (!g.fabric)
          return GpuVerdict{CheckStatus::unknown, "unknown (fabric state not readable)"};
        const FabricFacts& f = *g.fabric;
        if (!f.supported || f.state == k_fabric_state_not_supported)
          return GpuVerdict{CheckStatus::pass, "not on an NVSwitch fabric"};
        if (f.state == k_fabric_state_not_started)
          return GpuVerdict{CheckStatus::fail, "fabric registration not started"};
        if (f.state == k_fabric_state_in_progress)
          return GpuVerdict{CheckStatus::fail, "fabric registration in progress (not completed)"};
        if (f.state != k_fabric_state_completed) {
          return GpuVerdict{CheckStatus::unknown,
                            "unknown fabric state " + std::to_string(f.state)};
        }
        if (f.status != k_nvml_success) {
          return GpuVerdict{CheckStatus::fail, "fabric registration failed (NVML error " +
                                                   std::to_string(f.status) + ")"};
        }
        if (f.health_summary == k_fabric_health_unhealthy)
          return GpuVerdict{CheckStatus::fail, "registered, fabric unhealthy"};
        if (f.health_summary == k_fabric_health_limited_capacity)
          return GpuVerdict{CheckStatus::warn, "registered, fabric at limited capacity"};
        // NVML_GPU_FABRIC_HEALTH_MASK_DEGRADED_BW: bits 0-1, 1 = bandwidth degraded.
        if (f.health_mask && (*f.health_mask & 0x3u) == 1u)
          return GpuVerdict{CheckStatus::warn, "registered, bandwidth degraded"};
        return GpuVerdict{CheckStatus::pass, "registered"};
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
