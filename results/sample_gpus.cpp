#include "results/sample_gpus.hpp"

#include <nlohmann/json.hpp>
#include <set>

#include "results/sqlite/sqlite.hpp"
#include "util/error.hpp"

namespace gpubench::results {

using nlohmann::json;

namespace {

[[noreturn]] void bad_sets(const std::string& why) {
  throw bad_input("cannot ingest the JSON", why,
                  "give the output of a gpubench suite whose context key "
                  "gpubench.sample_devices lists [{\"params\": {\"ranks\": \"2\"}, \"devices\": "
                  "[0, 1]}, ...], each device an index of gpubench.devices");
}

// A context value that is an array, or a string holding one (AddCustomContext writes strings);
// null when absent or not JSON.
json array_value(const json& context, const char* key) {
  auto it = context.find(key);
  if (it == context.end()) return nullptr;
  json v = *it;
  if (v.is_string()) v = json::parse(v.get<std::string>(), nullptr, false);
  return v.is_discarded() ? json(nullptr) : v;
}

}  // namespace

std::vector<SampleDeviceSet> sample_device_sets(const json& context) {
  std::vector<SampleDeviceSet> out;
  if (context.find("gpubench.sample_devices") == context.end()) return out;
  const json sets = array_value(context, "gpubench.sample_devices");
  if (!sets.is_array()) bad_sets("context 'gpubench.sample_devices' is not a JSON array");
  std::set<int64_t> listed;
  const json devices = array_value(context, "gpubench.devices");
  if (devices.is_array()) {
    for (const json& d : devices) {
      if (d.is_object() && d.contains("index") && d["index"].is_number_integer()) {
        listed.insert(d["index"].get<int64_t>());
      }
    }
  }
  for (const json& e : sets) {
    if (!e.is_object() || !e.contains("params") || !e["params"].is_object() ||
        !e.contains("devices") || !e["devices"].is_array()) {
      bad_sets(
          "an entry of context 'gpubench.sample_devices' has no object 'params' and array "
          "'devices'");
    }
    SampleDeviceSet set;
    for (const auto& [key, value] : e["params"].items()) {
      if (!value.is_string()) {
        bad_sets("parameter '" + key + "' of a 'gpubench.sample_devices' entry is not a string");
      }
      set.params[key] = value.get<std::string>();
    }
    for (const json& d : e["devices"]) {
      if (!d.is_number_integer()) bad_sets("a 'gpubench.sample_devices' device is not an integer");
      const int64_t index = d.get<int64_t>();
      if (!listed.count(index)) {
        bad_sets("context 'gpubench.sample_devices' names device " + std::to_string(index) +
                 ", which context 'gpubench.devices' does not list");
      }
      set.devices.push_back(index);
    }
    out.push_back(std::move(set));
  }
  return out;
}

SampleStates combine_gpu_states(const std::vector<SampleStates>& per_gpu) {
  auto combine = [&](std::optional<bool> SampleStates::*field) -> std::optional<bool> {
    if (per_gpu.empty()) return std::nullopt;
    bool all_false = true;
    for (const SampleStates& s : per_gpu) {
      if (s.*field == true) return true;
      if (!(s.*field).has_value()) all_false = false;
    }
    return all_false ? std::optional<bool>(false) : std::nullopt;
  };
  SampleStates out;
  out.power_limited = combine(&SampleStates::power_limited);
  out.thermal_or_hw_slowdown = combine(&SampleStates::thermal_or_hw_slowdown);
  out.clock_below_expected = combine(&SampleStates::clock_below_expected);
  return out;
}

SampleGpus::SampleGpus(Database& db, int64_t suite_run_id) : m_db(db) {
  Statement st = db.prepare("SELECT context FROM suite_runs WHERE id = ?1");
  st.bind(1, suite_run_id);
  if (!st.step()) return;
  const json context = json::parse(st.column_text(0), nullptr, false);
  if (!context.is_object()) return;
  try {
    m_sets = sample_device_sets(context);  // checked at ingest; a stored one is well formed
  } catch (const Error&) {
    return;
  }
  const json devices = array_value(context, "gpubench.devices");
  if (!devices.is_array()) return;
  for (const json& d : devices) {
    if (!d.is_object() || !d.contains("index") || !d["index"].is_number_integer()) continue;
    const auto u = d.find("uuid");
    if (u != d.end() && u->is_string() && !u->get<std::string>().empty()) {
      m_uuid_of[d["index"].get<int64_t>()] = u->get<std::string>();
    }
  }
}

const std::vector<std::string>& SampleGpus::of(int64_t benchmark_id) {
  if (auto it = m_cache.find(benchmark_id); it != m_cache.end()) return it->second;
  std::vector<std::string>& out = m_cache[benchmark_id];
  if (m_sets.empty()) return out;
  std::map<std::string, std::string> params;
  Statement st = m_db.prepare("SELECT key, text FROM benchmark_params WHERE benchmark_id = ?1");
  st.bind(1, benchmark_id);
  while (st.step()) params[st.column_text(0)] = st.column_text(1);
  for (const SampleDeviceSet& set : m_sets) {
    bool match = true;
    for (const auto& [key, text] : set.params) {
      const auto p = params.find(key);
      const std::string have = p == params.end() ? std::string() : p->second;
      if (have != text) {
        match = false;
        break;
      }
    }
    if (!match) continue;
    // A GPU the suite could not name (no UUID) stays in as "": nothing is known of it, so the
    // combined states can be true but never a proven false.
    for (int64_t d : set.devices) {
      const auto u = m_uuid_of.find(d);
      out.push_back(u == m_uuid_of.end() ? std::string() : u->second);
    }
    break;
  }
  return out;
}

}  // namespace gpubench::results
