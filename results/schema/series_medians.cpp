// The per-run series medians (series_medians.hpp): gathered while samples are ingested, then
// stored in one pass.
#include "results/schema/series_medians.hpp"

#include <string>

#include "results/sqlite/multi_row_insert.hpp"
#include "results/sqlite/sqlite.hpp"
#include "util/median.hpp"

namespace gpubench::results::detail {

int32_t MedianAccumulator::slot_of(int64_t benchmark, int64_t metric, int64_t device) {
  if (benchmark != m_last_benchmark || m_last_first < 0) {
    auto [it, fresh] = m_first.try_emplace(benchmark, -1);
    m_last_benchmark = benchmark;
    m_last_first = it->second;
    if (fresh) {
      it->second = static_cast<int32_t>(m_slots.size());
      m_slots.push_back(Slot{benchmark, metric, device});
      m_last_first = it->second;
      return m_last_first;
    }
  }
  int32_t s = m_last_first;
  for (;;) {
    const Slot& slot = m_slots[static_cast<std::size_t>(s)];
    if (slot.metric == metric && slot.device == device) return s;
    if (slot.next < 0) break;
    s = slot.next;
  }
  const auto fresh = static_cast<int32_t>(m_slots.size());
  m_slots[static_cast<std::size_t>(s)].next = fresh;
  m_slots.push_back(Slot{benchmark, metric, device});
  return fresh;
}

void MedianAccumulator::add(int64_t benchmark, int64_t metric, int64_t device, double value) {
  m_values.emplace_back(slot_of(benchmark, metric, device), value);
}

void MedianAccumulator::store(Database& db, int64_t suite_run_id) {
  {
    Statement del = db.prepare("DELETE FROM series_medians WHERE suite_run_id = ?1");
    del.bind(1, suite_run_id).run();
  }
  // The values by slot (a counting sort), then each slot's median, in slot order.
  std::vector<std::size_t> start(m_slots.size() + 1, 0);
  for (const auto& [slot, value] : m_values) ++start[static_cast<std::size_t>(slot) + 1];
  for (std::size_t s = 0; s < m_slots.size(); ++s) start[s + 1] += start[s];
  std::vector<double> sorted(m_values.size());
  {
    std::vector<std::size_t> at(start.begin(), start.end() - 1);
    for (const auto& [slot, value] : m_values) sorted[at[static_cast<std::size_t>(slot)]++] = value;
  }
  std::vector<double> medians(m_slots.size());
  for (std::size_t s = 0; s < m_slots.size(); ++s) {
    medians[s] = median_in_place(sorted.data() + start[s], sorted.data() + start[s + 1]);
  }
  // Rows go in k_batch at a time (one multi-row INSERT costs about what one row does).
  constexpr std::size_t k_batch = 64;
  constexpr int k_columns = 6;
  auto sql = [](std::size_t rows) {
    return multi_row_sql(
        "INSERT INTO series_medians(suite_run_id, benchmark_id, metric_id, device_index, n, "
        "median) VALUES ",
        rows, k_columns);
  };
  Statement batch = db.prepare(sql(k_batch));
  Statement one = db.prepare(sql(1));
  insert_rows(batch, one, k_batch, m_slots.size(),
              [&](Statement& st, std::size_t first, std::size_t rows) {
                for (std::size_t r = 0; r < rows; ++r) {
                  const std::size_t s = first + r;
                  const Slot& slot = m_slots[s];
                  const int p = row_offset(r, k_columns);
                  st.bind(p + 1, suite_run_id).bind(p + 2, slot.benchmark).bind(p + 3, slot.metric);
                  st.bind(p + 4, slot.device);
                  st.bind(p + 5, static_cast<int64_t>(start[s + 1] - start[s]));
                  st.bind(p + 6, medians[s]);
                }
              });
  m_first.clear();
  m_slots.clear();
  m_values.clear();
  m_last_benchmark = -1;
  m_last_first = -1;
}

void refresh_series_medians(Database& db, int64_t suite_run_id) {
  MedianAccumulator acc;
  Statement st = db.prepare(
      "SELECT benchmark_id, metric_id, COALESCE(device_index, -1), value FROM samples "
      "WHERE suite_run_id = ?1 AND kind = 'iteration' AND (throttled IS NULL OR throttled = 0)");
  st.bind(1, suite_run_id);
  while (st.step()) {
    acc.add(st.column_int64(0), st.column_int64(1), st.column_int64(2), st.column_double(3));
  }
  acc.store(db, suite_run_id);
}

void refresh_all_series_medians(Database& db) {
  std::vector<int64_t> ids;
  Statement st = db.prepare("SELECT id FROM suite_runs ORDER BY id");
  while (st.step()) ids.push_back(st.column_int64(0));
  for (int64_t id : ids) refresh_series_medians(db, id);
}

}  // namespace gpubench::results::detail
