// Store: run states. A suite's results and a whole import as one transaction each, who owns a
// running run, marking the runs of dead gpubench processes `abandoned`, and the values kept aside
// as invalid samples (results/liveness.hpp, issue 10).
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "results/ingest/ingest_stream.hpp"
#include "results/liveness.hpp"
#include "results/sqlite/sqlite.hpp"
#include "results/store.hpp"
#include "results/store_detail.hpp"
#include "util/clock.hpp"
#include "util/error.hpp"
#include "util/uuid.hpp"

namespace gpubench::results {

using nlohmann::json;

RunOwner detail::load_run_owner(Database& db, int64_t run_id) {
  RunOwner owner;
  Statement st =
      db.prepare("SELECT lock_path, hostname, boot_id, pid FROM run_liveness WHERE run_id = ?1");
  st.bind(1, run_id);
  if (st.step()) {
    owner.lock_path = st.column_text(0);
    owner.hostname = st.column_text(1);
    owner.boot_id = st.column_text(2);
    owner.pid = st.column_int64(3);
  }
  return owner;
}

int64_t detail::mark_abandoned_runs(Database& db) {
  // Judged outside any transaction (reads only), so a database busy with live runs is not
  // locked for nothing; the UPDATE re-checks the status under the write lock.
  std::vector<std::pair<int64_t, RunOwner>> dead;
  std::vector<std::string> evidence;
  {
    Statement st = db.prepare("SELECT id FROM runs WHERE status = 'running'");
    std::vector<int64_t> running;
    while (st.step()) running.push_back(st.column_int64(0));
    for (int64_t id : running) {
      RunOwner owner = load_run_owner(db, id);
      const Liveness l = judge_run_owner(owner);
      if (l.alive) continue;
      dead.emplace_back(id, std::move(owner));
      evidence.push_back(l.evidence);
    }
  }
  if (dead.empty()) return 0;
  int64_t marked = 0;
  Transaction tx(db);
  Statement upd = db.prepare(
      "UPDATE runs SET status = 'abandoned', finished_at = ?1, status_reason = ?2 "
      "WHERE id = ?3 AND status = 'running'");
  for (size_t i = 0; i < dead.size(); ++i) {
    upd.bind(1, now_iso8601_utc())
        .bind(2, "gpubench stopped without finishing the run (" + evidence[i] +
                     "); its finished suites are kept")
        .bind(3, dead[i].first)
        .run();
    marked += db.changes();
  }
  tx.commit();
  for (const auto& [id, owner] : dead) {
    if (!owner.lock_path.empty()) ::unlink(owner.lock_path.c_str());
  }
  return marked;
}

StoredSuite Store::store_suite(int64_t run_id, const SuiteRunInfo& suite, const json* doc,
                               const std::string& default_suite,
                               const std::vector<TelemetrySample>& telemetry) {
  Database& db = *m_db;
  check_database_file(run_id);
  Transaction tx(db);
  StoredSuite out;
  out.suite_run_id = detail::insert_suite_run(db, run_id, suite);
  if (doc != nullptr) {
    out.summary = detail::ingest_document(db, out.suite_run_id, *doc, default_suite);
    out.ingested = true;
  }
  detail::insert_telemetry(db, run_id, out.suite_run_id, telemetry);
  tx.commit();
  return out;
}

StoredSuite Store::import_run(const RunInfo& info, const SuiteRunInfo& suite, const json& doc,
                              const std::string& default_suite, int64_t& run_id) {
  Database& db = *m_db;
  const std::string uuid = info.uuid.empty() ? make_uuid_v4() : info.uuid;
  // No liveness lock: the run is `running` only inside this transaction, which no one sees.
  Transaction tx(db);
  run_id = detail::insert_run(db, info, uuid, nullptr);
  StoredSuite out;
  out.suite_run_id = detail::insert_suite_run(db, run_id, suite);
  out.summary = detail::ingest_document(db, out.suite_run_id, doc, default_suite);
  out.ingested = true;
  detail::update_run_status(db, run_id, RunStatus::complete);
  tx.commit();
  return out;
}

struct Store::RunImport::State {
  State(Database& db_, const RunInfo& info, const SuiteRunInfo& suite, const json& context,
        const std::string& default_suite)
      : db(db_),
        fk_off(db_),
        tx(db_),
        run_id(
            detail::insert_run(db_, info, info.uuid.empty() ? make_uuid_v4() : info.uuid, nullptr)),
        suite_run_id(detail::insert_suite_run(db_, run_id, suite)),
        ingest(db_, suite_run_id, context, default_suite) {}
  // Foreign keys are not checked while the import's rows go in (every id it writes is one it
  // just read or inserted in this transaction; checking each sample's four parents is a tenth of
  // a large import's time). SQLite ignores the pragma inside a transaction, so it is set before
  // the transaction begins and set back after it ends.
  struct ForeignKeysOff {
    explicit ForeignKeysOff(Database& d) : db(d) { db.exec("PRAGMA foreign_keys = OFF"); }
    ~ForeignKeysOff() {
      try {
        db.exec("PRAGMA foreign_keys = ON");
      } catch (const Error&) {  // NOLINT(bugprone-empty-catch): the connection is closing
      }
    }
    ForeignKeysOff(const ForeignKeysOff&) = delete;
    ForeignKeysOff& operator=(const ForeignKeysOff&) = delete;
    Database& db;
  };
  Database& db;
  ForeignKeysOff fk_off;
  // No liveness lock: the run is `running` only inside this transaction, which no one sees.
  Transaction tx;
  int64_t run_id;
  int64_t suite_run_id;
  detail::DocumentIngest ingest;
};

Store::RunImport::RunImport(std::unique_ptr<State> state) : m(std::move(state)) {}
Store::RunImport::~RunImport() = default;
int64_t Store::RunImport::run_id() const {
  return m->run_id;
}
std::unique_ptr<EntryWork> Store::RunImport::prepare(const StreamedEntry& entry,
                                                     std::size_t index) const {
  return m->ingest.prepare(entry, index);
}
void Store::RunImport::add(const StreamedEntry& entry, std::size_t index, EntryWork* prepared) {
  m->ingest.add(entry, index, prepared);
}
StoredSuite Store::RunImport::finish() {
  StoredSuite out;
  out.suite_run_id = m->suite_run_id;
  out.summary = m->ingest.finish();
  out.ingested = true;
  detail::update_run_status(m->db, m->run_id, RunStatus::complete);
  m->tx.commit();
  return out;
}

std::unique_ptr<Store::RunImport> Store::begin_import(const RunInfo& info,
                                                      const SuiteRunInfo& suite,
                                                      const json& context,
                                                      const std::string& default_suite) {
  return std::unique_ptr<RunImport>(new RunImport(
      std::make_unique<RunImport::State>(*m_db, info, suite, context, default_suite)));
}

std::vector<InvalidSample> Store::get_invalid_samples(int64_t run_id) {
  Database& db = *m_db;
  std::vector<InvalidSample> out;
  Statement st = db.prepare(R"sql(
SELECT sr.suite, b.name, i.metric, i.kind, i.repetition, i.device_index, i.raw, i.reason
FROM invalid_samples i JOIN suite_runs sr ON sr.id = i.suite_run_id
JOIN benchmarks b ON b.id = i.benchmark_id
WHERE sr.run_id = ?1 ORDER BY i.id)sql");
  st.bind(1, run_id);
  while (st.step()) {
    InvalidSample v;
    v.suite = st.column_text(0);
    v.benchmark = st.column_text(1);
    v.metric = st.column_text(2);
    v.kind = st.column_text(3);
    v.repetition = st.column_optional_int64(4);
    v.device_index = st.column_optional_int64(5);
    v.raw = st.column_text(6);
    v.reason = st.column_text(7);
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace gpubench::results
