// Multi-row INSERTs: the SQL text for k rows of placeholders, and inserting rows k at a time
// through one prepared statement with the rest one by one (one k-row INSERT costs about what a
// single row does). Used for samples, outcomes and series medians.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "results/sqlite/sqlite.hpp"

namespace gpubench::results {

// How a statement of multi_row_sql numbers its parameters.
enum class FirstValue {
  per_row,  // every value its own parameter: row r's values are r * columns + 1 onwards
  shared,   // every row's first value is ?1, bound once (bindings outlive run()); row r's other
            // values are 2 + r * (columns - 1) onwards
};

// `head` + `rows` groups of `columns` placeholders + `tail`, e.g.
// multi_row_sql("INSERT INTO t(a, b) VALUES ", 2, 2) = "INSERT INTO t(a, b) VALUES (?, ?), (?, ?)".
// `columns` ≥ 1, `rows` ≥ 1.
std::string multi_row_sql(std::string_view head, std::size_t rows, int columns,
                          std::string_view tail = {}, FirstValue first = FirstValue::per_row);

// The parameter before row `row`'s first value of its own in a statement of multi_row_sql: with
// FirstValue::per_row, row r binds values at offset + 1 ... offset + columns; with shared, its
// values 2..columns at offset + 2 ... offset + columns.
inline int row_offset(std::size_t row, int columns, FirstValue first = FirstValue::per_row) {
  const int stride = first == FirstValue::shared ? columns - 1 : columns;
  return static_cast<int>(row) * stride;
}

// Inserts rows [0, count): full groups of `group` rows through `many` (prepared for `group` rows),
// the rest one row per run of `one`. bind_rows(statement, first, n) binds rows first..first+n-1
// into `statement` (row first + r at row_offset(r, ...)); this runs the statement after it.
template <class BindRows>
void insert_rows(Statement& many, Statement& one, std::size_t group, std::size_t count,
                 BindRows&& bind_rows) {
  std::size_t done = 0;
  for (; group > 1 && count - done >= group; done += group) {
    bind_rows(many, done, group);
    many.run();
  }
  for (; done < count; ++done) {
    bind_rows(one, done, std::size_t{1});
    one.run();
  }
}

}  // namespace gpubench::results
