// run_doctor: probes the live system and runs every check in the order; text rendering.
#include <fcntl.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <set>
#include <system_error>

#include "harness/doctor/doctor.hpp"
#include "harness/doctor/doctor_detail.hpp"
#include "harness/probe/environment.hpp"
#include "harness/probe/nvml.hpp"
#include "harness/run/discovery.hpp"
#include "harness/run/run_plan.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"
#include "util/text_width.hpp"

namespace gpubench::harness {

namespace fs = std::filesystem;
using namespace doctor_detail;

namespace {

Limit read_limit(int resource) {
  Limit l;
  rlimit r{};
  if (getrlimit(resource, &r) != 0) return l;
  l.known = true;
  if (r.rlim_cur != RLIM_INFINITY) l.soft = static_cast<uint64_t>(r.rlim_cur);
  return l;
}

// Distinct scaling governors over every CPU ("performance", or "powersave/performance").
std::optional<std::string> read_governors() {
  std::set<std::string> seen;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/sys/devices/system/cpu", ec)) {
    const std::string cpu = e.path().filename().string();
    if (cpu.rfind("cpu", 0) != 0 || cpu.size() < 4 ||
        !std::isdigit(static_cast<unsigned char>(cpu[3])))
      continue;
    if (auto g = read_text_file((e.path() / "cpufreq" / "scaling_governor").string())) {
      seen.insert(std::string(trim(*g)));
    }
  }
  if (seen.empty()) return std::nullopt;
  return join(std::vector<std::string>(seen.begin(), seen.end()), "/");
}

std::optional<std::vector<int>> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return std::nullopt;
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  }
  return cpus;
}

const char* status_word(CheckStatus s) {
  switch (s) {
    case CheckStatus::pass:
      return "PASS";
    case CheckStatus::warn:
      return "WARN";
    case CheckStatus::fail:
      return "FAIL";
    case CheckStatus::unknown:
      break;
  }
  return "UNKNOWN";
}

}  // namespace

fs::path default_data_dir() {
  return gpubench::default_data_dir();  // the dataloader's own rule (util/fs.hpp)
}

DiskNeed dataloader_disk_need(const std::string& profile, const fs::path& data_dir) {
  DiskNeed need;
  need.profile = profile;
  try {
    for (const SuiteExecutable& s : discover_suites()) {
      if (s.name != "dataloader") continue;
      // Always a directory that exists, so that asking creates nothing: a data directory not
      // created yet caches nothing, as an empty one does.
      std::error_code ec;
      std::optional<TempDir> empty;
      fs::path asked = data_dir;
      if (!fs::is_directory(data_dir, ec)) {
        empty.emplace("gpubench-doctor-data");
        asked = empty->path();
      }
      need.bytes = ask_suite_plan(s, profile, 0, 1, "", 30, {{"GPUBENCH_DATA_DIR", asked.string()}})
                       .disk_bytes;
      if (!need.bytes) {
        need.why =
            "gpubench-dataloader's plan does not say what it writes as a whole number of bytes "
            "(rebuild the suites with this gpubench)";
        need.plan_unreadable = true;
      }
      return need;
    }
    need.why = "no gpubench-dataloader found to say what the " + profile + " profile needs";
  } catch (const std::exception& e) {  // gpubench::Error, or a plan of the wrong JSON types
    need.why = "gpubench-dataloader gave no plan (" + std::string(e.what()) + ")";
    need.plan_unreadable = true;
  }
  return need;
}

namespace {
// Creates and removes a probe file in `dir` (access(W_OK) misses read-only mounts, and root);
// the error text when that fails, else empty.
std::string write_probe(const fs::path& dir) {
  const fs::path probe = dir / (".gpubench-doctor-probe-" + std::to_string(::getpid()));
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return errno_text(errno);
  ::close(fd);
  ::unlink(probe.c_str());
  return {};
}
}  // namespace

std::string data_dir_problem(const fs::path& dir, bool given) {
  const std::string quoted = "'" + dir.string() + "'";
  std::error_code ec;
  if (!fs::exists(dir, ec)) {
    if (given) return "data directory " + quoted + " does not exist";
    // The default is created by the dataloader: its nearest existing parent must take it.
    fs::path parent = fs::absolute(dir, ec);
    while (!fs::exists(parent, ec) && parent.has_parent_path() && parent != parent.parent_path()) {
      parent = parent.parent_path();
    }
    if (!fs::is_directory(parent, ec)) {
      return "cannot create the data directory " + quoted + " ('" + parent.string() +
             "' is not a directory)";
    }
    const std::string err = write_probe(parent);
    return err.empty() ? std::string()
                       : "cannot create the data directory " + quoted + " (" + err + ")";
  }
  if (!fs::is_directory(dir, ec)) return "data directory " + quoted + " is not a directory";
  const std::string err = write_probe(dir);
  return err.empty() ? std::string()
                     : "data directory " + quoted + " is not writable (" + err + ")";
}

std::vector<DoctorCheck> run_doctor(const DoctorOptions& options) {
  std::vector<DoctorCheck> out;
  const Nvml nvml;
  const GpuCount count = probe_gpu_count(nvml);
  const std::vector<GpuFacts> gpus = probe_gpu_facts(nvml);
  const DriverFacts driver = probe_driver_facts(nvml);

  // CPU and memory.
  const auto cpuinfo = read_text_file("/proc/cpuinfo");
  const CpuInfo cpu = cpuinfo ? parse_cpuinfo(*cpuinfo) : CpuInfo{};
  out.push_back(check_cores_per_gpu(cpu.cores, count));
  const auto meminfo = read_text_file("/proc/meminfo");
  const std::optional<int64_t> host_bytes =
      meminfo ? parse_meminfo_total_bytes(*meminfo) : std::nullopt;
  std::optional<int64_t> gpu_bytes;
  for (int i = 0; i < count.count; ++i) {
    const auto b = nvml.memory_total_bytes(i);
    if (!b) {
      gpu_bytes.reset();
      break;
    }
    gpu_bytes = gpu_bytes.value_or(0) + *b;
  }
  out.push_back(check_memory_vs_gpu(host_bytes, gpu_bytes, count));
  out.push_back(check_governor(read_governors(),
                               "no /sys/devices/system/cpu/cpu*/cpufreq/scaling_governor (no "
                               "cpufreq driver: a VM, or frequency managed by firmware)"));

  // Data storage.
  const fs::path data_dir = options.data_dir.empty() ? default_data_dir() : options.data_dir;
  StorageFacts storage = probe_storage(data_dir);
  const char* env = std::getenv("GPUBENCH_DATA_DIR");
  const std::string given_by = !options.data_dir.empty() ? "--data-dir"
                               : env && *env             ? "GPUBENCH_DATA_DIR"
                                                         : "";
  // The dataloader is to run: would it take the directory? A wrong GPUBENCH_DATA_DIR is named,
  // so the fix is plain (a run that selects no dataloader does not need the directory).
  if (!options.profile.empty()) {
    storage.unusable = data_dir_problem(data_dir, !given_by.empty());
    if (!storage.unusable.empty() && !given_by.empty()) {
      storage.unusable += " (set by " + given_by + ")";
    }
  }
  out.push_back(check_storage_device(storage));
  out.push_back(check_free_space(storage, options.profile.empty()
                                              ? DiskNeed{}
                                              : dataloader_disk_need(options.profile, data_dir)));

  // Driver and runtime.
  out.push_back(check_driver_cuda(driver, count));
  out.push_back(check_toolkit(driver));

  // Limits.
  out.push_back(check_nofile(read_limit(RLIMIT_NOFILE)));
  out.push_back(check_memlock(read_limit(RLIMIT_MEMLOCK)));
  struct statvfs shm {};
  std::optional<uint64_t> shm_bytes;
  std::string shm_reason;
  if (::statvfs("/dev/shm", &shm) == 0) {
    shm_bytes = static_cast<uint64_t>(shm.f_blocks) * shm.f_frsize;
  } else {
    shm_reason = errno_text(errno);
  }
  out.push_back(check_dev_shm(shm_bytes, shm_reason));
  const auto thp = read_text_file("/sys/kernel/mm/transparent_hugepage/enabled");
  out.push_back(
      check_huge_pages(thp ? std::optional<std::string>(parse_thp_mode(*thp)) : std::nullopt,
                       meminfo ? parse_meminfo_value(*meminfo, "HugePages_Total") : std::nullopt,
                       meminfo ? parse_meminfo_value(*meminfo, "Hugepagesize") : std::nullopt));

  // GPU state.
  out.push_back(check_gpu_reachable(gpus, count));
  out.push_back(check_persistence(gpus, count));
  out.push_back(check_ecc_mode(gpus, count));
  out.push_back(check_ecc_errors(gpus, count));
  out.push_back(check_retired_memory(gpus, count));
  out.push_back(check_mig(gpus, count));

  // PCIe; clocks and power.
  out.push_back(check_pcie(gpus, count));
  out.push_back(check_app_clocks(gpus, count));
  out.push_back(check_sm_clock_lock(gpus, count));
  out.push_back(check_power_limit(gpus, count));

  // Topology.
  std::vector<std::optional<std::vector<int>>> node_cpus;
  int max_node = -1;
  for (const GpuFacts& g : gpus) max_node = std::max(max_node, g.numa_node.value_or(-1));
  for (int n = 0; n <= max_node; ++n) {
    const auto text =
        read_text_file("/sys/devices/system/node/node" + std::to_string(n) + "/cpulist");
    node_cpus.push_back(text ? parse_cpu_list(*text) : std::nullopt);
  }
  out.push_back(check_numa_affinity(gpus, count, allowed_cpus(), node_cpus));
  out.push_back(check_iommu(probe_iommu()));
  out.push_back(check_nvlink(gpus, count));
  out.push_back(check_nvlink_fabric(gpus, count));
  std::vector<std::string> bus_ids;
  for (const GpuFacts& g : gpus) {
    if (!g.bus_id.empty()) bus_ids.push_back(g.bus_id);
  }
  out.push_back(check_pcie_acs(probe_acs(bus_ids)));

  // Multi-node network (this node only: run doctor on every node, harness/doctor/README.md).
  const RdmaFacts rdma = probe_rdma();
  out.push_back(check_ib_ports(rdma));
  out.push_back(check_gpudirect_rdma(rdma, probe_gdr()));

  // Containers.
  const ContainerFacts container = probe_container();
  out.push_back(check_container(container));
  out.push_back(check_gpu_visibility(driver, count, container));
  return out;
}

void print_doctor_text(std::ostream& out, const std::vector<DoctorCheck>& checks) {
  std::string area;
  std::size_t width = 0;
  for (const DoctorCheck& c : checks) width = std::max(width, c.name.size());
  // Values, expectations and fixes wrap under themselves at the output width (issue 39).
  const std::size_t columns = output_width();
  for (const DoctorCheck& c : checks) {
    if (c.area != area) {
      area = c.area;
      out << area << '\n';
    }
    std::string word = status_word(c.status);
    word.resize(8, ' ');
    std::string name = c.name;
    name.resize(width, ' ');
    out << hang("  " + word + name + "  ", c.value, columns);
    if (c.status != CheckStatus::pass) {
      const std::string pad(2 + 8 + width + 2, ' ');
      out << hang(pad + "expected: ", c.expected, columns);
      if (!c.fix.empty()) out << hang(pad + "fix: ", c.fix, columns);
    }
  }
  out << "doctor: " << results::counts_text(results::count_checks(checks)) << '\n';
}

void print_doctor_summary(std::ostream& out, const std::vector<DoctorCheck>& checks) {
  if (checks.empty()) {
    out << "doctor: not run for this run (recorded before doctor existed, or imported)\n";
    return;
  }
  out << "doctor (before the run): " << results::counts_text(results::count_checks(checks)) << '\n';
  for (const DoctorCheck& c : checks) {
    if (c.status == CheckStatus::pass) continue;
    out << hang(std::string("  ") + results::to_string(c.status) + "  " + c.name + ": ", c.value,
                output_width());
  }
}

nlohmann::json doctor_json(const std::vector<DoctorCheck>& checks) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& c : checks) {
    list.push_back({{"name", c.name},
                    {"area", c.area},
                    {"status", results::to_string(c.status)},
                    {"value", c.value},
                    {"expected", c.expected},
                    {"fix", c.fix}});
  }
  const results::DoctorCounts n = results::count_checks(checks);
  return {
      {"checks", list},
      {"summary", {{"pass", n.pass}, {"warn", n.warn}, {"fail", n.fail}, {"unknown", n.unknown}}}};
}

std::string readiness_line(const std::vector<DoctorCheck>& checks) {
  std::string line = "readiness: " + results::counts_text(results::count_checks(checks));
  std::map<CheckStatus, std::vector<std::string>> named;
  for (const DoctorCheck& c : checks) {
    if (c.status == CheckStatus::fail || c.status == CheckStatus::warn)
      named[c.status].push_back(c.name);
  }
  std::vector<std::string> parts;
  if (!named[CheckStatus::fail].empty())
    parts.push_back("fail: " + join(named[CheckStatus::fail], ", "));
  if (!named[CheckStatus::warn].empty())
    parts.push_back("warn: " + join(named[CheckStatus::warn], ", "));
  if (!parts.empty()) line += " (" + join(parts, "; ") + ")";
  return line + "; 'gpubench doctor' for details";
}

}  // namespace gpubench::harness
