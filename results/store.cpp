// Store: opening (checks, creation, migration), writing runs, and telemetry (written and read
// here). Other reads are in store_read.cpp, Google Benchmark ingest in ingest.cpp.
#include "results/store.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "results/liveness.hpp"
#include "results/schema.hpp"
#include "results/sqlite.hpp"
#include "results/store_detail.hpp"
#include "util/clock.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/uuid.hpp"

namespace gpubench::results {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string quoted(const fs::path& path) {
  return "'" + path.string() + "'";
}

// Refuses, before SQLite touches the file, what can be refused by looking at it: a missing
// directory or file, a directory, no permission, a file that is not SQLite.
void check_file(const fs::path& path, OpenMode mode) {
  const std::string db = quoted(path);
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (!fs::exists(st)) {
    const fs::path parent = path.has_parent_path() ? path.parent_path() : fs::path(".");
    if (!fs::is_directory(parent, ec)) {
      throw infrastructure("cannot open database " + db,
                           "directory '" + parent.string() + "' does not exist",
                           "create the directory or choose another --db path");
    }
    if (mode != OpenMode::read_write_create) {
      throw infrastructure("cannot open database " + db, "the file does not exist",
                           "check the path given to --db or GPUBENCH_DB, or record a run first "
                           "with `gpubench run`");
    }
    return;
  }
  if (fs::is_directory(st)) {
    throw infrastructure("cannot open database " + db, "it is a directory",
                         "give the path of a database file with --db");
  }
  if (::access(path.c_str(), R_OK) != 0) {
    throw infrastructure("cannot open database " + db, "cannot read it: " + errno_text(errno),
                         "check the file's permissions");
  }
  if (mode != OpenMode::read_only && ::access(path.c_str(), W_OK) != 0) {
    throw infrastructure("cannot write database " + db, "cannot write it: " + errno_text(errno),
                         "check the file's permissions");
  }
  std::ifstream in(path, std::ios::binary);
  std::array<char, 16> header{};
  in.read(header.data(), header.size());
  const auto got = in.gcount();
  static constexpr char k_magic[16] = "SQLite format 3";  // 15 chars + NUL, as in the file
  if (got == 0) return;  // an empty file is an empty SQLite database
  if (got < 16 || !std::equal(header.begin(), header.end(), k_magic)) {
    throw infrastructure("cannot use database " + db,
                         "not a gpubench database (file is not SQLite)",
                         "check the path given to --db or GPUBENCH_DB");
  }
}

// True when `path`-wal holds more than its 32-byte header: changes not yet in the file itself.
bool wal_has_frames(const fs::path& path) {
  std::error_code ec;
  const auto bytes = fs::file_size(path.string() + "-wal", ec);
  return !ec && bytes > 32;
}

// A copy of the database and its WAL in a temporary directory that lives until the process
// ends (read-only commands are short-lived), so SQLite can build the WAL index there.
fs::path snapshot_with_wal(const fs::path& path) {
  static std::vector<std::unique_ptr<TempDir>> snapshots;  // removed at exit
  snapshots.push_back(std::make_unique<TempDir>("gpubench-snapshot", TempDirLock::held));
  const fs::path copy = snapshots.back()->path() / path.filename();
  std::error_code ec;
  fs::copy_file(path, copy, ec);
  if (!ec) fs::copy_file(path.string() + "-wal", copy.string() + "-wal", ec);
  if (ec) {
    throw infrastructure("cannot read database " + quoted(path),
                         "its -wal file holds changes that a read-only open here cannot see, and "
                         "copying the two failed: " +
                             ec.message(),
                         "free space in the temporary directory, or open it where it is writable");
  }
  return copy;
}

// Tables other than SQLite's own.
int64_t count_user_tables(Database& db) {
  Statement st = db.prepare(
      "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'");
  st.step();
  return st.column_int64(0);
}

// Inserts a deduplicated row keyed by `fingerprint` (the canonical JSON of its content) and
// returns its id. `insert_sql` binds ?1 = fingerprint and the rest through `bind`.
template <typename Bind>
int64_t upsert(Database& db, const char* table, const std::string& insert_sql,
               const std::string& fingerprint, Bind&& bind) {
  Statement ins = db.prepare(insert_sql);
  ins.bind(1, fingerprint);
  bind(ins);
  ins.run();
  Statement sel = db.prepare(std::string("SELECT id FROM ") + table + " WHERE fingerprint = ?1");
  sel.bind(1, fingerprint);
  sel.step();
  return sel.column_int64(0);
}

template <typename T>
json opt(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

int64_t upsert_host(Database& db, const HostInfo& h) {
  const json fp = {{"hostname", h.hostname},    {"cpu_model", h.cpu_model},
                   {"sockets", opt(h.sockets)}, {"cores", opt(h.cores)},
                   {"threads", opt(h.threads)}, {"memory_bytes", opt(h.memory_bytes)},
                   {"kernel", h.kernel},        {"os", h.os},
                   {"governor", h.governor},    {"arch", h.arch}};
  return upsert(db, "hosts",
                "INSERT INTO hosts(fingerprint, hostname, cpu_model, sockets, cores, threads, "
                "memory_bytes, kernel, os, governor, arch) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, "
                "?8, ?9, ?10, ?11) ON CONFLICT(fingerprint) DO NOTHING",
                fp.dump(), [&](Statement& s) {
                  s.bind(2, h.hostname).bind(3, h.cpu_model).bind(4, h.sockets);
                  s.bind(5, h.cores).bind(6, h.threads).bind(7, h.memory_bytes);
                  s.bind(8, h.kernel).bind(9, h.os).bind(10, h.governor).bind(11, h.arch);
                });
}

int64_t upsert_gpu(Database& db, int64_t host_id, const GpuInfo& g) {
  // The NVML index is where the GPU sat in this run, not part of what the GPU is.
  json fp = to_json(g);
  fp.erase("nvml_index");
  fp["host_id"] = host_id;
  return upsert(
      db, "gpu_devices",
      "INSERT INTO gpu_devices(fingerprint, uuid, host_id, name, pci_bus_id, memory_bytes, "
      "sm_count, compute_capability, max_sm_clock_mhz, max_mem_clock_mhz, default_sm_clock_mhz, "
      "power_limit_w, ecc, pcie_gen, pcie_width, numa_node, app_sm_clock_mhz) VALUES (?1, ?2, ?3, "
      "?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17) "
      "ON CONFLICT(fingerprint) DO NOTHING",
      fp.dump(), [&](Statement& s) {
        s.bind(2, g.uuid).bind(3, host_id).bind(4, g.name).bind(5, g.pci_bus_id);
        s.bind(6, g.memory_bytes).bind(7, g.sm_count).bind(8, g.compute_capability);
        s.bind(9, g.max_sm_clock_mhz).bind(10, g.max_mem_clock_mhz);
        s.bind(11, g.default_sm_clock_mhz).bind(12, g.power_limit_w).bind(13, g.ecc);
        s.bind(14, g.pcie_gen).bind(15, g.pcie_width).bind(16, g.numa_node);
        s.bind(17, g.app_sm_clock_mhz);
      });
}

int64_t upsert_software(Database& db, const SoftwareEnv& e) {
  const json fp = {{"driver_version", e.driver_version},
                   {"cuda_driver_version", e.cuda_driver_version},
                   {"cuda_runtime_version", e.cuda_runtime_version},
                   {"cublas_version", e.cublas_version},
                   {"nccl_version", e.nccl_version},
                   {"kernel", e.kernel},
                   {"compiler", e.compiler},
                   {"gpubench_version", e.gpubench_version},
                   {"git_sha", e.git_sha},
                   {"git_dirty", e.git_dirty}};
  return upsert(db, "software_envs",
                "INSERT INTO software_envs(fingerprint, driver_version, cuda_driver_version, "
                "cuda_runtime_version, cublas_version, nccl_version, kernel, compiler, "
                "gpubench_version, git_sha, git_dirty) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, "
                "?9, ?10, ?11) ON CONFLICT(fingerprint) DO NOTHING",
                fp.dump(), [&](Statement& s) {
                  s.bind(2, e.driver_version).bind(3, e.cuda_driver_version);
                  s.bind(4, e.cuda_runtime_version).bind(5, e.cublas_version);
                  s.bind(6, e.nccl_version).bind(7, e.kernel).bind(8, e.compiler);
                  s.bind(9, e.gpubench_version).bind(10, e.git_sha).bind(11, e.git_dirty);
                });
}

int64_t upsert_config(Database& db, const Configuration& c) {
  const json env(c.env);  // std::map: keys sorted, so the JSON is canonical
  const json fp = {{"profile", c.profile}, {"env", env}, {"clocks_locked", c.clocks_locked}};
  return upsert(db, "configurations",
                "INSERT INTO configurations(fingerprint, profile, env, clocks_locked) VALUES "
                "(?1, ?2, ?3, ?4) ON CONFLICT(fingerprint) DO NOTHING",
                fp.dump(), [&](Statement& s) {
                  s.bind(2, c.profile).bind(3, env.dump()).bind(4, c.clocks_locked);
                });
}

void require_run(Database& db, int64_t run_id) {
  Statement st = db.prepare("SELECT 1 FROM runs WHERE id = ?1");
  st.bind(1, run_id);
  if (!st.step()) {
    throw bad_input("unknown run id " + std::to_string(run_id),
                    "database " + quoted(db.path()) + " has no such run",
                    "list runs with `gpubench runs`");
  }
}

}  // namespace

Store::Store(std::unique_ptr<Database> db) : m_db(std::move(db)) {}
Store::~Store() = default;
Store::Store(Store&&) noexcept = default;
Store& Store::operator=(Store&&) noexcept = default;

int Store::schema_version() {
  return schema::k_version;
}

Database& Store::database() {
  return *m_db;
}

Store Store::open(const fs::path& path, OpenMode mode, int busy_timeout_ms) {
  check_file(path, mode);
  const std::string db_name = quoted(path);
  const Access access = mode == OpenMode::read_only    ? Access::read_only
                        : mode == OpenMode::read_write ? Access::read_write
                                                       : Access::read_write_create;
  // Read-only media or a directory this user cannot write: SQLite could neither take its locks
  // nor create the WAL index, so the file is opened immutable (nobody can be writing it there).
  bool immutable = false;
  fs::path open_path = path;
  if (mode == OpenMode::read_only) {
    const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
    immutable = ::access(dir.c_str(), W_OK) != 0 || ::access(path.c_str(), W_OK) != 0;
    // Immutable mode ignores a WAL: the runs only in it (a copied or mounted snapshot taken
    // while a run wrote) would vanish and `latest` point at an older run. Such a file is read
    // through a copy of it and its WAL in a directory of our own, WAL included.
    if (immutable && wal_has_frames(path)) {
      open_path = snapshot_with_wal(path);
      immutable = false;
    }
  }
  auto db =
      std::make_unique<Database>(Database::open(open_path, access, busy_timeout_ms, immutable));

  // Everything up to the version check only reads, so a refused file is left byte-identical.
  const schema::Versions v = schema::read_versions(*db);
  if (v.schema_version == 0 && count_user_tables(*db) > 0) {
    throw infrastructure(
        "cannot use database " + db_name,
        "not a gpubench database (an SQLite file with other tables and no gpubench "
        "'meta' table)",
        "use another --db path; gpubench leaves this file alone");
  }
  if (v.compatible_version > schema::k_version) {
    throw infrastructure(
        "cannot use database " + db_name,
        "it was written by a newer gpubench (schema version " + std::to_string(v.schema_version) +
            ", readable from version " + std::to_string(v.compatible_version) +
            " on; this gpubench reads version " + std::to_string(schema::k_version) + ")",
        "upgrade gpubench, or use another --db");
  }
  db->exec("PRAGMA foreign_keys = ON");
  if (mode == OpenMode::read_only) {
    if (v.schema_version == 0) {
      throw infrastructure("cannot read database " + db_name, "it holds no gpubench data yet",
                           "record a run first with `gpubench run`, or check the --db path");
    }
    if (v.schema_version < schema::k_version) {
      throw infrastructure("cannot read database " + db_name,
                           "it has schema version " + std::to_string(v.schema_version) +
                               " and this gpubench reads version " +
                               std::to_string(schema::k_version),
                           "upgrade it once with a writing command (`gpubench run` or "
                           "`gpubench import`)");
    }
    db->exec("PRAGMA query_only = ON");
    return Store(std::move(db));
  }
  // WAL: readers do not block the writer and a crash mid-write leaves the file consistent.
  db->exec("PRAGMA journal_mode = WAL");
  // Up to 64 MiB of page cache (allocated as used): a large ingest then writes each page once
  // instead of spilling and re-reading it.
  db->exec("PRAGMA cache_size = -65536");
  if (v.schema_version < schema::k_version) schema::migrate(*db);
  try {
    detail::mark_abandoned_runs(*db);
  } catch (const Error& e) {
    // Best effort: a database busy past the timeout is marked by the next writer instead.
    if (e.code() != ExitCode::infrastructure) throw;
  }
  Store store(std::move(db));
  if (struct stat st{}; ::stat(path.c_str(), &st) == 0) {
    store.m_file_id.emplace(static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino));
  }
  return store;
}

void Store::check_database_file(int64_t run_id) {
  if (!m_file_id) return;
  const fs::path& path = m_db->path();
  const std::string db = quoted(path);
  const std::string run = "run " + std::to_string(run_id);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    if (err != ENOENT) {
      throw infrastructure("cannot check database " + db + " while " + run + " writes it",
                           errno_text(err), "check the disk and the file system, then run again");
    }
    throw infrastructure("database " + db + " was deleted while " + run + " was writing it",
                         "what the run stored went to the deleted file and is lost",
                         "keep the database in place while a run writes it (copy it with "
                         "`gpubench import`), then run again");
  }
  if (static_cast<uint64_t>(st.st_dev) != m_file_id->first ||
      static_cast<uint64_t>(st.st_ino) != m_file_id->second) {
    throw infrastructure(
        "database " + db + " was replaced by another file while " + run + " was writing it",
        "what the run stored went to the file that was there before; the file "
        "there now was not written",
        "keep the database in place while a run writes it (copy it with "
        "`gpubench import`), then run again");
  }
  // A run this Store began (not an id a caller made up: that stays bad input) must be there.
  if (!m_run_locks.count(run_id)) return;
  Statement row = m_db->prepare("SELECT 1 FROM runs WHERE id = ?1");
  row.bind(1, run_id);
  if (!row.step()) {
    throw infrastructure(run + " is no longer in database " + db,
                         "its row was deleted while the run was going",
                         "keep the database unchanged while a run writes it, then run again");
  }
}

namespace {

std::string local_hostname() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return k_unknown;
  return buf;
}

// True for databases that are not a file next to which a lock file can live.
bool in_memory(const fs::path& path) {
  return path.empty() || path == ":memory:" || path.string().rfind("file:", 0) == 0;
}

void require_new_uuid(Database& db, const std::string& uuid) {
  Statement st = db.prepare("SELECT id FROM runs WHERE uuid = ?1");
  st.bind(1, uuid);
  if (st.step()) {
    throw bad_input("run " + uuid + " is already in database " + quoted(db.path()),
                    "run UUIDs are unique", "import each run once, or give a new UUID");
  }
}

}  // namespace

int64_t detail::insert_run(Database& db, const RunInfo& info, const std::string& uuid,
                           const RunLock* lock) {
  require_new_uuid(db, uuid);
  const int64_t host_id = upsert_host(db, info.host);
  const int64_t env_id = upsert_software(db, info.software);
  const int64_t config_id = upsert_config(db, info.config);
  Statement ins = db.prepare(
      "INSERT INTO runs(uuid, status, started_at, user, argv, note, host_id, software_env_id, "
      "configuration_id) VALUES (?1, 'running', ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
  ins.bind(1, uuid).bind(2, info.started_at.empty() ? now_iso8601_utc() : info.started_at);
  ins.bind(3, info.user).bind(4, json(info.argv).dump()).bind(5, info.note);
  ins.bind(6, host_id).bind(7, env_id).bind(8, config_id);
  ins.run();
  const int64_t run_id = db.last_insert_rowid();

  Statement tag =
      db.prepare("INSERT INTO run_tags(run_id, position, key, value) VALUES (?1, ?2, ?3, ?4)");
  for (size_t i = 0; i < info.tags.size(); ++i) {
    tag.bind(1, run_id).bind(2, static_cast<int64_t>(i));
    tag.bind(3, info.tags[i].first).bind(4, info.tags[i].second).run();
  }
  Statement gpu =
      db.prepare("INSERT INTO run_gpus(run_id, device_index, gpu_device_id) VALUES (?1, ?2, ?3)");
  for (const GpuInfo& g : info.gpus) {
    gpu.bind(1, run_id).bind(2, g.nvml_index).bind(3, upsert_gpu(db, host_id, g)).run();
  }
  if (lock != nullptr) {
    Statement live = db.prepare(
        "INSERT INTO run_liveness(run_id, hostname, boot_id, pid, lock_path, started_at) VALUES "
        "(?1, ?2, ?3, ?4, ?5, ?6)");
    live.bind(1, run_id).bind(2, local_hostname()).bind(3, current_boot_id());
    live.bind(4, static_cast<int64_t>(getpid())).bind(5, lock->path().string());
    live.bind(6, now_iso8601_utc()).run();
  }
  return run_id;
}

void detail::update_run_status(Database& db, int64_t run_id, RunStatus status) {
  require_run(db, run_id);
  Statement st = db.prepare("UPDATE runs SET status = ?1, finished_at = ?2 WHERE id = ?3");
  st.bind(1, to_string(status));
  if (status == RunStatus::running) {
    st.bind_null(2);
  } else {
    st.bind(2, now_iso8601_utc());
  }
  st.bind(3, run_id).run();
}

int64_t Store::begin_run(const RunInfo& info) {
  Database& db = *m_db;
  const std::string uuid = info.uuid.empty() ? make_uuid_v4() : info.uuid;
  require_new_uuid(db, uuid);
  // The lock exists before the row: whoever sees the row `running` can judge its owner.
  std::unique_ptr<RunLock> lock;
  if (!in_memory(db.path())) lock = std::make_unique<RunLock>(run_lock_path(db.path(), uuid));
  Transaction tx(db);
  const int64_t run_id = detail::insert_run(db, info, uuid, lock.get());
  tx.commit();
  if (lock) m_run_locks[run_id] = std::move(lock);
  return run_id;
}

int64_t detail::insert_suite_run(Database& db, int64_t run_id, const SuiteRunInfo& s) {
  require_run(db, run_id);
  Statement ins = db.prepare(
      "INSERT INTO suite_runs(run_id, suite, executable, argv, started_at, finished_at, "
      "duration_s, exit_code, term_signal, status, reason, stderr_tail, stdout_tail) VALUES "
      "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)");
  const std::string now = now_iso8601_utc();
  ins.bind(1, run_id).bind(2, s.suite).bind(3, s.executable).bind(4, json(s.argv).dump());
  ins.bind(5, s.started_at.empty() ? now : s.started_at);
  ins.bind(6, s.finished_at.empty() ? now : s.finished_at).bind(7, s.duration_s);
  ins.bind(8, s.exit_code).bind(9, s.term_signal).bind(10, to_string(s.status));
  ins.bind(11, s.reason).bind(12, s.stderr_tail).bind(13, s.stdout_tail);
  ins.run();
  return db.last_insert_rowid();
}

int64_t Store::add_suite_run(int64_t run_id, const SuiteRunInfo& s) {
  Database& db = *m_db;
  check_database_file(run_id);
  Transaction tx(db);
  const int64_t id = detail::insert_suite_run(db, run_id, s);
  tx.commit();
  return id;
}

void Store::finish_run(int64_t run_id, RunStatus status) {
  Database& db = *m_db;
  check_database_file(run_id);
  Transaction tx(db);
  detail::update_run_status(db, run_id, status);
  tx.commit();
  if (status != RunStatus::running) {
    if (auto it = m_run_locks.find(run_id); it != m_run_locks.end()) {
      it->second->finished();
      m_run_locks.erase(it);  // unlinks the lock file, then releases the lock
    }
  }
}

void Store::add_telemetry(int64_t run_id, std::optional<int64_t> suite_run_id,
                          const std::vector<TelemetrySample>& samples) {
  Database& db = *m_db;
  Transaction tx(db);
  detail::insert_telemetry(db, run_id, suite_run_id, samples);
  tx.commit();
}

void detail::insert_telemetry(Database& db, int64_t run_id, std::optional<int64_t> suite_run_id,
                              const std::vector<TelemetrySample>& samples) {
  require_run(db, run_id);
  if (suite_run_id) {
    Statement st = db.prepare("SELECT run_id FROM suite_runs WHERE id = ?1");
    st.bind(1, *suite_run_id);
    if (!st.step() || st.column_int64(0) != run_id) {
      throw bad_input("suite run " + std::to_string(*suite_run_id) + " is not part of run " +
                          std::to_string(run_id),
                      "telemetry is stored under the suite run it was sampled during",
                      "pass the id add_suite_run returned for this run");
    }
  }
  // The run's GPUs by NVML index (what the sampler enumerates), so each telemetry row names the
  // physical GPU it came from.
  std::map<int, int64_t> gpu_ids;
  {
    Statement st = db.prepare("SELECT device_index, gpu_device_id FROM run_gpus WHERE run_id = ?1");
    st.bind(1, run_id);
    while (st.step()) gpu_ids[static_cast<int>(st.column_int64(0))] = st.column_int64(1);
  }
  Statement ins = db.prepare(
      "INSERT INTO telemetry(run_id, suite_run_id, gpu_device_id, device_index, t_s, "
      "sm_clock_mhz, mem_clock_mhz, temperature_c, power_w, util_gpu_pct, util_mem_pct, "
      "throttle_reasons, ecc_sbe, ecc_dbe, retired_pages, pcie_replay_counter, power_instant_w, "
      "remapped_rows, remap_pending, remap_failure) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
      "?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)");
  auto flag = [](const std::optional<bool>& b) {
    return b ? std::optional<int64_t>(*b ? 1 : 0) : std::nullopt;
  };
  for (const TelemetrySample& t : samples) {
    const auto gpu = gpu_ids.find(t.nvml_index);
    ins.bind(1, run_id).bind(2, suite_run_id);
    if (gpu != gpu_ids.end()) {
      ins.bind(3, gpu->second);
    } else {
      ins.bind_null(3);
    }
    ins.bind(4, t.nvml_index).bind(5, t.t_s).bind(6, t.sm_clock_mhz).bind(7, t.mem_clock_mhz);
    ins.bind(8, t.temperature_c).bind(9, t.power_w).bind(10, t.util_gpu_pct);
    ins.bind(11, t.util_mem_pct).bind(12, t.throttle_reasons).bind(13, t.ecc_sbe);
    ins.bind(14, t.ecc_dbe).bind(15, t.retired_pages).bind(16, t.pcie_replay_counter);
    ins.bind(17, t.power_instant_w).bind(18, t.remapped_rows).bind(19, flag(t.remap_pending));
    ins.bind(20, flag(t.remap_failure));
    ins.run();
  }
}

std::vector<TelemetrySample> Store::get_telemetry(int64_t run_id,
                                                  std::optional<int64_t> suite_run_id) {
  Database& db = *m_db;
  require_run(db, run_id);
  Statement st = db.prepare(
      "SELECT device_index, t_s, sm_clock_mhz, mem_clock_mhz, temperature_c, power_w, "
      "util_gpu_pct, util_mem_pct, throttle_reasons, ecc_sbe, ecc_dbe, retired_pages, "
      "pcie_replay_counter, power_instant_w, remapped_rows, remap_pending, remap_failure "
      "FROM telemetry WHERE run_id = ?1 AND (?2 IS NULL OR suite_run_id = "
      "?2) ORDER BY device_index, t_s, id");
  st.bind(1, run_id).bind(2, suite_run_id);
  std::vector<TelemetrySample> out;
  while (st.step()) {
    TelemetrySample t;
    t.nvml_index = static_cast<int>(st.column_optional_int64(0).value_or(-1));
    t.t_s = st.column_double(1);
    t.sm_clock_mhz = st.column_optional_double(2);
    t.mem_clock_mhz = st.column_optional_double(3);
    t.temperature_c = st.column_optional_double(4);
    t.power_w = st.column_optional_double(5);
    t.util_gpu_pct = st.column_optional_double(6);
    t.util_mem_pct = st.column_optional_double(7);
    t.throttle_reasons = st.column_optional_int64(8);
    t.ecc_sbe = st.column_optional_int64(9);
    t.ecc_dbe = st.column_optional_int64(10);
    t.retired_pages = st.column_optional_int64(11);
    t.pcie_replay_counter = st.column_optional_int64(12);
    t.power_instant_w = st.column_optional_double(13);
    t.remapped_rows = st.column_optional_int64(14);
    if (auto v = st.column_optional_int64(15)) t.remap_pending = *v != 0;
    if (auto v = st.column_optional_int64(16)) t.remap_failure = *v != 0;
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<TelemetrySummary> Store::get_telemetry_summary(int64_t run_id) {
  Database& db = *m_db;
  require_run(db, run_id);
  std::vector<TelemetrySummary> out;
  std::map<int, size_t> by_device;
  {
    Statement st = db.prepare(R"sql(
SELECT t.device_index, count(*), max(t.temperature_c), max(t.power_w), min(t.sm_clock_mhz),
       max(t.sm_clock_mhz), sum((t.throttle_reasons & ?2) != 0), count(t.throttle_reasons),
       max(t.ecc_sbe) - min(t.ecc_sbe), max(t.ecc_dbe) - min(t.ecc_dbe),
       max(t.retired_pages) - min(t.retired_pages),
       max(t.pcie_replay_counter) - min(t.pcie_replay_counter),
       sum((t.throttle_reasons & ?3) != 0), max(t.remapped_rows) - min(t.remapped_rows),
       COALESCE(max(t.remap_pending), 0), COALESCE(max(t.remap_failure), 0),
       COALESCE(max(g.uuid), '')
FROM telemetry t LEFT JOIN gpu_devices g ON g.id = t.gpu_device_id
WHERE t.run_id = ?1 AND t.device_index IS NOT NULL
GROUP BY t.device_index ORDER BY t.device_index)sql");
    st.bind(1, run_id).bind(2, k_reasons_slowdown).bind(3, k_reasons_power_limited);
    while (st.step()) {
      TelemetrySummary s;
      s.nvml_index = static_cast<int>(st.column_int64(0));
      s.samples = st.column_int64(1);
      s.max_temperature_c = st.column_optional_double(2);
      s.max_power_w = st.column_optional_double(3);
      s.min_sm_clock_mhz = st.column_optional_double(4);
      s.max_sm_clock_mhz = st.column_optional_double(5);
      s.throttled_samples = st.column_optional_int64(6).value_or(0);
      s.throttle_known = st.column_int64(7);
      s.ecc_sbe_increase = st.column_optional_int64(8);
      s.ecc_dbe_increase = st.column_optional_int64(9);
      s.retired_pages_increase = st.column_optional_int64(10);
      s.pcie_replay_increase = st.column_optional_int64(11);
      s.power_limited_samples = st.column_optional_int64(12).value_or(0);
      s.remapped_rows_increase = st.column_optional_int64(13);
      s.remap_pending = st.column_int64(14) != 0;
      s.remap_failure = st.column_int64(15) != 0;
      s.gpu_uuid = st.column_text(16);
      by_device[s.nvml_index] = out.size();
      out.push_back(std::move(s));
    }
  }
  Statement st = db.prepare(R"sql(
SELECT t.device_index, sr.suite FROM telemetry t JOIN suite_runs sr ON sr.id = t.suite_run_id
WHERE t.run_id = ?1 AND (t.throttle_reasons & ?2) != 0
GROUP BY t.device_index, sr.id ORDER BY t.device_index, sr.id)sql");
  st.bind(1, run_id).bind(2, k_reasons_slowdown);
  while (st.step()) {
    const auto it = by_device.find(static_cast<int>(st.column_int64(0)));
    if (it != by_device.end()) out[it->second].throttled_suites.push_back(st.column_text(1));
  }
  return out;
}

}  // namespace gpubench::results
