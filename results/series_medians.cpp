#include "results/series_medians.hpp"

#include <algorithm>
#include <string>

#include "results/sqlite.hpp"
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
  // Rows go in k_batch at a time (one multi-row INSERT costs about what one row does).
  constexpr std::size_t k_batch = 64;
  auto sql = [](std::size_t rows) {
    std::string text =
        "INSERT INTO series_medians(suite_run_id, benchmark_id, metric_id, device_index, n, "
        "median) VALUES ";
    for (std::size_t r = 0; r < rows; ++r)
      text += r == 0 ? "(?, ?, ?, ?, ?, ?)" : ", (?, ?, ?, ?, ?, ?)";
    return text;
  };
  Statement batch = db.prepare(sql(k_batch));
  Statement one = db.prepare(sql(1));
  struct Row {
    int64_t benchmark, metric, device, n;
    double median;
  };
  std::vector<Row> rows;
  rows.reserve(k_batch);
  auto write = [&](Statement& st) {
    int p = 0;
    for (const Row& r : rows) {
      st.bind(p + 1, suite_run_id).bind(p + 2, r.benchmark).bind(p + 3, r.metric);
      st.bind(p + 4, r.device).bind(p + 5, r.n).bind(p + 6, r.median);
      p += 6;
    }
    st.run();
    rows.clear();
  };
  // The values by slot (a counting sort), then each slot's median, in slot order.
  std::vector<std::size_t> start(m_slots.size() + 1, 0);
  for (const auto& [slot, value] : m_values) ++start[static_cast<std::size_t>(slot) + 1];
  for (std::size_t s = 0; s < m_slots.size(); ++s) start[s + 1] += start[s];
  std::vector<double> sorted(m_values.size());
  {
    std::vector<std::size_t> at(start.begin(), start.end() - 1);
    for (const auto& [slot, value] : m_values) sorted[at[static_cast<std::size_t>(slot)]++] = value;
  }
  for (std::size_t s = 0; s < m_slots.size(); ++s) {
    double* first = sorted.data() + start[s];
    double* last = sorted.data() + start[s + 1];
    rows.push_back(Row{m_slots[s].benchmark, m_slots[s].metric, m_slots[s].device,
                       static_cast<int64_t>(last - first), median_in_place(first, last)});
    if (rows.size() == k_batch) write(batch);
  }
  const std::vector<Row> rest = std::move(rows);
  rows.clear();
  for (const Row& r : rest) {
    rows.push_back(r);
    write(one);
  }
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
