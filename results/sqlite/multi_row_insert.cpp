// Multi-row INSERT text (multi_row_insert.hpp).
#include "results/sqlite/multi_row_insert.hpp"

namespace gpubench::results {

std::string multi_row_sql(std::string_view head, std::size_t rows, int columns,
                          std::string_view tail, FirstValue first) {
  std::string group = first == FirstValue::shared ? "(?1" : "(?";
  for (int c = 1; c < columns; ++c) group += ", ?";
  group += ")";
  std::string sql(head);
  sql.reserve(head.size() + rows * (group.size() + 2) + tail.size());
  for (std::size_t r = 0; r < rows; ++r) {
    if (r > 0) sql += ", ";
    sql += group;
  }
  sql += tail;
  return sql;
}

}  // namespace gpubench::results
