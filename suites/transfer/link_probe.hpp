// Reads a GPU's links: PCIe generation and width (current and maximum) and its NVLinks, from NVML
// loaded at run time (dlopen "libnvidia-ml.so.1"), with sysfs as the PCIe fallback. No CUDA and no
// nvml.h needed; never throws: what cannot be read is reported as unknown with the reason.
#pragma once

#include <string>
#include <vector>

#include "suites/transfer/link_rates.hpp"

namespace gpubench::transfer {

class LinkProbe {
 public:
  explicit LinkProbe(std::string sysfs_root = "/sys");
  ~LinkProbe();
  LinkProbe(const LinkProbe&) = delete;
  LinkProbe& operator=(const LinkProbe&) = delete;

  // Why NVML is not used ("libnvidia-ml.so.1 not found"); empty when it is.
  const std::string& nvml_reason() const noexcept { return m_nvml_reason; }

  // bus id as CUDA prints it ("0000:3B:00.0").
  PcieLink pcie(const std::string& pci_bus_id) const;
  // Empty when NVML is unavailable or the GPU has no NVLink.
  std::vector<NvlinkInfo> nvlinks(const std::string& pci_bus_id) const;

 private:
  void* handle(const std::string& pci_bus_id) const;
  void* symbol(const char* name) const;

  std::string m_sysfs_root;
  void* m_lib = nullptr;
  bool m_initialised = false;
  std::string m_nvml_reason;
};

}  // namespace gpubench::transfer
