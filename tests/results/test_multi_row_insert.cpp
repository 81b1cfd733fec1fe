// results/sqlite/multi_row_insert.hpp: the SQL text, the parameter numbering and the k-then-single
// split, against a real SQLite file.
#include "results/sqlite/multi_row_insert.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "results/sqlite/sqlite.hpp"
#include "util/fs.hpp"

namespace gpubench::results {
namespace {

TEST(MultiRowInsert, SqlText) {
  EXPECT_EQ(multi_row_sql("INSERT INTO t(a, b) VALUES ", 1, 2),
            "INSERT INTO t(a, b) VALUES (?, ?)");
  EXPECT_EQ(multi_row_sql("I ", 3, 1, " ON CONFLICT DO NOTHING"),
            "I (?), (?), (?) ON CONFLICT DO NOTHING");
  EXPECT_EQ(multi_row_sql("I ", 2, 3, {}, FirstValue::shared), "I (?1, ?, ?), (?1, ?, ?)");
}

TEST(MultiRowInsert, RowOffsets) {
  EXPECT_EQ(row_offset(0, 5), 0);
  EXPECT_EQ(row_offset(2, 5), 10);
  // Shared first value: row r's own values start after ?1 and the rows before it.
  EXPECT_EQ(row_offset(0, 3, FirstValue::shared), 0);
  EXPECT_EQ(row_offset(2, 3, FirstValue::shared), 4);
}

// Inserts `count` rows (i, 10 * i) in groups of `group` and returns what the table holds, and
// how the rows were split into statements.
struct Inserted {
  std::vector<std::pair<int64_t, int64_t>> rows;
  std::vector<std::size_t> statement_sizes;
};

Inserted insert_count(std::size_t count, std::size_t group, FirstValue first) {
  TempDir dir("gpubench-test-multi-row");
  Database db = Database::open(dir.path() / "t.db", Access::read_write_create, 1000);
  db.exec("CREATE TABLE t(tag INTEGER, i INTEGER, v INTEGER)");
  const int columns = 3;
  const char* head = "INSERT INTO t(tag, i, v) VALUES ";
  Statement many = db.prepare(multi_row_sql(head, group, columns, {}, first));
  Statement one = db.prepare(multi_row_sql(head, 1, columns, {}, first));
  if (first == FirstValue::shared) {
    many.bind(1, int64_t{7});
    one.bind(1, int64_t{7});
  }
  Inserted out;
  insert_rows(many, one, group, count, [&](Statement& st, std::size_t from, std::size_t n) {
    out.statement_sizes.push_back(n);
    for (std::size_t r = 0; r < n; ++r) {
      const auto i = static_cast<int64_t>(from + r);
      const int p = row_offset(r, columns, first);
      if (first == FirstValue::per_row) st.bind(p + 1, int64_t{7});
      st.bind(p + 2, i).bind(p + 3, 10 * i);
    }
  });
  Statement sel = db.prepare("SELECT tag, i, v FROM t ORDER BY rowid");
  while (sel.step()) {
    EXPECT_EQ(sel.column_int64(0), 7);
    out.rows.emplace_back(sel.column_int64(1), sel.column_int64(2));
  }
  return out;
}

TEST(MultiRowInsert, FullGroupsThenSingleRowsInOrder) {
  for (FirstValue first : {FirstValue::per_row, FirstValue::shared}) {
    const Inserted got = insert_count(9, 4, first);
    EXPECT_EQ(got.statement_sizes, (std::vector<std::size_t>{4, 4, 1}));
    ASSERT_EQ(got.rows.size(), 9u);
    for (std::size_t i = 0; i < got.rows.size(); ++i) {
      EXPECT_EQ(got.rows[i].first, static_cast<int64_t>(i));
      EXPECT_EQ(got.rows[i].second, 10 * static_cast<int64_t>(i));
    }
  }
  EXPECT_EQ(insert_count(3, 4, FirstValue::per_row).statement_sizes,
            (std::vector<std::size_t>{1, 1, 1}));
  EXPECT_EQ(insert_count(8, 4, FirstValue::shared).statement_sizes,
            (std::vector<std::size_t>{4, 4}));
  EXPECT_TRUE(insert_count(0, 4, FirstValue::per_row).rows.empty());
}

}  // namespace
}  // namespace gpubench::results
