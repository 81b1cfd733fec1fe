// Store: the read side (runs, one run); results are read in store_results.cpp.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "results/annotations.hpp"
#include "results/history_exclusions.hpp"
#include "results/liveness.hpp"
#include "results/sqlite/sqlite.hpp"
#include "results/store.hpp"
#include "results/store_detail.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"
#include "util/suggest.hpp"

namespace gpubench::results {

using nlohmann::json;

namespace {

// `runs` and `show`: one query per child table over the selected runs, merged here, so listing
// 10,000 runs is a few index scans rather than five correlated subqueries per run.
// `ids_sql` selects the run ids in the wanted order and binds its one parameter as ?1.
// With `all_runs`, the child queries read every row instead of filtering on `ids_sql`.
std::vector<RunRow> load_run_rows(Database& db, const std::string& ids_sql, int64_t param,
                                  bool all_runs = false) {
  std::vector<RunRow> rows;
  std::unordered_map<int64_t, size_t> index;
  {
    Statement st = db.prepare(
        "SELECT r.id, r.uuid, r.started_at, COALESCE(r.finished_at, ''), r.status, h.hostname, "
        "c.profile, r.note, r.status_reason FROM (" +
        ids_sql +
        ") AS sel JOIN runs r ON r.id = sel.id JOIN hosts h ON h.id = r.host_id "
        "JOIN configurations c ON c.id = r.configuration_id");
    st.bind(1, param);
    while (st.step()) {
      RunRow row;
      row.id = st.column_int64(0);
      row.uuid = st.column_text(1);
      row.started_at = st.column_text(2);
      row.finished_at = st.column_text(3);
      row.status = run_status_from_string(st.column_text(4)).value_or(RunStatus::failed);
      row.hostname = st.column_text(5);
      row.profile = st.column_text(6);
      row.note = st.column_text(7);
      row.status_reason = st.column_text(8);
      index.emplace(row.id, rows.size());
      rows.push_back(std::move(row));
    }
  }
  if (rows.empty()) return rows;
  // A `running` run whose owner is gone is shown as such without writing (read-only opens);
  // the next writing open marks it abandoned.
  for (RunRow& row : rows) {
    if (row.status != RunStatus::running) continue;
    const Liveness l = judge_run_owner(detail::load_run_owner(db, row.id));
    row.owner_gone = !l.alive;
    if (row.owner_gone)
      row.status_reason = "gpubench stopped without finishing the run (" + l.evidence + ")";
  }
  const std::string in = all_runs ? " IS NOT NULL" : " IN (" + ids_sql + ")";
  auto for_each = [&](const std::string& sql, auto&& fn) {
    Statement st = db.prepare(sql);
    if (!all_runs) st.bind(1, param);
    while (st.step()) {
      auto it = index.find(st.column_int64(0));
      if (it != index.end()) fn(rows[it->second], st);
    }
  };
  {  // on purpose (v7) or by a failed acceptance (issue 38)
    std::vector<int64_t> ids;
    if (!all_runs) {
      for (const RunRow& row : rows) ids.push_back(row.id);
    }
    for (const HistoryExclusion& x : list_history_exclusions(db, ids)) {
      auto it = index.find(x.run_id);
      if (it != index.end()) rows[it->second].history_excluded = x.reason;
    }
  }
  // GPU summary "8x NVIDIA H200", models in order of their first device index.
  std::unordered_map<int64_t, std::vector<std::pair<std::string, int>>> gpus;
  for_each(
      "SELECT rg.run_id, g.name FROM run_gpus rg JOIN gpu_devices g ON g.id = "
      "rg.gpu_device_id WHERE rg.run_id" +
          in + " ORDER BY rg.run_id, rg.device_index",
      [&](RunRow& row, const Statement& st) {
        auto& models = gpus[row.id];
        const std::string name = st.column_text(1);
        auto m = std::find_if(models.begin(), models.end(),
                              [&](const auto& p) { return p.first == name; });
        if (m == models.end()) {
          models.emplace_back(name, 1);
        } else {
          ++m->second;
        }
      });
  for (RunRow& row : rows) {
    std::vector<std::string> parts;
    for (const auto& [name, n] : gpus[row.id]) parts.push_back(std::to_string(n) + "x " + name);
    row.gpu_summary = parts.empty() ? "none" : join(parts, ", ");
  }
  for_each(
      "SELECT run_id, key, value FROM run_tags WHERE run_id" + in + " ORDER BY run_id, position",
      [](RunRow& row, const Statement& st) {
        row.tags.emplace_back(st.column_text(1), st.column_text(2));
      });
  // Suites, not suite runs: a run measures each suite in several executions (issue 35), each its
  // own suite run; a suite failed when any of its executions did.
  for_each(
      "SELECT run_id, count(*), sum(failed) FROM (SELECT run_id, suite, max(status IN ('failed', "
      "'timeout', 'crashed', 'interrupted')) AS failed FROM suite_runs WHERE run_id" +
          in + " GROUP BY run_id, suite) GROUP BY run_id",
      [](RunRow& row, const Statement& st) {
        row.suites_total = st.column_int64(1);
        row.suites_failed = st.column_int64(2);
      });
  for_each(
      "SELECT s.run_id, count(DISTINCT o.benchmark_id) FROM suite_runs s JOIN benchmark_outcomes "
      "o ON o.suite_run_id = s.id WHERE s.run_id" +
          in + " GROUP BY s.run_id",
      [](RunRow& row, const Statement& st) { row.benchmarks = st.column_int64(1); });
  return rows;
}

std::vector<std::string> json_strings(const std::string& text) {
  std::vector<std::string> out;
  const json j = json::parse(text, nullptr, false);
  if (j.is_array()) {
    for (const auto& e : j) {
      if (e.is_string()) out.push_back(e.get<std::string>());
    }
  }
  return out;
}

// A suite run's "gpubench.machine_load" (Store::record_machine_load); nullopt when it is not an
// object of finite numbers (a hand-edited or foreign context).
std::optional<MachineLoad> machine_load_from(const std::string& text) {
  const json j = json::parse(text, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  MachineLoad m;
  for (const auto& [key, field] :
       {std::pair{"loadavg_1m_start", &m.loadavg_1m_start},
        std::pair{"loadavg_1m_end", &m.loadavg_1m_end}, std::pair{"other_cpu_s", &m.other_cpu_s},
        std::pair{"wall_s", &m.wall_s}}) {
    auto it = j.find(key);
    if (it == j.end() || !it->is_number() || !std::isfinite(it->get<double>())) return std::nullopt;
    *field = it->get<double>();
  }
  return m;
}

template <typename T>
std::optional<T> opt_int(const Statement& st, int col) {
  const auto v = st.column_optional_int64(col);
  return v ? std::optional<T>(static_cast<T>(*v)) : std::nullopt;
}

[[noreturn]] void unknown_run(const Database& db, const std::string& spec, const std::string& why) {
  // "lates~1" -> "did you mean 'latest'?" (issue 26).
  const std::string hint = did_you_mean(spec.substr(0, spec.find('~')), {"latest"});
  throw bad_input("unknown run '" + spec + "'", why + " in database '" + db.path().string() + "'",
                  (hint.empty() ? std::string() : hint + " ") +
                      "list runs with `gpubench runs`; a run is 'latest', 'latest~N', an id, or a "
                      "UUID (or its first 8+ characters)");
}

bool all_digits(const std::string& s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

}  // namespace

std::vector<RunRow> Store::list_runs(int64_t limit) {
  return load_run_rows(*m_db, "SELECT id FROM runs ORDER BY started_at DESC, id DESC LIMIT ?1",
                       limit > 0 ? limit : int64_t{-1}, limit <= 0);
}

int64_t Store::resolve_run(const std::string& raw_spec) {
  Database& db = *m_db;
  const std::string spec(trim(raw_spec));
  if (spec == "latest" || spec.rfind("latest~", 0) == 0) {
    int64_t back = 0;
    if (spec != "latest") {
      const auto n = parse_int(std::string_view(spec).substr(7));
      if (!n || *n < 0) unknown_run(db, spec, "'latest~N' needs a whole number N >= 0");
      back = *n;
    }
    // Finished runs only: a run still going (or abandoned, or whose gpubench died) is not what
    // "the latest results" means, nor is an --until-decided rerun (a few benchmarks of the run
    // before it: k_rerun_tag_key), nor a run that missed its expected hardware (incomplete: its
    // results are not the server's); address them by id or UUID.
    std::string finished =
        "status NOT IN ('running', 'abandoned', 'incomplete') AND NOT EXISTS (SELECT 1 FROM "
        "run_tags t WHERE "
        "t.run_id = runs.id AND trim(t.key) = '" +
        std::string(k_rerun_tag_key) + "')";
    // Nor, while the database holds runs it measured itself, a Google Benchmark file imported
    // into it (k_imported_tag_key): a file imported by mistake into a nightly database must not
    // become the night's results. A database of imports only keeps its newest import as latest.
    const std::string own =
        " AND NOT EXISTS (SELECT 1 FROM run_tags i WHERE i.run_id = runs.id "
        "AND trim(i.key) = '" +
        std::string(k_imported_tag_key) + "')";
    Statement any_own =
        db.prepare("SELECT EXISTS (SELECT 1 FROM runs WHERE " + finished + own + ")");
    any_own.step();
    if (any_own.column_int64(0) != 0) finished += own;
    Statement st = db.prepare("SELECT id FROM runs WHERE " + finished +
                              " ORDER BY started_at DESC, id DESC LIMIT 1 OFFSET ?1");
    st.bind(1, back);
    if (st.step()) return st.column_int64(0);
    Statement count = db.prepare("SELECT count(*) FROM runs WHERE " + finished);
    count.step();
    const int64_t n = count.column_int64(0);
    unknown_run(db, spec,
                n == 0 ? std::string("there are no finished runs yet")
                       : "there are only " + std::to_string(n) +
                             " finished run(s) (running, abandoned and incomplete runs, "
                             "--until-decided reruns and, beside runs of this database's own, "
                             "imported files do not count)");
  }
  if (all_digits(spec)) {
    const auto id = parse_int(spec);
    if (id) {
      Statement st = db.prepare("SELECT id FROM runs WHERE id = ?1");
      st.bind(1, static_cast<int64_t>(*id));
      if (st.step()) return st.column_int64(0);
    }
    if (spec.size() < 8) unknown_run(db, spec, "there is no run with this id");
  }
  const std::string prefix = to_lower(spec);
  const bool uuid_like = std::all_of(prefix.begin(), prefix.end(), [](unsigned char c) {
    return std::isxdigit(c) != 0 || c == '-';
  });
  if (!uuid_like || prefix.size() < 8) {
    unknown_run(db, spec, "it is not an id, 'latest', or a UUID prefix of 8 or more characters");
  }
  // Only hex digits and '-' get here, so the LIKE pattern holds no wildcards but the last.
  Statement st = db.prepare("SELECT id, uuid FROM runs WHERE uuid LIKE ?1 ORDER BY id LIMIT 6");
  st.bind(1, prefix + "%");
  std::vector<std::pair<int64_t, std::string>> hits;
  while (st.step()) hits.emplace_back(st.column_int64(0), st.column_text(1));
  if (hits.size() == 1) return hits[0].first;
  if (hits.empty()) unknown_run(db, spec, "no run has this id or UUID");
  std::vector<std::string> uuids;
  for (const auto& h : hits) uuids.push_back(h.second);
  throw bad_input(
      "run '" + spec + "' is ambiguous",
      "it matches several runs: " + join(uuids, ", ") + (hits.size() > 5 ? ", ..." : ""),
      "give more characters of the UUID, or the numeric id");
}

RunDetail Store::get_run(int64_t run_id) {
  Database& db = *m_db;
  RunDetail d;
  {
    auto rows = load_run_rows(db, "SELECT id FROM runs WHERE id = ?1", run_id);
    if (rows.empty()) unknown_run(db, std::to_string(run_id), "there is no run with this id");
    d.run = std::move(rows[0]);
  }
  RunInfo& info = d.info;
  {
    Statement st = db.prepare(R"sql(
SELECT r.uuid, r.started_at, r.user, r.argv, r.note,
       h.hostname, h.cpu_model, h.sockets, h.cores, h.threads, h.memory_bytes, h.kernel, h.os,
       h.governor, h.arch,
       e.driver_version, e.cuda_driver_version, e.cuda_runtime_version, e.cublas_version,
       e.nccl_version, e.kernel, e.compiler, e.gpubench_version, e.git_sha, e.git_dirty,
       c.profile, c.env, c.clocks_locked
FROM runs r JOIN hosts h ON h.id = r.host_id JOIN software_envs e ON e.id = r.software_env_id
JOIN configurations c ON c.id = r.configuration_id WHERE r.id = ?1)sql");
    st.bind(1, run_id);
    st.step();
    info.uuid = st.column_text(0);
    info.started_at = st.column_text(1);
    info.user = st.column_text(2);
    info.argv = json_strings(st.column_text(3));
    info.note = st.column_text(4);
    info.tags = d.run.tags;
    HostInfo& h = info.host;
    h.hostname = st.column_text(5);
    h.cpu_model = st.column_text(6);
    h.sockets = opt_int<int>(st, 7);
    h.cores = opt_int<int>(st, 8);
    h.threads = opt_int<int>(st, 9);
    h.memory_bytes = st.column_optional_int64(10);
    h.kernel = st.column_text(11);
    h.os = st.column_text(12);
    h.governor = st.column_text(13);
    h.arch = st.column_text(14);
    SoftwareEnv& e = info.software;
    e.driver_version = st.column_text(15);
    e.cuda_driver_version = st.column_text(16);
    e.cuda_runtime_version = st.column_text(17);
    e.cublas_version = st.column_text(18);
    e.nccl_version = st.column_text(19);
    e.kernel = st.column_text(20);
    e.compiler = st.column_text(21);
    e.gpubench_version = st.column_text(22);
    e.git_sha = st.column_text(23);
    e.git_dirty = st.column_text(24);
    info.config.profile = st.column_text(25);
    const json env = json::parse(st.column_text(26), nullptr, false);
    if (env.is_object()) {
      for (const auto& [k, v] : env.items()) {
        if (v.is_string()) info.config.env[k] = v.get<std::string>();
      }
    }
    info.config.clocks_locked = st.column_text(27);
  }
  {
    Statement st = db.prepare(R"sql(
SELECT rg.device_index, g.uuid, g.name, g.pci_bus_id, g.memory_bytes, g.sm_count,
       g.compute_capability, g.max_sm_clock_mhz, g.max_mem_clock_mhz, g.default_sm_clock_mhz,
       g.power_limit_w, g.ecc, g.pcie_gen, g.pcie_width, g.numa_node, g.app_sm_clock_mhz
FROM run_gpus rg JOIN gpu_devices g ON g.id = rg.gpu_device_id
WHERE rg.run_id = ?1 ORDER BY rg.device_index)sql");
    st.bind(1, run_id);
    while (st.step()) {
      GpuInfo g;
      g.nvml_index = static_cast<int>(st.column_int64(0));
      g.uuid = st.column_text(1);
      g.name = st.column_text(2);
      g.pci_bus_id = st.column_text(3);
      g.memory_bytes = st.column_optional_int64(4);
      g.sm_count = opt_int<int>(st, 5);
      g.compute_capability = st.column_text(6);
      g.max_sm_clock_mhz = opt_int<int>(st, 7);
      g.max_mem_clock_mhz = opt_int<int>(st, 8);
      g.default_sm_clock_mhz = opt_int<int>(st, 9);
      g.power_limit_w = st.column_optional_double(10);
      g.ecc = st.column_text(11);
      g.pcie_gen = opt_int<int>(st, 12);
      g.pcie_width = opt_int<int>(st, 13);
      g.numa_node = opt_int<int>(st, 14);
      g.app_sm_clock_mhz = opt_int<int>(st, 15);
      info.gpus.push_back(std::move(g));
    }
  }
  {
    Statement st = db.prepare(R"sql(
SELECT id, suite, executable, argv, started_at, finished_at, duration_s, exit_code, term_signal,
       status, reason, stderr_tail, stdout_tail,
       CASE WHEN json_valid(context) THEN json_extract(context, '$."gpubench.machine_load"') END
FROM suite_runs WHERE run_id = ?1 ORDER BY id)sql");
    st.bind(1, run_id);
    while (st.step()) {
      SuiteRunInfo s;
      d.suite_run_ids.push_back(st.column_int64(0));
      s.suite = st.column_text(1);
      s.executable = st.column_text(2);
      s.argv = json_strings(st.column_text(3));
      s.started_at = st.column_text(4);
      s.finished_at = st.column_text(5);
      s.duration_s = st.column_double(6);
      s.exit_code = opt_int<int>(st, 7);
      s.term_signal = opt_int<int>(st, 8);
      s.status = suite_status_from_string(st.column_text(9)).value_or(SuiteStatus::failed);
      s.reason = st.column_text(10);
      s.stderr_tail = st.column_text(11);
      s.stdout_tail = st.column_text(12);
      if (!st.is_null(13)) s.load = machine_load_from(st.column_text(13));
      d.suites.push_back(std::move(s));
    }
  }
  d.doctor = get_doctor_checks(*this, run_id);  // readiness checks (issue 15)
  d.telemetry = get_telemetry_summary(run_id);
  for (const Annotation& a : list_annotations(db, {run_id})) d.annotations.push_back(a.text);
  return d;
}

}  // namespace gpubench::results
