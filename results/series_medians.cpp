#include "results/series_medians.hpp"

#include <algorithm>
#include <string>

#include "results/sqlite.hpp"

namespace gpubench::results::detail {
namespace {

// The median of `v` (reorders it); v is not empty.
double median_of(std::vector<double>& v) {
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double upper = v[mid];
  if (v.size() % 2 == 1) return upper;
  const double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return lower + (upper - lower) / 2;
}

}  // namespace

std::vector<MedianAccumulator::Slot>& MedianAccumulator::slots_of(int64_t benchmark) {
  if (benchmark != m_last_benchmark || m_slots.empty()) {
    auto [it, fresh] = m_index.try_emplace(benchmark, m_slots.size());
    if (fresh) m_slots.emplace_back(benchmark, std::vector<Slot>{});
    m_last_benchmark = benchmark;
    m_last = it->second;
  }
  return m_slots[m_last].second;
}

void MedianAccumulator::add(int64_t benchmark, int64_t metric, int64_t device, double value) {
  std::vector<Slot>& slots = slots_of(benchmark);
  for (Slot& s : slots) {
    if (s.metric == metric && s.device == device) {
      s.values.push_back(value);
      return;
    }
  }
  slots.push_back(Slot{metric, device, {value}});
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
  for (auto& [benchmark, slots] : m_slots) {
    for (Slot& s : slots) {
      rows.push_back(Row{benchmark, s.metric, s.device, static_cast<int64_t>(s.values.size()),
                         median_of(s.values)});
      if (rows.size() == k_batch) write(batch);
    }
  }
  const std::vector<Row> rest = std::move(rows);
  rows.clear();
  for (const Row& r : rest) {
    rows.push_back(r);
    write(one);
  }
  m_index.clear();
  m_slots.clear();
  m_last_benchmark = -1;
}

void refresh_series_medians(Database& db, int64_t suite_run_id) {
  MedianAccumulator acc;
  Statement st = db.prepare(
      "SELECT benchmark_id, metric_id, COALESCE(device_index, -1), value FROM samples "
      "WHERE suite_run_id = ?1 AND kind = 'iteration' AND (throttled IS NULL OR throttled = 0) "
      "ORDER BY id");
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
