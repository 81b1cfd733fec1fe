// Every table of the schema and how exchange (merge_database, export -> import_run_json) carries
// it, or why it does not. A table the schema has and this list lacks fails
// tests/results/test_exchange_tables.cpp: a new table is decided here, never lost silently.
#pragma once

#include <string>
#include <vector>

namespace gpubench::results {

enum class Carried {
  by_key,       // shared rows deduplicated by a natural key (fingerprint, name); ids remapped
  with_run,     // rows that belong to one run; copied with the run, ids remapped
  opt_in,       // copied only when asked (`gpubench import --with-baselines`)
  recomputed,   // derived from carried rows and rebuilt in the target
  not_carried,  // this database's own (its versions, its live processes)
};

struct ExchangedTable {
  std::string name;
  Carried how;
  // For the JSON export: the rows of this table that run ?1 needs (SELECT * ...), in an order
  // that keeps foreign keys satisfied when inserted in list order; empty when not exported.
  std::string rows_of_run;
  std::string why;  // for people: what is carried, or why not
};

// In dependency order: a table comes after every table it references.
const std::vector<ExchangedTable>& exchanged_tables();

// The entry for `table`, or null.
const ExchangedTable* find_exchanged_table(const std::string& table);

}  // namespace gpubench::results
