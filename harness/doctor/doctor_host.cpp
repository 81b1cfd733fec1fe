// Doctor checks on the host: CPU and memory, data storage, limits, IOMMU, containers.
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <system_error>

#include "harness/doctor/doctor.hpp"
#include "harness/doctor/doctor_detail.hpp"
#include "util/strings.hpp"

namespace gpubench::harness {

namespace fs = std::filesystem;
using namespace doctor_detail;

namespace {
constexpr double k_gib = 1024.0 * 1024.0 * 1024.0;

std::string bytes_text(double bytes) {
  return format_bytes_binary(bytes);
}

// 1 -> "1", 1.5 -> "1.5", 2.6667 -> "2.67".
std::string plain_ratio(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}
}  // namespace

// ---- CPU and memory ----------------------------------------------------------------------------

DoctorCheck check_cores_per_gpu(std::optional<int> cores, const GpuCount& gpus) {
  const std::string name = "cpu.cores_per_gpu";
  const std::string expected = "at least 2 physical CPU cores per GPU (2-4x the GPU count)";
  const std::string fix = "use a server with more cores per GPU, or run fewer GPUs per node";
  if (!cores)
    return unknown_check(name, k_area_cpu, "/proc/cpuinfo gives no core count", expected, fix);
  if (!gpus.unknown_reason.empty())
    return unknown_check(name, k_area_cpu,
                         gpus.unknown_reason + "; " + std::to_string(*cores) + " physical cores",
                         expected, fix);
  if (gpus.count == 0)
    return unknown_check(name, k_area_cpu,
                         "NVML lists no GPUs; " + std::to_string(*cores) + " physical cores",
                         expected, fix);
  const double per_gpu = static_cast<double>(*cores) / gpus.count;
  const std::string value = std::to_string(*cores) + " physical cores for " +
                            std::to_string(gpus.count) + " GPUs (" + plain_ratio(per_gpu) +
                            " per GPU)";
  return make_check(name, k_area_cpu, per_gpu >= 2 ? CheckStatus::pass : CheckStatus::warn, value,
                    expected, fix);
}

DoctorCheck check_memory_vs_gpu(std::optional<int64_t> host_bytes,
                                std::optional<int64_t> gpu_total_bytes, const GpuCount& gpus) {
  const std::string name = "memory.host_vs_gpu";
  const std::string expected = "system memory at least 1.5x the total GPU memory";
  const std::string fix = "add system memory (pinned buffers and data loaders stage through it)";
  if (!host_bytes)
    return unknown_check(name, k_area_cpu, "/proc/meminfo gives no MemTotal", expected, fix);
  const std::string host = bytes_text(static_cast<double>(*host_bytes)) + " system memory";
  if (!gpus.unknown_reason.empty())
    return unknown_check(name, k_area_cpu, gpus.unknown_reason + "; " + host, expected, fix);
  if (gpus.count == 0)
    return unknown_check(name, k_area_cpu, "NVML lists no GPUs; " + host, expected, fix);
  if (!gpu_total_bytes || *gpu_total_bytes <= 0) {
    return unknown_check(name, k_area_cpu, "NVML gives no GPU memory size; " + host, expected, fix);
  }
  const double ratio = static_cast<double>(*host_bytes) / static_cast<double>(*gpu_total_bytes);
  const std::string value = host + " vs " + bytes_text(static_cast<double>(*gpu_total_bytes)) +
                            " GPU memory (" + plain_ratio(ratio) + "x)";
  return make_check(name, k_area_cpu, ratio >= 1.5 ? CheckStatus::pass : CheckStatus::warn, value,
                    expected, fix);
}

DoctorCheck check_governor(const std::optional<std::string>& governor, const std::string& reason) {
  const std::string name = "cpu.governor";
  const std::string expected = "performance";
  const std::string fix =
      "cpupower frequency-set -g performance (or set it in the BIOS/OS profile)";
  if (!governor) return unknown_check(name, k_area_cpu, reason, expected, fix);
  return make_check(name, k_area_cpu,
                    *governor == "performance" ? CheckStatus::pass : CheckStatus::warn, *governor,
                    expected, fix);
}

// ---- data storage ------------------------------------------------------------------------------

DoctorCheck check_storage_device(const StorageFacts& f) {
  const std::string name = "storage.device";
  const std::string expected = "NVMe (non-rotational) for datasets";
  const std::string fix = "put the datasets (--data-dir / GPUBENCH_DATA_DIR) on an NVMe drive";
  const std::string where = "'" + f.probed_path + "'";
  if (f.block_device.empty() || !f.rotational) {
    return unknown_check(name, k_area_storage, where + " " + f.reason, expected, fix);
  }
  const bool nvme = f.block_device.rfind("nvme", 0) == 0;
  std::string value =
      where + " on " + f.block_device + (f.fs_type.empty() ? "" : " (" + f.fs_type + ")") + ": ";
  CheckStatus status = CheckStatus::pass;
  if (*f.rotational) {
    value += "rotational (HDD per /sys/block/" + f.block_device + "/queue/rotational)";
    status = CheckStatus::warn;
  } else if (nvme) {
    value += "NVMe";
  } else {
    value += "non-rotational, not NVMe (SATA/SAS SSD or virtual disk)";
    status = CheckStatus::warn;
  }
  return make_check(name, k_area_storage, status, value, expected, fix);
}

DoctorCheck check_free_space(const StorageFacts& f, const DiskNeed& need) {
  const std::string name = "storage.free_space";
  const std::string fix = "free space there or point --data-dir / GPUBENCH_DATA_DIR elsewhere";
  std::string expected =
      "at least 10 GiB free for the dataloader's datasets (full profile: 1 GiB per binary "
      "format, more for text; under 1 GiB not even the quick profile fits)";
  if (need.bytes) {
    expected = "room for what the " + need.profile +
               " profile's dataloader writes there (its datasets not cached yet: " +
               bytes_text(static_cast<double>(*need.bytes)) + ") plus 1 GiB";
  } else if (!need.why.empty()) {
    expected += "; " + need.why;
  }
  if (!f.unusable.empty()) {  // the suite would fail on it, whatever the free space
    return make_check(name, k_area_storage, CheckStatus::fail, f.unusable,
                      "a writable data directory the dataloader can use",
                      "create it (mkdir -p) or point --data-dir / GPUBENCH_DATA_DIR at a writable "
                      "directory (unset GPUBENCH_DATA_DIR for the default)");
  }
  if (!f.free_bytes) {
    return unknown_check(name, k_area_storage, "statvfs('" + f.probed_path + "') failed", expected,
                         fix);
  }
  const double free = static_cast<double>(*f.free_bytes);
  if (!need.bytes && need.plan_unreadable) {
    // Passing on the generic 10 GiB would be a guess at what the dataloader writes.
    return unknown_check(name, k_area_storage,
                         need.why + "; " + bytes_text(free) + " free at '" + f.probed_path + "'",
                         expected, fix);
  }
  CheckStatus status;
  if (need.bytes) {
    const double needed = static_cast<double>(*need.bytes);
    status = free < needed           ? CheckStatus::fail
             : free < needed + k_gib ? CheckStatus::warn
                                     : CheckStatus::pass;
  } else {
    status = free < k_gib        ? CheckStatus::fail
             : free < 10 * k_gib ? CheckStatus::warn
                                 : CheckStatus::pass;
  }
  // A directory not created yet is judged by the file system it will be created on.
  const std::string where = !f.missing ? "'" + f.probed_path + "'"
                                       : "'" + f.probed_path + "' (nearest existing parent of '" +
                                             f.path + "', the data directory)";
  std::string value = bytes_text(free) + " free at " + where;
  if (need.bytes) {
    value += "; the " + need.profile + " profile's datasets not cached yet need " +
             bytes_text(static_cast<double>(*need.bytes));
  }
  return make_check(name, k_area_storage, status, value, expected, fix);
}

namespace {
// The whole disk(s) under a block device "major:minor": partitions map to their disk, device
// mapper and md devices to the disks they are built on (their slaves).
void disks_of(const fs::path& sys_dev, std::set<std::string>& out, int depth) {
  std::error_code ec;
  fs::path real = fs::canonical(sys_dev, ec);
  if (ec || depth > 4) return;
  if (fs::exists(real / "partition", ec)) real = real.parent_path();
  const fs::path slaves = real / "slaves";
  bool any = false;
  if (fs::is_directory(slaves, ec)) {
    for (const auto& e : fs::directory_iterator(slaves, ec)) {
      any = true;
      disks_of(e.path(), out, depth + 1);
    }
  }
  if (!any) out.insert(real.filename().string());
}

std::string mount_fs_type(const fs::path& dir) {
  // /proc/self/mountinfo: "... <mount point> <options> ... - <fs type> <source> <super options>";
  // the longest mount point that is a prefix of `dir` is the mount it lives on.
  const auto text = read_text_file("/proc/self/mountinfo");
  if (!text) return "";
  const std::string d = dir.string();
  std::string best_point, best_type;
  for (const std::string& line : split(*text, '\n')) {
    const auto parts = split(line, ' ');
    if (parts.size() < 7) continue;
    const std::string& point = parts[4];
    const auto dash = std::find(parts.begin(), parts.end(), "-");
    if (dash == parts.end() || dash + 1 == parts.end()) continue;
    const bool prefix =
        d == point || point == "/" ||
        (d.rfind(point, 0) == 0 && d.size() > point.size() && d[point.size()] == '/');
    if (prefix && point.size() >= best_point.size()) {
      best_point = point;
      best_type = *(dash + 1);
    }
  }
  return best_type;
}
}  // namespace

StorageFacts probe_storage(const fs::path& dir) {
  StorageFacts f;
  f.path = dir.string();
  std::error_code ec;
  fs::path probe = fs::absolute(dir, ec);
  if (ec) probe = dir;
  f.missing = !fs::exists(probe, ec);
  while (!fs::exists(probe, ec) && probe.has_parent_path() && probe != probe.parent_path()) {
    probe = probe.parent_path();
  }
  const fs::path canonical = fs::canonical(probe, ec);
  if (!ec) probe = canonical;
  f.probed_path = probe.string();
  struct statvfs sv {};
  if (::statvfs(probe.c_str(), &sv) == 0) {
    f.free_bytes = static_cast<uint64_t>(sv.f_bavail) * sv.f_frsize;
  }
  f.fs_type = mount_fs_type(probe);
  struct stat st {};
  if (::stat(probe.c_str(), &st) != 0) {
    f.reason = "cannot be inspected (stat failed)";
    return f;
  }
  const unsigned maj = major(st.st_dev), min = minor(st.st_dev);
  if (maj == 0) {
    f.reason = "is on " + (f.fs_type.empty() ? std::string("a virtual file system") : f.fs_type) +
               ", not a block device (device 0:" + std::to_string(min) +
               "); point --data-dir at a directory on the dataset disk";
    return f;
  }
  std::set<std::string> disks;
  disks_of("/sys/dev/block/" + std::to_string(maj) + ":" + std::to_string(min), disks, 0);
  if (disks.empty()) {
    f.reason = "device " + std::to_string(maj) + ":" + std::to_string(min) +
               " is not in /sys/dev/block (sysfs not mounted?)";
    return f;
  }
  bool any_rotational = false, all_known = true;
  for (const std::string& disk : disks) {
    const auto rot = read_text_file("/sys/block/" + disk + "/queue/rotational");
    const auto v = rot ? parse_int(trim(*rot)) : std::nullopt;
    if (!v)
      all_known = false;
    else
      any_rotational = any_rotational || *v != 0;
  }
  std::vector<std::string> names(disks.begin(), disks.end());
  f.block_device = join(names, "+");
  if (all_known)
    f.rotational = any_rotational;
  else
    f.reason = "has no readable /sys/block/<disk>/queue/rotational for " + f.block_device;
  return f;
}

// ---- limits ------------------------------------------------------------------------------------

namespace {
std::string limit_text(const Limit& l) {
  return l.soft ? std::to_string(*l.soft) : std::string("unlimited");
}
}  // namespace

DoctorCheck check_nofile(const Limit& l) {
  const std::string name = "limits.nofile";
  const std::string expected =
      "ulimit -n at least 65536 (data loaders with many workers open many files)";
  const std::string fix =
      "raise nofile in /etc/security/limits.conf, systemd LimitNOFILE or docker --ulimit "
      "nofile=65536";
  if (!l.known)
    return unknown_check(name, k_area_limits, "getrlimit(RLIMIT_NOFILE) failed", expected, fix);
  const bool ok = !l.soft || *l.soft >= 65536;
  return make_check(name, k_area_limits, ok ? CheckStatus::pass : CheckStatus::warn,
                    "ulimit -n " + limit_text(l), expected, fix);
}

DoctorCheck check_memlock(const Limit& l) {
  const std::string name = "limits.memlock";
  const std::string expected =
      "ulimit -l unlimited (pinned host memory, GPUDirect RDMA; NVIDIA's container advice --ulimit "
      "memlock=-1)";
  const std::string fix =
      "set memlock unlimited in /etc/security/limits.conf, systemd LimitMEMLOCK=infinity or docker "
      "--ulimit memlock=-1";
  if (!l.known)
    return unknown_check(name, k_area_limits, "getrlimit(RLIMIT_MEMLOCK) failed", expected, fix);
  std::string value = "ulimit -l ";
  value += l.soft ? std::to_string(*l.soft / 1024) + " KiB" : std::string("unlimited");
  return make_check(name, k_area_limits, l.soft ? CheckStatus::warn : CheckStatus::pass, value,
                    expected, fix);
}

DoctorCheck check_dev_shm(std::optional<uint64_t> shm_bytes, const std::string& reason) {
  const std::string name = "limits.dev_shm";
  const std::string expected =
      "/dev/shm at least 1 GiB (worker processes pass batches through it; Docker's default 64 MiB "
      "is too small)";
  const std::string fix =
      "docker run --ipc=host or --shm-size=16g; on a host, mount /dev/shm larger";
  if (!shm_bytes) {
    return make_check(name, k_area_limits, CheckStatus::fail, "no /dev/shm: " + reason, expected,
                      fix);
  }
  return make_check(name, k_area_limits,
                    *shm_bytes >= k_gib ? CheckStatus::pass : CheckStatus::warn,
                    bytes_text(static_cast<double>(*shm_bytes)) + " /dev/shm", expected, fix);
}

std::string parse_thp_mode(const std::string& text) {
  const auto open = text.find('['), close = text.find(']');
  if (open == std::string::npos || close == std::string::npos || close < open) return "";
  return text.substr(open + 1, close - open - 1);
}

std::optional<int64_t> parse_meminfo_value(const std::string& text, const std::string& key) {
  for (const std::string& line : split(text, '\n')) {
    const auto colon = line.find(':');
    if (colon == std::string::npos || trim(std::string_view(line).substr(0, colon)) != key)
      continue;
    const auto parts = split(std::string(trim(std::string_view(line).substr(colon + 1))), ' ');
    if (parts.empty()) return std::nullopt;
    auto v = parse_int(parts[0]);
    if (!v) return std::nullopt;
    const bool kib = parts.size() > 1 && parts[1] == "kB";
    return static_cast<int64_t>(*v) * (kib ? 1024 : 1);
  }
  return std::nullopt;
}

DoctorCheck check_huge_pages(const std::optional<std::string>& thp, std::optional<int64_t> reserved,
                             std::optional<int64_t> page_bytes) {
  const std::string name = "limits.huge_pages";
  const std::string expected =
      "transparent huge pages madvise or always (large pinned and pageable buffers)";
  const std::string fix = "echo madvise > /sys/kernel/mm/transparent_hugepage/enabled";
  std::string reserved_text;
  if (reserved) {
    reserved_text = ", " + std::to_string(*reserved) + " reserved huge pages";
    if (page_bytes) reserved_text += " of " + bytes_text(static_cast<double>(*page_bytes));
  }
  if (!thp || thp->empty()) {
    return unknown_check(
        name, k_area_limits,
        "/sys/kernel/mm/transparent_hugepage/enabled is not readable" + reserved_text, expected,
        fix);
  }
  return make_check(name, k_area_limits, *thp == "never" ? CheckStatus::warn : CheckStatus::pass,
                    "transparent huge pages " + *thp + reserved_text, expected, fix);
}

// ---- topology: IOMMU ---------------------------------------------------------------------------

DoctorCheck check_iommu(const IommuFacts& f) {
  const std::string name = "topology.iommu";
  const std::string expected =
      "IOMMU off or passthrough (iommu=pt): translated DMA slows peer-to-peer and GPUDirect RDMA";
  const std::string fix =
      "boot with iommu=pt (and intel_iommu=on / amd_iommu=on if needed for VFIO)";
  const std::string cmd =
      f.cmdline_iommu.empty() ? "" : "; kernel command line: " + f.cmdline_iommu;
  if (!f.sysfs_readable) {
    return unknown_check(name, k_area_topology, "/sys/kernel/iommu_groups is not readable" + cmd,
                         expected, fix);
  }
  if (f.groups == 0) {
    return make_check(name, k_area_topology, CheckStatus::pass, "off (no IOMMU groups)" + cmd,
                      expected, fix);
  }
  const bool translated = std::any_of(f.group_types.begin(), f.group_types.end(),
                                      [](const std::string& t) { return t.rfind("DMA", 0) == 0; });
  std::string value = "on, " + std::to_string(f.groups) + " groups, mode " +
                      (f.group_types.empty() ? std::string("unknown") : join(f.group_types, "/")) +
                      cmd;
  return make_check(name, k_area_topology, translated ? CheckStatus::warn : CheckStatus::pass,
                    value, expected, fix);
}

IommuFacts probe_iommu() {
  IommuFacts f;
  std::error_code ec;
  const fs::path groups = "/sys/kernel/iommu_groups";
  if (fs::is_directory(groups, ec)) {
    f.sysfs_readable = true;
    std::set<std::string> types;
    for (const auto& e : fs::directory_iterator(groups, ec)) {
      ++f.groups;
      if (auto t = read_text_file((e.path() / "type").string())) {
        const std::string type(trim(*t));
        if (!type.empty()) types.insert(type);
      }
    }
    f.group_types.assign(types.begin(), types.end());
  }
  if (auto cmdline = read_text_file("/proc/cmdline")) {
    std::vector<std::string> words;
    for (const std::string& w : split(std::string(trim(*cmdline)), ' ')) {
      if (w.rfind("iommu", 0) == 0 || w.rfind("intel_iommu", 0) == 0 ||
          w.rfind("amd_iommu", 0) == 0) {
        words.push_back(w);
      }
    }
    f.cmdline_iommu = join(words, " ");
  }
  return f;
}

// ---- containers --------------------------------------------------------------------------------

ContainerFacts detect_container(bool dockerenv, bool containerenv, const std::string& cgroup,
                                const std::string& container_env) {
  if (!container_env.empty()) return {container_env, "$container=" + container_env};
  if (containerenv) return {"podman", "/run/.containerenv exists"};
  if (dockerenv) return {"docker", "/.dockerenv exists"};
  for (const char* word : {"kubepods", "docker", "containerd", "lxc", "libpod"}) {
    if (cgroup.find(word) != std::string::npos) {
      return {word == std::string("kubepods") ? "kubernetes" : word,
              std::string("/proc/1/cgroup names ") + word};
    }
  }
  return {};
}

ContainerFacts probe_container() {
  std::error_code ec;
  const char* env = std::getenv("container");
  return detect_container(fs::exists("/.dockerenv", ec), fs::exists("/run/.containerenv", ec),
                          read_text_file("/proc/1/cgroup").value_or(""), env ? env : "");
}

DoctorCheck check_container(const ContainerFacts& f) {
  const std::string value =
      f.runtime.empty()
          ? std::string(
                "not in a container (no /.dockerenv, /run/.containerenv or container cgroup)")
          : "in a container: " + f.runtime + " (" + f.evidence + ")";
  return make_check("container.runtime", k_area_container, CheckStatus::pass, value,
                    "informational: where gpubench runs (GPU visibility is checked next)", "");
}

// ---- parsing -----------------------------------------------------------------------------------

std::optional<std::vector<int>> parse_cpu_list(const std::string& text) {
  std::vector<int> cpus;
  const std::string t(trim(text));
  if (t.empty()) return cpus;
  for (const std::string& part : split(t, ',')) {
    const auto dash = part.find('-');
    const auto lo = parse_int(trim(std::string_view(part).substr(0, dash)));
    const auto hi =
        dash == std::string::npos ? lo : parse_int(trim(std::string_view(part).substr(dash + 1)));
    if (!lo || !hi || *hi < *lo || *lo < 0) return std::nullopt;
    for (long long c = *lo; c <= *hi; ++c) cpus.push_back(static_cast<int>(c));
  }
  return cpus;
}

}  // namespace gpubench::harness
