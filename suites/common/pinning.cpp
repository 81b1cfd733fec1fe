#include "suites/common/pinning.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <utility>

#include "suites/common/numa.hpp"
#include "suites/common/suite_support.hpp"

namespace gpubench::suite {

PinChoice choose_pin(const std::string& sysfs_root, const std::string& pci_bus_id,
                     const std::vector<int>& allowed_cpus) {
  PinChoice p;
  p.pci_bus_id = pci_bus_id;
  const GpuNode gpu = read_gpu_node(sysfs_root, pci_bus_id);
  if (!gpu.node) {
    p.reason = "no NUMA node for the GPU: " + gpu.reason;
    return p;
  }
  p.node = gpu.node;
  const std::string node_text = "NUMA node " + std::to_string(*gpu.node);
  std::vector<int> cpus = read_pci_local_cpus(sysfs_root, pci_bus_id);
  if (cpus.empty()) cpus = read_node_cpus(sysfs_root, *gpu.node);
  if (cpus.empty()) {
    p.reason = "the GPU's " + node_text + " lists no CPUs (local_cpulist and node" +
               std::to_string(*gpu.node) + "/cpulist are empty or unreadable)";
    return p;
  }
  if (allowed_cpus.empty()) {
    p.reason = "the CPUs this process may use are unknown (sched_getaffinity failed)";
    return p;
  }
  std::vector<int> usable;
  for (int c : cpus) {
    if (std::find(allowed_cpus.begin(), allowed_cpus.end(), c) != allowed_cpus.end()) {
      usable.push_back(c);
    }
  }
  std::sort(usable.begin(), usable.end());
  if (usable.empty()) {
    p.reason = "none of the CPUs of the GPU's " + node_text + " (" + format_id_list(cpus) +
               ") is allowed to this process (allowed: " + format_id_list(allowed_cpus) + ")";
    return p;
  }
  // CPU 0 only when nothing else is allowed (see the header comment).
  p.cpu = usable.size() > 1 && usable.front() == 0 ? usable[1] : usable.front();
  return p;
}

std::optional<int> device_of_case(std::string_view name) {
  constexpr std::string_view key = "/device:";
  const std::size_t at = name.rfind(key);
  if (at == std::string_view::npos) return std::nullopt;
  const std::string_view rest = name.substr(at + key.size());
  const std::string_view digits = rest.substr(0, rest.find('/'));
  if (digits.empty() || digits.size() > 6 ||
      !std::all_of(digits.begin(), digits.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) {
    return std::nullopt;
  }
  return std::atoi(std::string(digits).c_str());
}

AffinityCalls system_affinity_calls() {
  return {thread_cpus, set_thread_cpus};
}

DevicePinning::DevicePinning(const std::vector<int>& devices,
                             const std::function<BusId(int)>& bus_id_of, std::string sysfs_root,
                             AffinityCalls calls)
    : m_calls(std::move(calls)), m_allowed(m_calls.get()) {
  const std::vector<int>& allowed = m_allowed;
  for (int d : devices) {
    const BusId bus = bus_id_of(d);
    PinChoice p;
    if (bus.id.empty()) {
      p.reason = "the GPU's PCI bus id is unknown (" + bus.reason + ")";
    } else {
      p = choose_pin(sysfs_root, bus.id, allowed);
    }
    p.device = d;
    // The system may still refuse (a container's seccomp policy, a cpuset that changed): try
    // the move now, so the context says so, and go back.
    if (p.cpu) {
      const std::string error = m_calls.set({*p.cpu});
      if (!error.empty()) {
        p.reason = "cannot pin the thread to CPU " + std::to_string(*p.cpu) + ": " + error;
        p.cpu.reset();
      }
      (void)m_calls.set(allowed);
    }
    m_choices.push_back(std::move(p));
  }
}

void DevicePinning::release_calling_thread() const {
  if (!m_allowed.empty()) (void)m_calls.set(m_allowed);
}

const PinChoice* DevicePinning::choice(int device) const {
  for (const auto& p : m_choices) {
    if (p.device == device) return &p;
  }
  return nullptr;
}

void DevicePinning::restore() {
  if (!m_saved.empty()) (void)m_calls.set(m_saved);
  m_saved.clear();
  m_current_cpu.reset();
}

void DevicePinning::before_case(std::optional<int> device) {
  const PinChoice* p = device ? choice(*device) : nullptr;
  if (!p || !p->cpu) {
    restore();
    return;
  }
  if (m_current_cpu == p->cpu) return;
  if (m_saved.empty()) m_saved = m_calls.get();
  const std::string error = m_calls.set({*p->cpu});
  if (!error.empty()) {
    m_failed.emplace_back(p->device, error);
    restore();
    return;
  }
  m_current_cpu = p->cpu;
}

std::string DevicePinning::label(int device) const {
  for (const auto& [d, error] : m_failed) {
    if (d == device) return "not pinned: moving the thread failed (" + error + ")";
  }
  const PinChoice* p = choice(device);
  if (!p) return "not pinned: device " + std::to_string(device) + " was not planned";
  if (!p->cpu) return "not pinned: " + p->reason;
  return "pinned to CPU " + std::to_string(*p->cpu) + " (NUMA node " + std::to_string(*p->node) +
         " of the GPU)";
}

std::string DevicePinning::context_json() const {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& p : m_choices) {
    nlohmann::json e = {{"index", p.device},
                        {"pci_bus_id", p.pci_bus_id},
                        {"numa_node", p.node ? nlohmann::json(*p.node) : nlohmann::json()},
                        {"cpu", p.cpu ? nlohmann::json(*p.cpu) : nlohmann::json()}};
    if (!p.cpu) e["reason"] = p.reason;
    arr.push_back(std::move(e));
  }
  return arr.dump();
}

namespace {
std::unique_ptr<DevicePinning>& installed() {
  static std::unique_ptr<DevicePinning> pinning;
  return pinning;
}
}  // namespace

void install_device_pinning(std::unique_ptr<DevicePinning> pinning) {
  installed() = std::move(pinning);
  DevicePinning* p = installed().get();
  if (!p) {
    set_before_each_case({});
    return;
  }
  benchmark::AddCustomContext("gpubench.pinning", p->context_json());
  set_before_each_case([p](const std::string& name) { p->before_case(device_of_case(name)); });
}

const DevicePinning* device_pinning() {
  return installed().get();
}

void release_thread_pin() {
  if (const DevicePinning* p = installed().get()) p->release_calling_thread();
}

}  // namespace gpubench::suite
