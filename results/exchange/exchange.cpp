#include "results/exchange/exchange.hpp"

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "results/liveness.hpp"
#include "results/schema/aggregates.hpp"
#include "results/schema/schema.hpp"
#include "results/schema/series_medians.hpp"
#include "results/sqlite/sqlite.hpp"
#include "results/store_detail.hpp"
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

// The source attached read-only (mode=ro): SQLite takes no write lock on it, even inside the
// merge's BEGIN IMMEDIATE (a read-only attachment gets a read transaction), and reads its WAL,
// so a source that a `gpubench run` is writing keeps being written meanwhile. The merge's reads
// of it share one read transaction: one consistent snapshot.
struct Attachment {
  explicit Attachment(Database& db, const std::filesystem::path& path) : m_db(db) {
    Statement at = db.prepare("ATTACH DATABASE ?1 AS src");
    at.bind(1, "file:" + uri_path(std::filesystem::absolute(path).string()) + "?mode=ro");
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

// What is wrong with the source file when it cannot be read whole: SQLite's quick_check on a
// connection of its own (read-only), so an error met while merging is told apart from one of
// the target. Empty when the source is sound.
std::string source_damage(const std::filesystem::path& other) {
  try {
    Database src = Database::open(other, Access::read_only, 1000);
    Statement st = src.prepare("PRAGMA quick_check(3)");
    std::vector<std::string> problems;
    while (st.step()) {
      if (std::string t = st.column_text(0); t != "ok") problems.push_back(t);
    }
    return join(problems, "; ");
  } catch (const Error& e) {
    return e.what();
  }
}

[[noreturn]] void corrupt_source(const std::string& name, const std::string& target,
                                 const std::string& damage) {
  throw bad_input("cannot merge '" + name + "'", "it is corrupt: " + damage,
                  "merge an intact copy of it (or one rebuilt with `sqlite3 " + name +
                      " .recover`); the database '" + target + "' was not changed");
}

int source_version(Database& db, const std::string& name) {
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
  return version;
}

// Whether the gpubench writing a source run that is still `running` is alive, as the source's own
// read commands judge it (`abandoned?`); without run_liveness (schema 1), as having no owner.
Liveness judge_source_owner(Database& db, int64_t src_run, bool liveness) {
  return judge_run_owner(liveness ? detail::load_run_owner(db, src_run, "src") : RunOwner{});
}

void copy_baselines(Database& db, MergeSummary& summary) {
  Statement st = db.prepare(
      "SELECT s.name, (SELECT m.id FROM main.runs m WHERE m.uuid = o.uuid), "
      "(SELECT b.run_id FROM main.baselines b WHERE b.name = s.name) "
      "FROM src.baselines s JOIN src.runs o ON o.id = s.run_id ORDER BY s.name");
  Statement ins = db.prepare(
      "INSERT INTO main.baselines(name, run_id, created_at, note) "
      "SELECT name, ?2, created_at, note FROM src.baselines WHERE name = ?1");
  while (st.step()) {
    const std::string baseline = st.column_text(0);
    const std::optional<int64_t> run = st.column_optional_int64(1);
    const std::optional<int64_t> existing = st.column_optional_int64(2);
    if (!run) {
      summary.baselines_kept.push_back(baseline + " (its run was not merged: still running)");
    } else if (existing) {
      summary.baselines_kept.push_back(
          baseline + (*existing == *run ? " (already here)"
                                        : " (this database's '" + baseline + "' names run " +
                                              std::to_string(*existing) + ")"));
    } else {
      ins.bind(1, baseline).bind(2, *run).run();
      summary.baselines_added.push_back(baseline);
    }
  }
}

MergeSummary merge_attached(Database& db, const MergeOptions& options) {
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
  // Tables a source of an older schema may lack.
  const bool roles = has_table(db, "src", "suite_run_metric_roles");
  const bool invalid = has_table(db, "src", "invalid_samples");
  const bool doctor = has_table(db, "src", "doctor_checks");
  const bool liveness = has_table(db, "src", "run_liveness");
  const bool algorithms = has_table(db, "src", "cublaslt_algorithms");
  const bool exclusions = has_table(db, "src", "history_exclusions");  // v7
  const bool facts = has_table(db, "src", "acceptance_facts");         // v8

  std::vector<std::pair<int64_t, std::string>> runs;
  {
    Statement st = db.prepare(
        "SELECT s.id, s.uuid, EXISTS (SELECT 1 FROM main.runs m WHERE m.uuid = s.uuid), "
        "s.status = 'running' FROM src.runs s ORDER BY s.id");
    while (st.step()) {
      if (st.column_int64(2)) {
        summary.skipped.push_back(st.column_text(1));
      } else if (st.column_int64(3)) {
        // Merged whole once it has finished; one whose gpubench is gone never will by itself.
        const Liveness l = judge_source_owner(db, st.column_int64(0), liveness);
        if (l.alive) {
          summary.running.push_back(st.column_text(1));
        } else {
          summary.abandoned.emplace_back(st.column_text(1), l.evidence);
        }
      } else {
        runs.emplace_back(st.column_int64(0), st.column_text(1));
      }
    }
  }
  const std::string gpu_map = map_by("gpu_devices", "fingerprint", "gpu_device_id");
  const std::string bench = map_by("benchmarks", "name", "benchmark_id");
  const std::string config_map = map_by("configurations", "fingerprint", "configuration_id");
  for (const auto& [old_run, uuid] : runs) {
    copy.copy("runs",
              {{"host_id", map_by("hosts", "fingerprint", "host_id")},
               {"software_env_id", map_by("software_envs", "fingerprint", "software_env_id")},
               {"configuration_id", config_map}},
              "WHERE s.id = ?1", {old_run});
    const int64_t run = db.last_insert_rowid();
    copy.copy("run_tags", {{"run_id", "?2"}}, "WHERE s.run_id = ?1", {old_run, run});
    copy.copy("run_gpus", {{"run_id", "?2"}, {"gpu_device_id", gpu_map}}, "WHERE s.run_id = ?1",
              {old_run, run});
    if (doctor)
      copy.copy("doctor_checks", {{"run_id", "?2"}}, "WHERE s.run_id = ?1", {old_run, run});
    if (facts) {
      copy.copy("acceptance_facts", {{"run_id", "?2"}}, "WHERE s.run_id = ?1", {old_run, run});
    }
    if (algorithms) {
      copy.copy("cublaslt_algorithms", {{"run_id", "?2"}}, "WHERE s.run_id = ?1", {old_run, run});
    }
    std::vector<int64_t> suite_runs;
    {
      Statement st = db.prepare("SELECT id FROM src.suite_runs WHERE run_id = ?1 ORDER BY id");
      st.bind(1, old_run);
      while (st.step()) suite_runs.push_back(st.column_int64(0));
    }
    for (int64_t old_sr : suite_runs) {
      copy.copy("suite_runs", {{"run_id", "?2"}}, "WHERE s.id = ?1", {old_sr, run});
      const int64_t sr = db.last_insert_rowid();
      copy.copy("benchmark_outcomes", {{"suite_run_id", "?2"}, {"benchmark_id", bench}},
                "WHERE s.suite_run_id = ?1", {old_sr, sr});
      copy.copy("samples",
                {{"suite_run_id", "?2"},
                 {"benchmark_id", bench},
                 {"metric_id", k_metric_map},
                 {"gpu_device_id", gpu_map}},
                "WHERE s.suite_run_id = ?1", {old_sr, sr});
      summary.samples += db.changes();
      detail::refresh_series_medians(db, sr);
      if (invalid) {
        copy.copy("invalid_samples", {{"suite_run_id", "?2"}, {"benchmark_id", bench}},
                  "WHERE s.suite_run_id = ?1", {old_sr, sr});
      }
      mark_aggregate_only(db, sr);  // a source older than schema v4 has no outcome kind
      if (roles) {
        copy.copy("suite_run_metric_roles", {{"suite_run_id", "?2"}}, "WHERE s.suite_run_id = ?1",
                  {old_sr, sr});
      }
      copy.copy("telemetry", {{"run_id", "?3"}, {"suite_run_id", "?2"}, {"gpu_device_id", gpu_map}},
                "WHERE s.suite_run_id = ?1", {old_sr, sr, run});
    }
    copy.copy("telemetry", {{"run_id", "?2"}, {"suite_run_id", "NULL"}, {"gpu_device_id", gpu_map}},
              "WHERE s.run_id = ?1 AND s.suite_run_id IS NULL", {old_run, run});
    copy.copy("annotations",
              {{"run_id", "?2"},
               {"benchmark_id", bench},
               {"metric_id", k_metric_map},
               {"configuration_id", config_map}},
              "WHERE s.run_id = ?1", {old_run, run});
    if (exclusions) {
      copy.copy("history_exclusions", {{"run_id", "?2"}}, "WHERE s.run_id = ?1", {old_run, run});
    }
    summary.added.push_back(uuid);
  }
  // Annotations made on the source after a run was merged (or imported from an export): a run
  // already here gains those it lacks, by text (`annotate` keeps one row per run and text), so
  // merging again brings them, as it brings series annotations and baselines.
  const std::string present_run =
      "(SELECT m.id FROM main.runs m JOIN src.runs o ON o.uuid = m.uuid WHERE o.id = s.run_id)";
  copy.copy("annotations",
            {{"run_id", present_run},
             {"benchmark_id", bench},
             {"metric_id", k_metric_map},
             {"configuration_id", config_map}},
            "WHERE s.run_id IN (SELECT o.id FROM src.runs o JOIN main.runs m ON m.uuid = o.uuid) "
            "AND NOT EXISTS (SELECT 1 FROM main.annotations a WHERE a.run_id = " +
                present_run + " AND a.text = s.text AND a.benchmark_id IS " + bench +
                " AND a.hardware_class IS s.hardware_class)");
  summary.annotations = db.changes();
  // Exclusions from history made on the source after a run was merged: added where the run here
  // has none (a run this database excluded keeps its own reason; an `include` on the source is not
  // carried: merging only adds).
  if (exclusions) {
    copy.copy("history_exclusions", {{"run_id", present_run}},
              "WHERE s.run_id IN (SELECT o.id FROM src.runs o JOIN main.runs m ON m.uuid = o.uuid) "
              "AND NOT EXISTS (SELECT 1 FROM main.history_exclusions x WHERE x.run_id = " +
                  present_run + ")");
    summary.exclusions = db.changes();
  }
  // Series annotations (no run): once, however often the same source is merged.
  copy.copy("annotations",
            {{"run_id", "NULL"},
             {"benchmark_id", bench},
             {"metric_id", k_metric_map},
             {"configuration_id", config_map}},
            "WHERE s.run_id IS NULL AND NOT EXISTS (SELECT 1 FROM main.annotations m WHERE "
            "m.run_id IS NULL AND m.text = s.text AND m.created_at = s.created_at AND "
            "m.hardware_class IS s.hardware_class)");
  if (options.with_baselines) copy_baselines(db, summary);
  tx.commit();
  return summary;
}

}  // namespace

MergeSummary merge_database(Store& store, const std::filesystem::path& other,
                            const MergeOptions& options) {
  Database& db = store.database();
  const std::string name = other.string();
  const std::string target = db.path().string();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(other, ec)) {
    throw bad_input("cannot merge '" + name + "'", "there is no such file",
                    "give the path of another gpubench database");
  }
  if (std::filesystem::equivalent(other, db.path(), ec)) {
    throw bad_input("cannot merge '" + name + "' into itself", "it is the database given with --db",
                    "merge another server's database");
  }
  try {
    Attachment attach(db, other);
    const int version = source_version(db, name);
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
    return merge_attached(db, options);
  } catch (const Error& e) {
    // SQLite names the connection's main file in its errors; one that comes from the source is
    // the source's fault, and said so.
    if (const std::string damage = source_damage(other); !damage.empty()) {
      corrupt_source(name, target, damage);
    }
    throw;
  }
}

}  // namespace gpubench::results
