// import_run_json and write_run_tables (exchange.hpp): an exported run is written into a fresh
// temporary database, then merged like any other database, so both paths share one idempotent,
// all-or-nothing copy. An export with "tables" is rebuilt row for row (its rows keep their ids:
// the temporary database is empty); an older one from its "results", with the store's writers.
#include <sqlite3.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "results/exchange/exchange.hpp"
#include "results/exchange/exchange_detail.hpp"
#include "results/exchange/exchange_tables.hpp"
#include "results/schema/aggregates.hpp"
#include "results/sqlite/sqlite.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/json_writer.hpp"
#include "util/strings.hpp"

namespace gpubench::results {
namespace {

using nlohmann::json;
using exchange_detail::bad_export;
using exchange_detail::check_exported_value;
using exchange_detail::check_tables_agree;
using exchange_detail::check_text_limit;
using exchange_detail::check_uuid;
using exchange_detail::not_a_value;

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
    gpu.app_sm_clock_mhz = number<int>(g, "app_sm_clock_mhz");  // dropped before issue 24
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
    if (name.size() > k_max_benchmark_name_bytes) {
      throw bad_input("cannot import the run",
                      "result '" + name.substr(0, 40) + "…' has a name of " +
                          std::to_string(name.size()) + " bytes (a benchmark name is at most " +
                          std::to_string(k_max_benchmark_name_bytes) + ")",
                      "export the run again; nothing was imported");
    }
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
    if (!values.is_array()) not_a_value(name, metric, "values", values);
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (!values[i].is_number()) {
        not_a_value(name, metric, "values[" + std::to_string(i) + "]", values[i]);
      }
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

// Rebuilds the exported rows of doc["tables"] in the empty database `db`, table by table in
// dependency order. Columns this build does not know are left out (an export of a newer
// gpubench), columns the export lacks get their defaults (an older one).
void insert_exported_tables(Database& db, const json& tables, const std::string& source) {
  if (!tables.is_object()) bad_export(source, "\"tables\" is not an object");
  const json* runs = tables.contains("runs") ? &tables["runs"] : nullptr;
  if (runs == nullptr || !runs->is_object() || !runs->contains("rows") ||
      !(*runs)["rows"].is_array() || (*runs)["rows"].size() != 1) {
    bad_export(source, "tables.runs does not hold exactly one run");
  }
  Transaction tx(db);
  for (const ExchangedTable& table : exchanged_tables()) {
    if (table.rows_of_run.empty() || !tables.contains(table.name)) continue;
    const json& t = tables[table.name];
    const std::string where = "tables." + table.name;
    if (!t.is_object() || !t.contains("columns") || !t["columns"].is_array() ||
        !t.contains("rows") || !t["rows"].is_array()) {
      bad_export(source, where + " needs \"columns\" and \"rows\" arrays");
    }
    // numeric: declared INTEGER or REAL; required: NOT NULL without a default
    std::set<std::string> known, numeric, required;
    {
      Statement st = db.prepare(
          "SELECT name, upper(type), \"notnull\", dflt_value IS NULL FROM "
          "pragma_table_info(?1)");
      st.bind(1, table.name);
      while (st.step()) {
        known.insert(st.column_text(0));
        const std::string type = st.column_text(1);
        if (type == "INTEGER" || type == "REAL") numeric.insert(st.column_text(0));
        if (st.column_int64(2) != 0 && st.column_int64(3) != 0) required.insert(st.column_text(0));
      }
    }
    std::vector<std::size_t> take;  // positions in each row of the columns inserted
    std::vector<std::string> names, params;
    for (std::size_t i = 0; i < t["columns"].size(); ++i) {
      const json& c = t["columns"][i];
      if (!c.is_string()) bad_export(source, where + ".columns has a name that is not text");
      if (!known.count(c.get<std::string>())) continue;
      take.push_back(i);
      names.push_back(c.get<std::string>());
      params.push_back("?" + std::to_string(names.size()));
    }
    if (names.empty()) continue;
    Statement ins = db.prepare("INSERT INTO " + table.name + "(" + join(names, ", ") +
                               ") VALUES (" + join(params, ", ") + ")");
    std::size_t row_index = 0;
    for (const json& row : t["rows"]) {
      const std::string at = where + ".rows[" + std::to_string(row_index++) + "]";
      if (!row.is_array() || row.size() != t["columns"].size()) {
        bad_export(source, at + " does not have one value per column");
      }
      for (std::size_t k = 0; k < take.size(); ++k) {
        const json& v = row[take[k]];
        const int index = static_cast<int>(k + 1);
        check_exported_value(source, table.name, names[k], v, at);
        if (v.is_null() && !required.count(names[k])) {
          ins.bind_null(index);
        } else if (v.is_number_integer()) {
          ins.bind(index, v.get<int64_t>());
        } else if (v.is_number()) {
          ins.bind(index, v.get<double>());
        } else if (v.is_string() && !numeric.count(names[k])) {
          ins.bind(index, v.get<std::string>());
        } else {
          // A text where SQLite keeps a number would be stored as text and skipped by every
          // statistic later: refused like a malformed value of the results form.
          bad_export(source, at + ": " + names[k] + " is " + v.dump() + ", not " +
                                 (numeric.count(names[k]) ? "a number" : "a value"));
        }
      }
      try {
        ins.run();
      } catch (const Error&) {
        bad_export(source, at + " does not fit the other rows (SQLite: " + db.last_error() + ")");
      }
    }
  }
  tx.commit();
}

}  // namespace

void write_run_tables(Store& store, int64_t run_id, JsonWriter& w) {
  Database& db = store.database();
  std::vector<const ExchangedTable*> tables;
  for (const ExchangedTable& t : exchanged_tables()) {
    if (!t.rows_of_run.empty() && db.table_exists(t.name)) tables.push_back(&t);
  }
  // Keys sorted, as every object this document holds.
  std::sort(tables.begin(), tables.end(),
            [](const ExchangedTable* a, const ExchangedTable* b) { return a->name < b->name; });
  w.begin_object();
  for (const ExchangedTable* t : tables) {
    Statement st = db.prepare(t->rows_of_run);
    st.bind(1, run_id);
    w.key(t->name).begin_object().key("columns").begin_array();
    const int columns = st.column_count();
    for (int c = 0; c < columns; ++c) w.string(st.column_name(c));
    w.end_array().key("rows").begin_array();
    while (st.step()) {
      w.begin_array();
      for (int c = 0; c < columns; ++c) {
        switch (st.column_type(c)) {
          case SQLITE_INTEGER:
            w.integer(st.column_int64(c));
            break;
          case SQLITE_FLOAT:
            w.number(st.column_double(c));
            break;
          case SQLITE_NULL:
            w.null();
            break;
          default:
            w.string(st.column_view(c));
            break;
        }
      }
      w.end_array();
    }
    w.end_array().end_object();
  }
  w.end_object();
}

bool is_run_export(const json& doc) {
  return doc.is_object() && doc.contains("run") && doc["run"].is_object() &&
         doc["run"].contains("uuid") && doc.contains("results") && doc["results"].is_array() &&
         doc.contains("environment");
}

MergeSummary import_run_json(Store& store, const json& doc, const std::string& source,
                             const MergeOptions& options) {
  if (!is_run_export(doc)) bad_export(source, "it has no run, environment and results");
  const RunInfo info = run_info(doc);
  if (info.uuid.empty()) bad_export(source, "run.uuid is empty");
  check_uuid(source, "run.uuid", info.uuid);
  check_text_limit(source, "run.note", info.note, k_max_text_bytes);
  for (const auto& [key, value] : info.tags) {
    check_text_limit(source, "run.tags." + key.substr(0, 40), key + "=" + value, k_max_text_bytes);
  }
  if (doc.contains("tables")) check_tables_agree(doc, info.uuid, source);
  // An export with tables carries the run's annotations: one of a run already here is merged
  // like a database (the run is left alone, annotations it gained since are added).
  if (!doc.contains("tables")) {
    Statement st = store.database().prepare("SELECT 1 FROM runs WHERE uuid = ?1");
    st.bind(1, info.uuid);
    if (st.step()) {
      MergeSummary here;  // idempotent: already here
      here.skipped.push_back(info.uuid);
      return here;
    }
  }
  std::optional<RunStatus> status = run_status_from_string(text(doc["run"], "status", ""));
  if (!status) {
    bad_export(source,
               "run.status is not running, complete, interrupted, failed, abandoned or incomplete");
  }
  TempDir tmp("gpubench-import", TempDirLock::held);  // a killed import's is swept next time
  const std::filesystem::path staged = tmp.path() / "run.db";
  if (doc.contains("tables")) {
    {
      Store t = Store::open(staged, OpenMode::read_write_create);
      insert_exported_tables(t.database(), doc["tables"], source);
    }
    return merge_database(store, staged, options);
  }
  {
    Store t = Store::open(staged, OpenMode::read_write_create);
    const int64_t run_id = t.begin_run(info);
    std::map<int64_t, int64_t> suite_ids;          // exported suite run id -> staged id
    std::map<std::string, int64_t> suite_by_name;  // for exports without per-row suite runs
    std::map<std::string, int> suite_runs_of;      // suite -> how many suite runs list it
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
      ++suite_runs_of[sr.suite];
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
      } else if (const std::string suite = text(r, "suite", ""); suite_runs_of[suite] > 1) {
        // Several executions of the suite (issue 35: one suite run each): by name, every result
        // would go to the first and the executions would collapse into one.
        throw bad_input("cannot import '" + source + "'",
                        "result " + text(r, "benchmark", "") +
                            " names none of the file's suite runs (\"suite_run\"), and suite '" +
                            suite + "' is listed " + std::to_string(suite_runs_of[suite]) +
                            " times (one per execution), so which execution it belongs to is "
                            "unknown",
                        "give each result the \"suite_run\" id of its suite run, as `gpubench "
                        "export RUN --format json` writes it; the database was not changed");
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
  return merge_database(store, staged, options);
}

}  // namespace gpubench::results
