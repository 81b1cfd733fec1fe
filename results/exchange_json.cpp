// import_run_json (exchange.hpp): an exported run is written into a fresh temporary database with
// the store's own writers, then merged like any other database, so both paths share one
// idempotent, all-or-nothing copy.
#include <map>
#include <nlohmann/json.hpp>

#include "results/aggregates.hpp"
#include "results/exchange.hpp"
#include "results/sqlite.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace gpubench::results {
namespace {

using nlohmann::json;

[[noreturn]] void bad_export(const std::string& source, const std::string& why) {
  throw bad_input("cannot import '" + source + "'", why,
                  "give a file written by `gpubench export RUN --format json`; the database was "
                  "not changed");
}

std::string text(const json& j, const char* key, const std::string& fallback = k_unknown) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}

template <typename T>
std::optional<T> number(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<T>();
}

RunInfo run_info(const json& doc) {
  const json& run = doc["run"];
  const json env = doc.value("environment", json::object());
  RunInfo info;
  info.uuid = text(run, "uuid", "");
  info.started_at = text(run, "started_at", "");
  info.user = text(run, "user");
  if (run.contains("argv") && run["argv"].is_array()) {
    for (const json& a : run["argv"]) {
      if (a.is_string()) info.argv.push_back(a.get<std::string>());
    }
  }
  if (run.contains("tags") && run["tags"].is_object()) {
    for (const auto& [k, v] : run["tags"].items()) {
      info.tags.emplace_back(k, v.is_string() ? v.get<std::string>() : v.dump());
    }
  }
  info.note = text(run, "note", "");
  const json h = env.value("host", json::object());
  info.host.hostname = text(h, "hostname");
  info.host.cpu_model = text(h, "cpu_model");
  info.host.sockets = number<int>(h, "sockets");
  info.host.cores = number<int>(h, "cores");
  info.host.threads = number<int>(h, "threads");
  info.host.memory_bytes = number<int64_t>(h, "memory_bytes");
  info.host.kernel = text(h, "kernel");
  info.host.os = text(h, "os");
  info.host.governor = text(h, "governor");
  info.host.arch = text(h, "arch");
  for (const json& g : env.value("gpus", json::array())) {
    GpuInfo gpu;
    // "index" in exports written before GPUs were told apart by UUID (it was NVML's index).
    gpu.nvml_index = number<int>(g, "nvml_index").value_or(number<int>(g, "index").value_or(0));
    gpu.uuid = text(g, "uuid");
    gpu.name = text(g, "name");
    gpu.pci_bus_id = text(g, "pci_bus_id");
    gpu.memory_bytes = number<int64_t>(g, "memory_bytes");
    gpu.sm_count = number<int>(g, "sm_count");
    gpu.compute_capability = text(g, "compute_capability");
    gpu.max_sm_clock_mhz = number<int>(g, "max_sm_clock_mhz");
    gpu.max_mem_clock_mhz = number<int>(g, "max_mem_clock_mhz");
    gpu.default_sm_clock_mhz = number<int>(g, "default_sm_clock_mhz");
    gpu.power_limit_w = number<double>(g, "power_limit_w");
    gpu.ecc = text(g, "ecc");
    gpu.pcie_gen = number<int>(g, "pcie_gen");
    gpu.pcie_width = number<int>(g, "pcie_width");
    gpu.numa_node = number<int>(g, "numa_node");
    info.gpus.push_back(gpu);
  }
  const json s = env.value("software", json::object());
  info.software.driver_version = text(s, "driver_version");
  info.software.cuda_driver_version = text(s, "cuda_driver_version");
  info.software.cuda_runtime_version = text(s, "cuda_runtime_version");
  info.software.cublas_version = text(s, "cublas_version");
  info.software.nccl_version = text(s, "nccl_version");
  info.software.kernel = text(s, "kernel");
  info.software.compiler = text(s, "compiler");
  info.software.gpubench_version = text(s, "gpubench_version");
  info.software.git_sha = text(s, "git_sha");
  info.software.git_dirty = text(s, "git_dirty");
  const json c = env.value("configuration", json::object());
  info.config.profile = text(c, "profile", text(run, "profile", "standard"));
  if (c.contains("env") && c["env"].is_object()) {
    for (const auto& [k, v] : c["env"].items()) {
      if (v.is_string()) info.config.env[k] = v.get<std::string>();
    }
  }
  info.config.clocks_locked = text(c, "clocks_locked");
  return info;
}

// Writes the rows of `results` into the temporary store's suite runs.
class RowWriter {
 public:
  RowWriter(Database& db, int64_t run_id) : m_db(db) {
    Statement st = db.prepare("SELECT device_index, gpu_device_id FROM run_gpus WHERE run_id = ?1");
    st.bind(1, run_id);
    while (st.step()) m_gpus[st.column_int64(0)] = st.column_int64(1);
  }

  void write(int64_t suite_run_id, const json& r) {
    const std::string name = text(r, "benchmark", "");
    const int64_t bench = benchmark_id(name, text(r, "suite", "imported"));
    auto [pos, fresh] = m_positions.try_emplace({suite_run_id, bench}, m_positions.size());
    (void)fresh;
    Statement out = m_db.prepare(
        "INSERT INTO benchmark_outcomes(suite_run_id, benchmark_id, position, status, message) "
        "VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT(suite_run_id, benchmark_id) DO UPDATE SET "
        "status = excluded.status, message = excluded.message WHERE excluded.status <> 'ok'");
    out.bind(1, suite_run_id).bind(2, bench).bind(3, static_cast<int64_t>(pos->second));
    out.bind(4, text(r, "status", "ok")).bind(5, text(r, "message", "")).run();
    const std::string metric = text(r, "metric", "");
    if (metric.empty()) return;  // a skipped or failed benchmark without samples
    const int64_t metric_id = this->metric_id(metric, text(r, "unit", ""), text(r, "direction"));
    if (std::string role = text(r, "role", "");
        role == "primary" || role == "secondary" || role == "parameter") {
      Statement st = m_db.prepare(
          "INSERT OR REPLACE INTO suite_run_metric_roles(suite_run_id, metric, role) "
          "VALUES (?1, ?2, ?3)");
      st.bind(1, suite_run_id).bind(2, metric).bind(3, role).run();
    }
    std::optional<int64_t> device = number<int64_t>(r, "device_index");
    std::optional<int64_t> gpu;
    if (device && m_gpus.count(*device)) gpu = m_gpus[*device];
    Statement ins = m_db.prepare(
        "INSERT INTO samples(suite_run_id, benchmark_id, metric_id, device_index, gpu_device_id, "
        "repetition, kind, value, throttled) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
    const json values = r.value("values", json::array());
    const json throttled = r.value("throttled", json::array());
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (!values[i].is_number()) continue;
      std::optional<int64_t> t;
      if (i < throttled.size() && throttled[i].is_number_integer() &&
          throttled[i].get<int>() >= 0) {
        t = throttled[i].get<int64_t>();
      }
      ins.bind(1, suite_run_id).bind(2, bench).bind(3, metric_id).bind(4, device).bind(5, gpu);
      ins.bind(6, static_cast<int64_t>(i)).bind(7, "iteration").bind(8, values[i].get<double>());
      ins.bind(9, t).run();
    }
    if (r.contains("aggregates") && r["aggregates"].is_object()) {
      for (const auto& [kind, v] : r["aggregates"].items()) {
        if (!v.is_number()) continue;
        ins.bind(1, suite_run_id).bind(2, bench).bind(3, metric_id).bind(4, device).bind(5, gpu);
        ins.bind_null(6).bind(7, kind).bind(8, v.get<double>()).bind_null(9).run();
      }
    }
    if (const std::string big_o = text(r, "complexity", ""); !big_o.empty()) {
      record_complexity(m_db, suite_run_id, bench, big_o);
    }
  }

 private:
  int64_t benchmark_id(const std::string& name, const std::string& suite) {
    const ParsedName parsed = parse_benchmark_name(name, suite);
    json params = json::object();
    for (const Param& p : parsed.params) params[p.key] = p.number ? json(*p.number) : json(p.text);
    Statement ins = m_db.prepare(
        "INSERT OR IGNORE INTO benchmarks(name, suite, case_name, params) VALUES (?1, ?2, ?3, ?4)");
    ins.bind(1, name).bind(2, parsed.suite).bind(3, parsed.case_name).bind(4, params.dump()).run();
    const bool inserted = m_db.changes() > 0;
    Statement sel = m_db.prepare("SELECT id FROM benchmarks WHERE name = ?1");
    sel.bind(1, name);
    sel.step();
    const int64_t id = sel.column_int64(0);
    if (inserted) {
      Statement p = m_db.prepare(
          "INSERT INTO benchmark_params(benchmark_id, position, key, text, number) "
          "VALUES (?1, ?2, ?3, ?4, ?5)");
      for (std::size_t i = 0; i < parsed.params.size(); ++i) {
        p.bind(1, id).bind(2, static_cast<int64_t>(i)).bind(3, parsed.params[i].key);
        p.bind(4, parsed.params[i].text).bind(5, parsed.params[i].number).run();
      }
    }
    return id;
  }

  int64_t metric_id(const std::string& name, const std::string& unit, const std::string& dir) {
    Statement ins =
        m_db.prepare("INSERT OR IGNORE INTO metrics(name, unit, direction) VALUES (?1, ?2, ?3)");
    ins.bind(1, name).bind(2, unit).bind(3, direction_from_string(dir) ? dir : "unknown").run();
    Statement sel = m_db.prepare("SELECT id FROM metrics WHERE name = ?1 AND unit = ?2");
    sel.bind(1, name).bind(2, unit);
    sel.step();
    return sel.column_int64(0);
  }

  Database& m_db;
  std::map<int64_t, int64_t> m_gpus;  // device index -> gpu_devices.id
  std::map<std::pair<int64_t, int64_t>, std::size_t> m_positions;
};

}  // namespace

bool is_run_export(const json& doc) {
  return doc.is_object() && doc.contains("run") && doc["run"].is_object() &&
         doc["run"].contains("uuid") && doc.contains("results") && doc["results"].is_array() &&
         doc.contains("environment");
}

MergeSummary import_run_json(Store& store, const json& doc, const std::string& source) {
  if (!is_run_export(doc)) bad_export(source, "it has no run, environment and results");
  const RunInfo info = run_info(doc);
  if (info.uuid.empty()) bad_export(source, "run.uuid is empty");
  {
    Statement st = store.database().prepare("SELECT 1 FROM runs WHERE uuid = ?1");
    st.bind(1, info.uuid);
    if (st.step()) return MergeSummary{{}, {info.uuid}, 0};  // idempotent: already here
  }
  std::optional<RunStatus> status = run_status_from_string(text(doc["run"], "status", ""));
  if (!status) bad_export(source, "run.status is not running, complete, interrupted or failed");
  TempDir tmp("gpubench-import");
  const std::filesystem::path staged = tmp.path() / "run.db";
  {
    Store t = Store::open(staged, OpenMode::read_write_create);
    const int64_t run_id = t.begin_run(info);
    std::map<int64_t, int64_t> suite_ids;          // exported suite run id -> staged id
    std::map<std::string, int64_t> suite_by_name;  // for exports without per-row suite runs
    for (const json& s : doc.value("suites", json::array())) {
      SuiteRunInfo sr;
      sr.suite = text(s, "suite", "imported");
      sr.executable = text(s, "executable", "");
      for (const json& a : s.value("argv", json::array())) {
        if (a.is_string()) sr.argv.push_back(a.get<std::string>());
      }
      sr.started_at = text(s, "started_at", info.started_at);
      sr.finished_at = text(s, "finished_at", sr.started_at);
      sr.duration_s = number<double>(s, "duration_s").value_or(0);
      sr.exit_code = number<int>(s, "exit_code");
      sr.term_signal = number<int>(s, "term_signal");
      sr.status = suite_status_from_string(text(s, "status", "ok")).value_or(SuiteStatus::failed);
      sr.reason = text(s, "reason", "");
      sr.stderr_tail = text(s, "stderr_tail", "");
      const int64_t id = t.add_suite_run(run_id, sr);
      suite_ids[number<int64_t>(s, "id").value_or(-1)] = id;
      suite_by_name.try_emplace(sr.suite, id);
      if (s.contains("context") && s["context"].is_object()) {
        Statement st = t.database().prepare("UPDATE suite_runs SET context = ?1 WHERE id = ?2");
        st.bind(1, s["context"].dump()).bind(2, id).run();
      }
    }
    Transaction tx(t.database());
    RowWriter writer(t.database(), run_id);
    for (const json& r : doc["results"]) {
      if (!r.is_object()) bad_export(source, "an entry of results is not an object");
      int64_t sr = 0;
      if (auto id = number<int64_t>(r, "suite_run"); id && suite_ids.count(*id)) {
        sr = suite_ids[*id];
      } else if (auto it = suite_by_name.find(text(r, "suite", "")); it != suite_by_name.end()) {
        sr = it->second;
      } else {
        bad_export(source, "result " + text(r, "benchmark", "") + " names suite '" +
                               text(r, "suite", "") + "', which is not in suites");
      }
      writer.write(sr, r);
    }
    tx.commit();
    std::map<std::optional<int64_t>, std::vector<TelemetrySample>> telemetry;
    for (const json& s : doc.value("telemetry", json::array())) {
      TelemetrySample ts;
      ts.nvml_index =
          number<int>(s, "nvml_index").value_or(number<int>(s, "device_index").value_or(0));
      ts.t_s = number<double>(s, "t_s").value_or(0);
      ts.sm_clock_mhz = number<double>(s, "sm_clock_mhz");
      ts.mem_clock_mhz = number<double>(s, "mem_clock_mhz");
      ts.temperature_c = number<double>(s, "temperature_c");
      ts.power_w = number<double>(s, "power_w");
      ts.util_gpu_pct = number<double>(s, "util_gpu_pct");
      ts.util_mem_pct = number<double>(s, "util_mem_pct");
      ts.throttle_reasons = number<int64_t>(s, "throttle_reasons");
      ts.ecc_sbe = number<int64_t>(s, "ecc_sbe");
      ts.ecc_dbe = number<int64_t>(s, "ecc_dbe");
      ts.retired_pages = number<int64_t>(s, "retired_pages");
      ts.pcie_replay_counter = number<int64_t>(s, "pcie_replay_counter");
      ts.power_instant_w = number<double>(s, "power_instant_w");
      ts.remapped_rows = number<int64_t>(s, "remapped_rows");
      if (auto v = s.find("remap_pending"); v != s.end() && v->is_boolean()) {
        ts.remap_pending = v->get<bool>();
      }
      if (auto v = s.find("remap_failure"); v != s.end() && v->is_boolean()) {
        ts.remap_failure = v->get<bool>();
      }
      std::optional<int64_t> sr;
      if (auto id = number<int64_t>(s, "suite_run"); id && suite_ids.count(*id)) {
        sr = suite_ids[*id];
      }
      telemetry[sr].push_back(ts);
    }
    for (const auto& [sr, samples] : telemetry) t.add_telemetry(run_id, sr, samples);
    Statement fin =
        t.database().prepare("UPDATE runs SET status = ?1, finished_at = ?2 WHERE id = ?3");
    const std::string finished = text(doc["run"], "finished_at", "");
    fin.bind(1, std::string(to_string(*status)));
    if (finished.empty()) {
      fin.bind_null(2);
    } else {
      fin.bind(2, finished);
    }
    fin.bind(3, run_id).run();
  }
  return merge_database(store, staged);
}

}  // namespace gpubench::results
