// Store: a suite's results and a whole import as one transaction each (the Store's entry points
// into ingest; declared in results/store.hpp, which the rooms below ingest/ use without ingesting).
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "results/ingest/import_facts.hpp"
#include "results/ingest/ingest_detail.hpp"
#include "results/sqlite/sqlite.hpp"
#include "results/store.hpp"
#include "results/store_detail.hpp"
#include "util/error.hpp"
#include "util/uuid.hpp"

namespace gpubench::results {

using nlohmann::json;

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
  return import_run_with_facts(*this, info, suite, doc, default_suite, run_id, {});
}

StoredSuite import_run_with_facts(Store& store, const RunInfo& info, const SuiteRunInfo& suite,
                                  const json& doc, const std::string& default_suite,
                                  int64_t& run_id, const std::vector<AcceptanceFact>& facts) {
  Database& db = store.database();
  const std::string uuid = info.uuid.empty() ? make_uuid_v4() : info.uuid;
  // No liveness lock: the run is `running` only inside this transaction, which no one sees.
  Transaction tx(db);
  run_id = detail::insert_run(db, info, uuid, nullptr);
  StoredSuite out;
  out.suite_run_id = detail::insert_suite_run(db, run_id, suite);
  out.summary = detail::ingest_document(db, out.suite_run_id, doc, default_suite);
  out.ingested = true;
  insert_acceptance_facts(db, run_id, facts);
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

}  // namespace gpubench::results
