// Schema v8 (issue 40 "side by side with the tools people already trust"):
//  - acceptance_facts: what another tool stated about the node or one GPU, kept with the run it
//    was imported as (`gpubench import` of `dcgmi diag` text or `-j` JSON): one row per (test,
//    GPU) in the order the tool printed them, with the tool's result (pass, fail, warn, skip) and
//    its own words. `show`/`report` list them and `accept` can require a test to pass
//    (results/acceptance_facts.hpp). Exported and merged with their run.
// A new table: an older gpubench ignores it (and cannot `accept` on it), so compatible_version
// stays 3.
#include "results/schema/schema.hpp"
#include "results/sqlite/sqlite.hpp"

namespace gpubench::results::schema {

void apply_v8(Database& db) {
  db.exec(R"sql(
CREATE TABLE acceptance_facts (
  run_id    INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  position  INTEGER NOT NULL,  -- 0-based, the order the tool printed them
  source    TEXT NOT NULL,     -- the tool: 'dcgmi diag'
  test      TEXT NOT NULL,     -- the tool's test name as printed: 'Memory', 'pcie', 'Targeted Power'
  gpu_index INTEGER NOT NULL,  -- the tool's GPU index; -1 for a fact about the whole node
  gpu_uuid  TEXT NOT NULL,     -- where the tool names it, else ''
  result    TEXT NOT NULL CHECK (result IN ('pass', 'fail', 'warn', 'skip')),
  info      TEXT NOT NULL,     -- the tool's warnings and info for this test and GPU, may be ''
  PRIMARY KEY (run_id, position)
) WITHOUT ROWID;
)sql");
}

}  // namespace gpubench::results::schema
