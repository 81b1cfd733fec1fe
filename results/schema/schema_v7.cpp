// Schema v7 (issue 38 "history that one bad run cannot poison", "failed expectations are part of
// the run"):
//  - runs.status gains 'incomplete': every suite finished but the server missed the hardware the
//    run expected (`run --expect-gpus N`), the reason in status_reason. `latest`, tag:/host:/gpu:
//    selections, `models` and `fleet` skip it unless it is named by id or UUID. Widened as v2
//    widened it for 'abandoned' (results/schema/schema_v2.cpp: the documented writable_schema
//    edit; existing rows satisfy the wider check). An older gpubench reads such a run as failed.
//  - history_exclusions: runs left out of every history on purpose (`gpubench history exclude RUN
//    --reason TEXT`, undone by `history include RUN`), one row per run with the reason given and
//    when (ISO 8601 UTC). Run-to-run noise (compare/run_noise.hpp), `history` series and their
//    change points skip these runs; the run and its results stay; `runs`/`show`/`history` say so.
// A wider check and a new table: an older gpubench ignores the table (its histories still count
// the run) and lists an 'incomplete' run as failed, so compatible_version stays 3.
#include <cstdint>
#include <string>

#include "results/schema/schema.hpp"
#include "results/sqlite/sqlite.hpp"

namespace gpubench::results::schema {

void apply_v7(Database& db) {
  int64_t cookie = 0;
  {
    Statement st = db.prepare("PRAGMA schema_version");
    if (st.step()) cookie = st.column_int64(0);
  }
  db.exec("PRAGMA writable_schema = ON");
  db.exec(
      "UPDATE sqlite_master SET sql = replace(sql, "
      "'CHECK (status IN (''running'', ''complete'', ''interrupted'', ''failed'', "
      "''abandoned''))', "
      "'CHECK (status IN (''running'', ''complete'', ''interrupted'', ''failed'', "
      "''abandoned'', ''incomplete''))') WHERE type = 'table' AND name = 'runs'");
  db.exec("PRAGMA schema_version = " + std::to_string(cookie + 1));
  db.exec("PRAGMA writable_schema = OFF");
  db.exec(R"sql(
CREATE TABLE history_exclusions (
  run_id      INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
  reason      TEXT NOT NULL,  -- as given to `history exclude --reason`, never empty
  excluded_at TEXT NOT NULL   -- ISO 8601 UTC
);
)sql");
}

}  // namespace gpubench::results::schema
