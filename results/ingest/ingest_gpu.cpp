#include "results/ingest/ingest_gpu.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>

#include "results/ingest/ingest.hpp"
#include "results/model.hpp"
#include "results/sqlite/sqlite.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace gpubench::results {

using nlohmann::json;

namespace {
[[noreturn]] void bad_devices(const std::string& why) {
  throw bad_input("cannot ingest the JSON", why,
                  "give the output of a gpubench GPU suite, whose context key gpubench.devices "
                  "lists each CUDA device once: [{\"index\": 0, \"uuid\": \"GPU-...\"}, ...]");
}
}  // namespace

std::unordered_map<int64_t, SuiteDevice> suite_devices(const json& context) {
  std::unordered_map<int64_t, SuiteDevice> out;
  auto it = context.find("gpubench.devices");
  if (it == context.end()) return out;
  json arr = *it;
  if (arr.is_string()) {
    check_json_depth(arr.get_ref<const std::string&>(), "context 'gpubench.devices'",
                     "the JSON text it holds");
    arr = json::parse(arr.get<std::string>(), nullptr, false);
    if (arr.is_discarded()) bad_devices("context 'gpubench.devices' is a string that is not JSON");
  }
  if (!arr.is_array()) {
    bad_devices(std::string("context 'gpubench.devices' is a ") + arr.type_name() +
                ", not an array");
  }
  for (const json& d : arr) {
    if (!d.is_object() || !d.contains("index") || !d["index"].is_number_integer()) {
      bad_devices("an entry of context 'gpubench.devices' has no integer 'index'");
    }
    SuiteDevice dev;
    if (auto u = d.find("uuid"); u != d.end() && u->is_string()) dev.uuid = u->get<std::string>();
    if (auto p = d.find("pci_bus_id"); p != d.end() && p->is_string()) {
      dev.pci_bus_id = p->get<std::string>();
    }
    const int64_t index = d["index"].get<int64_t>();
    if (!out.emplace(index, dev).second) {
      bad_devices("context 'gpubench.devices' lists CUDA device " + std::to_string(index) +
                  " twice");
    }
  }
  return out;
}

std::string normalized_pci_bus_id(const std::string& pci_bus_id) {
  const std::string id = to_lower(trim(pci_bus_id));
  // domain:bus:device.function. The domain is a number whose width differs by writer (CUDA 4
  // digits, NVML 8); it is not a fixed-width suffix: a VMD domain (10000) must stay apart from
  // domain 0. Leading zeros go, then at least 4 digits, as sysfs writes it.
  const auto colon = id.find(':');
  if (colon == std::string::npos || id.find(':', colon + 1) == std::string::npos) return id;
  const std::string domain = id.substr(0, colon);
  if (domain.empty() || domain.find_first_not_of("0123456789abcdef") != std::string::npos) {
    return id;
  }
  std::string digits = domain.substr(std::min(domain.find_first_not_of('0'), domain.size()));
  if (digits.size() < 4) digits.insert(0, 4 - digits.size(), '0');
  return digits + id.substr(colon);
}

int64_t GpuResolver::find(const std::string& uuid, const std::string& pci_bus_id) {
  const std::string key = uuid + "|" + pci_bus_id;
  if (auto it = m_cache.find(key); it != m_cache.end()) return it->second;
  std::optional<int64_t> found, by_pci;
  Statement st = m_db.prepare(
      "SELECT g.id, g.uuid, g.pci_bus_id FROM run_gpus rg JOIN gpu_devices g ON "
      "g.id = rg.gpu_device_id WHERE rg.run_id = ?1 ORDER BY rg.device_index");
  st.bind(1, m_run);
  while (st.step()) {
    if (!uuid.empty() && st.column_text(1) == uuid) {
      found = st.column_int64(0);
      break;
    }
    if (!by_pci && !pci_bus_id.empty() &&
        normalized_pci_bus_id(st.column_text(2)) == normalized_pci_bus_id(pci_bus_id)) {
      by_pci = st.column_int64(0);
    }
  }
  if (!found) found = by_pci;
  if (!found && !uuid.empty()) {
    Statement any = m_db.prepare("SELECT id FROM gpu_devices WHERE uuid = ?1 ORDER BY id DESC");
    any.bind(1, uuid);
    if (any.step()) found = any.column_int64(0);
  }
  if (!found) {
    const std::string pci = pci_bus_id.empty() ? std::string(k_unknown) : pci_bus_id;
    const std::string id = uuid.empty() ? std::string(k_unknown) : uuid;
    const json fp = {{"uuid", id}, {"pci_bus_id", pci}, {"source", "benchmark output"}};
    Statement ins = m_db.prepare(
        "INSERT INTO gpu_devices(fingerprint, uuid, name, pci_bus_id, compute_capability, ecc) "
        "VALUES (?1, ?2, 'unknown', ?3, 'unknown', 'unknown') ON CONFLICT(fingerprint) DO NOTHING");
    ins.bind(1, fp.dump()).bind(2, id).bind(3, pci).run();
    Statement sel = m_db.prepare("SELECT id FROM gpu_devices WHERE fingerprint = ?1");
    sel.bind(1, fp.dump());
    sel.step();
    found = sel.column_int64(0);
  }
  m_cache.emplace(key, *found);
  return *found;
}

}  // namespace gpubench::results
