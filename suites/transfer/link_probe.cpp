#include "suites/transfer/link_probe.hpp"

#include <dlfcn.h>

#include <optional>

#include "util/nvml_abi.hpp"

namespace gpubench::transfer {

namespace {
// The NVML ABI pieces used here, declared from the NVML API reference (util/nvml_abi.hpp holds
// the ones harness/probe/nvml.cpp uses too).
using nvml_abi::k_success;
using nvml_abi::nvmlDevice_t;
using nvml_abi::nvmlPciInfo_t;
using nvml_abi::nvmlReturn_t;
constexpr unsigned k_max_nvlinks = 18;     // NVML_NVLINK_MAX_LINKS
constexpr int k_enable_state_enabled = 1;  // NVML_FEATURE_ENABLED
constexpr int k_nvlink_remote_gpu = 0;     // NVML_NVLINK_DEVICE_TYPE_GPU
constexpr int k_nvlink_remote_switch = 2;  // NVML_NVLINK_DEVICE_TYPE_SWITCH
}  // namespace

LinkProbe::LinkProbe(std::string sysfs_root) : m_sysfs_root(std::move(sysfs_root)) {
  m_lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!m_lib) {
    m_nvml_reason = "libnvidia-ml.so.1 not found";
    return;
  }
  auto init = reinterpret_cast<nvmlReturn_t (*)()>(symbol("nvmlInit_v2"));
  if (!init || init() != k_success) {
    m_nvml_reason = "nvmlInit_v2 failed";
    return;
  }
  m_initialised = true;
}

LinkProbe::~LinkProbe() {
  if (m_initialised) {
    if (auto shutdown = reinterpret_cast<nvmlReturn_t (*)()>(symbol("nvmlShutdown"))) {
      (void)shutdown();
    }
  }
  if (m_lib) dlclose(m_lib);
}

void* LinkProbe::symbol(const char* name) const {
  return m_lib ? dlsym(m_lib, name) : nullptr;
}

void* LinkProbe::handle(const std::string& pci_bus_id) const {
  if (!m_initialised) return nullptr;
  auto get = reinterpret_cast<nvmlReturn_t (*)(const char*, nvmlDevice_t*)>(
      symbol("nvmlDeviceGetHandleByPciBusId_v2"));
  nvmlDevice_t dev = nullptr;
  if (!get || get(pci_bus_id.c_str(), &dev) != k_success) return nullptr;
  return dev;
}

PcieLink LinkProbe::pcie(const std::string& pci_bus_id) const {
  if (void* dev = handle(pci_bus_id)) {
    auto query = [&](const char* name) -> std::optional<int> {
      auto f = reinterpret_cast<nvmlReturn_t (*)(nvmlDevice_t, unsigned*)>(symbol(name));
      unsigned v = 0;
      if (!f || f(static_cast<nvmlDevice_t>(dev), &v) != k_success || v == 0) return std::nullopt;
      return static_cast<int>(v);
    };
    PcieLink link;
    link.current_gen = query("nvmlDeviceGetCurrPcieLinkGeneration");
    link.current_width = query("nvmlDeviceGetCurrPcieLinkWidth");
    // The maximum this GPU reaches in this system (slot and GPU), not the GPU's own maximum.
    link.max_gen = query("nvmlDeviceGetMaxPcieLinkGeneration");
    link.max_width = query("nvmlDeviceGetMaxPcieLinkWidth");
    link.source = "NVML";
    if (link.max_gen && link.max_width) return link;
    link.reason = "NVML did not report the maximum PCIe generation/width";
  }
  PcieLink link = read_pcie_link_sysfs(m_sysfs_root, pci_bus_id);
  if (!m_nvml_reason.empty() && !link.reason.empty()) {
    link.reason += "; NVML: " + m_nvml_reason;
  }
  return link;
}

std::vector<NvlinkInfo> LinkProbe::nvlinks(const std::string& pci_bus_id) const {
  std::vector<NvlinkInfo> out;
  void* dev = handle(pci_bus_id);
  if (!dev) return out;
  auto state = reinterpret_cast<nvmlReturn_t (*)(nvmlDevice_t, unsigned, int*)>(
      symbol("nvmlDeviceGetNvLinkState"));
  auto version = reinterpret_cast<nvmlReturn_t (*)(nvmlDevice_t, unsigned, unsigned*)>(
      symbol("nvmlDeviceGetNvLinkVersion"));
  auto remote_pci = reinterpret_cast<nvmlReturn_t (*)(nvmlDevice_t, unsigned, nvmlPciInfo_t*)>(
      symbol("nvmlDeviceGetNvLinkRemotePciInfo_v2"));
  auto remote_type = reinterpret_cast<nvmlReturn_t (*)(nvmlDevice_t, unsigned, int*)>(
      symbol("nvmlDeviceGetNvLinkRemoteDeviceType"));
  if (!state) return out;
  auto* d = static_cast<nvmlDevice_t>(dev);
  for (unsigned link = 0; link < k_max_nvlinks; ++link) {
    int s = 0;
    if (state(d, link, &s) != k_success) continue;  // no such link on this GPU
    NvlinkInfo info;
    info.active = s == k_enable_state_enabled;
    unsigned v = 0;
    if (version && version(d, link, &v) == k_success) info.version = v;
    int type = -1;
    if (remote_type && remote_type(d, link, &type) == k_success) {
      info.remote = type == k_nvlink_remote_gpu      ? NvlinkRemote::gpu
                    : type == k_nvlink_remote_switch ? NvlinkRemote::nvswitch
                                                     : NvlinkRemote::other;
    }
    nvmlPciInfo_t pci{};
    if (remote_pci && remote_pci(d, link, &pci) == k_success) {
      pci.busId[sizeof pci.busId - 1] = '\0';
      info.remote_bus_id = normalise_bus_id(pci.busId);
    }
    out.push_back(info);
  }
  return out;
}

}  // namespace gpubench::transfer
