#include "harness/cli/p2p_matrix.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "harness/cli/cli_common.hpp"
#include "util/median.hpp"
#include "util/strings.hpp"

namespace gpubench::harness {

namespace {

// Parameters that place a result in the matrix rather than name the matrix.
bool is_placement_param(const std::string& key) {
  return key == "src" || key == "dst" || key == "device" || key == "iterations" ||
         key == "manual_time" || key == "real_time" || key == "repeats";
}

std::optional<int> int_param(const results::ResultRow& r, const char* key) {
  for (const auto& p : r.params) {
    if (p.key == key && p.number && *p.number >= 0) return static_cast<int>(*p.number);
  }
  return std::nullopt;
}

std::string uuid_of(const P2pMatrix& m, int ordinal) {
  const auto it = m.uuids.find(ordinal);
  return it == m.uuids.end() || it->second.empty() ? results::k_unknown : it->second;
}

std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", v);
  return text;
}

// A pair's values of every row: a run measures each suite in several executions (issue 35), each
// its own suite run with its own row of the pair, and a cell is the median of all of them.
using PairValues = std::map<std::pair<int, int>, std::vector<double>>;

void add_values(std::vector<double>& to, const std::vector<double>& values) {
  to.insert(to.end(), values.begin(), values.end());
}

}  // namespace

std::optional<int> perf_rank_in_label(const std::string& label) {
  static const std::string key = "CUDA performance rank ";
  const auto at = label.rfind(key);
  if (at == std::string::npos) return std::nullopt;
  std::size_t i = at + key.size();
  int rank = 0;
  const std::size_t first = i;
  for (; i < label.size() && label[i] >= '0' && label[i] <= '9' && i - first < 6; ++i) {
    rank = rank * 10 + (label[i] - '0');
  }
  if (i == first) return std::nullopt;
  return rank;
}

bool is_p2p_result(const results::ResultRow& r) {
  return int_param(r, "src") && int_param(r, "dst");
}

std::vector<P2pMatrix> build_p2p_matrices(const std::vector<results::ResultRow>& rows) {
  struct Pending {
    P2pMatrix m;
    PairValues values;
  };
  std::map<std::string, Pending> by_title;
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::string>> not_measured;  // by title
  // pct_of_link per (title, src, dst): with GB_per_s it gives the pair's link rate.
  std::map<std::string, PairValues> pct_of_link, link_basis;
  // CUDA performance rank per (title, src, dst), from the case's label.
  std::map<std::string, std::map<std::pair<int, int>, int>> perf_ranks;
  for (const auto& r : rows) {
    const auto src = int_param(r, "src");
    const auto dst = int_param(r, "dst");
    if (!src || !dst) continue;
    if (const auto rank = perf_rank_in_label(r.label)) {
      std::string t = r.suite + "/" + r.case_name;
      for (const auto& p : r.params) {
        if (!is_placement_param(p.key)) t += " " + p.key + ":" + p.text;
      }
      perf_ranks[t][{*src, *dst}] = *rank;
    }
    if (r.status == results::BenchmarkStatus::ok && !r.values.empty() &&
        (r.metric == "pct_of_link" || r.metric == "GB_per_s")) {
      std::string t = r.suite + "/" + r.case_name;
      for (const auto& p : r.params) {
        if (!is_placement_param(p.key)) t += " " + p.key + ":" + p.text;
      }
      add_values((r.metric == "pct_of_link" ? pct_of_link : link_basis)[t][{*src, *dst}], r.values);
    }
    // Skipped rows carry no metric; they are noted under every matrix of their case.
    if (r.status == results::BenchmarkStatus::ok &&
        (r.unit != "GB/s" || r.direction != results::Direction::higher)) {
      continue;
    }
    std::string title = r.suite + "/" + r.case_name;
    for (const auto& p : r.params) {
      if (!is_placement_param(p.key)) title += " " + p.key + ":" + p.text;
    }
    if (r.status != results::BenchmarkStatus::ok) {
      // Once per reason, however many executions skipped the pair the same way.
      std::string line = std::to_string(*src) + "->" + std::to_string(*dst) + ": " +
                         results::to_string(r.status) + ": " + r.message;
      auto& lines = not_measured[title];
      if (std::find(lines.begin(), lines.end(), line) == lines.end()) {
        lines.push_back(std::move(line));
      }
      continue;
    }
    if (r.values.empty()) continue;
    const std::string key = title + "|" + r.metric;
    auto [it, inserted] = by_title.try_emplace(key);
    if (inserted) {
      order.push_back(key);
      it->second.m.title = title;
      it->second.m.metric = r.metric;
      it->second.m.unit = r.unit;
    }
    add_values(it->second.values[{*src, *dst}], r.values);
  }
  // Every result of the run that ingest tied to a GPU names that GPU's UUID for its ordinal.
  std::map<int, std::string> uuids;
  for (const auto& r : rows) {
    if (r.device_index && !r.gpu_uuid.empty()) uuids.emplace(*r.device_index, r.gpu_uuid);
  }
  std::vector<P2pMatrix> out;
  for (const auto& key : order) {
    Pending& p = by_title[key];
    int size = 0;
    for (const auto& [pair, v] : p.values) size = std::max({size, pair.first + 1, pair.second + 1});
    p.m.size = size;
    p.m.cells.assign(static_cast<std::size_t>(size) * size, std::nullopt);
    for (const auto& [pair, v] : p.values) p.m.cells[pair.first * size + pair.second] = median(v);
    if (auto it = not_measured.find(p.m.title); it != not_measured.end()) {
      p.m.not_measured = it->second;
    }
    p.m.uuids = uuids;
    if (auto pct = pct_of_link.find(p.m.title); pct != pct_of_link.end()) {
      p.m.link.assign(p.m.cells.size(), std::nullopt);
      const auto& gbps = link_basis[p.m.title];
      for (const auto& [pair, pc] : pct->second) {
        const auto g = gbps.find(pair);
        if (g == gbps.end() || pair.first >= size || pair.second >= size) continue;
        const double percent = median(pc);
        if (percent <= 0) continue;
        p.m.link[pair.first * size + pair.second] = median(g->second) * 100.0 / percent;
      }
    }
    if (auto ranks = perf_ranks.find(p.m.title); ranks != perf_ranks.end()) {
      p.m.perf_rank.assign(p.m.cells.size(), std::nullopt);
      for (const auto& [pair, rank] : ranks->second) {
        if (pair.first < size && pair.second < size) {
          p.m.perf_rank[pair.first * size + pair.second] = rank;
        }
      }
    }
    out.push_back(std::move(p.m));
  }
  return out;
}

std::vector<SlowPair> find_slow_pairs(const P2pMatrix& m, double fraction) {
  std::vector<SlowPair> out;
  for (int s = 0; s < m.size; ++s) {
    for (int d = 0; d < m.size; ++d) {
      const auto v = m.at(s, d);
      if (!v) continue;
      const auto link = m.link_at(s, d);
      const auto rank = m.perf_rank_at(s, d);
      std::vector<double> siblings;
      for (int s2 = 0; s2 < m.size; ++s2) {
        for (int d2 = 0; d2 < m.size; ++d2) {
          if ((s2 == s && d2 == d) || !m.at(s2, d2)) continue;
          if (link) {
            const auto other = m.link_at(s2, d2);
            if (!other || std::abs(*other - *link) > 0.01 * *link) continue;
          }
          if (rank) {
            const auto other = m.perf_rank_at(s2, d2);
            if (other && *other != *rank) continue;
          }
          siblings.push_back(*m.at(s2, d2));
        }
      }
      if (siblings.empty()) continue;
      const double med = median(siblings);
      if (*v < fraction * med) out.push_back({s, d, *v, med});
    }
  }
  return out;
}

void print_p2p_matrices(std::ostream& out, const std::vector<P2pMatrix>& matrices) {
  for (const auto& m : matrices) {
    out << "\npeer-to-peer " << m.metric << " (" << m.unit << "), row = source GPU, column = "
        << "destination GPU: " << m.title << '\n';
    std::vector<std::string> header = {"src\\dst"};
    for (int d = 0; d < m.size; ++d) header.push_back(std::to_string(d));
    std::vector<std::vector<std::string>> table;
    for (int s = 0; s < m.size; ++s) {
      std::vector<std::string> row = {std::to_string(s)};
      for (int d = 0; d < m.size; ++d) {
        const auto v = m.at(s, d);
        row.push_back(s == d ? "-" : v ? number(*v) : "n/a");
      }
      table.push_back(std::move(row));
    }
    print_table(out, header, table);
    for (const auto& p : find_slow_pairs(m)) {
      out << "slow pair: GPU " << p.src << " (" << uuid_of(m, p.src) << ") -> GPU " << p.dst << " ("
          << uuid_of(m, p.dst) << "): " << number(p.value) << " " << m.unit << ", "
          << static_cast<int>(100.0 * p.value / p.siblings_median + 0.5)
          << "% of the median of the other pairs"
          << (m.link_at(p.src, p.dst) ? " over the same link class " : " ")
          << number(p.siblings_median) << " " << m.unit << '\n';
    }
    for (const auto& n : m.not_measured) out << "not measured: " << n << '\n';
  }
}

nlohmann::json p2p_matrices_json(const std::vector<P2pMatrix>& matrices) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& m : matrices) {
    nlohmann::json cells = nlohmann::json::array();
    for (int s = 0; s < m.size; ++s) {
      nlohmann::json row = nlohmann::json::array();
      for (int d = 0; d < m.size; ++d) {
        const auto v = m.at(s, d);
        row.push_back(v ? nlohmann::json(*v) : nlohmann::json(nullptr));
      }
      cells.push_back(row);
    }
    nlohmann::json slow = nlohmann::json::array();
    for (const auto& p : find_slow_pairs(m)) {
      slow.push_back({{"src", p.src},
                      {"dst", p.dst},
                      {"src_uuid", uuid_of(m, p.src)},
                      {"dst_uuid", uuid_of(m, p.dst)},
                      {"value", p.value},
                      {"siblings_median", p.siblings_median}});
    }
    list.push_back({{"title", m.title},
                    {"metric", m.metric},
                    {"unit", m.unit},
                    {"size", m.size},
                    {"cells", cells},
                    {"slow_pairs", slow},
                    {"not_measured", m.not_measured}});
  }
  return list;
}

}  // namespace gpubench::harness
