// Store: run states. Who owns a running run, marking the runs of dead gpubench processes
// `abandoned`, and the values kept aside as invalid samples (results/liveness.hpp, issue 10).
// A suite's results and a whole import, one transaction each: results/ingest/store_ingest.cpp.
#include <unistd.h>

#include <string>
#include <utility>
#include <vector>

#include "results/liveness.hpp"
#include "results/sqlite/sqlite.hpp"
#include "results/store.hpp"
#include "results/store_detail.hpp"
#include "util/clock.hpp"
#include "util/error.hpp"

namespace gpubench::results {

RunOwner detail::load_run_owner(Database& db, int64_t run_id, const std::string& schema) {
  RunOwner owner;
  Statement st = db.prepare("SELECT lock_path, hostname, boot_id, pid FROM " + schema +
                            ".run_liveness WHERE run_id = ?1");
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
