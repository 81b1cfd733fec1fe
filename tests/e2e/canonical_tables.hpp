// Two databases compared row for row, every table (issue 43): each row as text with its ids
// replaced by the natural key of the row they name (a run by its UUID, a suite run by its run,
// suite, start and position, a benchmark by its name, a metric by name and unit, environment rows
// by fingerprint), so databases that hold the same data under other ids compare equal and a
// merge or import that skipped a table, a row or a column does not.
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "e2e_support.hpp"
#include "results/exchange/exchange_tables.hpp"
#include "util/strings.hpp"

namespace gpubench::e2e {

// Every row of every table, as text, with ids replaced by what they name, so two databases that
// hold the same data under other ids compare equal. Tables exchange does not carry are left out.
inline std::map<std::string, std::vector<std::string>> canonical_tables(const fs::path& db) {
  static const std::map<std::string, std::string> k_refs = {
      {"run_id", "(SELECT uuid FROM runs WHERE id = t.run_id)"},
      {"suite_run_id",
       "(SELECT r.uuid || '/' || sr.suite || '/' || sr.started_at || '/' || (SELECT count(*) "
       "FROM suite_runs x WHERE x.run_id = sr.run_id AND x.id <= sr.id) FROM suite_runs sr JOIN "
       "runs r ON r.id = sr.run_id WHERE sr.id = t.suite_run_id)"},
      {"benchmark_id", "(SELECT name FROM benchmarks WHERE id = t.benchmark_id)"},
      {"metric_id", "(SELECT name || '|' || unit FROM metrics WHERE id = t.metric_id)"},
      {"gpu_device_id", "(SELECT fingerprint FROM gpu_devices WHERE id = t.gpu_device_id)"},
      {"host_id", "(SELECT fingerprint FROM hosts WHERE id = t.host_id)"},
      {"software_env_id", "(SELECT fingerprint FROM software_envs WHERE id = t.software_env_id)"},
      {"configuration_id",
       "(SELECT fingerprint FROM configurations WHERE id = t.configuration_id)"},
  };
  sqlite3* raw = nullptr;
  EXPECT_EQ(sqlite3_open_v2(("file:" + db.string() + "?mode=ro").c_str(), &raw,
                            SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr),
            SQLITE_OK);
  auto rows = [&](const std::string& sql) {
    std::vector<std::string> out;
    sqlite3_stmt* st = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(raw, sql.c_str(), -1, &st, nullptr), SQLITE_OK)
        << sql << ": " << sqlite3_errmsg(raw);
    while (sqlite3_step(st) == SQLITE_ROW) {
      const unsigned char* t = sqlite3_column_text(st, 0);
      out.push_back(t ? reinterpret_cast<const char*>(t) : "NULL");
    }
    sqlite3_finalize(st);
    return out;
  };
  std::map<std::string, std::vector<std::string>> out;
  for (const std::string& table : rows(
           "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")) {
    const results::ExchangedTable* how = results::find_exchanged_table(table);
    EXPECT_NE(how, nullptr) << table << " is not in results/exchange/exchange_tables.cpp";
    if (how == nullptr || how->how == results::Carried::not_carried) continue;
    std::vector<std::string> parts;
    for (const std::string& c : rows("SELECT name FROM pragma_table_info('" + table + "')")) {
      if (c == "id") continue;
      const auto ref = k_refs.find(c);
      // An id compared as a number would make equal databases differ, or hide a wrong mapping.
      EXPECT_TRUE(ref != k_refs.end() || !c.ends_with("_id") || c == "pci_bus_id")
          << table << "." << c;
      parts.push_back("'" + c + "=' || " + (ref != k_refs.end() ? "quote(" + ref->second + ")"
                                                               : "quote(t." + c + ")"));
    }
    std::vector<std::string> r = rows("SELECT " + join(parts, " || '|' || ") + " FROM " +
                                      table + " t");
    std::sort(r.begin(), r.end());
    out[table] = r;
  }
  sqlite3_close(raw);
  return out;
}

inline void expect_same_tables(const fs::path& a, const fs::path& b) {
  const auto ta = canonical_tables(a);
  const auto tb = canonical_tables(b);
  ASSERT_EQ(ta.size(), tb.size());
  for (const auto& [table, rows] : ta) {
    SCOPED_TRACE(table);
    const auto it = tb.find(table);
    ASSERT_NE(it, tb.end());
    EXPECT_EQ(rows, it->second);
  }
}

}  // namespace gpubench::e2e
