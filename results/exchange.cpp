#include "results/exchange.hpp"

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "results/aggregates.hpp"
#include "results/schema.hpp"
#include "results/series_medians.hpp"
#include "results/sqlite.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace gpubench::results {
namespace {

using nlohmann::json;

std::vector<std::string> columns_of(Database& db, const std::string& schema,
                                    const std::string& table) {
  Statement st = db.prepare("SELECT name FROM pragma_table_info(?1, ?2)");
  st.bind(1, table).bind(2, schema);
  std::vector<std::string> out;
  while (st.step()) out.push_back(st.column_text(0));
  return out;
}

bool has_table(Database& db, const std::string& schema, const std::string& table) {
  Statement st =
      db.prepare("SELECT 1 FROM " + schema + ".sqlite_master WHERE type = 'table' AND name = ?1");
  st.bind(1, table);
  return st.step();
}

// Copies rows of src.<table> (alias s) into main.<table>: every column both have except `id` and
// the ones in `exprs`, which get SQL expressions (id remapping). New columns of either side that
// the other lacks are left to their defaults, so databases of other gpubench versions merge.
class Copier {
 public:
  explicit Copier(Database& db) : m_db(db) {}
  void copy(const std::string& table, const std::map<std::string, std::string>& exprs,
            const std::string& tail, const std::vector<int64_t>& binds = {},
            const char* verb = "INSERT") {
    auto it = m_sql.find(table + tail + verb);
    if (it == m_sql.end()) {
      std::set<std::string> src_cols;
      for (const std::string& c : columns_of(m_db, "src", table)) src_cols.insert(c);
      std::vector<std::string> names, values;
      for (const std::string& c : columns_of(m_db, "main", table)) {
        if (c == "id" || exprs.count(c) || !src_cols.count(c)) continue;
        names.push_back(c);
        values.push_back("s." + c);
      }
      for (const auto& [c, e] : exprs) {
        names.push_back(c);
        values.push_back(e);
      }
      std::string sql = std::string(verb) + " INTO main." + table + "(" + join(names, ", ") +
                        ") SELECT " + join(values, ", ") + " FROM src." + table + " s " + tail;
      it = m_sql.emplace(table + tail + verb, sql).first;
    }
    Statement st = m_db.prepare(it->second);
    for (std::size_t i = 0; i < binds.size(); ++i) st.bind(static_cast<int>(i + 1), binds[i]);
    st.run();
  }

 private:
  Database& m_db;
  std::map<std::string, std::string> m_sql;
};

// Maps a src id column to the main id of the row with the same natural key.
std::string map_by(const std::string& table, const std::string& key, const std::string& column) {
  return "(SELECT m.id FROM main." + table + " m JOIN src." + table + " o ON o." + key + " = m." +
         key + " WHERE o.id = s." + column + ")";
}

const std::string k_metric_map =
    "(SELECT m.id FROM main.metrics m JOIN src.metrics o ON o.name = m.name AND o.unit = m.unit "
    "WHERE o.id = s.metric_id)";

struct Attachment {
  explicit Attachment(Database& db, const std::filesystem::path& path) : m_db(db) {
    Statement at = db.prepare("ATTACH DATABASE ?1 AS src");
    at.bind(1, path.string());
    at.run();
  }
  ~Attachment() {
    try {
      m_db.exec("DETACH DATABASE src");
    } catch (...) {  // best effort: the connection closes soon
    }
  }
  Attachment(const Attachment&) = delete;
  Attachment& operator=(const Attachment&) = delete;
  Database& m_db;
};

}  // namespace

MergeSummary merge_database(Store& store, const std::filesystem::path& other) {
  Database& db = store.database();
  const std::string name = other.string();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(other, ec)) {
    throw bad_input("cannot merge '" + name + "'", "there is no such file",
                    "give the path of another gpubench database");
  }
  if (std::filesystem::equivalent(other, db.path(), ec)) {
    throw bad_input("cannot merge '" + name + "' into itself", "it is the database given with --db",
                    "merge another server's database");
  }
  Attachment attach(db, other);
  int version = 0;
  try {
    Statement st = db.prepare("SELECT value FROM src.meta WHERE key = 'schema_version'");
    if (st.step()) version = std::stoi(st.column_text(0));
  } catch (const std::exception& e) {
    throw bad_input("cannot merge '" + name + "'",
                    std::string("it is not a gpubench database (") + e.what() + ")",
                    "give a file written by `gpubench run` or `gpubench import`; the database "
                    "was not changed");
  }
  if (version < 1) {
    throw bad_input("cannot merge '" + name + "'", "it has no gpubench schema version",
                    "give a file written by `gpubench run`; the database was not changed");
  }
  if (version > schema::k_version) {
    throw bad_input("cannot merge '" + name + "'",
                    "it was written by a newer gpubench (schema " + std::to_string(version) +
                        ", this build reads up to " + std::to_string(schema::k_version) + ")",
                    "upgrade gpubench; the database was not changed");
  }
  MergeSummary summary;
  Transaction tx(db);
  Copier copy(db);
  for (const char* t : {"hosts", "software_envs", "configurations"}) {
    copy.copy(t, {}, "", {}, "INSERT OR IGNORE");  // deduplicated by fingerprint
  }
  copy.copy("gpu_devices", {{"host_id", map_by("hosts", "fingerprint", "host_id")}}, "", {},
            "INSERT OR IGNORE");
  copy.copy("benchmarks", {}, "", {}, "INSERT OR IGNORE");  // by name
  copy.copy("benchmark_params", {{"benchmark_id", map_by("benchmarks", "name", "benchmark_id")}},
            "", {}, "INSERT OR IGNORE");
  copy.copy("metrics", {}, "", {}, "INSERT OR IGNORE");  // by (name, unit)
  const bool roles = has_table(db, "src", "suite_run_metric_roles");

  std::vector<std::pair<int64_t, std::string>> runs;
  {
    Statement st = db.prepare(
        "SELECT s.id, s.uuid, EXISTS (SELECT 1 FROM main.runs m WHERE m.uuid = s.uuid) "
        "FROM src.runs s ORDER BY s.id");
    while (st.step()) {
      if (st.column_int64(2)) {
        summary.skipped.push_back(st.column_text(1));
      } else {
        runs.emplace_back(st.column_int64(0), st.column_text(1));
      }
    }
  }
  const std::string gpu_map = map_by("gpu_devices", "fingerprint", "gpu_device_id");
  for (const auto& [old_run, uuid] : runs) {
    copy.copy("runs",
              {{"host_id", map_by("hosts", "fingerprint", "host_id")},
               {"software_env_id", map_by("software_envs", "fingerprint", "software_env_id")},
               {"configuration_id", map_by("configurations", "fingerprint", "configuration_id")}},
              "WHERE s.id = ?1", {old_run});
    const int64_t run = db.last_insert_rowid();
    copy.copy("run_tags", {{"run_id", "?2"}}, "WHERE s.run_id = ?1", {old_run, run});
    copy.copy("run_gpus", {{"run_id", "?2"}, {"gpu_device_id", gpu_map}}, "WHERE s.run_id = ?1",
              {old_run, run});
    std::vector<int64_t> suite_runs;
    {
      Statement st = db.prepare("SELECT id FROM src.suite_runs WHERE run_id = ?1 ORDER BY id");
      st.bind(1, old_run);
      while (st.step()) suite_runs.push_back(st.column_int64(0));
    }
    for (int64_t old_sr : suite_runs) {
      copy.copy("suite_runs", {{"run_id", "?2"}}, "WHERE s.id = ?1", {old_sr, run});
      const int64_t sr = db.last_insert_rowid();
      const std::string bench = map_by("benchmarks", "name", "benchmark_id");
      copy.copy("benchmark_outcomes", {{"suite_run_id", "?2"}, {"benchmark_id", bench}},
                "WHERE s.suite_run_id = ?1", {old_sr, sr});
      copy.copy("samples",
                {{"suite_run_id", "?2"},
                 {"benchmark_id", bench},
                 {"metric_id", k_metric_map},
                 {"gpu_device_id", gpu_map}},
                "WHERE s.suite_run_id = ?1", {old_sr, sr});
      detail::refresh_series_medians(db, sr);
      mark_aggregate_only(db, sr);  // a source older than schema v4 has no outcome kind
      Statement n = db.prepare("SELECT count(*) FROM src.samples WHERE suite_run_id = ?1");
      n.bind(1, old_sr);
      if (n.step()) summary.samples += n.column_int64(0);
      if (roles) {
        copy.copy("suite_run_metric_roles", {{"suite_run_id", "?2"}}, "WHERE s.suite_run_id = ?1",
                  {old_sr, sr});
      }
      copy.copy("telemetry", {{"run_id", "?3"}, {"suite_run_id", "?2"}, {"gpu_device_id", gpu_map}},
                "WHERE s.suite_run_id = ?1", {old_sr, sr, run});
    }
    copy.copy("telemetry", {{"run_id", "?2"}, {"suite_run_id", "NULL"}, {"gpu_device_id", gpu_map}},
              "WHERE s.run_id = ?1 AND s.suite_run_id IS NULL", {old_run, run});
    summary.added.push_back(uuid);
  }
  tx.commit();
  return summary;
}

}  // namespace gpubench::results
