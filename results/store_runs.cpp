// Store: writing runs (the run row with its host, environment, configuration, tags and GPUs;
// suite runs; a run's status) and the deduplicated rows they point at.
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "results/liveness.hpp"
#include "results/sqlite/sqlite.hpp"
#include "results/store.hpp"
#include "results/store_detail.hpp"
#include "util/clock.hpp"
#include "util/error.hpp"
#include "util/uuid.hpp"

namespace gpubench::results {

namespace fs = std::filesystem;
using detail::quoted;
using nlohmann::json;

void detail::require_run(Database& db, int64_t run_id) {
  Statement st = db.prepare("SELECT 1 FROM runs WHERE id = ?1");
  st.bind(1, run_id);
  if (!st.step()) {
    throw bad_input("unknown run id " + std::to_string(run_id),
                    "database " + quoted(db.path()) + " has no such run",
                    "list runs with `gpubench runs`");
  }
}

namespace {

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

void Store::record_machine_load(int64_t suite_run_id, const MachineLoad& load) {
  Database& db = *m_db;
  const json value = {{"loadavg_1m_start", load.loadavg_1m_start},
                      {"loadavg_1m_end", load.loadavg_1m_end},
                      {"other_cpu_s", load.other_cpu_s},
                      {"wall_s", load.wall_s}};
  Transaction tx(db);
  Statement st = db.prepare(
      "UPDATE suite_runs SET context = json_set(coalesce(context, '{}'), "
      "'$.\"gpubench.machine_load\"', json(?1)) WHERE id = ?2");
  st.bind(1, value.dump()).bind(2, suite_run_id).run();
  tx.commit();
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

void Store::record_run_outcome(int64_t run_id, RunStatus status, const std::string& reason) {
  Database& db = *m_db;
  check_database_file(run_id);
  Transaction tx(db);
  detail::require_run(db, run_id);
  Statement st = db.prepare("UPDATE runs SET status = ?1, status_reason = ?2 WHERE id = ?3");
  st.bind(1, to_string(status)).bind(2, reason).bind(3, run_id).run();
  tx.commit();
}

}  // namespace gpubench::results
