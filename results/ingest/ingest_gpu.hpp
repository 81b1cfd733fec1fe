// Ingest's GPU identity (internal to results/): which GPU a result of a suite ran on. A GPU suite
// names the device `device:N`, a CUDA ordinal in its own process (under its CUDA_VISIBLE_DEVICES
// and CUDA_DEVICE_ORDER), and records in its context key "gpubench.devices" which GPU each ordinal
// was. The store ties results to that GPU by UUID (PCI bus id as the fallback), never by index:
// NVML, which enumerated the run's GPUs, numbers them in PCI order and ignores
// CUDA_VISIBLE_DEVICES.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <unordered_map>

namespace gpubench::results {

class Database;

struct SuiteDevice {
  std::string uuid;        // "GPU-…", empty when the suite did not know it
  std::string pci_bus_id;  // as CUDA writes it ("0000:3B:00.0"), empty when unknown
};

// CUDA ordinal -> GPU from context["gpubench.devices"] (a JSON array, or a string holding one):
// [{"index": 0, "uuid": "GPU-...", "pci_bus_id": "0000:19:00.0", ...}]. Empty without the key.
// Throws Error(bad_input) when it is not such an array or names an ordinal twice.
std::unordered_map<int64_t, SuiteDevice> suite_devices(const nlohmann::json& context);

// "0000:3B:00.0" (CUDA), "00000000:3B:00.0" (NVML), "0000:3b:00.0" (sysfs) -> "0000:3b:00.0";
// the whole domain is kept: "10000:3b:00.0" (a VMD domain) is not "0000:3b:00.0".
std::string normalized_pci_bus_id(const std::string& pci_bus_id);

// Finds (or records) the gpu_devices row of a GPU named by a suite, caching answers.
class GpuResolver {
 public:
  explicit GpuResolver(Database& db) : m_db(db) {}
  void set_run(int64_t run_id) { m_run = run_id; }
  // The run's GPU with that UUID, else the run's GPU on that PCI bus, else any known GPU with
  // that UUID, else a new row holding what the suite said.
  int64_t find(const std::string& uuid, const std::string& pci_bus_id);

 private:
  Database& m_db;
  int64_t m_run = 0;
  std::unordered_map<std::string, int64_t> m_cache;  // "uuid|pci" -> gpu_devices id
};

}  // namespace gpubench::results
